"""Progress: daily games kept as such and their streaks, the schema migration, history,
export and replay (pure, on the command line and on screen), the statistics screen and
what the win screen offers (share code, a daily's result line, a replay)."""

from __future__ import annotations

import json
import shutil
import sqlite3
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import pytest

from kaldoku_tui.cli import main
from kaldoku_tui.engine.codes import read_code, share_code
from kaldoku_tui.engine.daily import Streaks, daily_kind, daily_puzzle, utc_day
from kaldoku_tui.engine.formats import read_keen, read_puzzles
from kaldoku_tui.engine.kinds import GameKind
from kaldoku_tui.screens.records import RecordsScreen, TimeChart
from kaldoku_tui.session.game import clock_text
from kaldoku_tui.screens.replay import ReplayScreen, replay_frames
from kaldoku_tui.screens.win import WinScreen
from kaldoku_tui.session import Session
from kaldoku_tui.session.store import base as store_module
from kaldoku_tui.session.moves import Check, Fill, Move, Note, Place, Reveal, Undo
from kaldoku_tui.session.store import DB_FILE, Store, open_store
from kaldoku_tui.session.store.schema import SCHEMA_VERSION

from conftest import EXAMPLE_ID, EXAMPLE_SOLUTION, game_app, sql, sql_write, until, workers_done
from screen import screen_lines, screen_text
from test_looks import not_ascii
from test_records import solve_by_keys

SCHEMA_1_HOME = Path(__file__).parent / "data" / "kaldoku-schema-1"
"""A database made by kaldoku at 7d04ff8 (schema 1): game 1, the formats.md 4×4 won in
0:40 without help (16 moves); game 2, the daily puzzle of 2026-11-23 as that kaldoku
played it (through its share code, not known as daily) left at 0:07 with a digit and a
note; shading turned on in the settings."""

MONDAY = date(2026, 11, 23)


@pytest.fixture
def example4():
    return read_keen(EXAMPLE_ID).with_solution(EXAMPLE_SOLUTION)


def begun_on(monkeypatch, day: date) -> None:
    """Make the store's clock say noon (UTC) of `day`."""
    stamp = datetime(day.year, day.month, day.day, 12, tzinfo=timezone.utc).isoformat(timespec="seconds")
    monkeypatch.setattr(store_module, "now_iso", lambda: stamp)


def play(store: Store, puzzle, moves, daily: date | None = None) -> Session:
    journal, notice = store.new_game(puzzle, GameKind.of(puzzle), daily)
    assert notice is None
    clock = [0.0]
    session = Session(puzzle, journal=journal, now=lambda: clock[0])
    for move in moves:
        clock[0] += 3.0
        session.apply(move)
    return session


def solving(puzzle) -> list[Move]:
    return [Place((r, c), d) for r, row in enumerate(puzzle.solution) for c, d in enumerate(row)]


def win_daily(store: Store, monkeypatch, day: date, begun: date | None = None) -> None:
    begun_on(monkeypatch, begun or day)
    puzzle = daily_puzzle(day) if day.weekday() == 0 else None
    # Only Mondays are made (4×4, fast); other days reuse a Monday's puzzle under their date.
    puzzle = puzzle or daily_puzzle(MONDAY)
    assert play(store, puzzle, solving(puzzle), daily=day).outcome == "won"


def one_line_error(capsys) -> str:
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("kaldoku: error: ") and err.count("\n") == 1, err
    return err


# --- The schema migration -------------------------------------------------------------


