"""Every latin square of a small board, and the ones a puzzle's clues allow, as bit masks.

A 4×4 board has 576 latin squares. The squares a cage's clue allows are a set of them
(bit i for square i), remembered by cells and operation; a puzzle's solutions are the
squares every cage allows, an AND of a few such masks: microseconds, where a search
from the clues took hundreds (a × only 4×4 extreme puzzle tried some 3,000 merges).
"""

from __future__ import annotations

from functools import lru_cache

from kaldoku_tui.engine.puzzle import HIDDEN, Cage, Cell, Grid, Puzzle, combine

COUNTED_UP_TO = 4
"""The largest board whose latin squares are all listed (5×5 has 161,280)."""


@lru_cache(maxsize=None)
def latin_squares(n: int) -> tuple[Grid, ...]:
    """Every latin square of digits 1..n, in increasing order."""
    found: list[Grid] = []
    rows: list[tuple[int, ...]] = []

    def rows_after(row: list[int]) -> None:
        c = len(row)
        if c == n:
            rows.append(tuple(row))
            if len(rows) == n:
                found.append(tuple(rows))
            else:
                rows_after([])
            rows.pop()
            return
        for digit in range(1, n + 1):
            if digit not in row and all(above[c] != digit for above in rows):
                rows_after(row + [digit])

    rows_after([])
    return tuple(found)


@lru_cache(maxsize=None)
def _index(n: int) -> dict[Grid, int]:
    return {square: i for i, square in enumerate(latin_squares(n))}


@lru_cache(maxsize=None)
def _with_digit(n: int) -> dict[tuple[Cell, int], int]:
    """By cell and digit, the squares that put the digit there."""
    masks: dict[tuple[Cell, int], int] = {}
    for i, square in enumerate(latin_squares(n)):
        for r, row in enumerate(square):
            for c, digit in enumerate(row):
                masks[(r, c), digit] = masks.get(((r, c), digit), 0) | 1 << i
    return masks


@lru_cache(maxsize=1 << 14)
def _by_digits(n: int, cells: tuple[Cell, ...]) -> dict[tuple[int, ...], int]:
    """By the digits they put in `cells`, the squares that put them there (none empty);
    built on the cells but the last, as cages that grow by merging share them."""
    if not cells:
        return {(): (1 << len(latin_squares(n))) - 1}
    *first, last = cells
    with_digit = _with_digit(n)
    found = {}
    for digits, squares in _by_digits(n, tuple(first)).items():
        for digit in range(1, n + 1):
            if both := squares & with_digit[last, digit]:
                found[(*digits, digit)] = both
    return found


@lru_cache(maxsize=1 << 14)
def _allowed(n: int, cells: tuple[Cell, ...], op: str) -> dict[int, int]:
    """By target, the squares whose digits in `cells` make it by `op`."""
    masks: dict[int, int] = {}
    for digits, squares in _by_digits(n, cells).items():
        target = combine(op, digits)
        if target is not None:
            masks[target] = masks.get(target, 0) | squares
    return masks


@lru_cache(maxsize=1 << 14)
def _by_bag(n: int, cells: tuple[Cell, ...]) -> dict[tuple[int, ...], int]:
    """By the digits they put in `cells`, sorted, the squares that put those digits there
    in some order."""
    bags: dict[tuple[int, ...], int] = {}
    for digits, squares in _by_digits(n, cells).items():
        bag = tuple(sorted(digits))
        bags[bag] = bags.get(bag, 0) | squares
    return bags


def rival_of_any_clues(blocks: list[tuple[Cell, ...]], solution: Grid) -> bool:
    """Whether a latin square other than `solution` (a board of at most COUNTED_UP_TO) puts
    in each of `blocks` the digits `solution` puts there, in some order: it then meets any
    clue the blocks could take without hidden operations (a sum or product of any cells,
    any operation on two), so no clues dealt to them make one solution."""
    n = len(solution)
    left = ~(1 << square_index(solution))
    for block in blocks:
        left &= _by_bag(n, block)[tuple(sorted([solution[r][c] for r, c in block]))]
        if not left:
            return False
    return True


def squares_meeting(n: int, cage: Cage) -> int:
    """The latin squares of `n` (a board of at most COUNTED_UP_TO) that meet `cage`'s clue."""
    return _allowed(n, cage.cells, cage.op).get(cage.target, 0)


def square_index(square: Grid) -> int:
    """The place of a latin square in `latin_squares`."""
    return _index(len(square))[tuple(map(tuple, square))]


def other_solution(puzzle: Puzzle, solution: Grid) -> Grid | None:
    """The first latin square other than `solution` that meets every clue of `puzzle`
    (a board of at most COUNTED_UP_TO, no hidden operation); None when there is none."""
    n = puzzle.size
    assert n <= COUNTED_UP_TO and all(cage.op != HIDDEN for cage in puzzle.cages)
    left = ~(1 << square_index(solution))
    for cage in puzzle.cages:
        left &= squares_meeting(n, cage)
        if not left:
            return None
    return latin_squares(n)[(left & -left).bit_length() - 1]
