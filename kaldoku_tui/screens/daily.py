"""The daily's result: once a day's daily puzzle is won (or revealed), `kaldoku daily`
shows how it went instead of a fresh board; playing it again is practice."""

from __future__ import annotations

from datetime import date

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Label

from kaldoku_tui.engine.daily import daily_kind, result_line, utc_day
from kaldoku_tui.session.game import clock_text
from kaldoku_tui.session.store import PastGame, Store
from kaldoku_tui.terminal import in_ascii


def result_lines(day: date, game: PastGame, store: Store) -> list[str]:
    """How `day`'s daily went (`game`, the one that counts): time and help, the streak,
    and the line to share when it was won."""
    clock = clock_text(game.elapsed)
    if game.outcome != "won":
        return [f"Revealed after {clock}: no share line, no streak for this day."]
    streaks = store.streaks(utc_day())
    counted = day in store.daily_days()
    lines = [f"Solved in {clock}, {'with help' if game.helped else 'no help'}.",
             f"Streak: {streaks.current} day{'s' if streaks.current != 1 else ''} "
             f"(longest {streaks.longest})." if counted else
             "Solved after its day: it counts for no streak."]
    lines.append(result_line(day, clock, int(game.helped), streaks.current if counted else None))
    return lines


class DailyResultScreen(Screen[str]):
    """The result of a daily puzzle already played, over its board (hidden: the clock of
    the practice game waits). Dismisses with "practice", "new", "archive" or "quit"."""

    DEFAULT_CSS = "DailyResultScreen { align: center middle; }"

    BINDINGS = [
        Binding("enter,p,escape", "choose('practice')", "Practise it"),
        Binding("g", "choose('new')", "New game"),
        Binding("a", "choose('archive')", "Daily archive"),
        Binding("q", "choose('quit')", "Quit"),
    ]

    def __init__(self, day: date, game: PastGame, store: Store, *, ascii: bool = False) -> None:
        super().__init__()
        self.day = day
        self.lines = result_lines(day, game, store)
        self.ascii = ascii

    def text(self, text: str) -> str:
        return in_ascii(text) if self.ascii else text

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="daily-result"):
            yield Label(self.text(f"Daily {self.day} · {daily_kind(self.day).describe()}"),
                        classes="question", markup=False)
            for line in self.lines:
                yield Label(self.text(line), markup=False)
            yield Label("You played this daily already: playing it again is practice, "
                        "counted nowhere (no record, no streak, no leaderboard).")
            yield Label("Enter / p: practise it   a: other days   g: new game   q: quit", classes="keys")

    def action_choose(self, choice: str) -> None:
        self.dismiss(choice)