def test_a_schema_1_database_is_migrated_in_place_and_keeps_everything(tmp_path):
    shutil.copy(SCHEMA_1_HOME / DB_FILE, tmp_path / DB_FILE)
    before = sqlite3.connect(tmp_path / DB_FILE)
    assert before.execute("PRAGMA user_version").fetchone()[0] == 1
    old_games = before.execute("SELECT * FROM games ORDER BY id").fetchall()
    old_moves = before.execute("SELECT * FROM moves ORDER BY game, seq").fetchall()
    before.close()
    assert len(old_games) == 2 and len(old_moves) == 18

    store = open_store(tmp_path)
    assert store.notices == [], "migrated, not set aside"
    assert not [p for p in tmp_path.iterdir() if ".unusable" in p.name]
    assert sql(tmp_path, "PRAGMA user_version") == [(SCHEMA_VERSION,)] and SCHEMA_VERSION == 4
    games = sql(tmp_path, "SELECT * FROM games ORDER BY id")
    assert [row[:-3] for row in games] == old_games, "every column kept as it was"
    assert [row[-3] for row in games] == [None, None], "schema 1 marked no game daily"
    assert [row[-2:] for row in games] == [("local", None)] * 2, "the local player's, unchecked"
    assert sql(tmp_path, "SELECT game, seq, move, elapsed, at FROM moves ORDER BY game, seq") == old_moves
    assert store.settings() == {"shade_peers": True}
    (won_kind, won), = store.records()
    assert (won_kind, won.played, won.won, won.best) == (GameKind(4), 1, 1, 40.0)
    saved = store.resume(store.open_games()[0].id).game
    resumed = Session.resume(saved.puzzle, saved.moves, saved.kind, elapsed=saved.elapsed)
    assert resumed.board.digit((0, 0)) == saved.puzzle.solution[0][0]
    assert resumed.board.view().marks == {(1, 1): frozenset({2})}
    # A daily game can be kept in the migrated database, and opening it again changes nothing.
    store.new_game(daily_puzzle(MONDAY), daily_kind(MONDAY), MONDAY)
    store.close()
    again = open_store(tmp_path)
    assert sql(tmp_path, "SELECT daily FROM games ORDER BY id") == [(None,), (None,), ("2026-11-23",)]
    again.close()


def test_a_database_from_a_newer_kaldoku_is_set_aside_not_migrated(tmp_path):
    conn = sqlite3.connect(tmp_path / DB_FILE)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    store = open_store(tmp_path)
    assert "newer kaldoku" in store.notices[0]
    assert sql(tmp_path, "PRAGMA user_version") == [(SCHEMA_VERSION,)]


# --- Streaks in the store ---------------------------------------------------------------


def test_streaks_count_dailies_won_on_their_own_day(tmp_path, monkeypatch, example4):
    store = open_store(tmp_path)
    for offset in (-5, -4, -3, -1, 0):
        win_daily(store, monkeypatch, MONDAY + timedelta(days=offset))
    assert store.streaks(MONDAY) == Streaks(2, 3)
    assert store.streaks(MONDAY + timedelta(days=1)) == Streaks(2, 3), "tomorrow is still open"
    assert store.streaks(MONDAY + timedelta(days=2)) == Streaks(0, 3), "a day missed ends it"


def test_what_does_not_count_for_a_streak(tmp_path, monkeypatch, example4):
    store = open_store(tmp_path)
    win_daily(store, monkeypatch, MONDAY - timedelta(days=2))
    # Yesterday's puzzle played today is practice; today's revealed is not won; an
    # ordinary game won today is not a daily.
    win_daily(store, monkeypatch, MONDAY - timedelta(days=1), begun=MONDAY)
    begun_on(monkeypatch, MONDAY)
    play(store, daily_puzzle(MONDAY), [Reveal()], daily=MONDAY)
    play(store, example4, solving(example4))
    assert store.daily_days() == {MONDAY - timedelta(days=2)}
    assert store.streaks(MONDAY) == Streaks(0, 1)


def test_a_daily_begun_before_midnight_and_won_after_counts_for_its_day(tmp_path, monkeypatch):
    store = open_store(tmp_path)
    begun_on(monkeypatch, MONDAY)
    puzzle = daily_puzzle(MONDAY)
    journal, _ = store.new_game(puzzle, daily_kind(MONDAY), MONDAY)
    session = Session(puzzle, journal=journal, now=lambda: 0.0)
    begun_on(monkeypatch, MONDAY + timedelta(days=1))  # the winning moves come after midnight
    for move in solving(puzzle):
        session.apply(move)
    assert sql(tmp_path, "SELECT substr(ended, 1, 10) FROM games") == [("2026-11-24",)]
    assert store.daily_days() == {MONDAY}


# --- kaldoku stats, daily, history, export, replay ------------------------------------------


