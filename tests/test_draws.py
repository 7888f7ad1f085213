"""Choices read from one draw: the same orders and picks as one call each would give."""

import random
from itertools import permutations

from kaldoku_tui.engine.draws import DIGITS_OF_FOUR, in_random_order, one_of_up_to, orders, shuffle


def test_each_draw_below_the_orders_gives_another_order_and_the_rest_is_handed_back():
    seen = set()
    for draw in range(orders(4) * 3):
        items = list("abcd")
        rest = shuffle(items, draw)
        assert rest == draw // orders(4)
        seen.add((tuple(items), rest))
    assert {order for order, _ in seen} == set(permutations("abcd"))
    assert len(seen) == orders(4) * 3  # every order once for each rest: all even


def test_in_random_order_gives_every_item_once_and_every_order_alike():
    rng = random.Random(7)
    counts: dict[tuple[int, ...], int] = {}
    for _ in range(6000):
        order = tuple(in_random_order([1, 2, 3], rng))
        counts[order] = counts.get(order, 0) + 1
    assert set(counts) == set(permutations([1, 2, 3]))
    assert all(900 < count < 1100 for count in counts.values())


def test_a_digit_picks_evenly_among_any_count_up_to_its_range():
    assert one_of_up_to(4) == DIGITS_OF_FOUR
    for most in range(1, 10):
        assert all(one_of_up_to(most) % count == 0 for count in range(1, most + 1))
