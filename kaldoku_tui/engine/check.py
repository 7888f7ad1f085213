"""The checker: what a player's grid breaks, cage by cage, and whether it wins.

A grid is rows of digits with 0 for a blank. The reference is the seed article's
six cell states (enCellStatus): Blank is a 0 in the grid, Duplicate is membership
of `duplicates`, and the four cage states below are the other four.
"""

from __future__ import annotations

from enum import Enum

from kaldoku_tui.engine.puzzle import Cage, Cell, Grid, Puzzle, PuzzleError


class CageState(Enum):
    """How a cage stands in a player's grid."""

    INCOMPLETE = "incomplete"
    """A cell of it is blank (PieceIsNotComplete)."""
    RIGHT = "right"
    """Full, meets the clue, no cell of it duplicates in its row or column (PieceIsCorrect)."""
    WRONG = "wrong"
    """Full and misses the clue (PieceIsNotCorrect)."""
    RIGHT_WITH_DUPLICATE = "right with duplicate"
    """Full, meets the clue, but a cell of it repeats a digit of its row or column
    (PieceMatchbutContainDuplicate)."""


def duplicates(puzzle_or_size: Puzzle | int, grid: Grid) -> set[Cell]:
    """The filled cells whose digit appears again in their row or column."""
    size = puzzle_or_size.size if isinstance(puzzle_or_size, Puzzle) else puzzle_or_size
    return {
        (r, c) for r in range(size) for c in range(size) if grid[r][c] and _repeats(grid, (r, c))
    }


def cage_state(puzzle: Puzzle, grid: Grid, cage: Cage) -> CageState:
    """The state of one cage of `puzzle` in `grid`."""
    digits = [grid[r][c] for r, c in cage.cells]
    if not all(digits):
        return CageState.INCOMPLETE
    if not cage.fits(digits):
        return CageState.WRONG
    if any(_repeats(grid, cell) for cell in cage.cells):
        return CageState.RIGHT_WITH_DUPLICATE
    return CageState.RIGHT


def cage_states(puzzle: Puzzle, grid: Grid) -> list[CageState]:
    """The state of every cage, in the order of `puzzle.cages`."""
    return [cage_state(puzzle, grid, cage) for cage in puzzle.cages]


def is_solved(puzzle: Puzzle, grid: Grid) -> bool:
    """Whether `grid` wins: full, each row and column holds 1..N once, every cage right.

    Any such filling wins, whether or not it is the stored solution.
    """
    n = puzzle.size
    digits = set(range(1, n + 1))
    if len(grid) != n or any(set(row) != digits for row in grid) or any(
        {grid[r][c] for r in range(n)} != digits for c in range(n)
    ):
        return False
    return all(cage.met_by(grid) for cage in puzzle.cages)


def mistakes(puzzle: Puzzle, grid: Grid) -> set[Cell]:
    """The placed digits that differ from the stored solution."""
    if puzzle.solution is None:
        raise PuzzleError("the puzzle carries no solution to check against")
    solution = puzzle.solution
    return {(r, c) for r, c in puzzle.cells if grid[r][c] and grid[r][c] != solution[r][c]}


def _repeats(grid: Grid, cell: Cell) -> bool:
    """Whether the digit at `cell` appears elsewhere in its row or column."""
    r, c = cell
    digit = grid[r][c]
    row = grid[r]
    return any(row[j] == digit for j in range(len(row)) if j != c) or any(
        grid[i][c] == digit for i in range(len(grid)) if i != r
    )