def test_stats_prints_and_gives_the_streaks(tmp_path, monkeypatch, capsys):
    store = open_store(tmp_path)
    today = utc_day()
    for offset in (-3, -1, 0):
        win_daily(store, monkeypatch, today + timedelta(days=offset))
    store.close()
    assert main(["stats", "--json", "--data-dir", str(tmp_path)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["streak"] == {"current": 2, "longest": 2}
    assert [(k["kind"], k["won"]) for k in data["kinds"]] == [("4/all/normal", 3)]
    assert main(["stats", "--data-dir", str(tmp_path)]) == 0
    assert "Daily puzzle streak: 2 days now, longest 2 days." in capsys.readouterr().out


def test_kaldoku_daily_keeps_the_game_as_daily_and_resumes_it(monkeypatch, tmp_path, on_a_terminal):
    import kaldoku_tui.app as app_module

    monkeypatch.setenv("KALDOKU_HOME", str(tmp_path))
    built = []
    monkeypatch.setattr(app_module, "run", lambda args: built.append(app_module.build_app(args)) or 0)
    assert main(["daily", "--date", "2026-11-23"]) == 0
    first = built[0].game.session
    built[0].services.store.close()
    assert main(["daily", "--date", "2026-11-23"]) == 0
    again = built[1].game.session
    built[1].services.store.close()
    assert again.journal.game_id == first.journal.game_id, "the day's game in progress goes on"
    assert sql(tmp_path, "SELECT id, daily FROM games") == [(first.journal.game_id, "2026-11-23")]


def test_history_lists_games_with_their_codes(tmp_path, monkeypatch, capsys, example4):
    store = open_store(tmp_path)
    begun_on(monkeypatch, MONDAY)
    play(store, example4, solving(example4))
    play(store, daily_puzzle(MONDAY), [Check()] + solving(daily_puzzle(MONDAY)), daily=MONDAY)
    play(store, example4, [])  # untouched so far: in progress
    store.close()
    assert main(["history", "--data-dir", str(tmp_path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["ID", "Begun", "(UTC)", "Kind", "of", "game", "Outcome", "Time",
                                "Share", "code"]
    assert len(lines) == 4
    third, second, first = (line.split() for line in lines[1:])
    assert third[:3] == ["3", "2026-11-23", "12:00"] and "playing" in third
    assert second[:5] == ["2", "2026-11-23", "12:00", "daily", "2026-11-23"]
    assert " ".join(second[-5:-2]) == "won with help" and second[-2] == "0:51"  # a check, 16 digits
    assert first[-3:-1] == ["won", "0:48"]
    assert read_code(first[-1]) == example4
    assert read_code(second[-1]) == daily_puzzle(MONDAY)
    assert main(["history", "--count", "1", "--data-dir", str(tmp_path)]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 2


def test_export_prints_the_game_in_progress_or_game_id(tmp_path, capsys, example4):
    store = open_store(tmp_path)
    won = play(store, example4, solving(example4))
    playing = play(store, daily_puzzle(MONDAY), [Place((0, 0), 1), Undo()])
    store.close()
    home = ["--data-dir", str(tmp_path)]
    assert main(["export", *home]) == 0
    assert read_puzzles(capsys.readouterr().out) == [daily_puzzle(MONDAY)]
    assert main(["export", str(won.journal.game_id), "--format", "keen", *home]) == 0
    assert capsys.readouterr().out == EXAMPLE_ID + "\n"
    assert main(["export", "1", "--format", "code", *home]) == 0
    assert read_code(capsys.readouterr().out.strip()) == example4
    assert main(["export", "1", "--format", "text", *home]) == 0
    typed, = read_puzzles(capsys.readouterr().out)
    assert (typed.size, typed.cages, typed.solution) == (4, example4.cages, None), "cages, no answer"
    assert main(["export", "--moves", str(playing.journal.game_id), *home]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(m["seq"], m["move"], m["elapsed"]) for m in lines] == [(1, "place", 3.0), (2, "undo", 6.0)]
    assert lines[0]["states"] == [[0, 0, 1, []]]


def test_export_feeds_solve(tmp_path, capsys, monkeypatch, example4):
    store = open_store(tmp_path)
    play(store, example4, [Place((0, 0), 1)])
    store.close()
    assert main(["export", "--data-dir", str(tmp_path)]) == 0
    monkeypatch.setattr("sys.stdin", __import__("io").StringIO(capsys.readouterr().out))
    assert main(["solve"]) == 0
    assert capsys.readouterr().out.split() == ["1234", "4123", "3412", "2341"]


@pytest.mark.parametrize("argv, message", [
    (["replay"], "required: ID"),
    (["replay", "x"], "game ID is a whole number"),
    (["replay", "0"], "game ID is a whole number"),
    (["replay", "-3"], "game ID is a whole number"),
    (["replay", "1.5"], "game ID is a whole number"),
    (["replay", "99"], "no game 99"),
    (["replay", "1", "2"], "unrecognized arguments"),
    (["export", "abc"], "game ID is a whole number"),
    (["export", "99999999999999999999999"], "game ID is a whole number"),
    (["export", "99"], "no game 99"),
    (["export", "--format", "yaml"], "invalid choice: 'yaml'"),
    (["export", "--format", "keen", "--moves"], "not allowed with"),
    (["history", "--count", "0"], "count must be at least 1"),
    (["history", "x"], "unrecognized arguments"),
    (["stats", "--streak"], "unrecognized arguments"),
])
def test_bad_ids_and_arguments_are_one_line_and_status_2(tmp_path, capsys, example4, argv, message):
    store = open_store(tmp_path)
    play(store, example4, [])
    store.close()
    assert main([*argv, "--data-dir", str(tmp_path)]) == 2
    assert message in one_line_error(capsys)


def test_export_with_no_game_in_progress_and_a_game_that_cannot_be_read(tmp_path, capsys, example4):
    store = open_store(tmp_path)
    play(store, example4, solving(example4))
    sql_write(tmp_path, lambda c: c.execute("UPDATE games SET puzzle = '{\"size\": 4'"))
    store.close()
    assert main(["export", "--data-dir", str(tmp_path)]) == 2
    assert "no game in progress" in one_line_error(capsys)
    assert main(["replay", "1", "--data-dir", str(tmp_path)]) == 2
    assert "game 1 cannot be read" in one_line_error(capsys)
    assert main(["history", "--data-dir", str(tmp_path)]) == 0
    assert capsys.readouterr().out.splitlines()[1].split()[-1] == "-", "listed without a code"


def test_a_game_whose_moves_do_not_fit_cannot_be_replayed(tmp_path, capsys, example4):
    store = open_store(tmp_path)
    play(store, example4, [Place((0, 0), 1)])
    sql_write(tmp_path, lambda c: c.execute(
        "UPDATE moves SET move = '{\"move\": \"place\", \"cell\": [7, 7], \"digit\": 1, "
        "\"states\": [[7, 7, 1, []]]}', "
        "sum = NULL"))  # no checksum, as an older kaldoku wrote it: read, then refused
    store.close()
    assert main(["replay", "1", "--data-dir", str(tmp_path)]) == 2
    assert "game 1 cannot be replayed: a place move off the board" in one_line_error(capsys)


# --- Replays ----------------------------------------------------------------------------


def test_a_replay_of_a_real_game_ends_on_its_final_board(tmp_path, example4):
    store = open_store(tmp_path)
    moves = [Place((0, 0), 2), Note((1, 1), 3), Undo(), Place((0, 0), 1),
             Check(), Fill()] + solving(example4)[1:]
    session = play(store, example4, moves)
    assert session.outcome == "won"
    saved = open_store(tmp_path).game(session.journal.game_id)
    assert (saved.outcome, len(saved.moves)) == ("won", len(moves))
    frames = replay_frames(saved)
    assert len(frames) == len(moves) + 1
    assert frames[0].view.grid == ((0,) * 4,) * 4
    assert frames[1].view.grid[0][0] == 2 and frames[1].words == "2 in r1c1" and frames[1].cell == (0, 0)
    assert frames[2].view.marks == {(1, 1): frozenset({3})}
    assert frames[3].view.marks == {} and frames[3].words == "undo"
    assert frames[-1].view == session.board.view()
    assert frames[-1].view.grid == EXAMPLE_SOLUTION


async def test_the_win_screen_replays_the_game_at_the_players_pace(row_sums, tmp_path):
    app = game_app(row_sums, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await solve_by_keys(app, pilot, row_sums.solution)
        win = app.screen
        assert isinstance(win, WinScreen)
        code = str(win.query_one("#win-code").render())
        assert code.startswith("Share code: kp1-") and read_code(code.split()[-1]) == row_sums
        assert "n / Esc: board  r: replay  c: copy  q: quit" in screen_text(app)
        await pilot.press("c")
        assert app.clipboard == code.split()[-1], "no daily: the code is copied"
        await pilot.press("r")
        replay = app.screen
        assert isinstance(replay, ReplayScreen) and replay.playing
        await pilot.press("space", "home")
        assert not replay.playing and replay.at == 0
        status = replay.query_one("#replay-status")
        assert str(status.render()) == "Move 0 of 9: the empty board · paused, 2 moves/s"
        await pilot.press("right", "right")
        grid = replay.query_one("#replay-grid")
        assert str(status.render()) == "Move 2 of 9: 2 in r1c2 · paused, 2 moves/s"
        assert grid.view.grid[0][:2] == (1, 2) and grid.cursor == (0, 1)
        await pilot.press("left")
        assert grid.view.grid[0][:2] == (1, 0)
        await pilot.press("plus", "plus", "space")
        assert "playing, 8 moves/s" in str(status.render())
        await pilot.press("minus")
        assert "playing, 4 moves/s" in str(status.render())
        await pilot.press("end")
        assert grid.view.grid == row_sums.solution and not replay.playing
        assert str(status.render()).startswith("Move 9 of 9: 2 in r3c3")
        await pilot.press("q")
        assert app.screen is win, "closing the replay comes back to the win screen"


async def test_a_replay_plays_by_itself_to_the_end(row_sums, tmp_path):
    app = game_app(row_sums, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await solve_by_keys(app, pilot, row_sums.solution)
        await pilot.press("r", *["plus"] * 5)
        replay = app.screen
        await until(pilot, lambda: not replay.playing, what="the replay at its end")
        assert replay.at == 9 and replay.query_one("#replay-grid").view.grid == row_sums.solution


async def test_replay_in_ascii_shows_only_ascii(row_sums, tmp_path):
    app = game_app(row_sums, tmp_path, ascii=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await solve_by_keys(app, pilot, row_sums.solution)
        assert not_ascii(screen_lines(app)) == {}
        await pilot.press("r", "space")
        assert not_ascii(screen_lines(app)) == {}


# --- The win screen of a daily puzzle ----------------------------------------------------


async def test_a_daily_won_shows_its_result_line_with_the_streak(tmp_path, monkeypatch, row_sums):
    import kaldoku_tui.screens.win as win_module

    store = open_store(tmp_path)
    win_daily(store, monkeypatch, MONDAY - timedelta(days=1))
    store.close()
    begun_on(monkeypatch, MONDAY)
    monkeypatch.setattr(win_module, "utc_day", lambda: MONDAY)
    app = game_app(row_sums, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        app.start_daily(MONDAY)  # as the new-game dialog's daily entry does
        await workers_done(app)
        await pilot.pause()
        session = app.game.session
        assert session.puzzle == daily_puzzle(MONDAY)
        await solve_by_keys(app, pilot, session.puzzle.solution)
        result = str(app.screen.query_one("#win-result").render())
        assert result == "kaldoku daily 2026-11-23 · 4×4 normal · 0:00 · no help · streak 2"
        await pilot.press("c")
        assert app.clipboard == result
    assert open_store(tmp_path).streaks(MONDAY) == Streaks(2, 2)


async def test_the_share_code_command_shows_the_code(example4):
    app = game_app(example4)
    async with app.run_test(size=(80, 24)) as pilot:
        commands = [c for c in app.get_system_commands(app.game) if c.title == "Share code"]
        commands[0].callback()
        await pilot.pause()
        assert app.game.message == f"Share code: {share_code(example4)}"


# --- The statistics screen ---------------------------------------------------------------


async def test_the_statistics_screen_charts_the_chosen_kind(tmp_path, monkeypatch, example4, row_sums):
    store = open_store(tmp_path)
    for moves in (solving(example4), [Check()] + solving(example4)):
        play(store, example4, moves)
    play(store, row_sums, solving(row_sums))
    store.close()
    app = game_app(row_sums, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("s")
        assert isinstance(app.screen, RecordsScreen), "the kind being played is charted first"
        text = screen_text(app)
        assert "> 3×3 · +−×÷" in text and "  4×4 · +−×÷" in text
        assert "3×3 · +−×÷: one win so far" in text
        assert "Daily puzzle streak: 0 days now, longest 0 days." in text
        await pilot.press("down")
        text = screen_text(app)
        assert "> 4×4 · +−×÷" in text
        assert "4×4 · +−×÷: the last 2 wins, oldest first" in text
        times = app.services.store.win_times(GameKind(4))
        assert times[1] > times[0] and app.screen.query_one(TimeChart).display
        lines = text.splitlines()
        top = next(line for line in lines if clock_text(times[1]) in line)
        bottom = next(line for line in lines if "0:00" in line and "█" in line)
        assert top.index("█") > bottom.index("█"), \
            "on the slowest time's line only the second, slower win (with a check) has its bar"
        await pilot.press("down")
        assert "> 3×3" in screen_text(app), "the choice goes round"


async def test_the_statistics_screen_in_ascii(tmp_path, example4, row_sums):
    store = open_store(tmp_path)
    play(store, example4, solving(example4))
    store.close()
    app = game_app(row_sums, tmp_path, ascii=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("s")
        lines = screen_lines(app)
        assert not_ascii(lines) == {}
        top = clock_text(max(app.services.store.win_times(GameKind(4))))
        assert any(top in line and "#" in line for line in lines), lines


def test_kaldoku_replay_refuses_without_a_terminal(tmp_path, capsys, monkeypatch, example4):
    monkeypatch.setattr("kaldoku_tui.cli.on_a_terminal", lambda: False)
    store = open_store(tmp_path)
    play(store, example4, solving(example4))
    store.close()
    assert main(["replay", "1", "--data-dir", str(tmp_path)]) == 2
    assert capsys.readouterr().err.startswith("kaldoku: error: the game needs a terminal")


async def test_kaldoku_replay_id_opens_the_replay_and_q_ends_it(tmp_path, monkeypatch, example4, on_a_terminal):
    from kaldoku_tui.screens.replay import ReplayApp

    store = open_store(tmp_path)
    play(store, example4, solving(example4))
    store.close()
    opened = []
    monkeypatch.setattr(ReplayApp, "run", lambda app: opened.append(app))
    assert main(["replay", "1", "--ascii", "--data-dir", str(tmp_path)]) == 0
    app = opened[0]
    async with app.run_test(size=(80, 24)) as pilot:
        assert isinstance(app.screen, ReplayScreen) and app.ascii
        await pilot.press("end")
        assert app.screen.query_one("#replay-grid").view.grid == EXAMPLE_SOLUTION
        assert "Replay of game 1: 4x4 - +-x/, won in 0:48" in screen_text(app)
        assert not_ascii(screen_lines(app)) == {}
        await pilot.press("q")
    assert app.return_code == 0


def test_history_export_and_stats_do_not_import_textual(tmp_path, example4):
    import subprocess
    import sys

    store = open_store(tmp_path)
    play(store, example4, solving(example4))
    store.close()
    home = str(tmp_path)
    code = (
        "import sys; from kaldoku_tui.cli import main; "
        f"main(['history', '--data-dir', {home!r}]); main(['export', '1', '--data-dir', {home!r}]); "
        f"main(['stats', '--data-dir', {home!r}]); "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich')))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "[]"


def test_history_and_export_print_nothing_raw_from_a_crafted_database(tmp_path, capsys, example4):
    store = open_store(tmp_path)
    play(store, example4, [])
    play(store, example4, [Place((0, 0), 1)])
    sql_write(tmp_path, lambda c: c.execute(
        "UPDATE games SET outcome = 'won\x1b]0;pwned\x07', kind = '\x1b[2J', started = '2026\u202e-11' "
        "WHERE id = 1"))
    crafted = json.dumps({"move": "place", "note": "\x1b[31m\u202e"})
    sql_write(tmp_path, lambda c: c.execute("UPDATE moves SET move = ?", (crafted,)))
    store.close()
    assert main(["history", "--data-dir", str(tmp_path)]) == 0
    assert main(["export", "2", "--moves", "--data-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out and "\u202e" not in out
    assert "won\\x1b]0;pwned\\x07" in out and "\\x1b[2J" in out
    assert json.loads(out.splitlines()[-1])["note"] == "\x1b[31m\u202e"


SCHEMA_2_HOME = Path(__file__).parent / "data" / "kaldoku-schema-2"


def test_a_schema_2_database_moves_over_under_the_local_player_with_nothing_lost(tmp_path):
    """Issue 24: today's kaldoku.db (made by main's code, tests/data/kaldoku-schema-2)."""
    shutil.copy(SCHEMA_2_HOME / DB_FILE, tmp_path / DB_FILE)
    before = sqlite3.connect(tmp_path / DB_FILE)
    assert before.execute("PRAGMA user_version").fetchone()[0] == 2
    old = {table: before.execute(f"SELECT * FROM {table} ORDER BY 1, 2").fetchall()
           for table in ("games", "moves", "settings", "bank", "carried")}
    before.close()
    store = open_store(tmp_path)
    assert store.notices == [] and store.player == "local"
    assert sql(tmp_path, "PRAGMA user_version") == [(4,)]
    games = sql(tmp_path, "SELECT * FROM games ORDER BY id")
    assert [row[:13] for row in games] == old["games"] and {row[13] for row in games} == {"local"}
    assert sql(tmp_path, "SELECT game, seq, move, elapsed, at FROM moves ORDER BY 1, 2") == old["moves"]
    assert sql(tmp_path, "SELECT key, value FROM settings WHERE player = 'local' ORDER BY 1") == \
        sorted(old["settings"])
    assert sql(tmp_path, "SELECT id, kind, puzzle FROM bank WHERE player = 'local'") == old["bank"]
    assert store.settings()["shade_peers"] is True
    (kind, record), = store.records()
    assert kind == GameKind(4) and record == store_module.Record(5, 3, 2, 33.5, 40.0)
    assert [g.id for g in store.open_games()] == [4, 3]
    resumed = store.resume(4)
    session = Session.resume(resumed.game.puzzle, resumed.game.moves, resumed.game.kind,
                             elapsed=resumed.game.elapsed, now=lambda: 0.0)
    assert session.board.digit((0, 0)) == 1 and session.board.notes((1, 1)) == {2}
    assert session.board.digit((2, 2)) == 0 and session.board.can_redo and session.elapsed == 7.0
    assert [g.id for g in store.history()] == [4, 3, 2, 1]
    assert len(store.bank_counts()) == 1
    other = open_store(tmp_path, "name:ann")
    assert other.open_games() == [] and other.records() == [] and other.settings() == {}
    assert other.history() == [] and other.bank_counts() == {}


def test_every_command_that_reads_the_store_takes_the_player(tmp_path, capsys, monkeypatch, example4):
    """--player NAME and KALDOKU_PLAYER: each player sees their own games and records only."""
    monkeypatch.delenv("KALDOKU_PLAYER", raising=False)
    ann = open_store(tmp_path, "name:ann")
    session = play(ann, example4, [Place((r, c), EXAMPLE_SOLUTION[r][c]) for r in range(4) for c in range(4)])
    assert session.outcome == "won"
    play(ann, example4, [Place((0, 0), 1)])
    ann.close()
    home = ["--data-dir", str(tmp_path)]
    assert main(["history", *home]) == 0
    assert capsys.readouterr().out == "No game played yet.\n", "the local player's history"
    assert main(["history", "--player", "ann", *home]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 3
    monkeypatch.setenv("KALDOKU_PLAYER", "ann")
    assert main(["stats", "--json", *home]) == 0
    assert json.loads(capsys.readouterr().out)["kinds"][0]["won"] == 1
    assert main(["export", "--moves", *home]) == 0
    assert json.loads(capsys.readouterr().out.splitlines()[0])["cell"] == [0, 0]
    assert main(["export", "1", "--player", "bob", *home]) == 2
    assert "no game 1" in one_line_error(capsys)
    assert main(["stats", "--player", "a\x1bb", *home]) == 2
    assert "is not a player" in one_line_error(capsys)
