"""The player's statistics: one line per kind of game played."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Static

from kaldoku_tui.screens.dialogs import ReadingScreen


class RecordsScreen(ReadingScreen):
    """A table of the player's record per kind of game; Esc, s or q closes it."""

    BINDINGS = [Binding("escape,s,q,enter", "close", "Close")]

    def __init__(self, table: str) -> None:
        super().__init__()
        self.table = table

    def compose(self) -> ComposeResult:
        with VerticalScroll(classes="dialog", id="records"):
            yield Static("Statistics", classes="question")
            yield Static(self.table, markup=False)
            yield Static("Esc / s / q: close", classes="keys")
