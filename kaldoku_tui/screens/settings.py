"""The settings dialog: each setting a row of on/off, changed with the arrow keys, Enter
or Space; it closes with Esc, q or o and the game plays by what it shows from then on."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label

from kaldoku_tui.screens.dialogs import Choice, Option
from kaldoku_tui.session.settings import Settings

QUESTIONS = {
    "auto_clean_notes": "Placing a digit clears it from the notes of its row and column",
    "shade_peers": "Shade the cursor's row, column and cage",
    "light_numbers": "Light the cursor's row and column numbers and its cage's label",
    "show_clock": "Show the clock (it counts either way)",
    "show_mistakes": "Mark a digit against the solution as soon as it is placed "
                     "(help, as c is: the game then counts as helped)",
}


class SettingsScreen(ModalScreen[Settings]):
    """Change the settings; dismisses with the settings as shown."""

    BINDINGS = [
        Binding("enter,space", "turn_over", "Change"),
        Binding("o,q,escape", "close", "Close"),
    ]

    def __init__(self, settings: Settings, *, ascii: bool = False) -> None:
        super().__init__()
        self.settings = settings
        self.ascii = ascii

    def compose(self) -> ComposeResult:
        ascii = self.ascii
        with Vertical(classes="dialog", id="settings"):
            yield Label("Settings", classes="question")
            for name, question in QUESTIONS.items():
                on = getattr(self.settings, name)
                yield Label(question)
                yield Choice(Option("on", on, ascii), Option("off", not on, ascii), id=name)
            yield Label("up/down: row   left/right / Enter / Space: change\nEsc / q / o: close",
                        classes="keys")

    def shown(self) -> Settings:
        """The settings the dialog shows now."""
        chosen: dict[str, Any] = {name: self.query_one(f"#{name}", Choice).index == 0 for name in QUESTIONS}
        return replace(self.settings, **chosen)

    def action_turn_over(self) -> None:
        """Turn the focused setting over."""
        if isinstance(self.focused, Choice):
            self.focused.action_step(1)

    def action_close(self) -> None:
        self.dismiss(self.shown())
