"""The game app, played through Textual's Pilot: every action of the game screen."""

from __future__ import annotations

import re

import time

import pytest
from textual import events
from textual.widget import Widget

from kaldoku_tui.app import KaldokuApp, build_app
from kaldoku_tui.config import AppConfig
from kaldoku_tui.cli import app_config, game_parser, main
from kaldoku_tui.engine.generator import Stopped
from kaldoku_tui.engine.kinds import GameKind
from kaldoku_tui.session.moves import Place
from kaldoku_tui.session.store import open_store
from kaldoku_tui.screens.dialogs import ConfirmDialog, NewGameDialog
from kaldoku_tui.screens.help import HelpScreen, key_names
from kaldoku_tui.screens.win import WinScreen
from kaldoku_tui.widgets.grid import KenKenGrid
from kaldoku_tui.widgets.keys import KeyBar

from test_grid import bands_placed
from conftest import EXAMPLE_ID, EXAMPLE_SOLUTION, game_app, saved_session, sql, workers_done
from screen import screen_cells, screen_text, words

SIZE = (80, 24)


def make_app(puzzle, tmp_path, **kwargs) -> KaldokuApp:
    """An app playing `puzzle` that saves in tmp_path, with an empty bank."""
    return game_app(puzzle, tmp_path, **kwargs)


def saved_board(tmp_path):
    session = saved_session(tmp_path)
    return None if session is None else session.board


