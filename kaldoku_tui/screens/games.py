"""The unfinished games: every game left for another stays in progress, and is resumed
from this list (or with `kaldoku games` and `kaldoku resume ID`)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option

from kaldoku_tui.session.reports import Unfinished
from kaldoku_tui.terminal import in_ascii


class PickList(OptionList):
    """An OptionList whose page keys wait for room: with none (a tiny terminal) Textual
    8.2 has not laid its lines out and its page move raises KeyError."""

    def action_page_up(self) -> None:
        if self.scrollable_content_region:
            super().action_page_up()

    def action_page_down(self) -> None:
        if self.scrollable_content_region:
            super().action_page_down()


class UnfinishedScreen(ModalScreen[int | None]):
    """Pick an unfinished game to resume; dismisses with its id, or None."""

    BINDINGS = [Binding("escape,q", "close", "Close")]

    def __init__(self, games: list[Unfinished], playing: int | None, *, ascii: bool = False) -> None:
        super().__init__()
        self.games = games
        self.playing = playing
        """The game being played (listed, marked, not resumed again)."""
        self.ascii = ascii

    def text(self, text: str) -> str:
        return in_ascii(text) if self.ascii else text

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="unfinished"):
            yield Label("Unfinished games", classes="question")
            if self.games:
                yield PickList(*(Option(self.text(game.line() + (" (this game)" if game.id == self.playing
                                                                   else "")), id=str(game.id))
                                   for game in self.games), id="games")
            else:
                yield Label("None: every game was finished.")
            yield Label("up/down: choose   Enter: resume   Esc / q: back to the board",
                        classes="keys")

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if self.is_current:  # a second Enter of a burst comes after the screen is gone
            self.dismiss(int(event.option.id or 0) or None)

    def action_close(self) -> None:
        self.dismiss(None)
