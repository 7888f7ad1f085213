"""The daily archive: every past day's daily puzzle, which were solved, and one to play."""

from __future__ import annotations

from datetime import date

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option

from kaldoku_tui.screens.games import PickList
from kaldoku_tui.terminal import in_ascii


class ArchiveScreen(ModalScreen[date | None]):
    """Pick a day's daily puzzle; dismisses with the day, or None."""

    BINDINGS = [Binding("escape,q", "close", "Close")]

    def __init__(self, days: list[tuple[date, str]], *, ascii: bool = False) -> None:
        super().__init__()
        self.days = days
        """Each day with its line, the newest first."""
        self.ascii = ascii

    def compose(self) -> ComposeResult:
        text = in_ascii if self.ascii else str
        with Vertical(classes="dialog", id="archive"):
            yield Label("Daily archive", classes="question")
            yield PickList(*(Option(text(line), id=day.isoformat()) for day, line in self.days),
                             id="days")
            yield Label("A day solved before plays again as practice, counted nowhere.")
            yield Label("up/down: choose   Enter: play that day   Esc / q: back to the board",
                        classes="keys")

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if self.is_current:  # a second Enter of a burst comes after the screen is gone
            self.dismiss(date.fromisoformat(event.option.id or ""))

    def action_close(self) -> None:
        self.dismiss(None)
