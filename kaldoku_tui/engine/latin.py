"""Random latin squares: built row by row as Keen builds them, then shuffled.

Each row matches the columns to the digits they still lack, at random: a column takes a
digit the row has not used yet, drawn at random, and when none is left, an augmenting
path (Kuhn's) hands digits along until it has one. A latin rectangle always extends
to a square (Hall's theorem), so no row is ever undone. The square's rows, columns and
digits are then permuted at random, which makes every square of its isotopy class as
likely as any other; the classes come as often as the matchings make them, which is
not quite in proportion to their sizes (5×5, 40,000 draws: the class of the cyclic
square, 10.7% of all squares, 14.9% of the draws). A board whose every square is listed
(up to `squares.COUNTED_UP_TO`) draws one of them instead, uniformly.

The Jacobson–Matthews chain drew squares uniformly, but its N³ moves cost 2.1 ms at 9×9
against 0.11 ms here: more than Keen's whole 9×9 × only easy puzzle (1.6 ms).
"""

from __future__ import annotations

import random

from kaldoku_tui.engine.draws import one_of_up_to, orders, shuffle
from kaldoku_tui.engine.kinds import MAX_SIZE
from kaldoku_tui.engine.puzzle import Grid
from kaldoku_tui.engine.squares import COUNTED_UP_TO, latin_squares


def random_latin_square(n: int, rng: random.Random) -> Grid:
    """A latin square of digits 1..n drawn at random with `rng`."""
    if n <= COUNTED_UP_TO:
        every = latin_squares(n)
        return every[rng.randrange(len(every))]
    lacking = [(1 << n) - 1] * n  # by column, the digits (bit d for digit d + 1) not yet in it
    rows = []
    # One draw (draws.py) for every cell's pick of a digit its column and row still lack.
    draw = rng.randrange(one_of_up_to(n) ** (n * n))
    for _ in range(n):
        row, draw = _matched_row(lacking, draw)
        for col, digit in enumerate(row):
            lacking[col] &= ~(1 << digit)
        rows.append(tuple(digit + 1 for digit in row))
    return random_isotope(tuple(rows), rng)


_DIGITS_IN = tuple(tuple(d for d in range(MAX_SIZE) if mask >> d & 1) for mask in range(1 << MAX_SIZE))
"""By bitmask, its digits (0-based) in increasing order: looked up, not listed for every
cell of every square."""


def _matched_row(lacking: list[int], draw: int) -> tuple[list[int], int]:
    """A digit (0-based) for each column, each one its column lacks, no two the same, read
    from `draw` (a digit below `one_of_up_to(n)` a column); and what is left of `draw`."""
    n = len(lacking)
    holder = [-1] * n  # by digit, the column given it in this row
    row = [0] * n
    used = 0
    radix = one_of_up_to(n)  # a cell picks evenly one of any 1..n spare digits
    for col in range(n):
        draw, pick = divmod(draw, radix)
        spare = lacking[col] & ~used
        if spare:
            digits = _DIGITS_IN[spare]
            digit = digits[pick % len(digits)]
            used |= 1 << digit
        else:
            digit = _augment(col, lacking, holder, row, [0])
            assert digit >= 0, "a latin rectangle always extends by a row"
            used = sum(1 << d for d in row[:col]) | 1 << digit  # the path's end is the new one
        holder[digit], row[col] = col, digit
    return row, draw


def _augment(col: int, lacking: list[int], holder: list[int], row: list[int], seen: list[int]) -> int:
    """The digit not yet in the row that a path from `col` frees, each column on the path
    taking the digit of the next; -1 when there is none. `seen` holds the digits looked at."""
    options = lacking[col] & ~seen[0]
    seen[0] |= options
    for digit in range(len(lacking)):
        if options >> digit & 1:
            other = holder[digit]
            if other < 0:
                return digit
            freed = _augment(other, lacking, holder, row, seen)
            if freed >= 0:
                holder[freed], row[other] = other, freed
                return digit
    return -1


def random_isotope(square: Grid, rng: random.Random) -> Grid:
    """`square` with its rows, its columns and its digits each permuted at random.

    Every square of an isotopy class is as likely as any other after it: the cost of a
    new square for O(N²) steps."""
    n = len(square)
    rows, cols, digits = list(range(n)), list(range(n)), list(range(1, n + 1))
    draw = rng.randrange(orders(n) ** 3)  # the three orders from one draw (draws.py)
    shuffle(digits, shuffle(cols, shuffle(rows, draw)))
    relabel = [0, *digits]
    return tuple([tuple([relabel[row[c]] for c in cols]) for row in (square[r] for r in rows)])
