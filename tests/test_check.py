"""The checker against hand-made grids and against a direct reading of the rules."""

from __future__ import annotations

from itertools import permutations

import pytest
from conftest import EXAMPLE_SOLUTION
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import examples, puzzles

from kaldoku_tui.engine.check import (
    CageState,
    cage_state,
    cage_states,
    duplicates,
    is_solved,
    mistakes,
)
from kaldoku_tui.engine.puzzle import Cage, Puzzle, PuzzleError, empty_grid, to_grid

S = CageState


def test_an_empty_grid_has_no_duplicates_and_every_cage_incomplete(example):
    grid = empty_grid(4)
    assert duplicates(example, grid) == set()
    assert cage_states(example, grid) == [S.INCOMPLETE] * len(example.cages)
    assert not is_solved(example, grid)
    assert mistakes(example, grid) == set()


def test_duplicates_in_rows_and_columns():
    grid = to_grid([[1, 0, 1, 2], [0, 0, 0, 0], [2, 0, 0, 0], [0, 3, 0, 3]])
    assert duplicates(4, grid) == {(0, 0), (0, 2), (3, 1), (3, 3)}
    grid = to_grid([[1, 0, 0, 2], [0, 0, 0, 0], [1, 0, 0, 2], [0, 0, 0, 0]])
    assert duplicates(4, grid) == {(0, 0), (2, 0), (0, 3), (2, 3)}


def test_duplicates_take_a_puzzle_or_a_size(example):
    grid = to_grid([[4, 4, 0, 0]] + [[0] * 4] * 3)
    assert duplicates(example, grid) == duplicates(4, grid) == {(0, 0), (0, 1)}


def test_blanks_never_duplicate():
    assert duplicates(3, to_grid([[0, 0, 0], [0, 0, 0], [0, 0, 0]])) == set()


def test_each_cage_state(example):
    # The top-left cage is 2÷ over (0,0) (0,1); its solution is 1 2.
    first = example.cages[0]
    rows = [[0] * 4 for _ in range(4)]
    assert cage_state(example, to_grid(rows), first) is S.INCOMPLETE
    rows[0][:2] = [1, 0]
    assert cage_state(example, to_grid(rows), first) is S.INCOMPLETE
    rows[0][:2] = [4, 2]
    assert cage_state(example, to_grid(rows), first) is S.RIGHT
    rows[0][:2] = [3, 2]
    assert cage_state(example, to_grid(rows), first) is S.WRONG
    rows[0][:2] = [2, 4]
    rows[3][0] = 2  # the same 2 lower in the column: the cage is met but holds a duplicate
    assert cage_state(example, to_grid(rows), first) is S.RIGHT_WITH_DUPLICATE
    rows[0][:2] = [3, 4]
    assert cage_state(example, to_grid(rows), first) is S.WRONG


def test_a_cage_right_with_a_duplicate_inside_itself():
    # 1 1 2 in one row meets 4+ but repeats the 1.
    puzzle = Puzzle(3, tuple(Cage(((r, 0), (r, 1), (r, 2)), "+", 6) for r in range(3)))
    grid = to_grid([[1, 2, 3], [2, 2, 2], [0, 0, 0]])
    assert cage_states(puzzle, grid) == [S.RIGHT_WITH_DUPLICATE, S.RIGHT_WITH_DUPLICATE, S.INCOMPLETE]
    assert duplicates(puzzle, grid) == {(0, 1), (1, 0), (1, 1), (1, 2)}


def test_cage_states_follow_the_puzzle_order(example):
    states = cage_states(example, EXAMPLE_SOLUTION)
    assert states == [S.RIGHT] * len(example.cages)
    assert states == [cage_state(example, EXAMPLE_SOLUTION, cage) for cage in example.cages]


def test_the_stored_solution_wins(example):
    assert is_solved(example, EXAMPLE_SOLUTION)
    assert mistakes(example, EXAMPLE_SOLUTION) == set()


def test_any_valid_filling_wins_not_only_the_stored_one(row_sums):
    others = [square for square in _latin_squares(3) if square != row_sums.solution]
    assert len(others) == 11
    for square in others:
        assert is_solved(row_sums, square)
        assert mistakes(row_sums, square)  # differs from the stored one, yet wins


def test_full_grids_that_do_not_win(example):
    rows = [list(row) for row in EXAMPLE_SOLUTION]
    rows[0][0], rows[0][1] = rows[0][1], rows[0][0]  # the row stays 1..4, two columns break
    assert duplicates(example, to_grid(rows)) == {(0, 0), (3, 0), (0, 1), (1, 1)}
    assert not is_solved(example, to_grid(rows))
    # Swap two whole rows: every row and column still holds 1..4, but cages break.
    swapped = to_grid([EXAMPLE_SOLUTION[1], EXAMPLE_SOLUTION[0]] + list(EXAMPLE_SOLUTION[2:]))
    assert duplicates(example, swapped) == set()
    assert not is_solved(example, swapped)
    assert S.WRONG in cage_states(example, swapped)


