"""Fair play, through Textual's Pilot: the clock runs while the board is in view, a new
game starts at r1c1, the daily is played once, and no game is dropped by surprise."""

from __future__ import annotations

import pytest
from textual.screen import Screen

from kaldoku_tui.screens.help import HelpScreen
from kaldoku_tui.screens.inspector import InspectorScreen
from kaldoku_tui.screens.settings import SettingsScreen

from conftest import game_app, workers_done

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
