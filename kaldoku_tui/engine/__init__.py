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

from importlib import import_module
from typing import Any

MODULES = {
    "puzzle": ("Cage", "Cell", "Grid", "Puzzle", "PuzzleError", "can_fill", "cell_name", "combine", "empty_grid"),
    "fillings": ("fillings",),
    "formats": ("puzzle_from_dict", "puzzle_to_dict", "read_json", "read_keen", "read_puzzles", "to_json_line",
                "to_keen"),
    "check": ("CageState", "cage_states", "duplicates", "is_solved", "mistakes"),
    "solver": ("candidates", "count_solutions", "solve"),
    "kinds": ("LEVELS", "GameKind"),
    "steps": ("Step",),
    "techniques": ("Grade", "HumanSolve", "grade", "human_solve", "next_step"),
    "generator": ("generate",),
    "codes": ("read_code", "share_code"),
    "daily": ("Streaks", "daily_puzzle", "result_line", "streaks", "utc_day"),
    "pieces": ("read_pieces",),
    "board": ("Board",),
}
"""The engine's public names, by the module that defines them. Each is imported when
first asked for: the game's startup, which needs the puzzle and the board, does not
wait for the generator, the solver and the grader."""

WHERE = {name: module for module, names in MODULES.items() for name in names}

__all__ = sorted(WHERE)


def __getattr__(name: str) -> Any:
    if name not in WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{WHERE[name]}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *WHERE})
