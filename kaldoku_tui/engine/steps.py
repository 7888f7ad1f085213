"""What a human-style solver sees and says: the board of candidates, and Steps in words.

A Marks board holds, for each cell, the digits still possible as a bitmask (bit d for
digit d) and whether the cell has a digit placed. Placing a digit removes it from the
rest of the cell's row and column, as a player crosses it off.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from operator import and_, or_
from typing import Callable, Iterable, Mapping, Sequence

from kaldoku_tui.engine.fillings import CageTooLarge, Filling, fillings
from kaldoku_tui.engine.kinds import MAX_SIZE
from kaldoku_tui.engine.puzzle import Cage, Cell, Grid, Puzzle, cell_name
from kaldoku_tui.engine.solver import Settled, cage_propagation

Propagation = Callable[[list[int], Settled | None], list | None]
"""`solver.cage_propagation`'s narrowing function."""



class Contradiction(Exception):
    """The candidates on a board leave some cell, line or cage with no way to be filled."""


@dataclass(frozen=True)
class Step:
    """One deduction: the digits it places and removes, what causes it, and its wording.

    `name` is the technique as players call it, `summary` says where and which
    digits, `explanation` is the whole argument with the cage arithmetic.
    """

    technique: str
    tier: int
    name: str
    summary: str
    explanation: str
    sets: Mapping[Cell, int] = field(default_factory=dict)
    removes: Mapping[Cell, frozenset[int]] = field(default_factory=dict)
    cells: tuple[Cell, ...] = ()
    cages: tuple[int, ...] = ()
    rows: tuple[int, ...] = ()
    columns: tuple[int, ...] = ()

    @classmethod
    def unworded(cls, technique: str, tier: int, name: str, sets: Mapping[Cell, int],
                 removes: Mapping[Cell, frozenset[int]]) -> Step:
        """A step without words, causes or places, as the grader makes them: thousands a
        puzzle, and a frozen dataclass's own setattr for each field cost 4 µs a step."""
        step = object.__new__(cls)
        step.__dict__.update(  # written straight in, as `Cage.trusted` does
            technique=technique, tier=tier, name=name, summary="", explanation="", sets=sets, removes=removes,
            cells=(), cages=(), rows=(), columns=())
        return step


ONE_DIGIT = frozenset(1 << d for d in range(1, MAX_SIZE + 1))
"""The candidate masks of a cell left one digit."""

TWO_DIGITS = frozenset(1 << d | 1 << e for d in range(1, MAX_SIZE + 1) for e in range(d + 1, MAX_SIZE + 1))
"""The candidate masks of two digits."""


def bit(d: int) -> int:
    return 1 << d


def digits_of(mask: int) -> list[int]:
    """The digits in a candidate bitmask, smallest first."""
    out = []
    d = 1
    mask >>= 1
    while mask:
        if mask & 1:
            out.append(d)
        mask >>= 1
        d += 1
    return out


def only_digit(mask: int) -> int:
    """The digit of a one-digit mask."""
    return mask.bit_length() - 1


