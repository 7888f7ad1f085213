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
    # Each line of the cube is a bitmask of its cells holding 1, in three flat tables:
    # along_x[y * n + z] has bit x, along_y[x * n + z] bit y, along_z[x * n + y] bit z.
    # The one cell at −1, when there is one, is kept apart; a line through it holds two
    # 1s, any other line one. A move's eight steps are written out: this is the hot loop.
    along_x, along_y, along_z = [0] * (n * n), [0] * (n * n), [0] * (n * n)
    for x in range(n):
        for y in range(n):
            z = (x + y) % n
            along_x[y * n + z] |= 1 << x
            along_y[x * n + z] |= 1 << y
            along_z[x * n + y] |= 1 << z
    improper = None
    randrange, getrandbits = rng.randrange, rng.getrandbits
    burn_in, gap = n**3, n**2
    moves = 0
    # After N³ moves, look every N² moves: stopping at the first proper square after an
    # improper one favours some squares (4×4, 57,600 draws: chi-square 8,865 for 575
    # degrees); looking every N² does not (584), nor every N³ (572), at a quarter the cost.
    while moves < burn_in or (moves - burn_in) % gap or improper is not None:
        moves += 1
        if improper is None:
            x, y = randrange(n), randrange(n)
            z1 = along_z[x * n + y].bit_length() - 1
            z = randrange(n - 1)
            z += z >= z1
            x1 = along_x[y * n + z].bit_length() - 1
            y1 = along_y[x * n + z].bit_length() - 1
        else:
            # One of the two 1s of each line through the improper cell, at random.
            x, y, z = improper
            line = along_x[y * n + z]
            low = line & -line
            x1 = (low if getrandbits(1) else line ^ low).bit_length() - 1
            line = along_y[x * n + z]
            low = line & -line
            y1 = (low if getrandbits(1) else line ^ low).bit_length() - 1
            line = along_z[x * n + y]
            low = line & -line
            z1 = (low if getrandbits(1) else line ^ low).bit_length() - 1
        bx, bx1, by, by1, bz, bz1 = 1 << x, 1 << x1, 1 << y, 1 << y1, 1 << z, 1 << z1
        # +1 at (x, y, z): it cancels the improper cell's −1 when there is one.
        if improper is None:
            along_x[y * n + z] |= bx
            along_y[x * n + z] |= by
            along_z[x * n + y] |= bz
        # −1 at (x1, y, z), (x, y1, z), (x, y, z1): each held a 1.
        along_x[y * n + z] ^= bx1
        along_y[x1 * n + z] ^= by
        along_z[x1 * n + y] ^= bz
        along_x[y1 * n + z] ^= bx
        along_y[x * n + z] ^= by1
        along_z[x * n + y1] ^= bz
        along_x[y * n + z1] ^= bx
        along_y[x * n + z1] ^= by
        along_z[x * n + y] ^= bz1
        # +1 at (x1, y1, z), (x1, y, z1), (x, y1, z1): each held a 0.
        along_x[y1 * n + z] |= bx1
        along_y[x1 * n + z] |= by1
        along_z[x1 * n + y1] |= bz
        along_x[y * n + z1] |= bx1
        along_y[x1 * n + z1] |= by
        along_z[x1 * n + y] |= bz1
        along_x[y1 * n + z1] |= bx
        along_y[x * n + z1] |= by1
        along_z[x * n + y1] |= bz1
        # −1 at (x1, y1, z1): a 1 becomes 0, or a 0 becomes the improper cell.
        if along_z[x1 * n + y1] & bz1:
            along_x[y1 * n + z1] ^= bx1
            along_y[x1 * n + z1] ^= by1
            along_z[x1 * n + y1] ^= bz1
            improper = None
        else:
            improper = (x1, y1, z1)
    return tuple(tuple(along_z[x * n + y].bit_length() for y in range(n)) for x in range(n))


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
