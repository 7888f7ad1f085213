"""The player's statistics: one line per kind of game played."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Static

from kaldoku_tui.engine.kinds import GameKind
from kaldoku_tui.screens.dialogs import ReadingScreen
from kaldoku_tui.session.store import Record, records_table
from kaldoku_tui.terminal import in_ascii


class RecordsScreen(ReadingScreen):
    """A table of the player's record per kind of game; Esc, s or q closes it."""

    BINDINGS = [Binding("escape,s,q,enter", "close", "Close")]

    def __init__(self, records: list[tuple[GameKind, Record]], saving: bool = True) -> None:
        super().__init__()
        self.records = records
        self.saving = saving

    def table(self) -> str:
        if not self.records:
            return "No game finished yet." if self.saving else "Statistics are not kept (saving is off)."
        text = records_table(self.records) + "\nBest and median: the times of wins without help."
        return in_ascii(text) if self.app.ascii else text

    def compose(self) -> ComposeResult:
        with VerticalScroll(classes="dialog", id="records"):
            yield Static("Statistics", classes="question")
            yield Static(self.table(), markup=False)
            yield Static("Esc / s / q: close", classes="keys")
