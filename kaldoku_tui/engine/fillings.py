"""Every way to fill a cage: the digit tuples that meet its clue, and whether there is one.

A filling gives one digit per cage cell, in the cage's reading order, with no digit
twice in one row or column of the cage. Tables are built on first use and cached by
(size, which cells clash, op, target), so cages of the same form share one table.

Whether a cage can be filled at all is answered without listing fillings (see
arithmetic.py), so that a cage of any size is judged at once.
"""

from __future__ import annotations

import threading
from functools import lru_cache
from itertools import combinations
from math import factorial
from typing import Callable

from kaldoku_tui.engine.arithmetic import Filling, combine, pairs_or_single, shape_of
from kaldoku_tui.engine.puzzle import HIDDEN, SHOWN_OPS, Cage, Cell, PuzzleError, cell_name

TABLE_LIMIT = 100_000
"""The most fillings a cage's table may hold; a cage that may have more is too large to list."""

FILLINGS_KEPT = 500_000
"""How many fillings the remembered tables may have listed, here and in the solver's
bitsets of them, before every one is forgotten and rebuilt as asked: a server that
generates for days keeps at most about 100 MB of them (measured), not ever more."""

_listed = 0
_LISTED_LOCK = threading.Lock()
_FORGETS: list[Callable[[], None]] = []


def forget_with_tables(forget: Callable[[], None]) -> None:
    """Have `forget` (a cache's clear) called whenever the remembered tables are forgotten:
    for caches that keep what is built from them."""
    _FORGETS.append(forget)


def _count_listed(count: int) -> None:
    """Counts fillings just listed into a remembered table; past FILLINGS_KEPT since the
    last time, forgets them all (an LRU's evictions are not seen, so this over-counts)."""
    global _listed
    with _LISTED_LOCK:
        _listed += count
        if _listed <= FILLINGS_KEPT:
            return
    forget_tables()


def forget_tables() -> None:
    """Forgets every remembered table (and what is built from them: `forget_with_tables`)."""
    global _listed
    with _LISTED_LOCK:
        _listed = 0
    for forget in (_table.cache_clear, listed.cache_clear, fillings.cache_clear, *_FORGETS):
        forget()


class CageTooLarge(PuzzleError):
    """A cage with too many fillings to list them (a whole row or more under one clue)."""


@lru_cache(maxsize=4096)
def fillings(size: int, cage: Cage) -> tuple[Filling, ...]:
    """All fillings of `cage` on a board of `size`, in increasing order.

    Raises CageTooLarge when the cage may have more than TABLE_LIMIT of them. Remembered
    by cage as well as by form: the solvers ask for the same cages thousands of times.
    """
    shape = shape_of(cage.cells)
    table = _table(size, shape, cage.op, cage.target)
    if table is None:
        raise CageTooLarge(
            f"the {cage.label()} cage at {cell_name(cage.anchor)} ({len(shape)} cells) "
            f"has too many ways to be filled (more than {TABLE_LIMIT:,})"
        )
    return table


def fillings_bound(size: int, cage: Cage) -> int:
    """A number no smaller than the count of fillings of `cage` (exact for a cage in
    one line): fillings counted with clashes inside rows only, and inside columns only."""
    return _bound(size, shape_of(cage.cells), cage.op, cage.target)


@lru_cache(maxsize=4096)
def _bound(size: int, shape: tuple[Cell, ...], op: str, target: int) -> int:
    rows = _line_lengths(shape, 0)
    columns = _line_lengths(shape, 1)
    ops = SHOWN_OPS if op == HIDDEN else op
    return sum(
        min(_relaxed_count(size, rows, real, target), _relaxed_count(size, columns, real, target))
        for real in ops
        if _fits_count(real, len(shape)) or real == "="
    )


def _line_lengths(shape: tuple[Cell, ...], axis: int) -> tuple[int, ...]:
    """How many cells of the shape lie in each row (axis 0) or column (axis 1)."""
    counts: dict[int, int] = {}
    for cell in shape:
        counts[cell[axis]] = counts.get(cell[axis], 0) + 1
    return tuple(sorted(counts.values()))


def fillings_of_form(size: int, shape: tuple[Cell, ...], op: str, target: int) -> tuple[Filling, ...] | None:
    """The fillings of a cage of this form (its cells at the top left corner, in reading
    order); None when it may have more than TABLE_LIMIT."""
    return _table(size, shape, op, target)