def test_a_grid_of_the_wrong_shape_does_not_win(example):
    assert not is_solved(example, EXAMPLE_SOLUTION[:3])


def test_a_line_breaking_grid_that_meets_every_cage_does_not_win(row_sums):
    grid = to_grid([[2, 2, 2], [2, 2, 2], [2, 2, 2]])
    assert cage_states(row_sums, grid) == [S.RIGHT_WITH_DUPLICATE] * 3
    assert not is_solved(row_sums, grid)


def test_mistakes_are_placed_digits_that_differ_from_the_solution(example):
    grid = to_grid([[1, 3, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 4]])
    assert mistakes(example, grid) == {(0, 1), (3, 3)}


def test_mistakes_need_a_stored_solution(example):
    with pytest.raises(PuzzleError, match="no solution"):
        mistakes(example.with_solution(None), empty_grid(4))


def _latin_squares(n):
    rows = list(permutations(range(1, n + 1)))

    def extend(done):
        if len(done) == n:
            yield tuple(done)
            return
        for row in rows:
            if all(row[c] != other[c] for other in done for c in range(n)):
                yield from extend(done + [row])

    yield from extend([])


# --- Against the rules, read directly ---------------------------------------------


def rule_value(op, digits):
    """The clue value of digits as a player computes it; None where − or ÷ gives none."""
    if op == "=":
        return digits[0]
    if op == "+":
        return sum(digits)
    if op == "*":
        value = 1
        for d in digits:
            value *= d
        return value
    a, b = digits
    if op == "-":
        return abs(a - b)
    big, small = max(a, b), min(a, b)
    return big // small if big % small == 0 else None


def rule_duplicates(puzzle, grid):
    n = puzzle.size
    found = set()
    for r in range(n):
        for c in range(n):
            for r2 in range(n):
                for c2 in range(n):
                    same_line = (r == r2) != (c == c2)
                    if same_line and grid[r][c] and grid[r][c] == grid[r2][c2]:
                        found.add((r, c))
    return found


def rule_state(puzzle, grid, cage, dups):
    digits = [grid[r][c] for r, c in cage.cells]
    if 0 in digits:
        return S.INCOMPLETE
    if rule_value(cage.op, digits) != cage.target:
        return S.WRONG
    return S.RIGHT_WITH_DUPLICATE if dups & set(cage.cells) else S.RIGHT


def rule_solved(puzzle, grid):
    n = puzzle.size
    full = all(grid[r][c] for r in range(n) for c in range(n))
    return (
        full
        and not rule_duplicates(puzzle, grid)
        and all(rule_state(puzzle, grid, cage, set()) is S.RIGHT for cage in puzzle.cages)
    )


@st.composite
def puzzles_and_grids(draw):
    """A puzzle and a grid near its solution: some cells blank, some changed."""
    puzzle = draw(puzzles(sizes=st.integers(3, 6)))
    n = puzzle.size
    rows = [list(row) for row in puzzle.solution]
    for r in range(n):
        for c in range(n):
            roll = draw(st.integers(0, 9))
            if roll == 0:
                rows[r][c] = 0
            elif roll == 1:
                rows[r][c] = draw(st.integers(1, n))
    return puzzle, to_grid(rows)


@settings(max_examples=examples(150), deadline=None)
@given(puzzles_and_grids())
def test_the_checker_agrees_with_the_rules(case):
    puzzle, grid = case
    dups = rule_duplicates(puzzle, grid)
    assert duplicates(puzzle, grid) == dups
    assert cage_states(puzzle, grid) == [rule_state(puzzle, grid, cage, dups) for cage in puzzle.cages]
    assert is_solved(puzzle, grid) == rule_solved(puzzle, grid)
    assert mistakes(puzzle, grid) == {
        (r, c)
        for r in range(puzzle.size)
        for c in range(puzzle.size)
        if grid[r][c] and grid[r][c] != puzzle.solution[r][c]
    }


@settings(max_examples=40, deadline=None)
@given(puzzles(sizes=st.integers(3, 7)))
def test_every_stored_solution_wins(puzzle):
    assert is_solved(puzzle, puzzle.solution)
    assert duplicates(puzzle, puzzle.solution) == set()
    assert set(cage_states(puzzle, puzzle.solution)) == {S.RIGHT}
