"""Random puzzles with exactly one solution.

A candidate is a random latin square cut into Keen-style cages. A judge says whether
it is good enough (for now: unique); when it is not, a repair splits a cage the two
found solutions disagree on, which only adds constraints, and the judge looks again.
Everything random comes from one `random.Random(seed)`, so a seed, size and options
give the same puzzle on every machine.
"""

from __future__ import annotations

import random
import secrets

from kaldoku_tui.engine.cages import OP_SETS, make_cages, random_blocks, split_cage
from kaldoku_tui.engine.latin import random_latin_square
from kaldoku_tui.engine.puzzle import MAX_SIZE, MIN_SIZE, Cage, Grid, Puzzle, PuzzleError
from kaldoku_tui.engine.solver import solve


def generate(size: int, seed: int | None = None, ops: str = "all", level: str | None = None) -> Puzzle:
    """A puzzle of `size` with exactly one solution, which it carries.

    `ops` is the operator set ("all", "addmul" or "mul"); `seed` picks the puzzle (a
    fresh one is drawn when None) and is kept in `meta` with the options.
    """
    if not isinstance(size, int) or not MIN_SIZE <= size <= MAX_SIZE:
        raise PuzzleError(f"size must be {MIN_SIZE} to {MAX_SIZE}, not {size!r}")
    if ops not in OP_SETS:
        raise PuzzleError(f"operator set must be one of {', '.join(OP_SETS)}, not {ops!r}")
    if level is not None:
        raise NotImplementedError("difficulty levels are not available yet")
    if seed is None:
        seed = secrets.randbelow(2**31)
    rng = random.Random(seed)
    puzzle = candidate(size, rng, ops)
    while (other := rival(puzzle)) is not None:
        puzzle = repair(puzzle, other, rng, ops)
    return Puzzle(puzzle.size, puzzle.cages, puzzle.solution, {"seed": seed, "ops": ops})


def candidate(size: int, rng: random.Random, ops: str) -> Puzzle:
    """A random latin square cut into random cages with clues: not yet known to be unique."""
    solution = random_latin_square(size, rng)
    cages = make_cages(random_blocks(size, rng), solution, rng, ops)
    return Puzzle(size, tuple(cages), solution)


def rival(puzzle: Puzzle) -> Grid | None:
    """A solution of `puzzle` other than its own, or None when its own is the only one."""
    for found in solve(puzzle, limit=2):
        if found != puzzle.solution:
            return found
    return None


def repair(puzzle: Puzzle, other: Grid, rng: random.Random, ops: str) -> Puzzle:
    """`puzzle` with its largest cage that `other` fills differently split in two.

    Every solution that differs from the puzzle's own differs in some cage of two or
    more cells (single cells pin their digit), so there is always one to split.
    """
    solution = puzzle.solution
    assert solution is not None
    disputed = [
        cage
        for cage in puzzle.cages
        if len(cage.cells) > 1 and any(solution[r][c] != other[r][c] for r, c in cage.cells)
    ]
    largest = max(len(cage.cells) for cage in disputed)
    target = rng.choice([cage for cage in disputed if len(cage.cells) == largest])
    rest: list[Cage] = [cage for cage in puzzle.cages if cage is not target]
    halves = split_cage(target, solution, rng, ops, others=rest)
    return Puzzle(puzzle.size, tuple(rest + halves), solution)
