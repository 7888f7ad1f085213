"""The original Kaldoku's piece-string layout (KDevZilla's C# game), read as a puzzle.

Kaldoku stores a board as pieces joined by `|`, each `TYPE_RotateDEG_ROW_COL`: a
shape, turned DEG degrees clockwise (90, 180, 270, or 360 for not turned), put with
its first cell in reading order at (ROW, COL); the board is as large as the pieces
cover. Kaldoku keeps the answer beside it ("target cell values") and draws each piece's
operation at random when a game starts, so the text kaldoku reads is the piece string,
then a clue line (one clue per piece, in the order of the pieces, as printed: `11+ 6x
3`), or the solution (a row of digits a line), or both. Without clues every piece adds
up, Kaldoku's default operation. `#` starts a comment. The article's example, with the
clues of its picture:

    L3_Rotate90_0_0|L2_Rotate90_1_1|L2_Rotate180_2_2|I2_Rotate360_0_3|J3_Rotate90_2_0|
    11+ 5+ 12x 6x 11+
    1243
    4312
    2134
    3421

Those five clues leave two fillings that keep every rule (Kaldoku accepts either); the
puzzle carries the article's answer, one of the two.

The shapes, not turned (row, column from the put cell). The article spells out only L2
(in all four turns, which the turning rule here reproduces); the others are the shapes
their names give: I, L and J of 2 or 3 cells high (L's foot to the right, J's to the
left), the S, T, Z and O tetrominoes, and a single Dot:

    Dot (0,0)                       T  (0,0) (0,1) (0,2) (1,1)
    I2  (0,0) (1,0)                 S  (0,0) (0,1) (1,-1) (1,0)
    I3  (0,0) (1,0) (2,0)           Z  (0,0) (0,1) (1,1) (1,2)
    I4  (0,0) (1,0) (2,0) (3,0)     O  (0,0) (0,1) (1,0) (1,1)
    L2  (0,0) (1,0) (1,1)           J2 (0,0) (1,0) (1,-1)
    L3  (0,0) (1,0) (2,0) (2,1)     J3 (0,0) (1,0) (2,0) (2,-1)

As Kaldoku's Piece.Create does for the shapes it cannot turn (taken here to be those
that look the same turned half round: Dot, I2, I3, I4, S, Z, O), Rotate180 and
Rotate270 of those mean not turned.
"""

from __future__ import annotations

import re
from math import isqrt

from kaldoku_tui.engine.kinds import SIZES
from kaldoku_tui.engine.puzzle import OP_ALIASES, Cage, Cell, Grid, Puzzle, PuzzleError

SHAPES: dict[str, tuple[Cell, ...]] = {
    "Dot": ((0, 0),),
    "I2": ((0, 0), (1, 0)),
    "I3": ((0, 0), (1, 0), (2, 0)),
    "I4": ((0, 0), (1, 0), (2, 0), (3, 0)),
    "L2": ((0, 0), (1, 0), (1, 1)),
    "L3": ((0, 0), (1, 0), (2, 0), (2, 1)),
    "J2": ((0, 0), (1, 0), (1, -1)),
    "J3": ((0, 0), (1, 0), (2, 0), (2, -1)),
    "T": ((0, 0), (0, 1), (0, 2), (1, 1)),
    "S": ((0, 0), (0, 1), (1, -1), (1, 0)),
    "Z": ((0, 0), (0, 1), (1, 1), (1, 2)),
    "O": ((0, 0), (0, 1), (1, 0), (1, 1)),
}
"""Each piece type not turned, as cells relative to its first cell in reading order."""

UNTURNED_BY_HALF = {"Dot", "I2", "I3", "I4", "S", "Z", "O"}
"""Types whose Rotate180 and Rotate270 Kaldoku reads as Rotate360."""

PIECE = re.compile(r"([A-Za-z][A-Za-z0-9]*)_Rotate(\d+)_(\d+)_(\d+)", re.ASCII)
PIECE_LINE = re.compile(r"\s*[A-Za-z][A-Za-z0-9]*_Rotate\d+_\d+_\d+\s*(\|.*)?$", re.ASCII)
"""A line that starts a piece string (how read_puzzles recognises the layout)."""

CLUE = re.compile(r"([-+x*/×÷−]?)(\d{1,9})([-+x*/×÷−]?)", re.ASCII | re.IGNORECASE)


def is_piece_string(text: str) -> bool:
    """Whether the first line of `text` that is not blank or a comment is a piece string."""
    lines = _lines(text)
    return bool(lines) and PIECE_LINE.match(lines[0][1]) is not None


