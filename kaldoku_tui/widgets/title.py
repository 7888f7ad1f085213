"""The line at the top of the game: the app's name, the kind of game, and its clock."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.content import Content
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Label

from kaldoku_tui.terminal import in_ascii


class Clock(Widget):
    """The game's time, repainted alone when it changes."""

    time: reactive[str] = reactive("")
    """The time shown: '0:07', '1:02:03', '4:10 (paused)'."""

    def watch_time(self, old: str, new: str) -> None:
        # Only a longer or shorter time moves the title: a layout repaints the screen.
        if len(old) != len(new):
            self.refresh(layout=True)

    def render(self) -> Content:
        return Content(self.time).stylize("dim")


class TitleBar(Horizontal):
    """The app's name, what game is played and its clock, centred on one line.

    Textual's Header lays the whole screen out again for a new sub-title, which repaints
    every line (13 KB a second at 80×24 for a ticking clock); here a tick repaints the
    clock's few characters."""

    game: reactive[str] = reactive("")
    """What game is played: '9×9 · +−×÷ · hard'."""

    def __init__(self, name: str, *, ascii: bool = False, id: str | None = None) -> None:
        super().__init__(id=id)
        self.app_name = name
        self.ascii = ascii

    def compose(self) -> ComposeResult:
        yield Label(id="game")
        yield Clock()

    @property
    def clock(self) -> Clock:
        return self.query_one(Clock)

    @property
    def text(self) -> str:
        """The line as shown."""
        return f"{self.query_one('#game', Label).content}{self.clock.time}"

    def show(self, game: str, time: str) -> None:
        """Show `game` (as this terminal can) and the clock at `time`."""
        self.game = in_ascii(game) if self.ascii else game
        self.clock.time = time

    def watch_game(self, game: str) -> None:
        dash, dot = (" - ", " - ") if self.ascii else (" — ", " · ")
        self.query_one("#game", Label).update(
            Content.assemble(self.app_name, (f"{dash}{game}{dot}", "dim")))
