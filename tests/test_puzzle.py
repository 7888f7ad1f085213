"""The puzzle model: cages and puzzles, and every way building one can fail."""

from __future__ import annotations

import pytest
from conftest import EXAMPLE_SOLUTION

from kaldoku_tui.terminal import in_ascii
from kaldoku_tui.engine.puzzle import (
    Cage,
    Puzzle,
    PuzzleError,
    cell_name,
    combine,
    empty_grid,
    to_grid,
)

ROWS3 = tuple(Cage(((r, 0), (r, 1), (r, 2)), "+", 6) for r in range(3))


@pytest.mark.parametrize(
    "op, digits, value",
    [
        ("+", (1, 2, 3), 6),
        ("*", (2, 3, 4), 24),
        ("-", (1, 4), 3),
        ("-", (4, 1), 3),
        ("/", (2, 6), 3),
        ("/", (6, 2), 3),
        ("/", (4, 3), None),
        ("=", (5,), 5),
        ("=", (5, 1), None),
    ],
)
def test_combine(op, digits, value):
    assert combine(op, digits) == value


def test_combine_rejects_an_unknown_operation():
    with pytest.raises(PuzzleError, match="unknown operation '%'"):
        combine("%", (1, 2))


def test_a_cage_sorts_its_cells_and_labels_its_clue():
    cage = Cage(((1, 1), (0, 1), (1, 0)), "*", 12)
    assert cage.cells == ((0, 1), (1, 0), (1, 1))
    assert cage.anchor == (0, 1)
    assert cage.label() == "12×"
    assert in_ascii(cage.label()) == "12x", "ASCII is the screen's: terminal.in_ascii"
    assert Cage(((0, 0), (0, 1)), "-", 2).label() == "2−"
    assert in_ascii(Cage(((0, 0), (0, 1)), "/", 2).label()) == "2/"
    assert Cage(((0, 0),), "=", 3).label() == "3"


def test_a_cage_fits_digits_that_meet_its_clue():
    cage = Cage(((0, 0), (0, 1)), "/", 2)
    assert cage.fits((2, 4)) and cage.fits((3, 6))
    assert not cage.fits((2, 5))
    assert not cage.fits((2,))


@pytest.mark.parametrize(
    "cells, op, target, message",
    [
        ((), "+", 3, "a cage has no cells"),
        (((0, 0), (0, 0)), "+", 2, "cage at r1c1 lists a cell twice"),
        (((0, 0), (0, 1)), "%", 2, "unknown operation '%'"),
        (((0, 0), (0, 1)), "+", "3", "target that is not a whole number: '3'"),
        (((0, 0), (0, 1)), "+", 3.0, "target that is not a whole number"),
        (((0, 0), (0, 1)), "+", True, "target that is not a whole number"),
        (((0, 0), (0, 1), (0, 2)), "-", 1, "- cages take exactly two cells, not 3"),
        (((0, 0),), "/", 1, "/ cages take exactly two cells, not 1"),
        (((0, 0), (0, 1)), "=", 1, "= cages take one cell, not 2"),
        (((0, 0), (1, 1)), "+", 3, "cage at r1c1 is not orthogonally connected"),
        (((0, 0), (0, 2), (0, 1), (2, 1)), "+", 3, "is not orthogonally connected"),
    ],
)
def test_bad_cages_name_the_problem(cells, op, target, message):
    with pytest.raises(PuzzleError) as err:
        Cage(cells, op, target)
    assert message in str(err.value)