async def test_move_and_enter_a_digit_saves_the_game(example, tmp_path):
    app = make_app(example, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("right", "down", "3")
        assert app.game.session.board.digit((1, 1)) == 3
        assert isinstance(app.focused, KenKenGrid)
    assert saved_board(tmp_path).digit((1, 1)) == 3


async def test_new_game_dialog_by_keyboard(example, tmp_path):
    app = make_app(example, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("g")
        assert isinstance(app.screen, NewGameDialog)
        await pilot.press("5", "tab", "right", "tab", "right", "enter")
        await workers_done(app)
        await pilot.pause()
        assert app.screen is app.game
        assert app.game.session.kind == GameKind(5, "addmul", "easy")
        assert app.game.session.board.size == 5
        assert set(c.op for c in app.game.session.board.puzzle.cages) <= {"+", "*", "="}
        assert app.game.session.board.puzzle.meta["difficulty"] == "easy"
        assert "5×5" in app.game.title_bar.text


async def test_new_game_dialog_keeps_up_with_a_burst_of_keys(example, tmp_path):
    """Keys that arrive at once (a paste, a slow link) all count, in order."""
    app = make_app(example, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("g")
        dialog = app.screen
        for key, char in [("4", "4"), ("tab", "\t"), ("tab", "\t"), ("right", None), ("right", None),
                          ("right", None), ("left", None), ("right", None)]:
            app.post_message(events.Key(key, char))
        await pilot.pause()
        assert dialog.chosen() == GameKind(4, "all", "hard")
        await pilot.click("#size Option", offset=(1, 0))
        assert dialog.chosen() == GameKind(3, "all", "hard")


async def test_new_game_dialog_refuses_a_level_the_size_cannot_have(example, tmp_path):
    app = make_app(example, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("g", "3", "tab", "tab", "left", "enter")
        assert isinstance(app.screen, NewGameDialog)
        assert "too small for unreasonable" in str(app.screen.query_one("#refused").render())
        await pilot.press("left", "left", "enter")
        await workers_done(app)
        await pilot.pause()
        assert app.game.session.kind == GameKind(3, "all", "hard")


async def test_new_game_dialog_cancels_with_q(example, tmp_path):
    app = make_app(example, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("g", "7", "q")
        assert app.screen is app.game
        assert app.game.session.board.puzzle is example


async def test_new_game_comes_from_the_bank_at_once(example, row_sums, tmp_path):
    app = make_app(example, tmp_path, depth=1)
    app.services.bank.add(GameKind(3), row_sums)
    async with app.run_test(size=SIZE) as pilot:
        app.workers.cancel_group(app, "bank")
        await pilot.press("g", "3", "enter")
        # No worker ran for this game: the bank's puzzle is on the board already.
        assert app.game.session.board.puzzle == row_sums
        assert "New 3×3" in app.game.message


async def test_restart_asks_first(example, tmp_path):
    app = make_app(example, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("1", "right", "2", "X")
        assert isinstance(app.screen, ConfirmDialog)
        await pilot.press("n")
        assert app.game.session.board.digit((0, 1)) == 2
        await pilot.press("X", "y")
        assert app.game.session.board.grid == ((0,) * 4,) * 4
        await pilot.press("u")
        assert app.game.session.board.digit((0, 1)) == 2


async def test_check_so_far_marks_the_wrong_digits(example, tmp_path):
    app = make_app(example, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("1", "right", "3", "c")  # r1c1 = 1 is right, r1c2 = 3 is wrong
        assert app.query_one(KenKenGrid).marked == {(0, 1)}
        assert app.game.session.help["checks"] == 1
        assert "1 digit differ" in app.game.message
    assert saved_session(tmp_path).help["checks"] == 1


async def test_reveal_gives_up_and_forgets_the_save(example, tmp_path):
    app = make_app(example, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("4")
        assert saved_board(tmp_path) is not None
        await pilot.press("v", "y")
        assert app.game.session.board.grid == EXAMPLE_SOLUTION
        assert app.game.session.over and app.game.session.help["reveals"] == 1
        assert not isinstance(app.screen, WinScreen)
    assert saved_board(tmp_path) is None


async def test_pause_hides_the_board_and_stops_the_keys(example, tmp_path):
    app = make_app(example, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("2")
        await pilot.press("p")
        status = app.game.query_one("#status").size.height
        board_area = screen_text(app).splitlines()[1 : -1 - status]
        assert not any(line.strip() for line in board_area)
        assert "paused" in app.game.title_bar.text
        await pilot.press("right", "3", "c")
        assert app.game.session.board.digit((0, 1)) == 0
        assert app.game.session.help["checks"] == 0
        await pilot.press("p")
        assert "┏" in screen_text(app)
        assert "paused" not in app.game.title_bar.text


async def test_win_by_a_filling_other_than_the_stored_one(row_sums, tmp_path):
    other = ((1, 2, 3), (3, 1, 2), (2, 3, 1))
    assert other != row_sums.solution
    app = make_app(row_sums, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        for r, row in enumerate(other):
            for c, digit in enumerate(row):
                app.query_one(KenKenGrid).cursor = (r, c)
                await pilot.press(str(digit))
        await pilot.pause()
        assert isinstance(app.screen, WinScreen)
        assert "3×3" in str(app.screen.query_one("#win-time").render())
        assert "no help" in str(app.screen.query_one("#win-help").render())
        assert app.game.session.over
        await pilot.press("n")
        assert app.screen is app.game
    assert saved_board(tmp_path) is None


async def test_help_lists_every_key(example, tmp_path):
    app = make_app(example, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        text = str(app.screen.query_one("#keys").render())
        bindings = [*KenKenGrid.BINDINGS, *app.game.BINDINGS, *app.BINDINGS]
        for binding in bindings:
            if binding.action in ("digit(5)", "digit(6)", "digit(7)", "digit(8)", "digit(9)"):
                continue
            if binding.action.startswith("note("):
                continue  # in one line, alt+1..alt+4
            for key in key_names(binding):
                assert f" {key}" in text or f"{key}," in text, key
        assert "ctrl+p" in text
        assert "  1, 2, 3, 4  " in text and "4, 5" not in text, "the digits of a 4×4"
        assert "  alt+1..alt+4  " in text
        assert "fill notes: note in every" in text
        await pilot.press("q")
        assert app.screen is app.game


async def test_command_palette_has_the_actions_but_no_screenshot(example, tmp_path):
    app = make_app(example, tmp_path)
    async with app.run_test(size=SIZE):
        titles = [command.title for command in app.get_system_commands(app.game)]
        assert "Screenshot" not in titles and "Maximize" not in titles
        for title in ("New game", "Restart", "Hint", "Cage inspector", "Check so far",
                      "Reveal the solution", "Pause", "Theme", "Undo", "Redo", "Notes mode",
                      "Fill notes", "More", "Statistics", "Settings", "Help"):
            assert title in titles
        commands = {command.title: command.callback for command in app.get_system_commands(app.game)}
        commands["Notes mode"]()
        assert app.game.grid.notes_mode
        app.game.play(Place((0, 0), 1))
        commands["Undo"]()
        assert app.game.session.board.digit((0, 0)) == 0
        commands["Redo"]()
        assert app.game.session.board.digit((0, 0)) == 1
        commands["Fill notes"]()
        assert app.game.session.board.notes((0, 1)) == {2}, "÷2 with a 1: 2"


async def test_resume_the_saved_game(example, tmp_path, monkeypatch):
    monkeypatch.setenv("KALDOKU_HOME", str(tmp_path))
    first = make_app(example, tmp_path)
    async with first.run_test(size=SIZE) as pilot:
        await pilot.press("down", "down", "right", "right", "right", "2", "up", "up",
                          "left", "left", "left", "n", "1", "c", "c")
    app = build_app(app_config(game_parser().parse_args([])))
    async with app.run_test(size=SIZE) as pilot:
        assert app.game.session.board.digit((2, 3)) == 2
        assert app.game.session.board.notes((0, 0)) == {1}
        assert app.game.session.help["checks"] == 2
        assert "Resumed" in app.game.message
        await pilot.press("u")
        assert app.game.session.board.notes((0, 0)) == set()
        await pilot.press("u")
        assert app.game.session.board.digit((2, 3)) == 0


async def test_a_game_that_cannot_be_resumed_is_set_aside_with_a_notice(example, tmp_path,
                                                                       monkeypatch):
    monkeypatch.setenv("KALDOKU_HOME", str(tmp_path))
    store = open_store(tmp_path)
    journal, _ = store.new_game(example, GameKind.of(example))
    journal.append({"move": "place", "states": [[9, 9, 9, []]]}, 1.0)
    store.close()
    app = build_app(app_config(game_parser().parse_args([])))
    assert app.game.message.startswith("A saved game could not be resumed")
    assert app.game.session.board.size == 6
    kept = sql(tmp_path, "SELECT outcome FROM games ORDER BY id")
    assert kept[0] == ("damaged",), "kept in the database, not deleted"


def test_a_keen_id_plays_with_its_solution_found(tmp_path, monkeypatch):
    monkeypatch.setenv("KALDOKU_HOME", str(tmp_path))
    app = build_app(app_config(game_parser().parse_args([EXAMPLE_ID])))
    assert app.game.session.board.puzzle.solution == EXAMPLE_SOLUTION


@pytest.mark.parametrize(
    "argv, words",
    [
        (["--size", "4", EXAMPLE_ID], "not both"),
        (["no-such-file.json"], "no such file"),
        (["--size", "12"], "size must be 3 to 9"),
        (["--size", "3", "--difficulty", "extreme"], "cannot be"),
    ],
)
def test_bad_arguments_are_one_line_and_status_2(argv, words, tmp_path, monkeypatch, capsys, on_a_terminal):
    monkeypatch.setenv("KALDOKU_HOME", str(tmp_path))
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert words in err and err.count("\n") == 1


async def test_the_game_saves_the_clock_and_help(example, tmp_path):
    now = [0.0]
    app = make_app(example, tmp_path, now=lambda: now[0])
    async with app.run_test(size=SIZE) as pilot:
        now[0] = 30.0
        await pilot.press("c", "3")
    session = saved_session(tmp_path)
    assert session.elapsed >= 30.0
    assert session.help == {"checks": 1, "hints": 0, "reveals": 0}


def spy_on_layouts(monkeypatch) -> list[str]:
    """The kinds of widget that ask for a layout (which repaints the whole screen), from now on."""
    laid_out = []
    refresh = Widget.refresh

    def spy(self, *regions, layout=False, **kwargs):
        if layout:
            laid_out.append(type(self).__name__)
        return refresh(self, *regions, layout=layout, **kwargs)

    monkeypatch.setattr(Widget, "refresh", spy)
    return laid_out


async def test_a_clock_tick_lays_nothing_out_again(example, tmp_path, monkeypatch):
    # A layout repaints the whole screen: 13 KB a second over SSH for a ticking clock.
    now = [0.0]
    app = make_app(example, tmp_path, now=lambda: now[0])
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        laid_out = spy_on_layouts(monkeypatch)
        now[0] = 5.0
        app.game.tick()
        await pilot.pause()
        assert laid_out == []
        assert screen_text(app).splitlines()[0].strip() == "kaldoku — 4×4 · +−×÷ · 0:05"
        now[0] = 600.0  # 10:00 is wider than 9:59: the title is centred again
        app.game.tick()
        assert laid_out == ["Clock"]
        await pilot.pause()
        assert screen_text(app).splitlines()[0].strip() == "kaldoku — 4×4 · +−×÷ · 10:00"


async def test_a_new_status_lays_nothing_out_again(example, tmp_path, monkeypatch):
    # The status line has the lines the board leaves: a long message is paged, so the
    # board never moves and nothing but the status line is repainted.
    app = make_app(example, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await bands_placed(pilot, app.game.grid)
        laid_out = spy_on_layouts(monkeypatch)
        app.game.show_status("One line.")
        assert laid_out == []
        app.game.show_status("A hint that wraps: " + " ".join(f"w{i}" for i in range(150)) + " end.")
        await pilot.pause()
        assert laid_out == []
        seen = screen_text(app)
        pages = int(re.search(r"\(m: more 1/(\d)\)", seen).group(1))
        assert "w0" in seen and "end." not in seen and pages > 1
        words = set(re.findall(r"w\d+", seen))
        for _ in range(pages - 1):
            await pilot.press("m")
            await pilot.pause()
            words |= set(re.findall(r"w\d+", screen_text(app)))
        seen = screen_text(app)
        assert f"w149 end. (m: again {pages}/{pages})" in seen and "w0 " not in seen
        assert words == {f"w{i}" for i in range(150)}, "every word on some page"
        assert laid_out == []


async def test_the_key_bar_shows_the_keys_that_work_and_a_click_presses_one(example, tmp_path):
    app = make_app(example, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        *_, last = screen_text(app).splitlines()
        assert "?: every key   o: settings (highlight row, column and cage)" in screen_text(app)
        assert last.startswith("n Notes: off u Undo g New t Hint i Cage c Check ? Help q Quit")
        assert last.rstrip().endswith("▏^p palette")
        await pilot.press("n")
        await pilot.pause()
        assert screen_text(app).splitlines()[-1].startswith("n Notes: ON u Undo")
        await pilot.press("n", "3")
        assert app.game.session.board.digit((0, 0)) == 3
        bar = app.query_one(KeyBar)
        start, _end, key = next(span for span in bar.spans if span[2].key == "u")
        await pilot.hover(KeyBar, offset=(start + 2, 0))
        assert bar.tooltip == key.tooltip and "undo" in key.tooltip.lower()
        await pilot.click(KeyBar, offset=(start + 2, 0))
        assert app.game.session.board.digit((0, 0)) == 0
        await pilot.press("p")
        await pilot.pause()
        # Paused, the keys that do nothing are dimmed.
        keys, _palette = bar.keys()
        assert {key.description for key in keys if not key.enabled} >= {"Hint", "Check", "Cage"}
        colour = {word: looks[0].colour for word, looks in words(screen_cells(app)[-1])}
        assert colour["Hint"] != colour["Quit"] and colour["Check"] == colour["Hint"]


async def test_the_clock_runs_in_play_and_stops_in_pause(example, tmp_path):
    now = [0.0]
    app = make_app(example, tmp_path, now=lambda: now[0])
    async with app.run_test(size=SIZE) as pilot:
        now[0] = 65.0
        app.game.tick()
        assert app.game.title_bar.text.endswith("1:05")
        await pilot.press("p")
        now[0] = 600.0
        app.game.tick()
        assert "1:05 (paused)" in app.game.title_bar.text
        await pilot.press("p")
        now[0] = 610.0
        app.game.tick()
        assert app.game.title_bar.text.endswith("1:15")
    assert saved_session(tmp_path).elapsed == 75.0  # saved by the tick: ten seconds since the last save


async def test_the_time_played_is_kept_when_the_app_closes(example, tmp_path):
    # Kept as the screen goes, before the terminal is let go: closing a hung-up terminal
    # can hang, and then only the signal watchdog ends the process.
    now = [0.0]
    app = make_app(example, tmp_path, now=lambda: now[0])
    async with app.run_test(size=SIZE):
        now[0] = 7.0  # under the ten seconds between saves: no tick saves it
        app.game.tick()
        assert saved_session(tmp_path).elapsed == 0.0
    assert saved_session(tmp_path).elapsed == 7.0


async def test_a_puzzle_being_made_shows_its_progress_and_esc_stops_it(example, tmp_path, monkeypatch):
    asked = []

    def slow(kind, stop):
        asked.append(kind)
        while not stop():
            time.sleep(0.01)
        raise Stopped("no longer wanted")

    monkeypatch.setattr("kaldoku_tui.widgets.maker.make_puzzle", slow)
    app = make_app(example, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("1", "g", "7", "enter")
        await pilot.pause()
        assert asked == [GameKind(7)]
        assert "Making a 7×7 · +−×÷ puzzle… 0 s" in app.game.message and "Esc: stop" in app.game.message
        await pilot.press("right", "2")
        assert app.game.session.board.digit((0, 1)) == 2, "the game goes on meanwhile"
        await pilot.press("escape")
        await workers_done(app)
        assert app.game.maker.making is None and "Stopped making" in app.game.message
        assert app.game.session.board.puzzle is example and app.game.session.board.digit((0, 0)) == 1
        await pilot.press("escape")  # nothing being made: Esc does nothing
        assert app.game.session.board.puzzle is example


async def test_a_puzzle_made_in_a_worker_begins_the_new_game(example, row_sums, tmp_path, monkeypatch):
    monkeypatch.setattr("kaldoku_tui.widgets.maker.make_puzzle", lambda kind, stop: row_sums)
    app = make_app(example, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("g", "3", "enter")
        await workers_done(app)
        await pilot.pause()
        assert app.game.session.board.puzzle is row_sums and app.game.maker.making is None


async def test_two_apps_for_two_players_in_one_process(example, row_sums, tmp_path):
    """Two players on one store, as a server runs them: their own games and settings."""
    from kaldoku_tui.session.store import open_store, player_id

    alice = build_app(AppConfig(data_dir=tmp_path, player="alice", puzzle=EXAMPLE_ID))
    bob = build_app(AppConfig(data_dir=tmp_path, player="bob", ascii=True, size=3, seed=1))
    assert alice.services.store is not bob.services.store
    async with alice.run_test(size=SIZE) as alice_pilot, bob.run_test(size=SIZE) as bob_pilot:
        await alice_pilot.press("1", "right", "2")
        await bob_pilot.press("down", "3")
        assert alice.game.session.board.grid[0][:2] == (1, 2)
        assert bob.game.session.board.digit((1, 0)) == 3 and bob.game.session.board.digit((0, 0)) == 0
        assert "┏" in screen_text(alice) and "┏" not in screen_text(bob) and "+" in screen_text(bob)
    for name, size, moves in (("alice", 4, 2), ("bob", 3, 1)):
        store = open_store(tmp_path, player_id(name))
        saved = [store.game(game.id) for game in store.open_games()]
        assert [(game.kind.size, len(game.moves)) for game in saved] == [(size, moves)], name
        store.close()
    assert saved_board(tmp_path) is None, "the local player has no game"


def test_building_the_app_leaves_the_environment_and_textual_alone(tmp_path):
    import os

    import textual.constants

    environ, colors = dict(os.environ), textual.constants.COLOR_SYSTEM
    build_app(AppConfig(data_dir=tmp_path, colors="none", puzzle=EXAMPLE_ID))
    build_app(AppConfig(data_dir=tmp_path, colors="16", puzzle=EXAMPLE_ID))
    assert dict(os.environ) == environ and textual.constants.COLOR_SYSTEM == colors


def test_kaldokus_input_driver_only_on_a_real_terminal_without_textual_driver(tmp_path, monkeypatch):
    from kaldoku_tui.terminal_input import INPUT_DRIVER

    class Terminal:
        def isatty(self) -> bool:
            return True

    args = game_parser().parse_args(["--data-dir", str(tmp_path), EXAMPLE_ID])
    monkeypatch.delenv("TEXTUAL_DRIVER", raising=False)
    assert not app_config(args).terminal_input, "pytest's stdin is no terminal"
    monkeypatch.setattr("sys.stdin", Terminal())
    monkeypatch.setattr("sys.stdout", Terminal())
    assert app_config(args).terminal_input
    assert build_app(app_config(args)).driver_class is INPUT_DRIVER
    monkeypatch.setenv("TEXTUAL_DRIVER", "textual.drivers.web_driver:WebDriver")
    assert not app_config(args).terminal_input
    assert build_app(app_config(args)).driver_class is not INPUT_DRIVER, "Textual's choice"
