"""Puzzles on paper: text grids for a terminal or a printer, and PDF booklets.

A text grid draws cage walls heavy and the lines inside cages light (frame.Frame, as
the game does), each cage's clue in its first cell, and the cells blank or, for the
answers, filled. A booklet (fpdf2) sets every board with cells of one size, so a 9×9's
box is bigger than a 4×4's, in rows that fill each A4 page (six 6×6, two 9×9), each
headed by its title, level and share code; the answers, smaller, at the back.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import BinaryIO, Sequence

from kaldoku_tui.engine.kinds import GameKind
from kaldoku_tui.engine.puzzle import Grid, Puzzle
from kaldoku_tui.frame import Frame
from kaldoku_tui.terminal import in_ascii

CELL_HEIGHT = 3
"""Text lines inside a cell: the clue, the digit, a line to write notes."""

MIN_CELL_WIDTH = 7
"""Columns inside a cell; with three lines a cell looks about square on paper."""


@dataclass(frozen=True)
class Sheet:
    """One puzzle to print, with what its heading says."""

    puzzle: Puzzle
    title: str
    """Which puzzle, e.g. `Puzzle 3` or `Monday 2026-11-23`."""
    kind: str
    """Its size and level, e.g. `6×6 hard`."""
    code: str | None
    """Its share code, when it has one (a puzzle with no solution has none)."""

    @property
    def about(self) -> str:
        """Its size, level and code: `6×6 hard · kg1-…`."""
        return f"{self.kind} · {self.code}" if self.code else self.kind

    @property
    def heading(self) -> str:
        return f"{self.title} · {self.about}"


def sheet(puzzle: Puzzle, title: str) -> Sheet:
    """The sheet of `puzzle` under `title`, with its solution and its level found when
    it does not carry them; a puzzle without exactly one solution says so instead."""
    from kaldoku_tui.engine.codes import share_code
    from kaldoku_tui.engine.fillings import CageTooLarge
    from kaldoku_tui.engine.solver import solve
    from kaldoku_tui.engine.techniques import grade

    found = [puzzle.solution] if puzzle.solution else solve(puzzle, limit=2)
    level = GameKind.of(puzzle).known_level  # a file may claim any text: an escape sequence
    if level is None and len(found) == 1:
        try:
            level = grade(puzzle).level
        except CageTooLarge:
            pass  # a cage too large to reason about: printed without its level
    if found and puzzle.solution is None:
        puzzle = puzzle.with_solution(found[0])
    kind = f"{puzzle.size}×{puzzle.size}" + (f" {level}" if level else "")
    if len(found) != 1:
        kind += " (more than one solution)" if found else " (no solution)"
    return Sheet(puzzle, title, kind, share_code(puzzle) if found else None)


def grid_text(puzzle: Puzzle, filled: Grid | None = None, ascii: bool = False) -> str:
    """The board as text: heavy cage walls, clues in each cage's first cell, and the
    cells blank or holding the digits of `filled`."""
    frame = Frame.of(puzzle, ascii)
    n = puzzle.size
    labels = {cage.anchor: in_ascii(cage.label()) if ascii else cage.label() for cage in puzzle.cages}
    width = max(MIN_CELL_WIDTH, *(len(label) + 1 for label in labels.values()))
    lines = []
    for i in range(n + 1):
        line = ""
        for j in range(n + 1):
            line += frame.junctions[i][j][0]
            if j < n:
                line += frame.across_chars[frame.across[i][j]] * width
        lines.append(line)
        if i == n:
            break
        for k in range(CELL_HEIGHT):
            line = ""
            for j in range(n + 1):
                line += frame.down_chars[frame.down[i][j]]
                if j == n:
                    break
                inside = ""
                if k == 0:
                    inside = labels.get((i, j), "")
                elif k == 1 and filled is not None and filled[i][j]:
                    inside = str(filled[i][j]).center(width)
                line += inside.ljust(width)
            lines.append(line)
    return "\n".join(lines)


def sheets_text(sheets: Sequence[Sheet], answers: bool, ascii: bool) -> str:
    """Every sheet as a titled text grid; with `answers`, the filled grids after them all."""
    blocks = [f"{s.heading}\n\n{grid_text(s.puzzle, ascii=ascii)}" for s in sheets]
    solved = [s for s in sheets if s.puzzle.solution]
    if answers and solved:
        blocks.append("Answers")
        blocks += [f"{s.title} · {s.kind}\n\n{grid_text(s.puzzle, s.puzzle.solution, ascii)}"
                   for s in solved]
    text = "\n\n".join(blocks) + "\n"
    return in_ascii(text) if ascii else text


# --- PDF booklets ---------------------------------------------------------------

PAGE_WIDTH, PAGE_HEIGHT, MARGIN = 210.0, 297.0, 14.0
"""A4, in millimetres."""

PUZZLE_CELL, ANSWER_CELL = 10.0, 5.0
"""Sides of a cell, in millimetres: a board's box grows with its size, so a 9×9 is as
easy to write in as a 4×4 (a newspaper's KenKen has cells of 9 to 11 mm)."""
GAP = 5.0
"""Space around each board and its heading, in millimetres."""
WALL, LINE = 0.7, 0.2
"""Widths of cage walls and of the lines inside cages, in millimetres."""
CLUE_POINTS = 8.0
"""The size of a clue; a clue too long for its cell at this size is set smaller."""
PAD = 0.6
"""Space between a clue and the cage walls around its cell, in millimetres."""

PDF_OPS = str.maketrans({"−": "-"})
"""Headings in the built-in Helvetica, which has × and ÷ but no minus sign."""
MINUS = "-"
"""The minus sign in the built-in Symbol font: its character 0x2D is the glyph `minus`,
read back as U+2212, so a clue prints `3−` as it prints `3×` and `3÷`."""


@dataclass(frozen=True)
class Placement:
    """Where one board goes in a booklet: its page (from 0), the top left corner and
    the side of its box, in millimetres from the page's top left corner."""

    sheet: Sheet
    page: int
    left: float
    top: float
    side: float
    answers: bool

    @property
    def cell(self) -> float:
        return self.side / self.sheet.puzzle.size


def booklet_layout(sheets: Sequence[Sheet]) -> list[Placement]:
    """Every board of the booklet of `sheets`: the puzzles from page 0, in rows that
    fill each page, then their answers (smaller) from the next page on."""
    puzzles = _shelves(sheets, PUZZLE_CELL, 9.0, answers=False, first_page=0)
    solved = [s for s in sheets if s.puzzle.solution]
    first = puzzles[-1].page + 1 if puzzles else 0
    return puzzles + _shelves(solved, ANSWER_CELL, 4.0, answers=True, first_page=first)


def _shelves(sheets: Sequence[Sheet], cell: float, head: float, answers: bool,
             first_page: int) -> list[Placement]:
    """The boards placed left to right in rows, each row centred across the page, a row
    that does not fit going to the next page."""
    width, bottom = PAGE_WIDTH - 2 * MARGIN, PAGE_HEIGHT - MARGIN
    rows: list[list[Sheet]] = []
    for s in sheets:
        side = s.puzzle.size * cell
        if rows and sum(t.puzzle.size * cell + 2 * GAP for t in rows[-1]) + side + 2 * GAP <= width:
            rows[-1].append(s)
        else:
            rows.append([s])
    placed: list[Placement] = []
    page, top = first_page, MARGIN + 10
    for row in rows:
        height = head + GAP + max(t.puzzle.size for t in row) * cell + GAP
        if top + height > bottom and top > MARGIN + 10:
            page, top = page + 1, MARGIN + 10
        x = MARGIN + (width - sum(t.puzzle.size * cell + 2 * GAP for t in row)) / 2
        for t in row:
            side = t.puzzle.size * cell
            placed.append(Placement(t, page, x + GAP, top + head + GAP / 2, side, answers))
            x += side + 2 * GAP
        top += height
    return placed


def write_booklet(sheets: Sequence[Sheet], path: str | BinaryIO, title: str = "kaldoku") -> None:
    """A PDF booklet of the sheets, written to `path` (a file name or a binary file): the
    puzzles, each headed by its title, level and share code, as many to an A4 page as
    fit with cells of PUZZLE_CELL (six 6×6, two 9×9), then the answers."""
    from fpdf import FPDF

    pdf = FPDF(unit="mm", format="A4")
    pdf.set_auto_page_break(False)
    pdf.set_title(title)
    pdf.set_creator("kaldoku")
    for placement in booklet_layout(sheets):
        while pdf.page < placement.page + 1:
            pdf.add_page()
            pdf.set_font("Helvetica", "B", 14)
            pdf.set_xy(MARGIN, MARGIN - 4)
            pdf.cell(PAGE_WIDTH - 2 * MARGIN, 8, "Answers" if placement.answers else "kaldoku", align="C")
        _heading(pdf, placement)
        _board(pdf, placement)
    pdf.output(path)


def _heading(pdf, p: Placement) -> None:
    """The board's title (and, for a puzzle, its size, level and code) centred above it."""
    s, middle, wide = p.sheet, p.left + p.side / 2, p.side + 2 * GAP
    if p.answers:
        pdf.set_font("Helvetica", "", 8)
        pdf.set_xy(middle - wide / 2, p.top - GAP / 2 - 4)
        pdf.cell(wide, 4, f"{s.title} · {s.kind}".translate(PDF_OPS), align="C")
        return
    pdf.set_font("Helvetica", "B", 11)
    pdf.set_xy(middle - wide / 2, p.top - GAP / 2 - 9)
    pdf.cell(wide, 5, s.title.translate(PDF_OPS), align="C")
    pdf.set_font("Helvetica", "", 9)
    pdf.set_xy(middle - wide / 2, p.top - GAP / 2 - 4)
    pdf.cell(wide, 4, s.about.translate(PDF_OPS), align="C")


def _board(pdf, p: Placement) -> None:
    puzzle, left, top, side, cell = p.sheet.puzzle, p.left, p.top, p.side, p.cell
    n = puzzle.size
    frame = Frame.of(puzzle, ascii=True)
    pdf.set_draw_color(110)
    pdf.set_line_width(LINE)
    for i in range(1, n):
        pdf.line(left, top + i * cell, left + side, top + i * cell)
        pdf.line(left + i * cell, top, left + i * cell, top + side)
    pdf.set_fill_color(0)
    half = WALL / 2
    for i in range(n + 1):
        for j in range(n):
            if frame.across[i][j]:
                pdf.rect(left + j * cell - half, top + i * cell - half, cell + WALL, WALL, style="F")
    for r in range(n):
        for j in range(n + 1):
            if frame.down[r][j]:
                pdf.rect(left + j * cell - half, top + r * cell - half, WALL, cell + WALL, style="F")
    if not p.answers:
        for cage in puzzle.cages:
            r, c = cage.anchor
            _clue(pdf, cage.label(), left + c * cell, top + r * cell, cell)
        return
    assert puzzle.solution is not None
    pdf.set_font("Helvetica", "", cell * 1.5)  # answers: the digits alone, the walls to find them by
    for r in range(n):
        for c in range(n):
            pdf.set_xy(left + c * cell, top + r * cell)
            pdf.cell(cell, cell, str(puzzle.solution[r][c]), align="C")


def _clue(pdf, label: str, x: float, y: float, cell: float) -> None:
    """A clue in the top left corner of the cell at (x, y), clear of the walls on every
    side: its target in Helvetica, then its sign (a minus from Symbol)."""
    target = label.rstrip("+−×÷?")
    font, sign = ("Symbol", MINUS) if label.endswith("−") else ("Helvetica", label[len(target):])
    room = cell - WALL - 2 * PAD

    def width(points: float) -> float:
        pdf.set_font("Helvetica", "", points)
        wide = pdf.get_string_width(target)
        pdf.set_font(font, "", points)
        return wide + pdf.get_string_width(sign)

    points = CLUE_POINTS
    while width(points) > room and points > 3:
        points -= 0.5  # a long product: smaller, but inside its cell
    x, baseline = x + WALL / 2 + PAD, y + WALL / 2 + PAD + points * 0.72 * 25.4 / 72
    pdf.set_font("Helvetica", "", points)
    pdf.text(x, baseline, target)
    if sign:
        x += pdf.get_string_width(target)
        pdf.set_font(font, "", points)
        pdf.text(x, baseline, sign)
