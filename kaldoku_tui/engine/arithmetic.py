"""Cage arithmetic on plain values: what digits combine to, and whether digits 1..n with
no repeat in a row or column of a shape of cells can make a target.

Whether a target can be made is answered without listing fillings, so that a cage of
any size is judged at once: giving each digit to a set of cells is colouring the edges
of the bipartite graph rows × columns (an edge per cage cell), and by Folkman and
Fulkerson's theorem, digit counts m1 ≥ m2 ≥ ... (sorted) are possible exactly when the
k largest add up to no more than the most cells one can pick with at most k in any row
or column, for every k. A dynamic programme over digit counts then finds the sums and
products those counts can make.
"""

from __future__ import annotations

from functools import lru_cache
from math import prod
from typing import Iterable, Iterator, Sequence

from kaldoku_tui.engine.errors import PuzzleError

Filling = tuple[int, ...]
Shape = tuple[tuple[int, int], ...]
"""A cage's cells moved to the top left corner, in reading order."""


def combine(op: str, digits: Sequence[int]) -> int | None:
    """The value `digits` give under `op`; None when − or ÷ has no whole answer
    (or, for −, ÷ and =, the wrong number of digits)."""
    if op == "+":
        return sum(digits)
    if op == "*":
        return prod(digits)
    if op == "=":
        return digits[0] if len(digits) == 1 else None
    if op in "-/" and len(digits) != 2:
        return None
    big, small = max(digits), min(digits)
    if op == "-":
        return big - small
    if op == "/":
        return big // small if big % small == 0 else None
    raise PuzzleError(f"unknown operation {op!r}")


def shape_of(cells: Iterable[tuple[int, int]]) -> Shape:
    """`cells` (in reading order) moved to the top left corner: cages of one shape share it."""
    cells = tuple(cells)
    if len(cells) == 2:  # most cages: a quick answer
        (r1, c1), (r2, c2) = cells
        top, left = min(r1, r2), min(c1, c2)
        return ((r1 - top, c1 - left), (r2 - top, c2 - left))
    rows, columns = zip(*cells)
    top, left = min(rows), min(columns)
    return tuple([(r - top, c - left) for r, c in cells])


def pairs_or_single(size: int, count: int) -> Iterator[Filling]:
    if count == 1:
        for d in range(1, size + 1):
            yield (d,)
    elif count == 2:
        for a in range(1, size + 1):
            for b in range(1, size + 1):
                if a != b:
                    yield (a, b)



def largest(size: int, cells: int, op: str) -> int:
    """A bound on what `cells` digits 1..size make by + or × (each digit `size`): a
    target above it is refused before any search, whatever its number of digits."""
    return size * cells if op == "+" else size**cells


PRODUCT_LISTED = 4
"""× cages of up to this many cells are judged by listing their fillings, which at 9×9
takes a fifth to a half of the time of counting digits."""


@lru_cache(maxsize=4096)
def can_make(size: int, shape: Shape, op: str, target: int) -> bool:
    """Whether digits with no repeat in a row or column of `shape` make `target` by `op`."""
    if op in "-/=":
        return any(combine(op, digits) == target for digits in pairs_or_single(size, len(shape)))
    if not 1 <= target <= largest(size, len(shape), op):
        return False  # before the bit sets below, which are as long as the target
    if op == "*" and len(shape) <= PRODUCT_LISTED:
        # Sets of products are slow to count up; a small cage's fillings are quick to
        # list, and the solvers want them anyway. (fillings builds on this module.)
        from kaldoku_tui.engine.fillings import fillings_of_form
        return bool(fillings_of_form(size, shape, op, target))
    most = _most_cells(size, shape)
    return target in _values(size, len(shape), tuple(most), op, target)



def _values(size: int, cells: int, most: tuple[int, ...], op: str, target: int) -> set[int]:
    """The values (up to `target`, or dividing it) of the digit counts a cage allows.

    Counts are given largest first; `most[k]` caps the sum of the k largest. A state is
    the set of digits given a count so far and how many cells they cover; it holds the
    sums (as a bit set) or products those counts make.
    """
    adding = op == "+"
    states: dict[tuple[int, int], int | set[int]] = {(0, 0): 1 if adding else {1}}
    for count in range(most[1], 0, -1):
        for d in range(1, size + 1):
            for (used, covered), values in list(states.items()):
                if used >> d & 1 or covered + count > most[used.bit_count() + 1]:
                    continue
                key = (used | 1 << d, covered + count)
                if adding:
                    assert isinstance(values, int)  # sums: every state is a bit set
                    sums = (values << d * count) & ((2 << target) - 1)
                    if sums:
                        held = states.get(key, 0)
                        assert isinstance(held, int)
                        states[key] = held | sums
                else:
                    assert isinstance(values, set)  # products: every state is a set
                    products = {v * d**count for v in values if target % (v * d**count) == 0}
                    if products:
                        bucket = states.setdefault(key, set())
                        assert isinstance(bucket, set)
                        bucket.update(products)
        # Digits not yet counted get fewer than `count` cells each: drop states they cannot complete.
        states = {
            (used, covered): values for (used, covered), values in states.items()
            if covered + (size - used.bit_count()) * (count - 1) >= cells
        }
    found = [values for (_, covered), values in states.items() if covered == cells]
    if adding:
        union = 0
        for values in found:
            assert isinstance(values, int)
            union |= values
        return {v for v in range(target + 1) if union >> v & 1}
    return set().union(*(values for values in found if isinstance(values, set)))



def _most_cells(size: int, shape: Shape) -> list[int]:
    """For k = 0..size, the most cells of the shape one can pick with at most k in any
    row or column (a maximum flow: source → rows → cells → columns → sink)."""
    rows = sorted({r for r, _ in shape})
    columns = sorted({c for _, c in shape})
    neighbours = {r: [c for rr, c in shape if rr == r] for r in rows}
    flow: set[tuple[int, int]] = set()  # the cells picked
    row_load = dict.fromkeys(rows, 0)
    column_load = dict.fromkeys(columns, 0)
    most = [0]
    for k in range(1, size + 1):
        while _augment(k, rows, neighbours, flow, row_load, column_load):
            pass
        most.append(len(flow))
    return most



def _augment(k, rows, neighbours, flow, row_load, column_load) -> bool:
    """Find one more cell to pick, moving picked cells along an alternating path."""
    parent: dict[tuple[str, int], tuple[str, int] | None] = {}
    frontier = []
    for r in rows:
        if row_load[r] < k:
            parent[("r", r)] = None
            frontier.append(("r", r))
    while frontier:
        kind, x = frontier.pop()
        if kind == "r":
            for c in neighbours[x]:
                if (x, c) not in flow and ("c", c) not in parent:
                    parent[("c", c)] = ("r", x)
                    if column_load[c] < k:
                        _flip(("c", c), parent, flow, row_load, column_load)
                        return True
                    frontier.append(("c", c))
        else:
            for r in rows:
                if (r, x) in flow and ("r", r) not in parent:
                    parent[("r", r)] = ("c", x)
                    frontier.append(("r", r))
    return False



def _flip(end, parent, flow, row_load, column_load) -> None:
    node = end
    column_load[end[1]] += 1
    while parent[node] is not None:
        before = parent[node]
        if node[0] == "c":
            flow.add((before[1], node[1]))
        else:
            flow.discard((node[1], before[1]))
        node = before
    row_load[node[1]] += 1
