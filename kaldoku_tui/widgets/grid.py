"""The board widget: cages in box-drawing lines, digits, notes and the checker's marks.

Drawn line by line (Textual's Line API). The widget remembers how it last drew each
cell, cage label and ruler number, and after a key press repaints only those that now
look different. Textual repaints a line from the left edge of the widget that owns it
up to the end of the changed part, so each column of cells (with its number above and
the wall to its right) is also shown by a thin child widget laid over the board (a
GridBand), and so are the row numbers: a changed cell then costs its own few
characters, not the line up to it. A band ends one character after its cells because
Textual writes a needless cursor move when a repainted stretch ends where the next
widget begins.

A cursor move repaints the two cells alone (~90 bytes at 256 colours). Lighting the
cursor's row and column numbers and its cage's label (a few characters more), and
shading every cell of them, are settings. Where the board sits (cell sizes, frame, rulers,
hit-testing) is plain arithmetic in kaldoku_tui/layout.py.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable, NamedTuple

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.strip import Strip
from textual.timer import Timer
from textual.widget import Widget

from kaldoku_tui.engine.board import BoardView, Notes
from kaldoku_tui.engine.check import CageState, cage_states, duplicates
from kaldoku_tui.engine.kinds import MAX_SIZE
from kaldoku_tui.engine.puzzle import Cage, Cell, Puzzle
from kaldoku_tui.frame import Frame
from kaldoku_tui.layout import RULER_WIDTH, Layout, compact_notes, fit_layout, layouts, note_places
from kaldoku_tui.session.moves import Clear, Fill, Move, Note, Place, Redo, Undo
from kaldoku_tui.terminal import in_ascii

BANDS_DELAY = 0.3
"""Seconds from the board's first size to its bands. A key press repaints just the
bands that changed (a whole line of the screen without them), but placing them paints
the board twice more: done at once, they hold the first complete screen back ~60 ms."""

GRID_CSS = Path(__file__).parent.parent / "assets" / "grid.tcss"
"""The grid's styles; an App hosting the grid lists this in its CSS_PATH."""

NOTES_MODE = "notes mode on/off: digits then toggle pencil marks"

# Characters that differ between Unicode and ASCII drawing.
UNICODE_GLYPHS = {"done": "✓", "wrong": "≠", "duplicate": "!", "more": "…", "times": "×",
                  "all but": "¬", "to": "–", "hint": "›"}
ASCII_GLYPHS = {"done": "*", "wrong": "!", "duplicate": "!", "more": "+", "times": "x",
                "all but": "~", "to": "-", "hint": ">"}


class Look(NamedTuple):
    """Everything that decides how one cell is drawn."""

    digit: int
    notes: Notes
    cursor: bool
    focused: bool
    """Whether the board has the keyboard (the cursor looks different without it)."""
    notes_mode: bool
    peer: bool
    same_digit: bool
    chosen: int
    """The cursor's digit when this cell holds it too, placed or as a note (0: no)."""
    duplicate: bool
    marked: bool
    hinted: bool


class Label(NamedTuple):
    """Everything that decides how one cage label is drawn."""

    state: str
    """"done", "wrong" or ""."""
    lit: bool
    """Whether the cursor is in the cage."""


def next_empty(view: BoardView, cell: Cell, step: int) -> Cell | None:
    """The first empty cell from `cell` on in reading order (`step` 1) or back (-1),
    round the board's end; None when every other cell holds a digit."""
    size = view.size
    start = cell[0] * size + cell[1]
    for k in range(1, size * size):
        found = divmod((start + step * k) % (size * size), size)
        if not view.digit(found):
            return found
    return None


