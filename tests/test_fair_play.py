"""Fair play, through Textual's Pilot: the clock runs while the board is in view, a new
game starts at r1c1, the daily is played once, and no game is dropped by surprise."""

from __future__ import annotations

import pytest
from textual.screen import Screen

from kaldoku_tui.app import build_app
from kaldoku_tui.cli import app_config, command_parser, main
from kaldoku_tui.engine.kinds import GameKind
from kaldoku_tui.engine.daily import daily_kind, daily_puzzle, result_line, utc_day
from kaldoku_tui.screens.win import WinScreen
from kaldoku_tui.session.moves import Place
from kaldoku_tui.session.store import open_store

from kaldoku_tui.screens.help import HelpScreen
from kaldoku_tui.screens.inspector import InspectorScreen
from kaldoku_tui.screens.settings import SettingsScreen

from conftest import game_app, workers_done
from screen import screen_text

SIZE = (80, 24)


@pytest.mark.parametrize("key, dialog", [("i", InspectorScreen), ("o", SettingsScreen),
                                         ("question_mark", HelpScreen)])
async def test_the_clock_runs_behind_a_dialog_that_leaves_the_board_in_view(
        example, tmp_path, key, dialog):
    now = [0.0]
    app = game_app(example, tmp_path, now=lambda: now[0])
    async with app.run_test(size=SIZE) as pilot:
        now[0] = 17.0
        await pilot.press(key)
        assert isinstance(app.screen, dialog)
        now[0] = 27.0
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is app.game
        app.game.tick()
        assert app.game.title_bar.text.endswith("0:27")


async def test_the_clock_runs_behind_the_palette(example, tmp_path):
    now = [0.0]
    app = game_app(example, tmp_path, now=lambda: now[0])
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+p")
        await pilot.pause()
        assert app.screen is not app.game
        now[0] = 10.0
        await pilot.press("escape")
        await pilot.pause()
        app.game.tick()
        assert app.game.title_bar.text.endswith("0:10")


async def test_the_clock_stops_while_a_screen_covers_the_board(example, tmp_path):
    now = [0.0]
    app = game_app(example, tmp_path, now=lambda: now[0])
    async with app.run_test(size=SIZE) as pilot:
        now[0] = 5.0
        await app.push_screen(Screen())
        await pilot.pause()
        now[0] = 50.0
        app.pop_screen()
        await pilot.pause()
        app.game.tick()
        assert app.game.title_bar.text.endswith("0:05")


