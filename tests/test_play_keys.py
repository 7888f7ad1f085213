"""The keys players reach for from Keen, Gauguin and the NYT (issue 27), played through
Textual's Pilot."""

from __future__ import annotations

import re

from dataclasses import replace

import pytest

from conftest import EXAMPLE_ID, KEEN_IDS, game_app, saved_session
from kaldoku_tui.app import ensure_solution
from kaldoku_tui.engine.formats import read_keen
from kaldoku_tui.layout import CELL_SIZES
from test_e2e_terminal import KALDOKU, terminal, wait_until_quit  # noqa: F401 (a fixture)
from kaldoku_tui.layout import note_places
from kaldoku_tui.screens.help import HelpScreen
from kaldoku_tui.terminal_input import TerminalInput
from screen import screen_cells

SIZE = (80, 24)


async def test_tab_goes_to_the_next_empty_cell_and_home_end_along_the_row(example, tmp_path):
    app = game_app(example, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        grid = app.game.grid
        await pilot.press("right", "3", "right", "4")  # r1c2 and r1c3 hold digits
        await pilot.press("home")
        assert grid.cursor == (0, 0)
        await pilot.press("tab")
        assert grid.cursor == (0, 3), "past the two cells with digits"
        await pilot.press("tab")
        assert grid.cursor == (1, 0), "on to the next row"
        await pilot.press("shift+tab", "shift+tab")
        assert grid.cursor == (0, 0)
        await pilot.press("shift+tab")
        assert grid.cursor == (3, 3), "round the board's start"
        await pilot.press("home")
        assert grid.cursor == (3, 0)
        await pilot.press("end")
        assert grid.cursor == (3, 3)
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        text = str(app.screen.query_one("#keys").render())
        for words in ("tab ", "shift+tab ", "home ", "end ", "the next empty cell",
                      "the last cell of the row"):
            assert words in text, words


def char_at(app, cell, line, column):
    """The Look of the character at (line, column) inside `cell` of the board."""
    grid = app.game.grid
    inside = grid.board_layout.cell_region(cell)
    origin = grid.content_region.offset
    return screen_cells(app)[origin.y + inside.y + line][origin.x + inside.x + column]


async def test_the_cursors_digit_is_marked_wherever_it_is_placed_or_noted(example, tmp_path):
    app = game_app(example, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        grid = app.game.grid
        await pilot.press("1", "down", "n", "1", "3", "right", "right", "1", "n")
        layout = grid.board_layout
        places = note_places(4, layout.cell_width, layout.cell_height)
        await pilot.press("home", "up")
        await pilot.pause()  # the cursor on r1c1's 1: r2c1 notes 1 3, r2c3 notes 1
        one, three = (char_at(app, (1, 0), *places[d]) for d in (1, 3))
        other_one = char_at(app, (1, 2), *places[1])
        assert (one.char, three.char, other_one.char) == ("1", "3", "1")
        assert one.underline and other_one.underline and not three.underline
        assert one.bold and not three.bold
        await pilot.press("right")  # an empty cell: nothing chosen
        assert not char_at(app, (1, 0), *places[1]).underline


async def test_alt_digit_toggles_a_note_in_either_mode(example, tmp_path):
    app = game_app(example, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        board = app.game.session.board
        await pilot.press("alt+3", "alt+1")
        assert board.notes((0, 0)) == {1, 3} and not app.game.grid.notes_mode
        await pilot.press("n", "alt+3")
        assert board.notes((0, 0)) == {1}
        await pilot.press("u")
        assert board.notes((0, 0)) == {1, 3}, "one undoable move"


def test_esc_then_a_digit_from_the_terminal_is_alt_digit():
    """What a terminal sends for Alt+3 (xterm with metaSendsEscape, tmux's M-3, most
    Linux terminals): ESC 3, read as alt+3, not the £ of a macOS layout."""
    keys = [m.key for m in TerminalInput().feed(b"\x1b3\x1b9\x1bx3")]
    assert keys == ["alt+3", "alt+9", "alt+x", "3"]


def test_alt_digit_puts_a_note_on_a_real_terminal(terminal, tmp_path):
    """tmux's M-3 is what Alt+3 sends in xterm (metaSendsEscape), tmux and over SSH."""
    env = {"TERM": "xterm-256color", "KALDOKU_HOME": str(tmp_path), "LANG": "C.UTF-8"}
    terminal.start([str(KALDOKU), EXAMPLE_ID], env)
    terminal.wait_for(lambda s: "┏" in s and "┛" in s)
    terminal.keys("M-3", "M-1")
    terminal.wait_for(lambda s: "┃  1    │" in s and "┃  3    │" in s)  # notes 1 2 / 3 4
    terminal.keys("q")
    wait_until_quit(terminal)
    assert saved_session(tmp_path).board.notes((0, 0)) == {1, 3}


async def test_keys_that_do_nothing_say_why(example, tmp_path):
    app = game_app(example, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        game = app.game
        await pilot.press("9")
        assert game.message == "A 4×4 board takes the digits 1 to 4."
        await pilot.press("alt+7")
        assert game.message == "A 4×4 board takes the digits 1 to 4."
        await pilot.press("p")
        for key in ("t", "c", "3", "right", "tab", "alt+2", "i"):
            game.show_status("")
            await pilot.press(key)
            assert game.message == "Paused: p to go on.", key
        assert game.session.board.notes((0, 0)) == frozenset()
        await pilot.press("p", "3")
        assert game.session.board.digit((0, 0)) == 3


SGR = re.compile(r"\x1b\[([0-9;]*)m")


def colour_codes(screen: str) -> set[str]:
    """The colour parameters of the SGR sequences in `screen` (38;..., 48;..., 30-37,
    40-47, 90-97, 100-107; 39 and 49, the terminal's own colours, are no colour)."""
    found = set()
    for params in SGR.findall(screen):
        codes = params.split(";")
        i = 0
        while i < len(codes):
            code = codes[i]
            if code in ("38", "48"):
                found.add(";".join(codes[i:i + (3 if codes[i + 1:i + 2] == ["5"] else 5)]))
                i += 3 if codes[i + 1:i + 2] == ["5"] else 5
                continue
            if code.isdigit() and (30 <= int(code) <= 37 or 40 <= int(code) <= 47
                                   or 90 <= int(code) <= 107):
                found.add(code)
            i += 1
    return found


def test_no_color_sends_no_colour_on_a_real_terminal(terminal, tmp_path):
    env = {"TERM": "xterm-256color", "KALDOKU_HOME": str(tmp_path), "LANG": "C.UTF-8",
           "NO_COLOR": "1"}
    terminal.start([str(KALDOKU), EXAMPLE_ID], env)
    terminal.wait_for(lambda s: "┏" in s and "┛" in s)
    terminal.keys("3", "Right", "3", "c")  # a digit, a duplicate, a check's marks
    terminal.wait_for(lambda s: "from the solution" in s)
    screen = terminal.tmux("capture-pane", "-e", "-p", "-t", "0").stdout
    assert SGR.search(screen), "the styles (bold, reverse...) still go out"
    assert colour_codes(screen) == set()
    assert "7" in {code for params in SGR.findall(screen) for code in params.split(";")}, \
        "the cursor in reverse"


def test_a_mistake_is_red_in_16_colours_on_a_real_terminal(terminal, tmp_path):
    env = {"TERM": "xterm", "KALDOKU_HOME": str(tmp_path), "LANG": "C.UTF-8"}
    terminal.start([str(KALDOKU), EXAMPLE_ID], env)
    terminal.wait_for(lambda s: "┏" in s and "┛" in s)
    terminal.keys("3", "Right", "3")  # a repeated 3
    terminal.wait_for(lambda s: s.count("3!") == 2)
    screen = terminal.tmux("capture-pane", "-e", "-p", "-t", "0").stdout
    red = re.compile(r"\x1b\[(?:[0-9;]*;)?(?:31|91)(?:;[0-9;]*)?m(?:\x1b\[[0-9;]*m)*3!")
    assert len(red.findall(screen)) == 2, screen


def test_a_note_never_sits_alone_where_a_digit_goes():
    for size in range(3, 10):
        for width, height in CELL_SIZES:
            places = note_places(size, width, height)
            # Lower cells may need every column of the digit's line (9 notes in 9×2):
            # there dimness and italics tell a note.
            if places is not None and height >= 3:
                assert ((height - 1) // 2, (width - 1) // 2) not in places.values(), (size, width)


@pytest.mark.parametrize("terminal_size", [(80, 24), (200, 60)])
async def test_a_lone_note_looks_unlike_a_digit(terminal_size):
    puzzle = ensure_solution(read_keen(next(k for k in KEEN_IDS if k.startswith("9:"))))
    app = game_app(puzzle)
    async with app.run_test(size=terminal_size) as pilot:
        await pilot.press("5", "right", "alt+5", "right")
        await pilot.pause()
        grid = app.game.grid
        inside = grid.board_layout.cell_region((0, 0))
        origin = grid.content_region.offset
        lines = screen_cells(app)

        def five(cell):
            region = grid.board_layout.cell_region(cell)
            for y in range(region.height):
                row = lines[origin.y + region.y + y][origin.x + region.x:
                                                     origin.x + region.right]
                for x, look in enumerate(row):
                    if look.char == "5":
                        return (y, x), look
            raise AssertionError(f"no 5 in {cell}")

        (digit_at, digit), (note_at, note) = five((0, 0)), five((0, 1))
        assert digit_at != note_at, "the note is not in the digit's place"
        assert note.italic and not digit.italic
        assert note.colour != digit.colour and not note.bold
        assert inside.width == grid.board_layout.cell_width


async def test_the_inspectors_combinations_become_the_cages_notes_in_one_move(example, tmp_path):
    app = game_app(example, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        board = app.game.session.board
        await pilot.press("right", "down", "4", "up", "left")  # r2c2's 4: not in column 2
        await pilot.press("i", "a")
        assert app.screen is app.game
        assert board.notes((0, 0)) == {1, 2, 4} and board.notes((0, 1)) == {1, 2}, "2÷"
        await pilot.press("u")
        assert board.notes((0, 0)) == frozenset() and board.notes((0, 1)) == frozenset()
        assert board.digit((1, 1)) == 4
        await pilot.press("r")
    assert saved_session(tmp_path).board.notes((0, 1)) == {1, 2}


async def test_settings_hide_the_clock_and_show_mistakes_at_once_as_help(example, tmp_path):
    app = game_app(example, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        game = app.game
        assert "0:00" in game.title_bar.text
        await pilot.press("o")
        text = " ".join(str(label.render()) for label in app.screen.query("Label"))
        assert "Show the clock" in text and "help, as c is" in text
        await pilot.press("escape")
        game.change_settings(replace(app.services.settings, show_clock=False, show_mistakes=True))
        assert "0:00" not in game.title_bar.text and "4×4" in game.title_bar.text
        await pilot.press("2")  # r1c1 is 1
        assert game.session.marked == {(0, 0)} and game.session.help["checks"] == 1
        await pilot.press("right", "2")  # right, and still one check counted
        assert game.session.marked == {(0, 0)} and game.session.help["checks"] == 1
    assert saved_session(tmp_path).help["checks"] == 1