@lru_cache(maxsize=None)
def _geometry(
    n: int,
) -> tuple[list[list[int]], list[tuple[int, int]], list[list[int]], list[set[int]]]:
    """On a board of size `n`: its lines (rows, then columns), the row and column through
    each cell, and each cell's peers (the other cells of its row, then of its column), as
    a list and as a set."""
    lines = [[r * n + c for c in range(n)] for r in range(n)] + [[r * n + c for r in range(n)] for c in range(n)]
    lines_of = [(i // n, n + i % n) for i in range(n * n)]
    peers = [[j for j in lines[row] + lines[col] if j != i] for i, (row, col) in enumerate(lines_of)]
    return lines, lines_of, peers, [set(cells) for cells in peers]


@lru_cache(maxsize=4096)
def _indexes(n: int, cells: tuple[Cell, ...]) -> tuple[int, ...]:
    """The indexes in reading order of a cage's cells: a generator's puzzles, split after
    split, share most cages."""
    return tuple([r * n + c for r, c in cells])


class Layout:
    """The fixed geometry of a puzzle: its lines, the lines through each cell, each cage's cells."""

    def __init__(self, puzzle: Puzzle) -> None:
        n = self.size = puzzle.size
        self.puzzle = puzzle
        self.full = (bit(n + 1) - 1) & ~1
        # Shared by every layout of this size, and never changed.
        self.lines, self.lines_of, self.peers, self.peer_sets = _geometry(n)
        self.cage_cells: list[tuple[int, ...]] = [_indexes(n, cage.cells) for cage in puzzle.cages]
        self._propagation: dict[bool, Propagation] = {}
        self._solution_bits: list[int] | None = None
        self.fits_found: dict = {}
        """`Marks.fits` and what is worked out from it, by cage and its cells' candidates:
        shared by every board of this puzzle (a generator's solves at two tiers, and the
        grader's trials, meet the same cages with the same candidates)."""
        self.idle: dict[Callable, tuple[tuple[int, ...], tuple[bool, ...]]] = {}
        """For the grader, by technique: the last board (candidates, placed) on which it
        found nothing. Tiers 3 and 4 see the same board again and again (a tier's solve
        that stalls starts over one tier up, trials and both ends of a level meet it)."""

    def solution_bits(self) -> list[int]:
        """The digits of the solution the puzzle carries, as one bit a cell in reading order."""
        if self._solution_bits is None:
            solution = self.puzzle.solution
            assert solution is not None
            self._solution_bits = [1 << d for row in solution for d in row]
        return self._solution_bits

    def propagation(self, by_cell: bool) -> Propagation | None:
        """The fast solver's singles and cage fillings, cell by cell or as a whole, on
        this puzzle (`solver.cage_propagation`), made once; None when a cage has too many
        fillings to list, which the slower way reports where it meets the cage."""
        found = self._propagation.get(by_cell)
        if found is None:
            try:
                found = self._propagation[by_cell] = cage_propagation(self.puzzle, by_cell)
            except CageTooLarge:
                return None
        return found

    def fillings(self, k: int) -> tuple[Filling, ...]:
        """Every filling of cage `k`, ignoring the rest of the board (remembered by `fillings`)."""
        return fillings(self.size, self.puzzle.cages[k])

    def cell(self, i: int) -> Cell:
        return divmod(i, self.size)

    def line_name(self, line: int) -> str:
        n = self.size
        return f"row {line + 1}" if line < n else f"column {line - n + 1}"


class Marks:
    """Candidates and placed digits on one puzzle; a copy is cheap and independent.

    `words` says whether the steps found on it are worded; a grader needs none.
    """

    __slots__ = ("layout", "cand", "placed", "_fits", "_last", "words", "settled", "quiet", "quiet_runs")

    def __init__(
        self, layout: Layout, cand: list[int], placed: list[bool], fits: dict,
        words: bool = True, last: dict | None = None, settled: tuple[bool, Settled] | None = None,
        quiet: dict | None = None, quiet_runs: dict | None = None,
    ) -> None:
        self.layout = layout
        self.cand = cand
        self.placed = placed
        self._fits = fits
        self._last = {} if last is None else last
        self.words = words
        self.settled = settled
        """What the fast solver's propagation (cell by cell or not) last left on this
        board, for the next to start from; None when none has run on this puzzle."""
        self.quiet = {} if quiet is None else quiet
        """For the grader (no words), by cage: its cells' candidates when `cage_line` last
        looked at it. Every step found then was applied and the board has only narrowed
        since, so while they stay the same the cage has nothing new to give."""
        self.quiet_runs = {} if quiet_runs is None else quiet_runs
        """`quiet` for `line_rule`, by its run of lines and operation: the run's cells'
        candidates when it last looked there."""

    @classmethod
    def start(cls, layout: Layout, grid: Grid | None = None, notes=None) -> Marks:
        """The board a player sees: `grid`'s digits, and `notes` (or every digit) elsewhere."""
        n = layout.size
        cand = [layout.full] * (n * n)
        placed = [False] * (n * n)
        if grid is None and notes is None:  # the grader's and the generator's: an empty board
            return cls(layout, cand, placed, layout.fits_found)
        given = _notes_by_cell(n, notes)
        for i in range(n * n):
            r, c = divmod(i, n)
            d = grid[r][c] if grid is not None else 0
            if d:
                cand[i], placed[i] = bit(d), True
            elif given.get(i):
                cand[i] = given[i] & layout.full
        # A cell without notes shows every digit not yet placed in its row and column.
        for i in range(n * n):
            if placed[i]:
                for j in layout.peers[i]:
                    if not placed[j] and not given.get(j):
                        cand[j] &= ~cand[i]
        return cls(layout, cand, placed, layout.fits_found)

    def copy(self) -> Marks:
        return Marks(self.layout, self.cand[:], self.placed[:], self._fits, self.words, dict(self._last),
                     self.settled, dict(self.quiet), dict(self.quiet_runs))

    def on(self, layout: Layout) -> Marks:
        """These marks on a puzzle with the same cells and more constraints (a cage split),
        keeping what was worked out for the cages both puzzles have: their fillings, and the
        fast solver's propagation, which resumes from the new cages."""
        moved = self._moved(layout)
        was: list[int | None] = [None] * len(layout.cage_cells)
        for k, new in moved.items():
            was[new] = k
        last = {moved[k]: found for k, found in self._last.items() if k in moved}
        quiet = {moved[k]: masks for k, masks in self.quiet.items() if k in moved}
        settled = None
        if self.settled is not None:
            by_cell, (before, left) = self.settled
            settled = by_cell, (before, [left[k] if k is not None else None for k in was])
        if layout.fits_found is not self._fits:
            layout.fits_found.update(self._fits_moved(moved))
        return Marks(layout, self.cand, self.placed, layout.fits_found, self.words, last, settled, quiet)

    def _moved(self, layout: Layout) -> dict[int, int]:
        """Where each cage of this puzzle that `layout`'s puzzle has too is in it."""
        index = {cage: k for k, cage in enumerate(layout.puzzle.cages)}
        return {k: index[cage] for k, cage in enumerate(self.layout.puzzle.cages) if cage in index}

    def _fits_moved(self, moved: dict[int, int]) -> dict:
        """The fillings remembered here for the cages in `moved`, by their places there."""
        return {(moved[key[0]], *key[1:]): found for key, found in self._fits.items() if key[0] in moved}

    def narrow(self, other: Marks) -> None:
        """Keep only candidates `other` keeps too; both must be true of the same puzzle."""
        self.keep(other.cand)
        self.placed[:] = map(or_, self.placed, other.placed)
        # Where this board is now the one `other`'s propagation left (a solve capped a tier
        # lower, which went as far as it could), the next settle goes on from there; and
        # what `other` found quiet is quiet here too, the board being as narrow or narrower.
        if other.settled is not None and other.settled[1][0] == self.cand:
            self.settled = other.settled
        if other.layout is self.layout:
            self.quiet.update(other.quiet)
            self.quiet_runs.update(other.quiet_runs)

    def keep(self, masks: list[int]) -> None:
        """Keep only the candidates in `masks` (cell by cell in reading order), which
        must be true of this puzzle; cells left with one digit are placed when settled."""
        self.cand[:] = map(and_, self.cand, masks)

    @property
    def solved(self) -> bool:
        return all(self.placed)

    def grid(self) -> Grid:
        n = self.layout.size
        return tuple(
            tuple(only_digit(self.cand[r * n + c]) if self.placed[r * n + c] else 0 for c in range(n))
            for r in range(n)
        )

    def fits(self, k: int, masks: tuple[int, ...] | None = None) -> list[Filling]:
        """The fillings of cage `k` that its cells' candidates (`masks`, if given) still allow."""
        if masks is None:
            masks = tuple([self.cand[i] for i in self.layout.cage_cells[k]])
        key = (k, masks)
        found = self._fits.get(key)
        if found is None:
            # Candidates only narrow, so the fillings kept last time for this cage hold these.
            wider = self._last.get(k)
            source: Sequence[Filling] = self.layout.fillings(k) if wider is None else wider
            if len(masks) == 2:
                first, second = masks
                found = [f for f in source if first >> f[0] & 1 and second >> f[1] & 1]
            elif len(masks) == 3:
                first, second, third = masks
                found = [f for f in source if first >> f[0] & 1 and second >> f[1] & 1 and third >> f[2] & 1]
            else:  # a position at a time: a comprehension each, not a generator per filling
                first = masks[0]
                found = [f for f in source if first >> f[0] & 1]
                for pos in range(1, len(masks)):
                    m = masks[pos]
                    found = [f for f in found if m >> f[pos] & 1]
            self._fits[key] = found
        self._last[k] = found
        return found

    def spots(self, k: int) -> tuple[int, ...]:
        """For each cell of cage `k`, the digits the fillings still allowed put there."""
        masks = tuple([self.cand[i] for i in self.layout.cage_cells[k]])
        key = (k, masks, "spots")
        found = self._fits.get(key)
        if found is None:
            spots = [0] * len(masks)
            for f in self.fits(k, masks):
                for pos, d in enumerate(f):
                    spots[pos] |= 1 << d
            found = self._fits[key] = tuple(spots)
        return found

    def always(self, k: int, groups: tuple[tuple[int, ...], ...]) -> tuple[list[Filling], tuple[int, ...]]:
        """The fillings of cage `k` its cells still allow (`fits`), and for each group of
        positions in the cage, the digits that every one of them puts in one of those
        positions (a non-empty cage_line of each line)."""
        masks = tuple([self.cand[i] for i in self.layout.cage_cells[k]])
        key = (k, masks, groups)
        found = self._fits.get(key)
        if found is None:
            fits = self.fits(k, masks)
            every = []
            for positions in groups:
                always = self.layout.full
                for f in fits:
                    here = 0
                    for pos in positions:
                        here |= 1 << f[pos]
                    always &= here
                    if not always:
                        break
                every.append(always)
            found = self._fits[key] = (fits, tuple(every))
        return found

    def apply(self, step: Step) -> None:
        """Make the step's placements and removals; raise Contradiction if a cell is left empty."""
        n = self.layout.size
        cand = self.cand
        for (r, c), ds in step.removes.items():
            i = r * n + c
            for d in ds:
                cand[i] &= ~(1 << d)
            if not cand[i]:
                raise Contradiction(f"{cell_name((r, c))} would have no digit left")
        for (r, c), d in step.sets.items():
            self.place(r * n + c, d)

    def place(self, i: int, d: int) -> None:
        if not self.cand[i] >> d & 1:
            raise Contradiction(f"{cell_name(self.layout.cell(i))} cannot be {d}")
        self.cand[i] = bit(d)
        self.placed[i] = True
        for j in self.layout.peers[i]:
            if self.cand[j] >> d & 1:
                if self.placed[j]:
                    raise Contradiction(f"{d} would be twice in a line, at {cell_name(self.layout.cell(j))}")
                self.cand[j] &= ~bit(d)
                if not self.cand[j]:
                    raise Contradiction(f"{cell_name(self.layout.cell(j))} would have no digit left")


def _notes_by_cell(n: int, notes) -> dict[int, int]:
    """Player's notes as bitmasks by cell index; empty notes mean the cell has none yet."""
    if notes is None:
        return {}
    out: dict[int, int] = {}
    items: Iterable
    if isinstance(notes, Mapping):
        items = notes.items()
    else:
        items = (((r, c), v) for r, row in enumerate(notes) for c, v in enumerate(row))
    for (r, c), v in items:
        out[r * n + c] = v if isinstance(v, int) else sum(bit(d) for d in v)
    return out


# Wording.

NUMBER_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")


def join(words: Sequence[str], last: str = "and") -> str:
    words = list(words)
    if len(words) <= 1:
        return "".join(words)
    return f"{', '.join(words[:-1])} {last} {words[-1]}"


def say_digits(ds: Iterable[int], last: str = "and") -> str:
    return join([str(d) for d in sorted(ds)], last)


def say_cells(cells: Iterable[Cell]) -> str:
    return join([cell_name(c) for c in sorted(cells)])


def say_removals(removes: Mapping[Cell, frozenset[int]]) -> str:
    """`r1c4 is not 1; r2c4 and r3c4 are not 2 or 9`, grouping cells that lose the same digits."""
    groups: dict[frozenset[int], list[Cell]] = {}
    for cell, ds in removes.items():
        groups.setdefault(ds, []).append(cell)
    parts = []
    for ds, cells in sorted(groups.items(), key=lambda item: min(item[1])):
        verb = "is" if len(cells) == 1 else "are"
        parts.append(f"{say_cells(cells)} {verb} not {say_digits(ds, 'or')}")
    return "; ".join(parts)


def say_sets(sets: Mapping[Cell, int]) -> str:
    return join([f"{cell_name(c)} is {d}" for c, d in sorted(sets.items())])


def say_effects(step_sets: Mapping[Cell, int], removes: Mapping[Cell, frozenset[int]]) -> str:
    return "; ".join(part for part in (say_sets(step_sets), say_removals(removes)) if part)


def say_cage(cage: Cage) -> str:
    """`11+ over three cells of column 4`, or `6× over two cells at r2c3`."""
    rows = {r for r, _ in cage.cells}
    cols = {c for _, c in cage.cells}
    count = NUMBER_WORDS[len(cage.cells)] if len(cage.cells) < 10 else str(len(cage.cells))
    if len(rows) == 1 and len(cage.cells) > 1:
        where = f"of row {min(rows) + 1}"
    elif len(cols) == 1 and len(cage.cells) > 1:
        where = f"of column {min(cols) + 1}"
    else:
        where = f"from {cell_name(cage.anchor)}"
    return f"{cage.label()} over {count} cells {where}"


def say_combos(cage: Cage, found: Iterable[Filling], limit: int = 6, last: str = "and") -> str:
    """The digit combinations of fillings, such as `1+3+7 and 1+4+6`."""
    words = sorted({cage.reading(f) for f in found})
    if len(words) > limit:
        return f"{', '.join(words[:limit])} and {len(words) - limit} more"
    return join(words, last)
