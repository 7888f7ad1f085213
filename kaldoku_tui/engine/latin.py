"""Uniformly random latin squares, by the Jacobson–Matthews Markov chain.

A latin square is a cube of 0/1 cells: cell (row, col, digit) is 1 when the square has
`digit` at (row, col), so every line of the cube through it sums to 1. A move adds
and subtracts 1 around a 2×2×2 sub-cube; it may leave one cell at −1 (an "improper"
square) that the next moves repair. Jacobson and Matthews proved the chain uniform
over proper squares; N³ moves from any start mix it well.
"""

from __future__ import annotations

import random

from kaldoku_tui.engine.puzzle import Grid


def random_latin_square(n: int, rng: random.Random) -> Grid:
    """A latin square of digits 1..n drawn uniformly at random with `rng`."""
    plane = n * n
    cube = [0] * (n * plane)  # cell (x, y, z) at x*n² + y*n + z
    for x in range(n):
        for y in range(n):
            cube[x * plane + y * n + (x + y) % n] = 1

    def lines(x: int, y: int, z: int) -> tuple[list[int], list[int], list[int]]:
        """The three lines of the cube through (x, y, z): along x, along y, along z."""
        return (
            cube[y * n + z :: plane],
            cube[x * plane + z : (x + 1) * plane : n],
            cube[x * plane + y * n : x * plane + y * n + n],
        )

    def pick(line: list[int]) -> int:
        """One of the two cells holding 1 in a line through an improper cell."""
        first = line.index(1)
        return rng.choice((first, line.index(1, first + 1)))

    improper: tuple[int, int, int] | None = None
    moves = 0
    # Look only every N³ moves: stopping at the first proper square after an improper
    # one would favour some squares (measured at 4×4: chi-square 2700 for 575 degrees).
    while moves % n**3 or moves == 0 or improper is not None:
        moves += 1
        if improper is None:
            x, y = rng.randrange(n), rng.randrange(n)
            z1 = cube[x * plane + y * n : x * plane + y * n + n].index(1)
            z = rng.randrange(n - 1)
            z += z >= z1
            along_x, along_y, _ = lines(x, y, z)
            x1, y1 = along_x.index(1), along_y.index(1)
        else:
            x, y, z = improper
            along_x, along_y, along_z = lines(x, y, z)
            x1, y1, z1 = pick(along_x), pick(along_y), pick(along_z)
        for a, b, c, step in (
            (x, y, z, 1),
            (x1, y, z, -1),
            (x, y1, z, -1),
            (x, y, z1, -1),
            (x1, y1, z, 1),
            (x1, y, z1, 1),
            (x, y1, z1, 1),
            (x1, y1, z1, -1),
        ):
            cube[a * plane + b * n + c] += step
        improper = (x1, y1, z1) if cube[x1 * plane + y1 * n + z1] < 0 else None
    return tuple(
        tuple(cube[x * plane + y * n : x * plane + y * n + n].index(1) + 1 for y in range(n))
        for x in range(n)
    )


def random_isotope(square: Grid, rng: random.Random) -> Grid:
    """`square` with its rows, its columns and its digits each permuted at random.

    The uniform distribution over latin squares is the same after any such permutation,
    so an isotope of a uniform square is uniform too, for O(N²) instead of O(N³) moves.
    """
    n = len(square)
    rows, cols, digits = list(range(n)), list(range(n)), list(range(1, n + 1))
    rng.shuffle(rows)
    rng.shuffle(cols)
    rng.shuffle(digits)
    return tuple(tuple(digits[square[r][c] - 1] for c in cols) for r in rows)
