"""KenKen without a screen: model, formats, share codes, checker, solvers, generator, the
daily puzzle and the player's board.

    >>> from kaldoku_tui.engine import generate, solve, grade, to_keen
    >>> puzzle = generate(6, seed=7, level="hard")
    >>> solve(puzzle) == [puzzle.solution]
    True
    >>> grade(puzzle).level
    'hard'

Nothing here imports Textual or Rich.
"""

from kaldoku_tui.engine.puzzle import (
    Cage,
    Cell,
    Grid,
    Puzzle,
    PuzzleError,
    can_fill,
    cell_name,
    combine,
    empty_grid,
)
from kaldoku_tui.engine.fillings import fillings
from kaldoku_tui.engine.formats import (
    puzzle_from_dict,
    puzzle_to_dict,
    read_json,
    read_keen,
    read_puzzles,
    to_json_line,
    to_keen,
)
from kaldoku_tui.engine.check import CageState, cage_states, duplicates, is_solved, mistakes
from kaldoku_tui.engine.solver import candidates, count_solutions, solve
from kaldoku_tui.engine.kinds import LEVELS, GameKind
from kaldoku_tui.engine.steps import Step
from kaldoku_tui.engine.techniques import Grade, HumanSolve, grade, human_solve, next_step
from kaldoku_tui.engine.generator import generate
from kaldoku_tui.engine.codes import read_code, share_code
from kaldoku_tui.engine.daily import Streaks, daily_puzzle, result_line, streaks, utc_day
from kaldoku_tui.engine.pieces import read_pieces
from kaldoku_tui.engine.board import Board

__all__ = [
    "Board",
    "Cage",
    "CageState",
    "Cell",
    "GameKind",
    "Grade",
    "Grid",
    "HumanSolve",
    "LEVELS",
    "Puzzle",
    "PuzzleError",
    "Step",
    "Streaks",
    "can_fill",
    "cage_states",
    "candidates",
    "cell_name",
    "combine",
    "count_solutions",
    "daily_puzzle",
    "duplicates",
    "empty_grid",
    "fillings",
    "generate",
    "grade",
    "human_solve",
    "is_solved",
    "mistakes",
    "next_step",
    "puzzle_from_dict",
    "puzzle_to_dict",
    "read_code",
    "read_json",
    "read_keen",
    "read_pieces",
    "read_puzzles",
    "result_line",
    "share_code",
    "solve",
    "streaks",
    "to_json_line",
    "to_keen",
    "utc_day",
]