@lru_cache(maxsize=4096)
def _table(size: int, shape: tuple[Cell, ...], op: str, target: int) -> tuple[Filling, ...] | None:
    """The fillings of a cage of this form; None when it may have more than TABLE_LIMIT."""
    if size ** len(shape) > TABLE_LIMIT and _bound(size, shape, op, target) > TABLE_LIMIT:
        return None
    return listed(size, clashes_of(shape), op, target)


def clashes_of(shape: tuple[Cell, ...]) -> tuple[tuple[int, ...], ...]:
    """Per cell of a cage, the earlier cells in its row or column: all its fillings depend on
    besides its clue (an upright pair or line has a flat one's)."""
    return tuple([
        tuple([j for j in range(i) if shape[j][0] == row or shape[j][1] == column])
        for i, (row, column) in enumerate(shape)
    ])


@lru_cache(maxsize=4096)
def listed(size: int, clashes: tuple[tuple[int, ...], ...], op: str, target: int) -> tuple[Filling, ...]:
    """The fillings of cages whose cells clash as `clashes` says: cages of different shapes
    share them (a generator meets about 140 such forms for 190 shapes at 6×6)."""
    if op == HIDDEN:
        count = len(clashes)
        found = tuple(
            sorted({f for real in SHOWN_OPS if _fits_count(real, count) for f in _search(size, clashes, real, target)})
        )
    else:
        found = tuple(_search(size, clashes, op, target))
    _count_listed(len(found))
    return found


def _fits_count(op: str, count: int) -> bool:
    return count == 2 if op in "-/" else op in "+*"


def _search(size: int, clashes: tuple[tuple[int, ...], ...], op: str, target: int) -> list[Filling]:
    """The fillings depth first (in increasing order), pruning sums and products that
    cannot reach the target; the last cell's digit is what the target leaves."""
    count = len(clashes)
    if op in "-/=":
        return [pair for pair in pairs_or_single(size, count) if combine(op, pair) == target]
    last = count - 1
    adding = op == "+"
    most = [left * size if adding else size**left for left in range(count)]
    digits = [0] * count
    found: list[Filling] = []
    ends = clashes[last]

    def extend(i: int, rest: int) -> None:
        used = 0
        for j in clashes[i]:
            used |= 1 << digits[j]
        left = last - i
        if left == 1:  # the last cell is told here, a call per filling fewer
            ending = 0
            for j in ends:
                if j < i:
                    ending |= 1 << digits[j]
            beside = i in ends
        # Only digits that leave the cells after this one a rest they can make.
        if adding:
            low, high = rest - most[left], rest - left
        else:
            low, high = -(-rest // most[left]), rest
        for d in range(low if low > 1 else 1, (high if high < size else size) + 1):
            if used >> d & 1:
                continue
            if adding:
                after = rest - d
            elif rest % d:
                continue
            else:
                after = rest // d
            digits[i] = d
            if left > 1:
                extend(i + 1, after)
            elif not (ending >> after & 1 or beside and after == d):
                digits[last] = after
                found.append(tuple(digits))

    if target > 0:
        if last:
            extend(0, target)
        elif 1 <= target <= size:
            found.append((target,))
    return found


# --- How many fillings at most ------------------------------------------------------


def _relaxed_count(size: int, lengths: tuple[int, ...], op: str, target: int) -> int:
    """Fillings counted as if only cells in one line (of the given lengths) had to differ."""
    if op in "-/=":
        return sum(1 for digits in pairs_or_single(size, sum(lengths)) if combine(op, digits) == target)
    if target < 1:
        return 0
    ways = {0 if op == "+" else 1: 1}
    for length in lengths:
        line = _line_ways(size, length, op)
        merged: dict[int, int] = {}
        for v, n in ways.items():
            for w, m in line.items():
                value = v + w if op == "+" else v * w
                if value <= target if op == "+" else target % value == 0:
                    merged[value] = merged.get(value, 0) + n * m
        ways = merged
    return ways.get(target, 0)


@lru_cache(maxsize=256)
def _line_ways(size: int, length: int, op: str) -> dict[int, int]:
    """Value → ordered ways to give `length` cells of one line different digits."""
    ways: dict[int, int] = {}
    for digits in combinations(range(1, size + 1), length):
        value = combine(op, digits)
        assert value is not None  # + and × give every set of digits a value
        ways[value] = ways.get(value, 0) + factorial(length)
    return ways
