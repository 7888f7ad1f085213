"""Many random choices read from one draw of `random.Random`.

A candidate puzzle makes some hundred small random choices (a shuffle's steps, a coin, one
of a few neighbours or operations), and each `rng.choice`, `randrange` or shuffle step is a
few Python calls (`_randbelow`, which for a range like 4 draws twice on average): a fifth
of a throwaway 5×5 candidate's cost. Instead one `rng.randrange(M)`, M the product of the
choices' ranges, is read as digits in mixed radix: each digit is uniform on its range and
independent of the others, so the choices fall as they did, from one call.

Where a choice's range is known only when it is made (how many neighbours are left), its
digit is drawn on a range that every such count divides (`DIGITS_OF_FOUR` for one of up
to four): the digit modulo the count is then uniform too.
"""

from __future__ import annotations

import random
from functools import lru_cache
from math import factorial, lcm
from typing import Iterator, TypeVar

T = TypeVar("T")

DIGITS_OF_FOUR = 12
"""A digit on this range picks evenly one of any 1, 2, 3 or 4 things (each divides it)."""


def shuffle(items: list[T], draw: int) -> int:
    """Put `items` in a random order (Fisher–Yates, as `random.shuffle`) read from `draw`,
    a number drawn below `orders(len(items))` times R; what is left, below R, is returned."""
    for i in range(len(items) - 1, 0, -1):
        draw, j = divmod(draw, i + 1)
        items[i], items[j] = items[j], items[i]
    return draw


def in_random_order(items: list[T], rng: random.Random) -> Iterator[T]:
    """`items` one by one in a random order (as after `random.shuffle`, which this does to
    them), each placed as it is asked for: a caller that stops after one or two pays for those."""
    draw = rng.randrange(orders(len(items)))
    for k in range(len(items)):
        draw, j = divmod(draw, len(items) - k)
        items[k], items[k + j] = items[k + j], items[k]
        yield items[k]


def orders(count: int) -> int:
    """How many orders `count` things have: the range `shuffle` reads them from."""
    return factorial(count)


@lru_cache(maxsize=None)
def one_of_up_to(count: int) -> int:
    """A range on which a digit picks evenly one of any number of things up to `count`."""
    return lcm(*range(1, count + 1))
