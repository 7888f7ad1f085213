"""The player's statistics: the record per kind of game, the daily streaks, and a chart
of the recent solve times of the kind chosen with the arrow keys."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Static
from textual_plotext import PlotextPlot

from kaldoku_tui.engine.daily import utc_day
from kaldoku_tui.engine.kinds import GameKind
from kaldoku_tui.screens.dialogs import ReadingScreen
from kaldoku_tui.session.game import clock_text
from kaldoku_tui.session.reports import records_table, streak_text
from kaldoku_tui.session.store import Store
from kaldoku_tui.terminal import in_ascii

CHART_SLOTS = 10
"""The fewest bars the chart makes room for."""


class TimeChart(PlotextPlot):
    """Recent solve times of one kind as bars, oldest on the left, on an m:ss scale
    (textual-plotext); in ASCII mode bars of # with no frame."""

    def show(self, times: list[float], ascii: bool) -> None:
        plt = self.plt
        plt.clear_figure()
        top = max(times)
        ticks = [0, top / 2, top]
        plt.bar(list(range(1, len(times) + 1)), times, marker="#" if ascii else "sd", width=0.6)
        plt.yticks(ticks, [clock_text(t) for t in ticks])
        plt.xticks([])
        # Room for at least CHART_SLOTS bars, so that one win is a bar and not a wall.
        plt.xlim(0.5, max(len(times), CHART_SLOTS) + 0.5)
        if ascii:
            plt.theme("clear")
            plt.frame(False)
        self.refresh()


class RecordsScreen(ReadingScreen):
    """A table of the player's record per kind of game, the daily streaks and a chart of
    the chosen kind's recent times; the arrows choose the kind; Esc, s or q closes it."""

    BINDINGS = [
        Binding("escape,s,q,enter", "close", "Close"),
        Binding("down,right,j,l", "choose(1)", "Next kind", show=False),
        Binding("up,left,k,h", "choose(-1)", "Previous kind", show=False),
    ]

    def __init__(self, store: Store, playing: GameKind, *, ascii: bool = False) -> None:
        super().__init__(ascii=ascii)
        self.store = store
        self.records = store.records()
        self.playing = playing
        """The kind of the game being played: charted first, if it has a record."""
        self.chosen = 0
        """The index in `records` of the kind whose times are charted: at first the kind
        being played, if it has a record."""

    def text(self, text: str) -> str:
        return in_ascii(text) if self.ascii else text

    def table(self) -> str:
        if not self.records:
            return "No game finished yet." if self.store.saving else "Statistics are not kept (saving is off)."
        lines = records_table(self.records).split("\n")
        # The chosen kind is marked by a sign, not by colour alone.
        marked = [lines[0]] + [("> " if i == self.chosen else "  ") + line
                               for i, line in enumerate(lines[1:])]
        return self.text("  " + "\n".join(marked) + "\nBest and median: the times of wins without help.")

    def chart(self) -> str:
        """The heading of the chart; the chart itself is drawn for the chosen kind."""
        chart = self.query_one(TimeChart)
        chart.display = False
        if not self.records:
            return ""
        kind = self.records[self.chosen][0]
        times = self.store.win_times(kind)
        chart.display = bool(times)
        heading = f"{kind.describe()}: "
        if not times:
            return self.text(heading + "no win yet to chart. Arrows: another kind.")
        chart.show(times, self.ascii)
        heading += (f"the last {len(times)} wins, oldest first (with help or not)"
                    if len(times) > 1 else "one win so far")
        return self.text(heading)

    def compose(self) -> ComposeResult:
        self.chosen = next((i for i, (kind, _) in enumerate(self.records) if kind == self.playing), 0)
        streaks = self.store.streaks(utc_day())
        with VerticalScroll(classes="dialog", id="records"):
            yield Static("Statistics", classes="question")
            yield Static(self.table(), id="records-table", markup=False)
            yield Static(streak_text(streaks), id="records-streak", markup=False)
            yield Static(id="records-chart", markup=False)
            yield TimeChart(id="records-plot")
            keys = "arrows: kind to chart   " if len(self.records) > 1 else ""
            yield Static(f"{keys}Esc / s / q: close", classes="keys")

    def action_choose(self, delta: int) -> None:
        if not self.records:
            return
        self.chosen = (self.chosen + delta) % len(self.records)
        self.query_one("#records-table", Static).update(self.table())
        self.query_one("#records-chart", Static).update(self.chart())

    def on_mount(self) -> None:
        self.query_one("#records-chart", Static).update(self.chart())