@pytest.mark.parametrize(
    "size, cages, message",
    [
        (2, (), "size must be 3 to 9, not 2"),
        (10, (), "size must be 3 to 9, not 10"),
        ("4", (), "size must be 3 to 9, not '4'"),
        (True, (), "size must be 3 to 9"),
        (3, ROWS3 + (Cage(((3, 0),), "=", 1),), "cell [3, 0] is off the 3×3 board"),
        (3, ROWS3 + (Cage(((0, -1),), "=", 1),), "cell [0, -1] is off the 3×3 board"),
        (3, ROWS3 + (Cage(((2, 2),), "=", 1),), "cell r3c3 is in two cages"),
        (3, ROWS3[1:], "3 cell(s) in no cage, first r1c1"),
        (3, (Cage(((0, 0), (0, 1), (0, 2)), "+", 10),) + ROWS3[1:], "no digits 1..3 make 10+"),
        (3, (Cage(((0, 0), (0, 1), (0, 2)), "*", 7),) + ROWS3[1:], "no digits 1..3 make 7×"),
        (3, (Cage(((0, 0), (0, 1)), "-", 2), Cage(((0, 2),), "=", 3)) + ROWS3[1:], None),
        (3, (Cage(((0, 0), (0, 1)), "-", 3), Cage(((0, 2),), "=", 3)) + ROWS3[1:], "make 3−"),
        (3, (Cage(((0, 0), (0, 1)), "/", 4), Cage(((0, 2),), "=", 3)) + ROWS3[1:], "make 4÷"),
        (3, (Cage(((0, 0), (0, 1)), "+", 2), Cage(((0, 2),), "=", 3)) + ROWS3[1:], "make 2+"),
        (3, (Cage(((0, 0), (0, 1)), "+", 4), Cage(((0, 2),), "=", 0)) + ROWS3[1:], "make 0"),
    ],
)
def test_bad_puzzles_name_the_problem(size, cages, message):
    if message is None:  # the control: a good puzzle of the same shape builds
        assert Puzzle(size, cages).size == size
        return
    with pytest.raises(PuzzleError) as err:
        Puzzle(size, cages)
    assert message in str(err.value)


@pytest.mark.parametrize(
    "solution, message",
    [
        ("abc", "solution must be rows of digits"),
        ([[1, 2, 3], [2, 3, 1]], "solution must be 3 rows of 3 digits"),
        ([[1, 2], [2, 1], [1, 2]], "solution must be 3 rows of 3 digits"),
        ([[1, 1, 1], [2, 2, 2], [3, 3, 3]], "solution row 1 does not hold 1..3"),
        ([[1, 2, 3], [1, 2, 3], [1, 2, 3]], "solution column 1 does not hold 1..3"),
    ],
)
def test_bad_solutions_name_the_problem(solution, message):
    with pytest.raises(PuzzleError) as err:
        Puzzle(3, ROWS3, solution)
    assert message in str(err.value)


def test_a_solution_that_breaks_a_cage(example):
    wrong = [row[::-1] for row in EXAMPLE_SOLUTION]  # still latin
    with pytest.raises(PuzzleError, match=r"solution breaks the cage at r1c1 \(2÷\)"):
        example.with_solution(wrong)


def test_a_puzzle_orders_cages_by_their_first_cell_and_finds_them(example):
    anchors = [cage.anchor for cage in example.cages]
    assert anchors == sorted(anchors)
    shuffled = Puzzle(4, tuple(reversed(example.cages)))
    assert shuffled.cages == example.cages
    assert shuffled == example.with_solution(None)
    for index, cage in enumerate(example.cages):
        for cell in cage.cells:
            assert example.cage_at(cell) is cage
            assert example.cage_index(cell) == index
    assert example.cells == [(r, c) for r in range(4) for c in range(4)]


def test_solution_and_meta(example):
    assert example.solution == EXAMPLE_SOLUTION
    bare = example.with_solution(None)
    assert bare.solution is None and bare != example
    tagged = Puzzle(4, example.cages, EXAMPLE_SOLUTION, {"seed": 3})
    assert tagged == example  # meta takes no part in equality
    assert tagged.with_solution(None).meta == {"seed": 3}


def test_grid_helpers():
    assert empty_grid(3) == ((0, 0, 0),) * 3
    assert to_grid([[1, "2"], (3, 4)]) == ((1, 2), (3, 4))
    assert cell_name((0, 0)) == "r1c1"
    assert cell_name((8, 2)) == "r9c3"


def test_a_trusted_puzzle_is_the_checked_one():
    checked = Puzzle(3, tuple(reversed(ROWS3)), ((1, 2, 3), (2, 3, 1), (3, 1, 2)))
    trusted = Puzzle.trusted(3, reversed(ROWS3), checked.solution)
    assert trusted == checked and trusted.cages == checked.cages
    assert [trusted.cage_index(cell) for cell in trusted.cells] == [checked.cage_index(cell) for cell in checked.cells]
