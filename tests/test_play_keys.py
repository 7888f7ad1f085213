"""The keys players reach for from Keen, Gauguin and the NYT (issue 27), played through
Textual's Pilot."""

from __future__ import annotations

from conftest import game_app
from kaldoku_tui.layout import note_places
from kaldoku_tui.screens.help import HelpScreen
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