async def test_a_new_game_starts_with_the_cursor_at_r1c1(example, tmp_path):
    app = game_app(example, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("right", "down", "right")
        assert app.game.grid.cursor == (1, 2)
        await pilot.press("g", "4", "enter")
        await workers_done(app)
        await pilot.pause()
        assert app.screen is app.game and app.game.session.board.size == 4
        assert app.game.session.board.puzzle != example
        assert app.game.grid.cursor == (0, 0)


DAY = utc_day()  # begun on its day: the daily counts for the streak and leaderboard


def daily_app(tmp_path, now):
    """The app as `kaldoku daily` opens it on a fresh daily (a clock driven by hand)."""
    return game_app(daily_puzzle(DAY), tmp_path, kind=daily_kind(DAY), now=now)


async def test_the_title_says_the_daily_and_its_day(tmp_path):
    now = [0.0]
    app = daily_app(tmp_path, lambda: now[0])
    async with app.run_test(size=SIZE):
        # e.g. "Daily 2026-11-26 · 6×6 · +−×÷ · hard"
        assert f"Daily {DAY} · {daily_kind(DAY).describe()}" in app.game.title_bar.text


async def test_the_daily_once_won_shows_its_result_and_plays_again_as_practice(tmp_path):
    now = [0.0]
    app = daily_app(tmp_path, lambda: now[0])
    async with app.run_test(size=SIZE) as pilot:
        now[0] = 252.0
        session = app.game.session
        for r, c in session.puzzle.cells:
            app.game.grid.cursor = (r, c)
            await pilot.press(str(session.puzzle.solution[r][c]))
        await pilot.pause()
        assert isinstance(app.screen, WinScreen)
    won = [g for g in open_store(tmp_path).history() if g.outcome == "won"]
    assert len(won) == 1 and won[0].elapsed == 252.0

    now = [1000.0]
    app = daily_app(tmp_path, lambda: now[0])
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        shown = screen_text(app)
        assert "Solved in 4:12" in shown and "no help" in shown
        assert result_line(DAY, "4:12", 0) + " · streak 1" in shown
        assert "practi" in shown.lower()
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is app.game
        assert f"Daily {DAY} (practice)" in app.game.title_bar.text
        now[0] = 1100.0  # a memorised second solve, faster
        session = app.game.session
        for r, c in session.puzzle.cells:
            app.game.grid.cursor = (r, c)
            await pilot.press(str(session.puzzle.solution[r][c]))
        await pilot.pause()
        shown = screen_text(app)
        assert isinstance(app.screen, WinScreen)
        assert "New best time!" not in shown and "1:40" in shown
        assert "kaldoku daily" not in shown  # no share line for practice
    store = open_store(tmp_path)
    assert [g.elapsed for g in store.history() if g.outcome == "won"] == [252.0]
    assert store.record(daily_kind(DAY)).won == 1
    assert store.daily_days() == {DAY}
    assert [s.time for s in store.daily_leaderboard(DAY)] in ([], [252.0])


async def test_a_new_game_keeps_the_one_in_progress_to_resume(example, tmp_path):
    now = [0.0]
    app = game_app(example, tmp_path, now=lambda: now[0])
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("3")
        now[0] = 30.0
        first = app.game.session.journal.game_id
        await pilot.press("g")
        await pilot.pause()
        assert "your 4×4 in progress stays in the unfinished list" in screen_text(app).lower()
        await pilot.press("4", "enter")
        await workers_done(app)
        await pilot.pause()
        assert app.game.session.journal.game_id != first
        await pilot.press("5")  # a move in the new game: it stays unfinished too
        await pilot.press("G")
        await pilot.pause()
        shown = screen_text(app)
        assert "Unfinished games" in shown and "1 move" in shown and "0:30" in shown
        await pilot.press("down", "enter")  # the older game: listed second
        await pilot.pause()
        assert app.screen is app.game
        assert app.game.session.journal.game_id == first
        assert app.game.session.board.digit((0, 0)) == 3
        assert app.game.title_bar.text.endswith("0:30")
    assert {g.id for g in open_store(tmp_path).open_games()} >= {first}
    assert not [g for g in open_store(tmp_path).history() if g.outcome == "left"]


def test_kaldoku_games_lists_the_unfinished_and_resume_takes_one_up(example, tmp_path, capsys):
    store = open_store(tmp_path)
    from kaldoku_tui.session.snapshot import attach
    from kaldoku_tui.session import Session

    journal, _ = store.new_game(example, GameKind.of(example))
    session = attach(Session(example, journal=journal, now=lambda: 0.0))
    session.apply(Place((0, 0), 3))
    session.apply(Place((0, 1), 1))
    store.close()
    assert main(["games", "--data-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "4×4" in out and f"{journal.game_id} " in out and " 2 " in out
    config = app_config(command_parser().parse_args(
        ["resume", str(journal.game_id), "--data-dir", str(tmp_path)]))
    assert config.game == journal.game_id
    app = build_app(config)
    assert app.game.session.board.digit((0, 1)) == 1
    app.services.store.close()
    assert main(["resume", "99", "--data-dir", str(tmp_path)]) == 2
    assert "no unfinished game 99" in capsys.readouterr().err


async def test_the_daily_archive_shows_the_days_solved_and_plays_a_past_day(example, tmp_path):
    from datetime import timedelta

    from kaldoku_tui.session import Session
    from kaldoku_tui.session.snapshot import attach

    solved, unplayed = DAY - timedelta(days=1), DAY - timedelta(days=2)
    store = open_store(tmp_path)
    puzzle = daily_puzzle(solved)
    journal, _ = store.new_game(puzzle, daily_kind(solved), solved)
    session = attach(Session(puzzle, daily_kind(solved), journal=journal, now=lambda: 0.0))
    for r, c in puzzle.cells:
        session.apply(Place((r, c), puzzle.solution[r][c]))
    assert session.outcome == "won"
    store.close()

    app = game_app(example, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("D")
        await pilot.pause()
        shown = screen_text(app)
        assert "Daily archive" in shown
        assert f"{DAY} " in shown and f"{solved} " in shown
        line = next(line for line in shown.splitlines() if f"{solved} " in line)
        assert "solved" in line
        assert "solved" not in next(line for line in shown.splitlines() if f"{unplayed} " in line)
        await pilot.press("down", "down", "enter")
        await workers_done(app)
        await pilot.pause()
        assert app.screen is app.game
        assert app.game.session.puzzle.meta.get("daily") == unplayed.isoformat()
        assert f"Daily {unplayed} ·" in app.game.title_bar.text


@pytest.mark.parametrize("key", ["D", "G"])
async def test_a_burst_of_enters_in_a_list_picks_once(example, tmp_path, key):
    from textual import events

    app = game_app(example, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("1", key)
        await pilot.pause()
        for _ in range(3):
            app.post_message(events.Key("enter", "\r"))
        await pilot.pause()
        await workers_done(app)
        await pilot.pause()
        assert app.screen is app.game


async def test_the_archive_takes_page_keys_in_a_tiny_terminal(example, tmp_path):
    app = game_app(example, tmp_path)
    async with app.run_test(size=(20, 4)) as pilot:
        await pilot.press("D")
        await pilot.pause()
        await pilot.press("end", "pageup", "pagedown", "escape")
        await pilot.pause()
        assert app.screen is app.game
