"""The win screen: the time, how much help was used, and the player's record."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label


class WinScreen(ModalScreen[str | None]):
    """Shown when the board is solved. Dismisses with "new", "quit" or None (look at the board)."""

    BINDINGS = [
        Binding("g,enter,y", "choose('new')", "New game"),
        Binding("escape,n", "choose(None)", "Back to the board"),
        Binding("q", "choose('quit')", "Quit"),
    ]

    def __init__(self, summary: str, help_used: str, record: str | None = None) -> None:
        super().__init__()
        self.summary = summary
        self.help_used = help_used
        self.record = record
        """This kind of game's record in the player's statistics, if they are kept."""

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="win"):
            yield Label("Solved!", classes="question")
            yield Label(self.summary, id="win-time")
            yield Label(self.help_used, id="win-help")
            if self.record:
                yield Label(self.record, id="win-record")
            yield Label("g / Enter: new game   n / Esc: look at the board   q: quit", classes="keys")

    def action_choose(self, choice: str | None) -> None:
        self.dismiss(choice)
