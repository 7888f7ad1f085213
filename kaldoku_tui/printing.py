"""Puzzles on paper: text grids for a terminal or a printer, and PDF booklets.

A text grid draws cage walls heavy and the lines inside cages light (frame.Frame, as
the game does), each cage's clue in its first cell, and the cells blank or, for the
answers, filled. A booklet (fpdf2) puts four puzzles on an A4 page, each headed by its
title, level and share code, and the answers twelve to a page at the back.
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

PUZZLES_ACROSS, PUZZLES_DOWN = 2, 3
ANSWERS_ACROSS, ANSWERS_DOWN = 3, 4
WALL, LINE = 0.7, 0.2
"""Widths of cage walls and of the lines inside cages, in millimetres."""

PDF_OPS = str.maketrans({"−": "-"})
"""The PDF's built-in fonts have × and ÷ but no minus sign."""


def write_booklet(sheets: Sequence[Sheet], path: str | BinaryIO, title: str = "kaldoku") -> None:
    """A PDF booklet of the sheets, written to `path` (a file name or a binary file): the
    puzzles six to an A4 page, each headed by its title, level and share code, then the
    answers twelve to a page."""
    from fpdf import FPDF

    pdf = FPDF(unit="mm", format="A4")
    pdf.set_auto_page_break(False)
    pdf.set_title(title)
    pdf.set_creator("kaldoku")
    _pages(pdf, sheets, PUZZLES_ACROSS, PUZZLES_DOWN, answers=False)
    with_answers = [s for s in sheets if s.puzzle.solution]
    if with_answers:
        _pages(pdf, with_answers, ANSWERS_ACROSS, ANSWERS_DOWN, answers=True)
    pdf.output(path)


def _pages(pdf, sheets: Sequence[Sheet], across: int, down: int, answers: bool) -> None:
    per_page = across * down
    slot_w = (PAGE_WIDTH - 2 * MARGIN) / across
    slot_h = (PAGE_HEIGHT - 2 * MARGIN - 10) / down
    for start in range(0, len(sheets), per_page):
        pdf.add_page()
        pdf.set_font("Helvetica", "B", 14)
        pdf.set_xy(MARGIN, MARGIN - 4)
        pdf.cell(PAGE_WIDTH - 2 * MARGIN, 8, "Answers" if answers else "kaldoku", align="C")
        for k, s in enumerate(sheets[start:start + per_page]):
            x = MARGIN + (k % across) * slot_w
            y = MARGIN + 10 + (k // across) * slot_h
            _slot(pdf, s, x, y, slot_w, slot_h, answers)


def _slot(pdf, s: Sheet, x: float, y: float, w: float, h: float, answers: bool) -> None:
    """One puzzle in its slot: its heading, then the board centred under it."""
    gap = 5.0
    if answers:
        pdf.set_font("Helvetica", "", 8)
        pdf.set_xy(x, y)
        pdf.cell(w, 4, f"{s.title} · {s.kind}", align="C")
        head = 4.0
    else:
        pdf.set_font("Helvetica", "B", 11)
        pdf.set_xy(x, y)
        pdf.cell(w, 5, s.title, align="C")
        pdf.set_font("Helvetica", "", 9)
        pdf.set_xy(x, y + 5)
        pdf.cell(w, 4, s.about.translate(PDF_OPS), align="C")
        head = 9.0
    side = min(w - 2 * gap, h - head - 2 * gap)
    left, top = x + (w - side) / 2, y + head + gap / 2
    _board(pdf, s.puzzle, left, top, side, s.puzzle.solution if answers else None)


def _board(pdf, puzzle: Puzzle, left: float, top: float, side: float, filled: Grid | None) -> None:
    n = puzzle.size
    cell = side / n
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
    if filled is None:
        for cage in puzzle.cages:
            r, c = cage.anchor
            label = cage.label().translate(PDF_OPS)
            points = min(11.0, cell * 0.9)
            pdf.set_font("Helvetica", "", points)
            while pdf.get_string_width(label) > cell - 1.6 and points > 4:
                points -= 0.5  # a long product: smaller, but inside its cell
                pdf.set_font("Helvetica", "", points)
            pdf.set_xy(left + c * cell + 0.8, top + r * cell + 0.9)
            pdf.cell(cell - 1.6, cell * 0.3, label)
        return
    pdf.set_font("Helvetica", "", cell * 1.5)  # answers: the digits alone, the walls to find them by
    for r in range(n):
        for c in range(n):
            pdf.set_xy(left + c * cell, top + r * cell)
            pdf.cell(cell, cell, str(filled[r][c]), align="C")
