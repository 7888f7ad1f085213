"""Cage fillings against a brute-force enumeration."""

from itertools import product

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kaldoku_tui.engine.fillings import fillings, fillings_bound
from kaldoku_tui.engine.puzzle import Cage, can_fill, combine

from strategies import examples

SHAPES = [
    ((0, 0),),
    ((0, 0), (0, 1)),
    ((0, 0), (1, 0)),
    ((0, 0), (0, 1), (0, 2)),
    ((0, 0), (0, 1), (1, 0)),
    ((0, 0), (0, 1), (1, 1), (1, 2)),
    ((0, 0), (0, 1), (1, 0), (1, 1)),
]


def brute_force(size, cage):
    def clash(a, b):
        return a[0] == b[0] or a[1] == b[1]

    found = []
    for digits in product(range(1, size + 1), repeat=len(cage.cells)):
        pairs = [(i, j) for i in range(len(digits)) for j in range(i)]
        if any(digits[i] == digits[j] and clash(cage.cells[i], cage.cells[j]) for i, j in pairs):
            continue
        if combine(cage.op, digits) == cage.target:
            found.append(digits)
    return found


@st.composite
def cages(draw):
    size = draw(st.integers(3, 6))
    shape = draw(st.sampled_from(SHAPES))
    ops = {1: ["="], 2: ["+", "-", "*", "/"]}.get(len(shape), ["+", "*"])
    op = draw(st.sampled_from(ops))
    digits = draw(st.lists(st.integers(1, size), min_size=len(shape), max_size=len(shape)))
    target = combine(op, digits)
    if target is None:
        target = draw(st.integers(1, 6))
    return size, Cage(shape, op, target)


@settings(max_examples=examples(300), deadline=None)
@given(cages())
def test_fillings_match_brute_force(case):
    size, cage = case
    assert sorted(fillings(size, cage)) == brute_force(size, cage)
    assert can_fill(size, cage) == bool(brute_force(size, cage))


def test_fillings_follow_cage_cell_order():
    cage = Cage(((0, 0), (1, 0)), "/", 3)
    assert set(fillings(6, cage)) == {(1, 3), (3, 1), (2, 6), (6, 2)}


def test_repeats_allowed_only_off_line():
    # An L of three cells: r1c2 and r2c1 share neither row nor column; r1c1 and r2c1 do.
    cage = Cage(((0, 0), (0, 1), (1, 0)), "*", 4)
    assert (1, 2, 2) in fillings(4, cage)
    assert (2, 1, 2) not in fillings(4, cage)


@pytest.mark.parametrize("op,target", [("+", 2), ("+", 100), ("*", 7), ("-", 4)])
def test_unreachable_targets(op, target):
    cells = ((0, 0), (0, 1))
    assert not can_fill(4, Cage(cells, op, target))
    assert fillings(4, Cage(cells, op, target)) == ()


@st.composite
def larger_cages(draw):
    """A connected cage of up to six cells of any shape, with a clue its digits may or may not make."""
    size = draw(st.integers(3, 5))
    cells = {(0, 0)}
    for _ in range(draw(st.integers(1, 5))):
        r, c = draw(st.sampled_from(sorted(cells)))
        dr, dc = draw(st.sampled_from([(0, 1), (1, 0), (0, -1), (-1, 0)]))
        if 0 <= r + dr < size and 0 <= c + dc < size:
            cells.add((r + dr, c + dc))
    op = draw(st.sampled_from(["+", "*", "?"] if len(cells) > 1 else ["="]))
    target = draw(st.integers(1, 30 if op == "+" else 3000))
    return size, Cage(tuple(cells), op, target)


def hidden_brute_force(size, cage):
    ops = ("+-*/" if len(cage.cells) == 2 else "+*") if cage.op == "?" else cage.op
    return [f for op in ops for f in brute_force(size, Cage(cage.cells, op, cage.target))]


@settings(max_examples=examples(300), deadline=None)
@given(larger_cages())
def test_whether_a_cage_can_be_filled_is_exact_for_any_shape(case):
    size, cage = case
    found = set(hidden_brute_force(size, cage))
    assert can_fill(size, cage) == bool(found)
    assert set(fillings(size, cage)) == found
    assert fillings_bound(size, cage) >= len(found)
