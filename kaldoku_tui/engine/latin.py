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
    # Each line of the cube is a bitmask of its cells holding 1; the one cell at −1, when
    # there is one, is kept apart. A line through it holds two 1s, any other line one.
    along_x = [[0] * n for _ in range(n)]  # [y][z]: bit x
    along_y = [[0] * n for _ in range(n)]  # [x][z]: bit y
    along_z = [[0] * n for _ in range(n)]  # [x][y]: bit z
    for x in range(n):
        for y in range(n):
            z = (x + y) % n
            along_x[y][z] |= 1 << x
            along_y[x][z] |= 1 << y
            along_z[x][y] |= 1 << z
    improper: tuple[int, int, int] | None = None

    def add(x: int, y: int, z: int) -> None:
        nonlocal improper
        if improper == (x, y, z):
            improper = None
        else:
            along_x[y][z] |= 1 << x
            along_y[x][z] |= 1 << y
            along_z[x][y] |= 1 << z

    def subtract(x: int, y: int, z: int) -> None:
        nonlocal improper
        if along_z[x][y] >> z & 1:
            along_x[y][z] &= ~(1 << x)
            along_y[x][z] &= ~(1 << y)
            along_z[x][y] &= ~(1 << z)
        else:
            improper = (x, y, z)

    def pick(line: int) -> int:
        """One of the two 1s of a line through the improper cell."""
        low = line & -line
        return (low if rng.getrandbits(1) else line ^ low).bit_length() - 1

    burn_in, gap = n**3, n**2
    moves = 0
    # After N³ moves, look every N² moves: stopping at the first proper square after an
    # improper one favours some squares (4×4, 57,600 draws: chi-square 8,865 for 575
    # degrees); looking every N² does not (584), nor every N³ (572), at a quarter the cost.
    while moves < burn_in or (moves - burn_in) % gap or improper is not None:
        moves += 1
        if improper is None:
            x, y = rng.randrange(n), rng.randrange(n)
            z1 = along_z[x][y].bit_length() - 1
            z = rng.randrange(n - 1)
            z += z >= z1
            x1 = along_x[y][z].bit_length() - 1
            y1 = along_y[x][z].bit_length() - 1
        else:
            x, y, z = improper
            x1, y1, z1 = pick(along_x[y][z]), pick(along_y[x][z]), pick(along_z[x][y])
        add(x, y, z)
        subtract(x1, y, z)
        subtract(x, y1, z)
        subtract(x, y, z1)
        add(x1, y1, z)
        add(x1, y, z1)
        add(x, y1, z1)
        subtract(x1, y1, z1)
    return tuple(tuple(along_z[x][y].bit_length() for y in range(n)) for x in range(n))


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
