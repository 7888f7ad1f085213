"""The keys players reach for from Keen, Gauguin and the NYT (issue 27), played through
Textual's Pilot."""

from __future__ import annotations

from conftest import game_app
from kaldoku_tui.screens.help import HelpScreen

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
