"""Hypothesis strategies: random valid puzzles built from a random latin square."""

from __future__ import annotations

from hypothesis import settings
from hypothesis import strategies as st

from kaldoku_tui.engine.puzzle import Cage, Puzzle, combine

LONG_EXAMPLES = 1000
"""max_examples of the Hypothesis profile `long` (`--hypothesis-profile=long`, the long run)."""


def examples(full: int) -> int:
    """`full` examples in the long run; a tenth of them (at least 10) in the default run,
    which keeps every fuzz test but not its minutes."""
    return full if settings().max_examples >= LONG_EXAMPLES else max(10, full // 10)


@st.composite
def latin_squares(draw, size: int):
    """A latin square: the cyclic square with rows, columns and symbols shuffled."""
    rows = draw(st.permutations(range(size)))
    cols = draw(st.permutations(range(size)))
    symbols = draw(st.permutations(range(1, size + 1)))
    return tuple(tuple(symbols[(rows[r] + cols[c]) % size] for c in range(size)) for r in range(size))


@st.composite
def partitions(draw, size: int, max_cage: int = 5):
    """The board cut into orthogonally connected groups of 1..max_cage cells."""
    rng = draw(st.randoms(use_true_random=False))
    free = {(r, c) for r in range(size) for c in range(size)}
    groups = []
    for start in sorted(free):
        if start not in free:
            continue
        free.discard(start)
        group = [start]
        want = rng.randint(1, max_cage)
        while len(group) < want:
            edge = sorted(
                nb
                for r, c in group
                for nb in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))
                if nb in free
            )
            if not edge:
                break
            cell = rng.choice(edge)
            free.discard(cell)
            group.append(cell)
        groups.append(tuple(group))
    return groups


ANY_SIZE = st.integers(3, 9)


@st.composite
def puzzles(draw, sizes=ANY_SIZE, with_solution: bool = True):
    """A valid puzzle whose clues are computed from a random latin square."""
    size = draw(sizes)
    square = draw(latin_squares(size))
    cages = []
    for cells in draw(partitions(size)):
        digits = [square[r][c] for r, c in cells]
        if len(cells) == 1:
            ops = ["="]
        elif len(cells) == 2:
            ops = ["+", "-", "*"] + (["/"] if combine("/", digits) else [])
        else:
            ops = ["+", "*"]
        op = draw(st.sampled_from(ops))
        cages.append(Cage(cells, op, combine(op, digits)))
    return Puzzle(size, tuple(cages), square if with_solution else None)
