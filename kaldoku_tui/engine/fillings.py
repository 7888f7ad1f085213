"""Every way to fill a cage: the digit tuples that meet its clue.

A filling gives one digit per cage cell, in the cage's reading order, with no digit
twice in one row or column of the cage. Tables are built on first use and cached by
(size, shape, op, target), so cages of the same form share one table.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Iterator

from kaldoku_tui.engine.puzzle import Cage, Cell, combine

Filling = tuple[int, ...]


def fillings(size: int, cage: Cage) -> tuple[Filling, ...]:
    """All fillings of `cage` on a board of `size`, in increasing order."""
    return _table(size, _shape(cage), cage.op, cage.target)


def can_fill(size: int, cage: Cage) -> bool:
    """Whether any digits 1..size meet the cage's clue."""
    return next(_search(size, _shape(cage), cage.op, cage.target), None) is not None


def _shape(cage: Cage) -> tuple[Cell, ...]:
    top = min(r for r, _ in cage.cells)
    left = min(c for _, c in cage.cells)
    return tuple((r - top, c - left) for r, c in cage.cells)


@lru_cache(maxsize=4096)
def _table(size: int, shape: tuple[Cell, ...], op: str, target: int) -> tuple[Filling, ...]:
    return tuple(_search(size, shape, op, target))


def _search(size: int, shape: tuple[Cell, ...], op: str, target: int) -> Iterator[Filling]:
    """Yield fillings depth first, pruning sums and products that cannot reach the target."""
    if op in "-/=":
        for digits in _pairs_or_single(size, len(shape)):
            if combine(op, digits) == target:
                yield digits
        return
    # Earlier cells that share a row or column with each cell.
    clashes = [
        [j for j in range(i) if shape[j][0] == shape[i][0] or shape[j][1] == shape[i][1]]
        for i in range(len(shape))
    ]
    count = len(shape)
    digits = [0] * count

    def extend(i: int, rest: int) -> Iterator[Filling]:
        if i == count:
            if (op == "+" and rest == 0) or (op == "*" and rest == 1):
                yield tuple(digits)
            return
        left = count - i - 1
        for d in range(1, size + 1):
            if any(digits[j] == d for j in clashes[i]):
                continue
            if op == "+":
                after = rest - d
                if after < left or after > left * size:
                    continue
            else:
                if rest % d:
                    continue
                after = rest // d
                if after > size**left:
                    continue
            digits[i] = d
            yield from extend(i + 1, after)
        digits[i] = 0

    if target > 0:
        yield from extend(0, target)


def _pairs_or_single(size: int, count: int) -> Iterator[Filling]:
    if count == 1:
        for d in range(1, size + 1):
            yield (d,)
    else:
        for a in range(1, size + 1):
            for b in range(1, size + 1):
                if a != b:
                    yield (a, b)
