"""The puzzle model: cages and puzzles, validated as they are built."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from operator import attrgetter
from typing import Iterable, Mapping, Sequence

from kaldoku_tui.engine.arithmetic import can_make, combine, shape_of
from kaldoku_tui.engine.errors import PuzzleError
from kaldoku_tui.engine.kinds import MAX_SIZE, MIN_SIZE

Cell = tuple[int, int]
"""A cell as (row, column), 0-based, row 0 at the top."""

Grid = tuple[tuple[int, ...], ...]
"""A filled or partly filled board: rows of digits, 0 for a blank."""

OPS = ("+", "-", "*", "/", "=", "?")
"""Cage operations; `=` is a single cell whose target is its digit, `?` a hidden operation
(any of + − × ÷ that makes the target)."""

HIDDEN = "?"
"""The operation of a cage that shows its target only."""

SHOWN_OPS = "+-*/"
"""The operations a hidden cage may stand for, in the order a hint names them."""

OP_ALIASES = {"x": "*", "X": "*", "×": "*", "÷": "/", "−": "-"}
"""Other ways puzzle texts write an operation."""

OP_SYMBOLS = {"+": "+", "-": "−", "*": "×", "/": "÷", "=": "", "?": ""}

_OP_CODES = {op: k for k, op in enumerate(OPS)}
"""Each operation's number, hashed in a cage's stead: a string's hash differs from process to process."""


@dataclass(frozen=True)
class Cage:
    """A group of orthogonally connected cells whose digits, combined by `op`, give `target`."""

    cells: tuple[Cell, ...]
    op: str
    target: int
    _hash: int = field(init=False, repr=False, compare=False)
    """Worked out once: a generator looks its cages up in tables and sets again and again
    (some 2,000 hashes a 6×6 puzzle), and hashing the cells each time cost it 5%."""

    def __post_init__(self) -> None:
        cells = tuple(sorted((int(r), int(c)) for r, c in self.cells))
        object.__setattr__(self, "cells", cells)
        object.__setattr__(self, "_hash", hash((cells, _OP_CODES.get(self.op, -1), self.target)))
        if not cells:
            raise PuzzleError("a cage has no cells")
        if len(set(cells)) != len(cells):
            raise PuzzleError(f"{_where(cells)} lists a cell twice")
        if self.op not in OPS:
            raise PuzzleError(f"{_where(cells)} has unknown operation {self.op!r}")
        if not isinstance(self.target, int) or isinstance(self.target, bool):
            raise PuzzleError(f"{_where(cells)} has a target that is not a whole number: {self.target!r}")
        if self.op in "-/" and len(cells) != 2:
            raise PuzzleError(f"{_where(cells)}: {self.op} cages take exactly two cells, not {len(cells)}")
        if self.op == "=" and len(cells) != 1:
            raise PuzzleError(f"{_where(cells)}: = cages take one cell, not {len(cells)}")
        if self.op == HIDDEN and len(cells) == 1:
            raise PuzzleError(f"{_where(cells)}: a single cell shows its digit (=), it cannot hide an operation")
        if not _connected(cells):
            raise PuzzleError(f"{_where(cells)} is not orthogonally connected")

    @classmethod
    def trusted(cls, cells: tuple[Cell, ...], op: str, target: int) -> Cage:
        """A cage made without the checks, for a generator whose `cells` are connected and
        in reading order and whose clue they meet (a throwaway 4×4 candidate spent a third
        of its clue dealing checking them)."""
        cage = object.__new__(cls)
        fields = cage.__dict__  # written straight in: a frozen dataclass's own setattr refuses
        fields["cells"], fields["op"], fields["target"] = cells, op, target
        fields["_hash"] = hash((cells, _OP_CODES[op], target))
        return cage

    def __hash__(self) -> int:
        return self._hash

    @property
    def anchor(self) -> Cell:
        """The cell that carries the label: the first in reading order."""
        return self.cells[0]

    def label(self) -> str:
        """The clue as a player reads it, such as `12×`."""
        return f"{self.target}{OP_SYMBOLS[self.op]}"

    @property
    def hidden(self) -> bool:
        """Whether the clue shows the target only."""
        return self.op == HIDDEN

    def ops(self) -> str:
        """The operations the clue may stand for: its own, or each of + − × ÷ when hidden."""
        return SHOWN_OPS if self.op == HIDDEN else self.op

    def fits(self, digits: Sequence[int]) -> bool:
        """Whether these digits, one per cell, meet the clue."""
        if self.op != HIDDEN:
            return len(digits) == len(self.cells) and combine(self.op, digits) == self.target
        return self.way(digits) is not None

    def met_by(self, grid: Grid) -> bool:
        """Whether the digits `grid` puts in the cage's cells meet the clue."""
        digits = [grid[r][c] for r, c in self.cells]
        if self.op != HIDDEN:  # `fits` without its count of digits, one per cell here
            return combine(self.op, digits) == self.target
        return self.way(digits) is not None

    def way(self, digits: Sequence[int]) -> str | None:
        """The operation by which these digits meet the clue (the first of + − × ÷ for a
        hidden one); None when they do not."""
        if len(digits) != len(self.cells):
            return None
        return next((op for op in self.ops() if combine(op, digits) == self.target), None)

    def reading(self, digits: Sequence[int]) -> str:
        """The digits worked out as the clue reads, such as `1+3+7` or `6÷2` (for a hidden
        clue, by the first operation that makes the target)."""
        op = (self.way(digits) or self.op) if self.op == HIDDEN else self.op
        return OP_SYMBOLS[op].join(map(str, sorted(digits, reverse=op in "-/")))