def piece_cells(piece: str) -> tuple[Cell, ...]:
    """The board cells of one piece such as `L3_Rotate90_0_0`."""
    match = PIECE.fullmatch(piece.strip())
    if not match:
        raise PuzzleError(f"not a piece: {piece!r} (expected like L3_Rotate90_0_0)")
    kind, degrees, row, col = match[1], int(match[2]), int(match[3]), int(match[4])
    if kind not in SHAPES:
        raise PuzzleError(f"unknown piece type {kind!r} (one of {', '.join(SHAPES)})")
    if degrees not in (90, 180, 270, 360):
        raise PuzzleError(f"piece {piece!r}: rotation must be 90, 180, 270 or 360, not {degrees}")
    if kind in UNTURNED_BY_HALF and degrees in (180, 270):
        degrees = 360
    cells = SHAPES[kind]
    for _ in range(degrees // 90 % 4):
        cells = tuple((c, -r) for r, c in cells)  # a quarter turn clockwise
    first = min(cells)
    return tuple(sorted((row + r - first[0], col + c - first[1]) for r, c in cells))


def read_pieces(text: str) -> Puzzle:
    """The puzzle of a piece-string text (see the module's description)."""
    lines = _lines(text)
    if not lines or not PIECE_LINE.match(lines[0][1]):
        raise PuzzleError("not a Kaldoku piece string: expected like L3_Rotate90_0_0|...")
    pieces = [p for p in lines[0][1].split("|") if p.strip()]
    groups = []
    for piece in pieces:
        try:
            groups.append(piece_cells(piece))
        except PuzzleError as exc:
            raise PuzzleError(f"line {lines[0][0]}: {exc}") from None
    count = sum(len(cells) for cells in groups)
    size = isqrt(count)
    if size * size != count or size not in SIZES:
        raise PuzzleError(
            f"line {lines[0][0]}: the pieces cover {count} cells, not a {min(SIZES)}×{min(SIZES)} "
            f"to {max(SIZES)}×{max(SIZES)} board"
        )
    for piece, cells in zip(pieces, groups):
        if any(not (0 <= r < size and 0 <= c < size) for r, c in cells):
            raise PuzzleError(f"piece {piece.strip()} reaches off the {size}×{size} board")
    rest = lines[1:]
    if len(rest) not in (1, size, size + 1):
        raise PuzzleError(
            f"after the pieces: a clue line, {size} solution rows, or both; not {len(rest)} line(s)"
        )
    solution = _read_solution(rest[-size:], size) if len(rest) >= size else None
    if len(rest) == size:
        clues = ["+"] * len(pieces)  # no clues: Kaldoku's default operation, targets from the solution
        number = rest[0][0]
    else:
        number, clue_line = rest[0]
        clues = [word for word in re.split(r"[\s,]+", clue_line) if word]
        if len(clues) != len(pieces):
            raise PuzzleError(f"line {number}: {len(clues)} clue(s) for {len(pieces)} pieces")
    cages = []
    for piece, cells, clue in zip(pieces, groups, clues):
        if clue == "+" and solution is not None:
            op, target = ("=" if len(cells) == 1 else "+"), sum(solution[r][c] for r, c in cells)
        else:
            op, target = _read_clue(clue, len(cells), number)
        try:
            cages.append(Cage(cells, op, target))
        except PuzzleError as exc:
            raise PuzzleError(f"piece {piece.strip()}: {exc}") from None
    return Puzzle(size, tuple(cages), solution, {"source": "kaldoku pieces"})


def _read_clue(clue: str, cells: int, line: int) -> tuple[str, int]:
    match = CLUE.fullmatch(clue)
    if not match or (match[1] and match[3]):
        raise PuzzleError(f"line {line}: cannot read the clue {clue!r} (like 11+, 6x, 2/, 3)")
    op = (match[1] or match[3]).lower()
    op = OP_ALIASES.get(op, op)
    if not op:
        if cells != 1:
            raise PuzzleError(f"line {line}: clue {clue!r} has no operation for a {cells}-cell piece")
        op = "="
    elif cells == 1:
        op = "="  # Kaldoku adds up its Dots
    return op, int(match[2])


def _read_solution(lines: list[tuple[int, str]], size: int) -> Grid:
    rows = []
    for number, line in lines:
        digits = [int(d) for d in re.findall(r"\d", line)]
        if len(digits) != size:
            raise PuzzleError(f"line {number}: a solution row of {size} digits, not {len(digits)}")
        rows.append(tuple(digits))
    return tuple(rows)


def _lines(text: str) -> list[tuple[int, str]]:
    """The numbered lines that are not blank, comments taken off."""
    numbered = ((n, line.split("#", 1)[0].strip()) for n, line in enumerate(text.splitlines(), 1))
    return [(n, line) for n, line in numbered if line]
