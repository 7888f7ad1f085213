"""The player's statistics: the record per kind of game, the daily streaks, and a chart
of the recent solve times of the kind chosen with the arrow keys."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Static

from kaldoku_tui.engine.daily import utc_day
from kaldoku_tui.engine.kinds import GameKind
from kaldoku_tui.screens.dialogs import ReadingScreen
from kaldoku_tui.session.game import clock_text
from kaldoku_tui.session.store import RECENT, Record, records_table, streak_text
from kaldoku_tui.terminal import in_ascii

CHART_HEIGHT = 6
"""Rows of the chart's bars."""

EIGHTHS = " ▁▂▃▄▅▆▇"
"""The top of a bar in eighths of a row (Unicode); ASCII rounds to whole rows of #."""


def time_chart(times: list[float], ascii: bool = False, height: int = CHART_HEIGHT) -> list[str]:
    """Solve times as a column chart, oldest on the left, one column a game, the
    slowest as high as `height` rows; the time scale down the left. No colour needed."""
    top = max(times)
    labels = [clock_text(top), clock_text(top / 2)]
    width = max(map(len, labels))
    lines = []
    for row in range(height, 0, -1):
        label = labels[0] if row == height else labels[1] if row == (height + 1) // 2 else ""
        bars = "".join(bar_piece(t / top * height if top else 0, row, ascii) + " " for t in times)
        lines.append(f"{label.rjust(width)} {'|' if ascii else '│'}{bars}".rstrip())
    corner, rule = ("+", "-") if ascii else ("└", "─")
    lines.append(f"{'0:00'.rjust(width)} {corner}{rule * (2 * len(times))}")
    return lines


def bar_piece(fill: float, row: int, ascii: bool) -> str:
    """What a bar `fill` rows high shows in its `row`th row from the bottom (1 is the
    lowest); every bar shows at least a sliver, so a game is never invisible."""
    if ascii:
        return "#" if row <= max(1, round(fill)) else " "
    if fill >= row:
        return "█"
    part = int((fill - (row - 1)) * 8) if fill > row - 1 else 0
    if row == 1 and part == 0:
        part = 1
    return EIGHTHS[part] if part else " "


class RecordsScreen(ReadingScreen):
    """A table of the player's record per kind of game, the daily streaks and a chart of
    the chosen kind's recent times; the arrows choose the kind; Esc, s or q closes it."""

    BINDINGS = [
        Binding("escape,s,q,enter", "close", "Close"),
        Binding("down,right,j,l", "choose(1)", "Next kind", show=False),
        Binding("up,left,k,h", "choose(-1)", "Previous kind", show=False),
    ]

    def __init__(self, records: list[tuple[GameKind, Record]], saving: bool = True) -> None:
        super().__init__()
        self.records = records
        self.saving = saving
        self.chosen = 0
        """The index in `records` of the kind whose times are charted: at first the kind
        being played, if it has a record."""

    def text(self, text: str) -> str:
        return in_ascii(text) if self.app.ascii else text

    def table(self) -> str:
        if not self.records:
            return "No game finished yet." if self.saving else "Statistics are not kept (saving is off)."
        lines = records_table(self.records).split("\n")
        # The chosen kind is marked by a sign, not by colour alone.
        marked = [lines[0]] + [("> " if i == self.chosen else "  ") + line
                               for i, line in enumerate(lines[1:])]
        return self.text("  " + "\n".join(marked) + "\nBest and median: the times of wins without help.")

    def chart(self) -> str:
        if not self.records:
            return ""
        kind = self.records[self.chosen][0]
        times = self.app.store.win_times(kind)
        heading = f"{kind.describe()}: "
        if not times:
            return self.text(heading + "no win yet to chart. Arrows: another kind.")
        heading += (f"the last {len(times)} wins, oldest first (with help or not)"
                    if len(times) > 1 else "one win so far")
        lines = time_chart(times, ascii=self.app.ascii)
        return self.text("\n".join([heading, *lines]))

    def compose(self) -> ComposeResult:
        playing = self.app.game.session.kind
        self.chosen = next((i for i, (kind, _) in enumerate(self.records) if kind == playing), 0)
        streaks = self.app.store.streaks(utc_day())
        with VerticalScroll(classes="dialog", id="records"):
            yield Static("Statistics", classes="question")
            yield Static(self.table(), id="records-table", markup=False)
            yield Static(streak_text(streaks), id="records-streak", markup=False)
            yield Static(self.chart(), id="records-chart", markup=False)
            keys = "arrows: kind to chart   " if len(self.records) > 1 else ""
            yield Static(f"{keys}Esc / s / q: close", classes="keys")

    def action_choose(self, delta: int) -> None:
        if not self.records:
            return
        self.chosen = (self.chosen + delta) % len(self.records)
        self.query_one("#records-table", Static).update(self.table())
        self.query_one("#records-chart", Static).update(self.chart())
