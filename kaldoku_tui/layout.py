"""Where the board goes on a terminal: the size of its cells, its frame and rulers, where
each cell, label and number sits, which cell a point is in, and how the lines are shared
with the status line. Plain arithmetic on character cells: nothing here imports Textual
(the grid widget turns these rectangles into its regions)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Iterable, NamedTuple

from kaldoku_tui.engine.board import Notes
from kaldoku_tui.engine.puzzle import Cell

CELL_SIZES = ((11, 5), (9, 4), (7, 3), (9, 2), (7, 1), (5, 1), (3, 1))
"""Cell interiors (columns, rows) to try, largest first; 3+ rows show notes 3×3, 2 rows
in two lines."""

STATUS_LINES = (2, 1)
"""The fewest lines the status line may have under the board, the first tried first:
fewer only when that lets the board keep its numbers."""

STATUS_MOST = 6
"""The most lines the status line takes from a roomy terminal (the board is centred in
the rest)."""

RULER_WIDTH = 2
"""Columns the row numbers take left of the board: the number and a space."""


class Rect(NamedTuple):
    """A rectangle of character cells: left column, top line, width and height (the
    same four numbers as Textual's Region, which it compares equal to)."""

    x: int
    y: int
    width: int
    height: int

    @property
    def right(self) -> int:
        """The first column past it."""
        return self.x + self.width

    @property
    def bottom(self) -> int:
        """The first line below it."""
        return self.y + self.height

    @classmethod
    def union(cls, rects: Iterable[Rect]) -> Rect:
        """The smallest rectangle holding all of `rects` (at least one)."""
        rects = list(rects)
        x, y = min(r.x for r in rects), min(r.y for r in rects)
        return cls(x, y, max(r.right for r in rects) - x, max(r.bottom for r in rects) - y)


@dataclass(frozen=True)
class Layout:
    """Where the board sits in the widget: cell interior size, the top-left corner of
    its frame, and whether the rulers (column numbers above, row numbers left) are shown."""

    size: int
    cell_width: int
    cell_height: int
    left: int
    top: int
    rulers: bool = False

    @property
    def width(self) -> int:
        return self.size * (self.cell_width + 1) + 1

    @property
    def height(self) -> int:
        return self.size * (self.cell_height + 1) + 1

    @property
    def middle(self) -> int:
        """The line of a cell's inside that holds its digit."""
        return (self.cell_height - 1) // 2

    @property
    def ruler_top(self) -> int:
        """Lines the column numbers take above the board."""
        return 1 if self.rulers else 0

    @property
    def ruler_left(self) -> int:
        """Columns the row numbers take left of the board."""
        return RULER_WIDTH if self.rulers else 0

    def column_ruler_region(self, column: int) -> Rect:
        """The stretch above `column` that holds its number."""
        region = self.cell_region((0, column))
        return Rect(region.x, self.top - 1, region.width, 1)

    def row_ruler_region(self, row: int) -> Rect:
        """Where the number of `row` sits."""
        return Rect(self.left - RULER_WIDTH, self.cell_region((row, 0)).y + self.middle, 1, 1)

    def cell_region(self, cell: Cell) -> Rect:
        """The inside of `cell`, in widget coordinates."""
        r, c = cell
        return Rect(
            self.left + c * (self.cell_width + 1) + 1,
            self.top + r * (self.cell_height + 1) + 1,
            self.cell_width,
            self.cell_height,
        )

    def label_region(self, cell: Cell) -> Rect:
        """The stretch of line above `cell` where its cage label sits."""
        region = self.cell_region(cell)
        return Rect(region.x, region.y - 1, region.width, 1)

    def cage_region(self, cells: Iterable[Cell], anchor: Cell) -> Rect:
        """The smallest stretch that holds these cells and the label above `anchor`."""
        return Rect.union([self.label_region(anchor), *(self.cell_region(cell) for cell in cells)])

    def column_band(self, column: int) -> Rect:
        """A column of cells with its number above and the wall to its right."""
        return Rect(self.cell_region((0, column)).x, self.top - self.ruler_top,
                    self.cell_width + 1, self.height + self.ruler_top)

    def ruler_band(self) -> Rect:
        """The row numbers, down the left of the board."""
        return Rect(self.left - RULER_WIDTH, self.top, RULER_WIDTH, self.height)

    def cell_at(self, x: int, y: int) -> Cell | None:
        """The cell whose inside holds the point (x, y), if any."""
        c, dx = divmod(x - self.left, self.cell_width + 1)
        r, dy = divmod(y - self.top, self.cell_height + 1)
        if 0 <= r < self.size and 0 <= c < self.size and dx and dy:
            return (r, c)
        return None


def layouts(size: int, label_width: int) -> list[Layout]:
    """The boards to try, largest first, placed at (0, 0).

    Labels sit in the line above their cell, so cells are at least as wide as the
    longest label plus its state glyph; last comes room for the label alone (a
    six-cell × cage can have a seven-digit clue), where the state shows by style only.
    """
    sizes = [(max(width, label_width + 1), height) for width, height in CELL_SIZES]
    sizes.append((max(CELL_SIZES[-1][0], label_width), 1))
    return [Layout(size, width, height, 0, 0) for width, height in sizes]


@lru_cache(maxsize=64)
def fit_layout(size: int, label_width: int, width: int, height: int) -> Layout | None:
    """The largest board that fits a `width`×`height` area, centred; None when none does.

    Every size of cell with rulers comes before any without: the rulers go only when no
    board with them fits."""
    for rulers in (True, False):
        for layout in layouts(size, label_width):
            layout = replace(layout, rulers=rulers)
            outer_width = layout.width + layout.ruler_left
            outer_height = layout.height + layout.ruler_top
            if outer_width <= width and outer_height <= height:
                return replace(
                    layout,
                    left=(width - outer_width) // 2 + layout.ruler_left,
                    top=(height - outer_height) // 2 + layout.ruler_top,
                )
    return None


def status_lines(size: int, label_width: int, width: int, rows: int) -> int:
    """How many of `rows` lines, shared by the board above and the status line below, go
    to the status line. It depends on the terminal's size alone, never on a message, so
    the board does not jump when one is long (a longer one is paged)."""
    for rulers in (True, False):
        for least in STATUS_LINES:
            layout = fit_layout(size, label_width, width, rows - least)
            if layout is not None and (layout.rulers or not rulers):
                spare = rows - layout.height - layout.ruler_top
                return max(least, min(spare, STATUS_MOST))
    return STATUS_LINES[-1]


@lru_cache(maxsize=64)
def note_places(size: int, width: int, height: int) -> dict[int, tuple[int, int]] | None:
    """Where each digit's note sits in a cell (line, column), always the same place for
    the same digit, 1 top left to the largest bottom right; None when the cell is too
    small for all of them (notes are then listed compactly)."""
    lines = min(height, 3)
    across = -(-size // lines)
    if across > width:
        return None
    down = -(-size // across)
    digit_place = ((height - 1) // 2, (width - 1) // 2)
    first = None
    for gap in (2, 1) if 2 * across - 1 <= width else (1,):
        span = gap * (across - 1) + 1
        top, centred = (height - down) // 2, (width - span) // 2
        # Centred, else the nearest place where no note sits where a digit goes (a lone
        # note there would look like one).
        for left in sorted(range(width - span + 1), key=lambda x: (abs(x - centred), x)):
            places = {d: (top + (d - 1) // across, left + gap * ((d - 1) % across))
                      for d in range(1, size + 1)}
            first = first or places
            if digit_place not in places.values():
                return places
    return first


def compact_notes(notes: Notes, size: int, width: int, glyphs: dict[str, str]) -> str:
    """Notes in `width` characters where each digit cannot have its place: the digits
    when they fit, else the digits missing after a "all but" mark (all of them: 1–N)."""
    text = "".join(map(str, sorted(notes)))
    if len(text) <= width:
        return text
    missing = "".join(str(d) for d in range(1, size + 1) if d not in notes)
    text = glyphs["all but"] + missing if missing else f"1{glyphs['to']}{size}"
    return text if len(text) <= width else text[: width - 1] + glyphs["more"]
