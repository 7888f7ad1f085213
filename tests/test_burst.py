"""Keys are applied in the order typed: a burst of digits and then any key of the game
screen (a paste, fast typing over a slow link) loses none of the digits."""

from __future__ import annotations

import unicodedata

import pytest
from textual import events
from textual.binding import Binding

from kaldoku_tui.app import KaldokuApp
from kaldoku_tui.screens.game import GameScreen
from kaldoku_tui.widgets.grid import KenKenGrid

from conftest import game_app, saved_session

SIZE = (80, 24)


def game_bindings() -> list[Binding]:
    """Every binding that acts on the game screen: the board's, the screen's, the app's."""
    return [*KenKenGrid.BINDINGS, *GameScreen.BINDINGS, *KaldokuApp.BINDINGS,
            Binding(KaldokuApp.COMMAND_PALETTE_BINDING, "command_palette")]


def first_key(binding: Binding) -> str:
    return binding.key.split(",")[0].strip()


def key_event(key: str) -> events.Key:
    """The event a terminal sends for `key`, as Textual's Pilot makes it."""
    try:
        char = unicodedata.lookup(key.upper().replace("_", " "))
    except KeyError:
        char = key if len(key) == 1 else None
    return events.Key(key, char)


async def burst(pilot, *keys: str) -> None:
    """Send `keys` all at once, as a paste does, then let the app catch up."""
    for key in keys:
        pilot.app.post_message(key_event(key))
    if pilot.app.is_running:
        await pilot.pause()


def expected_row(key: str) -> tuple[int, int]:
    """r1c1 and r1c2 after `1 → 2` and then `key` on the 4×4 example."""
    if key in ("u", "0"):
        return (1, 0)  # undo takes the 2 back; clear clears the cursor's cell (r1c2)
    if key in "1234":
        return (1, int(key))  # the digit replaces the 2
    return (1, 2)  # 5 to 9 do not fit a 4×4


@pytest.mark.parametrize("binding", game_bindings(),
                         ids=lambda b: f"{first_key(b)}:{b.action}")
async def test_digits_before_any_key_are_played_first(binding, example, tmp_path):
    key = first_key(binding)
    app = game_app(example, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await burst(pilot, "1", "right", "2", key)
        if app.is_running:
            board = app.game.session.board
            assert (board.digit((0, 0)), board.digit((0, 1))) == expected_row(key)
    saved = saved_session(tmp_path)
    assert (saved.board.digit((0, 0)), saved.board.digit((0, 1))) == expected_row(key)