class GridBand(Widget):
    """A strip of the board, as its KenKenGrid draws it, laid over the grid: one column
    of cells, or the row numbers."""

    def __init__(self, grid: KenKenGrid) -> None:
        super().__init__()
        self.grid = grid
        self.left = 0
        """Where the band starts across the grid."""
        self.top = 0
        """Where the band starts down the grid."""
        self.right = 0
        """Where the band ends across the grid (the first column past it)."""

    def place(self, left: int, top: int, width: int, height: int) -> None:
        """Lay the band over this part of the grid."""
        self.left, self.top, self.right = left, top, left + width
        self.styles.position = "absolute"
        self.styles.offset = (left, top)
        self.styles.width = width
        self.styles.height = height
        # Told its size ahead, Textual paints the band once for its new place, not a second
        # time when the layout gives it that size (another whole board on the wire).
        self.set_reactive(Widget.virtual_size, Size(width, height))
        self.refresh()

    def holds(self, x: int) -> bool:
        """Whether the band shows column x of the grid."""
        return self.display and self.left <= x < self.right

    def render_line(self, y: int) -> Strip:
        return self.grid.board_line(self.top + y).crop(self.left, self.right)


class KenKenGrid(Widget, can_focus=True):
    """The board: move with arrows or hjkl, type digits, notes, undo and redo (handed to
    `play` as they are typed)."""

    COMPONENT_CLASSES = {
        "grid--cursor",
        "grid--cursor-away",
        "grid--notes-cursor",
        "grid--peer",
        "grid--same-digit",
        "grid--chosen",
        "grid--marked",
        "grid--hint",
        "grid--digit",
        "grid--note",
        "grid--duplicate",
        "grid--label",
        "grid--cage-done",
        "grid--cage-wrong",
        "grid--wall",
        "grid--line",
        "grid--message",
        "grid--ruler",
        "grid--ruler-lit",
        "grid--label-lit",
    }

    BINDINGS = [
        Binding("up,k", "move(-1, 0)", "Up", show=False),
        Binding("down,j", "move(1, 0)", "Down", show=False),
        Binding("left,h", "move(0, -1)", "Left", show=False),
        Binding("right,l", "move(0, 1)", "Right", show=False),
        Binding("tab", "empty(1)", "Next empty", show=False,
                tooltip="the next empty cell (reading on: right, then the rows below)"),
        Binding("shift+tab", "empty(-1)", "Previous empty", show=False,
                tooltip="the previous empty cell"),
        Binding("home", "row_end(0)", "Row start", show=False, tooltip="the first cell of the row"),
        Binding("end", "row_end(-1)", "Row end", show=False, tooltip="the last cell of the row"),
        *(Binding(str(d), f"digit({d})", f"Digit {d}", show=False) for d in range(1, 10)),
        *(Binding(f"alt+{d}", f"note({d})", f"Note {d}", show=False) for d in range(1, 10)),
        Binding("0,backspace,delete,space", "clear", "Clear", show=False, tooltip="clear the cell"),
        # Two bindings on one key, only one active at a time: the footer shows the mode.
        Binding("n", "notes_mode(True)", "Notes: off", tooltip=NOTES_MODE),
        Binding("n", "notes_mode(False)", "Notes: ON", tooltip=NOTES_MODE),
        Binding("f", "fill", "Fill notes", show=False,
                tooltip="fill notes: note in every empty cell the digits its row, column and "
                "cage allow (a cell's own notes are only narrowed)"),
        Binding("u,ctrl+z", "undo", "Undo", tooltip="undo"),
        Binding("r,ctrl+y", "redo", "Redo", show=False, tooltip="redo"),
    ]

    view: reactive[BoardView] = reactive(None, repaint=False, init=False,  # type: ignore[arg-type]
                                         always_update=True)
    """The board to draw: digits and notes on a puzzle (a new puzzle redraws it all)."""
    cursor: reactive[Cell] = reactive((0, 0), repaint=False, init=False)
    """The selected cell."""
    notes_mode: reactive[bool] = reactive(False, repaint=False, init=False)
    """Whether digits toggle pencil notes instead of placing digits."""
    marked: reactive[frozenset[Cell]] = reactive(frozenset(), repaint=False, init=False)
    """Cells "check so far" points at."""
    hinted: reactive[frozenset[Cell]] = reactive(frozenset(), repaint=False, init=False)
    """Cells a hint points at."""
    show_board: reactive[bool] = reactive(True, init=False)
    """False hides the board (while paused)."""
    highlight_peers: reactive[bool] = reactive(False, repaint=False, init=False)
    """Whether to shade every cell of the cursor's row, column and cage."""
    light_numbers: reactive[bool] = reactive(False, repaint=False, init=False)
    """Whether to light the cursor's row and column numbers and its cage's label. Off, a
    cursor move repaints the two cells alone: kindest to slow links."""

    class Fits(Message):
        """Whether the board fits the widget, after a resize."""

        def __init__(self, fits: bool) -> None:
            super().__init__()
            self.fits = fits

    def __init__(
        self,
        view: BoardView,
        *,
        ascii: bool = False,
        play: Callable[[Move], object] | None = None,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.ascii = ascii
        self.play = play or (lambda move: None)
        """Makes a move the player typed, at once: a message could be overtaken by the
        keys typed after it (a paste, keys over a slow link)."""
        self.glyphs = ASCII_GLYPHS if ascii else UNICODE_GLYPHS
        self.bands = [GridBand(self) for _ in range(MAX_SIZE)]
        """One band a column of cells."""
        self.ruler_band = GridBand(self)
        """The band of the row numbers."""
        self.lines: dict[int, Strip] = {}
        """The board's lines as last drawn, by y, until something changes."""
        self.lines_layout: Layout | None = None
        self.placed_layout: Layout | None = None
        """The layout the bands were last placed for."""
        self.bands_due: Timer | None = None
        """Set on the first Resize, to place the bands once the first screen is out."""
        self.drawn_in: tuple[str, Style] | None = None
        """The theme the lines on the screen were drawn in, None before the first."""
        self.fits: bool | None = None
        """Whether the board fitted at the last resize (None before the first)."""
        self.set_reactive(KenKenGrid.view, view)
        self.set_puzzle(view.puzzle)

    def compose(self) -> ComposeResult:
        yield from self.bands
        yield self.ruler_band

    # The board and the checker.

    def watch_view(self, old: BoardView, new: BoardView) -> None:
        if new.puzzle is not old.puzzle:
            self.set_puzzle(new.puzzle)
        else:
            self.check()
            self.repaint_changes()

    def set_puzzle(self, puzzle: Puzzle) -> None:
        """Draw boards of `puzzle` from now on."""
        self.frame = Frame.of(puzzle, self.ascii)
        self.labels = {cage.anchor: in_ascii(cage.label()) if self.ascii else cage.label()
                       for cage in puzzle.cages}
        self.label_width = max(len(label) for label in self.labels.values())
        self.looks: dict[Cell, Look] = {}
        self.label_looks: dict[Cell, Label] = {}
        self.lit: Cell | None = None
        """The row and column whose ruler numbers are drawn lit, if any."""
        self.check()
        self.set_reactive(KenKenGrid.cursor, self.validate_cursor(self.cursor))
        self.set_reactive(KenKenGrid.marked, frozenset())
        self.set_reactive(KenKenGrid.hinted, frozenset())
        self.refresh_board()

    def refresh_board(self) -> None:
        """Run the checker and repaint everything (after a new board, a reveal...)."""
        self.check()
        self.looks, self.label_looks = self.compute_looks()
        self.lit = self.lit_cell
        self.repaint_all()

    def repaint_all(self) -> None:
        """Place the column bands for the current size and repaint the lot."""
        self.lines.clear()
        self.place_bands()
        self.refresh()

    def place_bands(self) -> None:
        """Lay the bands over the board as it is drawn at the current size."""
        layout = self.board_layout
        self.placed_layout = layout
        shown = layout is not None and self.show_board
        for j, band in enumerate(self.bands):
            band.display = shown and j < self.view.size
            if band.display and layout is not None:
                band.place(*layout.column_band(j))
        self.ruler_band.display = shown and layout is not None and layout.rulers
        if self.ruler_band.display and layout is not None:
            self.ruler_band.place(*layout.ruler_band())

    def check(self) -> None:
        """Run the checker on the board: duplicates and the state of every cage."""
        grid = self.view.grid
        self.duplicates: frozenset[Cell] = frozenset(duplicates(self.view.puzzle, grid))
        self.cage_states: list[CageState] = list(cage_states(self.view.puzzle, grid))

    def compute_looks(self) -> tuple[dict[Cell, Look], dict[Cell, Label]]:
        """How every cell and cage label should look now."""
        board, puzzle = self.view, self.view.puzzle
        cursor = self.cursor
        cursor_cage = puzzle.cage_index(cursor)
        cursor_digit = board.digit(cursor)
        looks = {}
        for cell in puzzle.cells:
            digit = board.digit(cell)
            is_cursor = cell == cursor
            looks[cell] = Look(
                digit=digit,
                notes=board.notes(cell),
                cursor=is_cursor,
                focused=is_cursor and self.has_focus,
                notes_mode=is_cursor and self.notes_mode,
                peer=self.highlight_peers
                and not is_cursor
                and (
                    cell[0] == cursor[0]
                    or cell[1] == cursor[1]
                    or puzzle.cage_index(cell) == cursor_cage
                ),
                same_digit=not is_cursor and digit != 0 and digit == cursor_digit,
                chosen=cursor_digit if not is_cursor and cursor_digit
                and (digit == cursor_digit or cursor_digit in board.notes(cell)) else 0,
                duplicate=cell in self.duplicates,
                marked=cell in self.marked,
                hinted=cell in self.hinted,
            )
        states = {
            CageState.RIGHT: "done",
            CageState.WRONG: "wrong",
        }
        label_looks = {
            cage.anchor: Label(states.get(state, ""), self.light_numbers and index == cursor_cage)
            for index, (cage, state) in enumerate(zip(puzzle.cages, self.cage_states))
        }
        return looks, label_looks

    def repaint_changes(self) -> None:
        """Repaint just the lines of cells, the labels and the ruler numbers whose look
        changed."""
        looks, label_looks = self.compute_looks()
        lit = self.lit_cell
        layout = self.board_layout
        self.lines.clear()
        if layout is not None and self.show_board:
            regions: list[Region] = []
            for cell, look in looks.items():
                old = self.looks.get(cell)
                if look == old:
                    continue
                inside = layout.cell_region(cell)
                for k in range(layout.cell_height):
                    if old is None or (
                        self.cell_segments(old, k, layout) != self.cell_segments(look, k, layout)
                    ):
                        regions.append(Region(inside.x, inside.y + k, inside.width, 1))
            for anchor, label in label_looks.items():
                old_label = self.label_looks.get(anchor)
                if label != old_label:
                    # Only as far as the label reaches, old or new: the wall after it stays.
                    reach = max(self.label_reach(anchor, look, layout)
                                for look in (label, old_label) if look is not None)
                    above = layout.label_region(anchor)
                    regions.append(Region(above.x, above.y, reach, 1))
            if layout.rulers:
                for axis, ruler in enumerate((layout.row_ruler_region, layout.column_ruler_region)):
                    was, now = (None if cell is None else cell[axis] for cell in (self.lit, lit))
                    if was != now:
                        regions += [Region(*ruler(i)) for i in (was, now) if i is not None]
            bands = (*self.bands, self.ruler_band) if layout == self.placed_layout else ()
            for region in regions:
                band = next((band for band in bands if band.holds(region.x)), None)
                if band is None:
                    # No bands (not placed yet, or hidden as the app closes): the grid
                    # repaints the whole lines.
                    self.refresh(region)
                else:
                    band.refresh(region.translate((-band.left, -band.top)))
        self.looks, self.label_looks, self.lit = looks, label_looks, lit

    def cage_region(self, cage: Cage) -> Region | None:
        """Where `cage` (its cells and its label) is on the screen, if the board shows."""
        layout = self.board_layout
        if layout is None:
            return None
        region = Region(*layout.cage_region(cage.cells, cage.anchor))
        return region.translate(self.content_region.offset)

    @property
    def lit_cell(self) -> Cell | None:
        """The cell whose row and column numbers should be lit, if any."""
        return self.cursor if self.light_numbers else None

    # Reactives.

    def validate_cursor(self, cell: Cell) -> Cell:
        last = self.view.size - 1
        return (min(max(cell[0], 0), last), min(max(cell[1], 0), last))

    def watch_cursor(self) -> None:
        self.repaint_changes()

    def watch_notes_mode(self) -> None:
        self.repaint_changes()
        self.refresh_bindings()

    def watch_marked(self) -> None:
        self.repaint_changes()

    def watch_hinted(self) -> None:
        self.repaint_changes()

    def watch_highlight_peers(self) -> None:
        self.repaint_changes()

    def watch_light_numbers(self) -> None:
        self.repaint_changes()

    def watch_show_board(self) -> None:
        self.repaint_all()
        self.refresh_bindings()

    # Layout and drawing.

    @property
    def board_layout(self) -> Layout | None:
        """Where the board sits at the widget's current size; None when it does not fit."""
        size = self.size
        return fit_layout(self.view.size, self.label_width, size.width, size.height)

    def on_resize(self) -> None:
        fits = self.board_layout is not None
        if fits != self.fits:
            self.fits = fits
            self.post_message(self.Fits(fits))
        if self.bands_due is None:
            # The first size: the grid draws the whole first screen and the bands come
            # once it is out (placing them paints the board twice more, ~60 ms).
            self.bands_due = self.set_timer(BANDS_DELAY, self.place_bands)
        else:
            self.repaint_all()

    # After Textual's own handlers, which set has_focus.
    def on_focus(self) -> None:
        self.call_next(self.repaint_changes)

    def on_blur(self) -> None:
        self.call_next(self.repaint_changes)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        # Called for focus too, which only the cursor shows (repainted on its own).
        if self.drawn_in not in (None, self.theme):
            # The lines drawn so far have the old theme's colours.
            self.drawn_in = None
            self.lines.clear()
            self.refresh()
            for band in (*self.bands, self.ruler_band):
                band.refresh()

    @property
    def theme(self) -> tuple[str, Style]:
        """What the colours of the lines depend on."""
        return self.app.theme, self.rich_style

    def render_line(self, y: int) -> Strip:
        if not self.show_board:
            return Strip.blank(self.size.width, self.rich_style)
        if self.board_layout is None:
            return self.message_line(y)
        return self.board_line(y)

    def board_line(self, y: int) -> Strip:
        """Line y of the board, across the whole widget (the bands show it piece by piece)."""
        layout = self.board_layout
        if layout != self.lines_layout:
            self.lines.clear()
            self.lines_layout = layout
        if y not in self.lines:
            self.lines[y] = self.draw_line(y, layout)
            self.drawn_in = self.theme
        return self.lines[y]

    def draw_line(self, y: int, layout: Layout | None) -> Strip:
        width = self.size.width
        base = self.rich_style
        if layout is not None and layout.rulers and y == layout.top - 1:
            return Strip(self.column_ruler(layout)).adjust_cell_length(width, base).simplify()
        if layout is None or not 0 <= y - layout.top < layout.height:
            return Strip.blank(width, base)
        row, sub_row = divmod(y - layout.top, layout.cell_height + 1)
        margin = layout.left - layout.ruler_left
        segments = [Segment(" " * margin, base)]
        if layout.rulers:
            numbered = sub_row - 1 == layout.middle
            segments += [
                Segment(str(row + 1) if numbered else " ",
                        self.ruler_style(numbered and self.lit is not None and row == self.lit[0])),
                Segment(" " * (RULER_WIDTH - 1), base),
            ]
        if sub_row == 0:
            segments += self.line_across(row, layout)
        else:
            segments += self.cells_line(row, sub_row - 1, layout)
        return Strip(segments).adjust_cell_length(width, base).simplify()

    def ruler_style(self, lit: bool) -> Style:
        return self.style_of("grid--ruler-lit" if lit else "grid--ruler")

    def column_ruler(self, layout: Layout) -> list[Segment]:
        """The line above the board: each column's number over its middle."""
        base = self.rich_style
        centre = (layout.cell_width - 1) // 2
        segments = [Segment(" " * (layout.left + 1), base)]
        for c in range(self.view.size):
            text = f"{' ' * centre}{c + 1}".ljust(layout.cell_width)
            lit = self.lit is not None and c == self.lit[1]
            segments += [Segment(text, self.ruler_style(lit)), Segment(" ", base)]
        return segments

    def message_line(self, y: int) -> Strip:
        """A line of the "too small" message, centred."""
        width, height = self.size
        need = layouts(self.view.size, self.label_width)[-1]
        screen = self.app.size
        extra_w, extra_h = screen.width - width, screen.height - height
        times = self.glyphs["times"]
        lines = [
            "Terminal too small:",
            f"need {need.width + extra_w}{times}{need.height + extra_h},"
            f" have {screen.width}{times}{screen.height}",
        ]
        index = y - (height - len(lines)) // 2
        if not 0 <= index < len(lines):
            return Strip.blank(width, self.rich_style)
        text = lines[index].center(width)[:width]
        return Strip([Segment(text, self.style_of("grid--message"))]).adjust_cell_length(width)

    def style_of(self, *names: str) -> Style:
        """The widget's style with these component styles laid over it, in order."""
        style = self.rich_style
        for name in names:
            part = self.get_component_rich_style(name, partial=True)
            style += part
            if part.bgcolor is not None:
                # Only the full style has a translucent background blended in.
                style += Style(bgcolor=self.get_component_rich_style(name).bgcolor)
        return style

    def line_across(self, i: int, layout: Layout) -> list[Segment]:
        """The line above row i: junctions, walls and light lines, and cage labels."""
        frame = self.frame
        wall, line = self.style_of("grid--wall"), self.style_of("grid--line")
        segments = []
        for j, (char, heavy) in enumerate(frame.junctions[i]):
            segments.append(Segment(char, wall if heavy else line))
            if j == self.view.size:
                break
            heavy = frame.across[i][j]
            run = frame.across_chars[heavy] * layout.cell_width
            look = self.label_looks.get((i, j))
            if look is None:
                segments.append(Segment(run, wall if heavy else line))
                continue
            lead, text = self.label_text((i, j), look, layout)
            classes = ["grid--label"] + ([f"grid--cage-{look.state}"] if look.state else [])
            if look.lit:
                # A lit label is a tab from the crossing on: one style change, not two.
                segments.append(Segment(" " * lead + text, self.style_of(*classes, "grid--label-lit")))
            else:
                segments += [Segment(run[:lead], wall), Segment(text, self.style_of(*classes))]
            segments.append(Segment(run[lead + len(text) :], wall))
        return segments

    def label_text(self, anchor: Cell, look: Label, layout: Layout) -> tuple[int, str]:
        """Where a cage's label starts in the line above its anchor, and its text: the
        clue and, where there is room, the cage's state glyph."""
        label = self.labels[anchor]
        lead = 1 if layout.cell_width >= self.label_width + 2 else 0
        glyph = self.glyphs[look.state] if look.state and len(label) < layout.cell_width else ""
        return lead, label + glyph

    def label_reach(self, anchor: Cell, look: Label, layout: Layout) -> int:
        """How far across its cell a label drawn so reaches."""
        lead, text = self.label_text(anchor, look, layout)
        return lead + len(text)

    def cells_line(self, r: int, k: int, layout: Layout) -> list[Segment]:
        """Line k of the inside of row r: walls and light lines down, and the cells."""
        frame = self.frame
        wall, line = self.style_of("grid--wall"), self.style_of("grid--line")
        segments = []
        for j, heavy in enumerate(frame.down[r]):
            segments.append(Segment(frame.down_chars[heavy], wall if heavy else line))
            if j < self.view.size:
                segments += self.cell_segments(self.looks[(r, j)], k, layout)
        return segments

    def cell_segments(self, look: Look, k: int, layout: Layout) -> list[Segment]:
        """Line k of one cell's inside."""
        width, height = layout.cell_width, layout.cell_height
        middle = layout.middle
        highlights = [
            name
            for name, on in (
                ("grid--peer", look.peer),
                ("grid--same-digit", look.same_digit),
                ("grid--marked", look.marked),
                ("grid--hint", look.hinted),
            )
            if on
        ]
        # The cursor's styles come last: the notes cursor sets a colour of its own.
        cursor = [
            name
            for name, on in (
                ("grid--cursor", look.focused),
                ("grid--cursor-away", look.cursor and not look.focused),
                ("grid--notes-cursor", look.notes_mode),
            )
            if on
        ]
        # The spaces of a line take its digit's or notes' style, which shows on them
        # the same as none: one style change per line, fewer bytes on the wire.
        chars = [" "] * width
        kinds = [""] * width
        spelled = True  # the digits drawn are themselves (not the "¬5" or "1–9" of compact notes)
        if look.digit and k == middle:
            centre = (width - 1) // 2
            chars[centre] = str(look.digit)
            kinds = ["grid--digit"] * width
            if look.duplicate:
                kinds = [""] * width
                kinds[centre] = kinds[centre + 1] = "grid--duplicate"
                chars[centre + 1] = self.glyphs["duplicate"]
        elif not look.digit and look.notes:
            size = self.view.size
            places = note_places(size, width, height)
            if places is None:
                if k == middle:
                    text = compact_notes(look.notes, size, width, self.glyphs)
                    spelled = text[0].isdigit() and self.glyphs["to"] not in text
                    chars[: len(text)] = text
                    kinds = ["grid--note"] * width
            else:
                for d in look.notes:
                    line, column = places[d]
                    if line == k:
                        chars[column] = str(d)
                        kinds = ["grid--note"] * width
        if look.chosen and spelled:
            # The chosen digit alone is marked, placed or noted.
            for i, char in enumerate(chars):
                if char == str(look.chosen):
                    kinds[i] = f"{kinds[i]} grid--chosen"
        if look.hinted and k == middle and chars[0] == " ":
            chars[0] = self.glyphs["hint"]
        segments = []
        start = 0
        for end in range(1, width + 1):
            if end == width or kinds[end] != kinds[start]:
                names = highlights + kinds[start].split() + cursor
                segments.append(Segment("".join(chars[start:end]), self.style_of(*names)))
                start = end
        return segments

    # Input.

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "notes_mode":
            return parameters[0] != self.notes_mode and self.show_board
        if action in ("move", "empty", "row_end", "digit", "note", "clear", "fill", "undo", "redo"):
            return self.show_board
        return True

    def action_move(self, rows: int, columns: int) -> None:
        r, c = self.cursor
        self.cursor = (r + rows, c + columns)

    def action_empty(self, step: int) -> None:
        cell = next_empty(self.view, self.cursor, step)
        if cell is not None:
            self.cursor = cell

    def action_row_end(self, column: int) -> None:
        self.cursor = (self.cursor[0], column % self.view.size)

    def action_digit(self, digit: int) -> None:
        self.play((Note if self.notes_mode else Place)(self.cursor, digit))

    def action_note(self, digit: int) -> None:
        self.play(Note(self.cursor, digit))

    def action_clear(self) -> None:
        self.play(Clear(self.cursor))

    def action_notes_mode(self, on: bool) -> None:
        self.notes_mode = on

    def action_fill(self) -> None:
        self.play(Fill())

    def action_undo(self) -> None:
        self.play(Undo())

    def action_redo(self) -> None:
        self.play(Redo())

    def on_click(self, event: events.Click) -> None:
        layout = self.board_layout
        if layout is None or not self.show_board:
            return
        # The click may come up from a band: place it in the grid by its screen position.
        offset = event.screen_offset - self.content_region.offset
        cell = layout.cell_at(offset.x, offset.y)
        if cell is not None:
            self.cursor = cell
            self.focus()