@dataclass(frozen=True)
class Puzzle:
    """An N×N board divided into cages, with its solution when known.

    `meta` holds extra facts (seed, difficulty, ...) carried along with the puzzle;
    it takes no part in equality.
    """

    size: int
    cages: tuple[Cage, ...]
    solution: Grid | None = None
    meta: Mapping[str, object] = field(default_factory=dict, compare=False)
    _cage_index: dict[Cell, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        n = self.size
        if not isinstance(n, int) or isinstance(n, bool) or not MIN_SIZE <= n <= MAX_SIZE:
            raise PuzzleError(f"size must be {MIN_SIZE} to {MAX_SIZE}, not {n!r}")
        cages = tuple(sorted(self.cages, key=lambda cage: cage.anchor))
        object.__setattr__(self, "cages", cages)
        index: dict[Cell, int] = {}
        for i, cage in enumerate(cages):
            for cell in cage.cells:
                r, c = cell
                if not (0 <= r < n and 0 <= c < n):
                    raise PuzzleError(f"cell {list(cell)} is off the {n}×{n} board")
                if cell in index:
                    raise PuzzleError(f"cell {_name(cell)} is in two cages")
                index[cell] = i
        missing = [(r, c) for r in range(n) for c in range(n) if (r, c) not in index]
        if missing:
            raise PuzzleError(f"{len(missing)} cell(s) in no cage, first {_name(missing[0])}")
        object.__setattr__(self, "_cage_index", index)
        for cage in cages:
            if not can_fill(n, cage):
                raise PuzzleError(
                    f"cage at {_name(cage.anchor)}: no digits 1..{n} make {cage.label()}"
                )
        if self.solution is not None:
            object.__setattr__(self, "solution", _check_solution(self, self.solution))

    @classmethod
    def trusted(cls, size: int, cages: Iterable[Cage], solution: Grid, meta: Mapping[str, object] | None = None
                ) -> Puzzle:
        """A puzzle made without the checks, for a generator whose cages tile the board
        and take their clues from `solution` (checking each of its many candidates
        again cost it 8% of its time, and its 9×9 × only easy puzzle 10%)."""
        puzzle = object.__new__(cls)
        # By cells: two cages share none, so their first cells (anchors) order them.
        cages = tuple(sorted(cages, key=_cells_of))
        fields = puzzle.__dict__  # written straight in: a frozen dataclass's own setattr refuses
        fields["size"], fields["cages"], fields["solution"], fields["meta"] = size, cages, solution, meta or {}
        # `_cage_index` is worked out when first asked (`cage_indices`): most candidates are
        # thrown away before anything looks a cell's cage up.
        return puzzle

    def cage_at(self, cell: Cell) -> Cage:
        """The cage that holds `cell`."""
        return self.cages[self.cage_indices[cell]]

    def cage_index(self, cell: Cell) -> int:
        """The position in `cages` of the cage that holds `cell`."""
        return self.cage_indices[cell]

    @property
    def cage_indices(self) -> Mapping[Cell, int]:
        """`cage_index` of every cell at once, by cell: a generator looks up thousands."""
        try:
            return self._cage_index
        except AttributeError:  # a trusted puzzle's, not yet asked
            index = self.__dict__["_cage_index"] = {cell: i for i, cage in enumerate(self.cages) for cell in cage.cells}
            return index

    @property
    def cells(self) -> list[Cell]:
        """Every cell in reading order."""
        return [(r, c) for r in range(self.size) for c in range(self.size)]

    def with_solution(self, solution: Grid | None) -> Puzzle:
        """The same puzzle carrying `solution`."""
        return Puzzle(self.size, self.cages, solution, dict(self.meta))


_cells_of = attrgetter("cells")


@lru_cache(maxsize=4096)
def can_fill(size: int, cage: Cage) -> bool:
    """Whether any digits 1..size meet the cage's clue; quick for a cage of any size, and
    remembered, since a generator asks it of the same cages again and again."""
    return any(can_make(size, shape_of(cage.cells), op, cage.target) for op in cage.ops())


def empty_grid(size: int) -> Grid:
    """A board of blanks."""
    return tuple((0,) * size for _ in range(size))


def to_grid(rows: Iterable[Iterable[int]]) -> Grid:
    """Rows of digits as an immutable Grid."""
    return tuple(tuple(int(d) for d in row) for row in rows)


def cell_name(cell: Cell) -> str:
    """A cell as players name it: r1c1 is the top-left."""
    return f"r{cell[0] + 1}c{cell[1] + 1}"


_name = cell_name


def _where(cells: tuple[Cell, ...]) -> str:
    """A cage named for an error: by its first cell (worded only when an error is raised)."""
    return f"cage at {_name(cells[0])}" if cells else "cage"


def _connected(cells: tuple[Cell, ...]) -> bool:
    if len(cells) == 2:  # most cages: a quick answer
        (r1, c1), (r2, c2) = cells
        return abs(r1 - r2) + abs(c1 - c2) == 1
    todo, seen = [cells[0]], {cells[0]}
    members = set(cells)
    while todo:
        r, c = todo.pop()
        for nb in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            if nb in members and nb not in seen:
                seen.add(nb)
                todo.append(nb)
    return len(seen) == len(cells)


def _check_solution(puzzle: Puzzle, solution: Sequence[Sequence[int]]) -> Grid:
    n = puzzle.size
    try:
        grid = to_grid(solution)
    except (TypeError, ValueError):
        raise PuzzleError("solution must be rows of digits") from None
    if len(grid) != n or any(len(row) != n for row in grid):
        raise PuzzleError(f"solution must be {n} rows of {n} digits")
    digits = set(range(1, n + 1))
    for i in range(n):
        if set(grid[i]) != digits:
            raise PuzzleError(f"solution row {i + 1} does not hold 1..{n} once each")
        if {grid[r][i] for r in range(n)} != digits:
            raise PuzzleError(f"solution column {i + 1} does not hold 1..{n} once each")
    for cage in puzzle.cages:
        if not cage.met_by(grid):
            raise PuzzleError(f"solution breaks the cage at {_name(cage.anchor)} ({cage.label()})")
    return grid
