"""Solve KenKen puzzles and count their solutions.

After Norvig's sudoku solver. `values[i]` holds the digits cell i (row * N + col) may
still take, as a bitmask (bit d for digit d). `options[k]` holds the fillings cage k
may still take, each a tuple of one-bit masks in cage-cell order, with the digits they
put in each cell: a pair cage as a tuple of the pairs left, a larger cage as a bitset
over its table (a cell losing a digit drops the fillings with it there in one AND).
Propagation keeps both consistent:

- a cell down to one digit removes it from its row and column (naked single);
- a digit with one place left in a row or column goes there (hidden single);
- a cage keeps the fillings its cells still allow, and each cell keeps only the
  digits of those fillings.

Search then branches on whatever has the fewest options, a cell or a whole cage.
Cages too large to tabulate keep `None` and are checked by bounds until their cells
have few enough candidates to list the fillings.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from itertools import compress, product
from math import prod
from operator import itemgetter, ne
from typing import Callable

from kaldoku_tui.engine.arithmetic import Shape, shape_of
from kaldoku_tui.engine.fillings import clashes_of, fillings, fillings_of_form, forget_with_tables, listed
from kaldoku_tui.engine.kinds import MAX_SIZE
from kaldoku_tui.engine.puzzle import Cage, Cell, Grid, Puzzle

TABLE_CELLS = 6
"""Cages of up to this many cells are solved from their full filling table."""

LIST_LIMIT = 20_000
"""A larger cage lists its fillings once its cells allow no more combinations than this."""

Values = list[int]
Table = tuple[tuple[int, ...], ...]
Memo = dict
"""What narrowing a cage of one form gave before, shared by every cage of that form:
a generator's candidates and a search's nodes meet the same few cell masks again and
again."""
Pairs = tuple[tuple[int, ...], Table, Memo]
"""A two-cell cage's fillings left: per cell the digits they put there, the pairs, and
by the two cells' masks the pairs they leave (an empty tuple for none)."""
Listed = tuple[tuple[int, ...], int, Table, tuple[tuple[int, ...], ...], Memo]
"""A larger cage's fillings left: per cell the digits they put there, which of the
cage's table are left (bit j for filling j), the table, per cell and digit the
fillings that do not put that digit there (bit j for filling j), and by fillings left
the digits they put in each cell."""

MEMO_LIMIT = 256
"""The most answers a form's memo keeps, so that a long-running server's memory stays bounded
(9×9 pairs could meet 2^18 pairs of masks): 256 ran as many instructions as 4,096 at 6×6 and
9×9 extreme."""
Options = list["Pairs | Listed | None"]
"""Per cage, its fillings left; None for a cage too large to tabulate yet."""
Settled = tuple[Values, Options]
"""A board `cage_propagation` left, and the fillings it left each cage."""


@dataclass(frozen=True)
class _Layout:
    """What stays fixed while solving one puzzle: who sees whom, which cage is where."""

    size: int
    peers: tuple[tuple[int, ...], ...]
    lines: tuple[tuple[int, ...], ...]
    line_sets: tuple[frozenset[int], ...]
    cages: tuple[Cage, ...]
    cage_cells: tuple[tuple[int, ...], ...]
    cage_of: tuple[int, ...]
    pairs: tuple[tuple[int, ...] | None, ...]
    """Per cage, its two cells when it has two (its fillings are `Pairs`), else None."""
    tables: tuple[Pairs | Listed | None, ...] = field(compare=False)
    """Per cage, its full table (every filling left); None beyond TABLE_CELLS."""
    opened: dict[bool, Settled | None] = field(default_factory=dict, compare=False)
    """What `_opened` found from the open board, by `whole`: a generator's uniqueness search,
    its grader's solves and its `closure` each begin there on the same candidate."""


def solve(puzzle: Puzzle, limit: int = 2, other_than: Grid | None = None) -> list[Grid]:
    """Up to `limit` solutions of `puzzle`: none, exactly one, or several; only those
    that differ from `other_than` when it is given."""
    layout = _layout(puzzle)
    _, found = _solutions(layout, limit, other_than)
    return [_grid(layout.size, v) for v in found]


class Undecided(Exception):
    """A search that spent its budget of nodes before it knew the answer: neither
    "unique" nor "not unique". `closure` is the puzzle's `closure`, which the search
    began from, when a `rival` search says so."""

    closure: list[int] | None = None


Proof = tuple[int, Callable[[], bool]]
"""After so many search nodes, a question asked once: is the puzzle known by now to have
one solution (a human-style solve that finishes it proves so)?"""


class _Proved(Exception):
    """A `Proof` answered yes: the search stops."""


def rival(
    puzzle: Puzzle, solution: Grid, nodes: int | None = None, proof: Proof | None = None
) -> tuple[list[int], Grid | None]:
    """A solution of `puzzle` other than `solution`, one it has (None when that is the
    only one), and the `closure` the search began from, which a generator wants too.
    Undecided when `nodes` is given and the search visits more nodes than that. With
    `proof`, a search still going after its nodes asks it, and stops with None on a yes
    (rivals are mostly found within a few nodes; proofs take more)."""
    layout = _layout(puzzle)
    settled, found = _solutions(layout, 1, solution, nodes, proof)
    assert settled is not None, "a puzzle its solution solves has no contradiction"
    return settled, _grid(layout.size, found[0]) if found else None


def _solutions(
    layout: _Layout, limit: int, other_than: Grid | None, nodes: int | None = None, proof: Proof | None = None
) -> tuple[Values | None, list[Values]]:
    """The puzzle's closure (None on a contradiction) and up to `limit` solutions that
    differ from `other_than`, searched from it; Undecided after `nodes` search nodes;
    none once `proof` says there is no other."""
    found: list[Values] = []
    settled = _settle(layout)
    if settled is None:
        return None, found
    avoid = [1 << d for row in other_than for d in row] if other_than is not None else None
    try:
        _search(layout, *settled, limit, found, avoid, [nodes] if nodes is not None else None,
                [proof[0], proof[1]] if proof is not None else None)
    except _Proved:
        assert not found  # the search stops at the first solution other than `other_than`
    except Undecided as spent:
        spent.closure = settled[0]  # spares a caller working it out again
        raise
    return settled[0], found


def closure(puzzle: Puzzle) -> list[int] | None:
    """The digits singles and cage fillings alone leave each cell, in reading order as
    bitmasks (bit d for digit d); None on a contradiction. `candidates` per cell."""
    settled = _settle(_layout(puzzle))
    return settled[0] if settled is not None else None


Closed = tuple[Values, dict[Cage, "Pairs | Listed | None"]]
"""A board singles and cage fillings left, and by cage the fillings they left it."""


def closure_since(puzzle: Puzzle, before: Closed | None = None) -> Closed:
    """`closure` of `puzzle`, which its own solution meets, with each cage's fillings left;
    given `before`, what this answered for a puzzle that some of `puzzle`'s cages replace,
    the board that propagation reaches from there, looking again only at the new cages:
    as narrow as `closure`'s or narrower, since what the old cages gave stays (a guide
    for a generator, not a grade: `closure` is)."""
    layout = _layout(puzzle)
    if before is None:
        settled = _settle(layout)
        assert settled is not None, "a puzzle its solution solves has no contradiction"
        return settled[0], dict(zip(layout.cages, settled[1]))
    values, left = before[0][:], before[1]
    options: Options = []
    changed: set[int] = set()
    for cage, cells, table in zip(layout.cages, layout.cage_cells, layout.tables):
        if cage in left:
            options.append(left[cage])
        else:
            options.append(table)
            changed.update(cells)
    kept = _propagate(layout, values, options, changed)
    assert kept, "the solution meets the old cages and the new"
    return values, dict(zip(layout.cages, options))


def rival_since(puzzle: Puzzle, solution: Grid, closed: Closed, nodes: int | None = None) -> Grid | None:
    """`rival` searched from `closed`, what `closure_since` answered for `puzzle`: every
    solution found is one of `puzzle`, but a board it reached from before a change may
    leave out some (those the old cages ruled out); None when none is found. Undecided
    after `nodes` search nodes. Spares the search its own closure."""
    layout = _layout(puzzle)
    values, left = closed
    found: list[Values] = []
    avoid = [1 << d for row in solution for d in row]
    _search(layout, values[:], [left[cage] for cage in layout.cages], 1, found, avoid,
            [nodes] if nodes is not None else None)
    return _grid(layout.size, found[0]) if found else None


def count_solutions(puzzle: Puzzle, limit: int = 2) -> int:
    """How many solutions `puzzle` has, counting no further than `limit`."""
    return len(solve(puzzle, limit))


def candidates(puzzle: Puzzle, grid: Grid | None = None) -> dict[Cell, tuple[int, ...]] | None:
    """The digits each cell may still take once `grid`'s digits are placed and propagated.

    None when the placed digits already contradict the rules or the clues.
    """
    layout = _layout(puzzle)
    n = layout.size
    values = _open_board(n)
    for r, row in enumerate(grid or ()):
        for c, digit in enumerate(row):
            if digit:
                values[r * n + c] &= 1 << digit
    if _settle(layout, values) is None:
        return None
    return {
        (r, c): tuple(d for d in range(1, n + 1) if values[r * n + c] >> d & 1)
        for r in range(n)
        for c in range(n)
    }


def cage_propagation(puzzle: Puzzle, by_cell: bool = True) -> Callable[[Values, Settled | None], Options | None]:
    """A function that narrows a board of `puzzle` (each cell's candidates in reading
    order, as bitmasks) in place by singles and by each cage's fillings cell by cell
    (or, unless `by_cell`, the digits of its fillings as a whole), until nothing
    changes: tiers 1 and 2 (or 1) of the human-style solver, which reach the same board
    in any order. Unlike `closure`'s, every cage is narrowed by its full table, whatever
    its size (CageTooLarge when one has too many fillings to list).

    The function answers the fillings left to each cage, None on a contradiction. Given
    an earlier board it left and those fillings, when the board has only narrowed since,
    it looks again only at the cells that changed: the rest still meet every rule. A cage
    given None there (new since: a cage split) starts from its full table, and its cells
    are looked at again."""
    layout = _layout(puzzle)
    every = range(layout.size**2)
    # From the open board, as `_settle` begins when every cage has its table.
    remembered = None not in layout.tables  # every cage of TABLE_CELLS or fewer
    open_board = _open_board(layout.size)
    tables: list[Options] = []  # one list once made (two, equal, if two threads race)

    def full() -> Options:
        """Every cage's full table, made when first needed: a board `_opened` left needs none."""
        if not tables:
            tables.append([
                _form_bits(layout.size, shape_of(cage.cells), cage.op, cage.target) if table is None else table
                for cage, table in zip(layout.cages, layout.tables)
            ])
        return tables[0]

    if not remembered:
        full()  # CageTooLarge here, for the caller to take the slower way

    def narrow(values: Values, since: Settled | None = None) -> Options | None:
        if not all(values):
            return None
        if since is None and remembered:
            if values == open_board:
                return _opened(layout, values, not by_cell)
            # A board the open one's propagation led to (a closure the grader's solve begins
            # from) goes on from there: the same board, none of the cages' tables filtered again.
            since = _opened_under(layout, values, not by_cell)
        if since is None:
            options, changed = full()[:], set(every)
        else:
            before, left = since
            options = left[:]
            changed = set(compress(every, map(ne, values, before)))  # in C, not a comprehension
            if None in left:
                for k, entry in enumerate(left):
                    if entry is None:
                        options[k] = full()[k]
                        changed.update(layout.cage_cells[k])
        return options if _propagate(layout, values, options, changed, whole=not by_cell) else None

    return narrow


def _layout(puzzle: Puzzle) -> _Layout:
    return _layout_of(puzzle.size, puzzle.cages)


@lru_cache(maxsize=64)
def _layout_of(n: int, cages: tuple[Cage, ...]) -> _Layout:
    """`_layout` by the puzzle's cages: the search, the closure and the grader's
    propagation each ask for it on the same candidate."""
    peers, lines, line_sets = _geometry(n)
    cage_cells, tables = zip(*[_cage_form(n, cage.cells, cage.op, cage.target) for cage in cages])
    cage_of = [0] * (n * n)
    for k, cells in enumerate(cage_cells):
        for i in cells:
            cage_of[i] = k
    layout = object.__new__(_Layout)
    # Written straight in, as `Cage.trusted` does: a frozen dataclass's own __init__ sets each
    # field through object.__setattr__, a fifth of a layout's cost.
    layout.__dict__.update(
        size=n,
        peers=peers,
        lines=lines,
        line_sets=line_sets,
        cages=cages,
        cage_cells=cage_cells,
        cage_of=tuple(cage_of),
        pairs=tuple([cells if len(cells) == 2 else None for cells in cage_cells]),
        tables=tables,
        opened={},
    )
    return layout


@lru_cache(maxsize=4096)
def _cage_form(n: int, cells: tuple[Cell, ...], op: str, target: int) -> tuple[tuple[int, ...], Pairs | Listed | None]:
    """A cage's cells in reading order and its full table (None beyond TABLE_CELLS), by
    its cells and clue: a new candidate's cages are new objects, and looking them up by
    `Cage` called its Python `__hash__` and `__eq__` each time (a third of the time)."""
    table = _form_bits(n, shape_of(cells), op, target) if len(cells) <= TABLE_CELLS else None
    return tuple([r * n + c for r, c in cells]), table


@lru_cache(maxsize=None)
def _geometry(
    n: int,
) -> tuple[tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...], tuple[frozenset[int], ...]]:
    """Each cell's peers, the lines (rows then columns), and each line's cells as a set."""
    rows = [tuple(r * n + c for c in range(n)) for r in range(n)]
    cols = [tuple(r * n + c for r in range(n)) for c in range(n)]
    peers = tuple(
        tuple(j for j in rows[i // n] + cols[i % n] if j != i) for i in range(n * n)
    )
    lines = tuple(rows + cols)
    return peers, lines, tuple(frozenset(line) for line in lines)


def _open_board(n: int) -> Values:
    """Every digit in every cell."""
    return [ALL_DIGITS[n]] * (n * n)


def _settle(layout: _Layout, values: Values | None = None) -> tuple[Values, Options] | None:
    """`values` (every digit in every cell when None) and the cages' fillings, propagated;
    None on a contradiction."""
    n = layout.size
    if values is None:
        values = _open_board(n)
        opened = _opened(layout, values)
        return None if opened is None else (values, opened)
    options: Options = list(layout.tables)
    if not all(values) or not _propagate(layout, values, options, set(range(len(values)))):
        return None
    return values, options


def _opened(layout: _Layout, values: Values, whole: bool = False) -> Options | None:
    """`values`, the open board, narrowed in place by `_propagate` (with `whole`) from every
    cage's full table (or None beyond TABLE_CELLS), and the fillings left; None on a
    contradiction. Cell by cell goes on from the board as a whole when that is remembered
    (`generator._tier_one` leaves it). Remembered with the layout: a generator's uniqueness search, its
    grader's solves and its `closure` each begin from there on the same candidate."""
    opened = layout.opened
    if whole in opened:
        found = opened[whole]
        if found is None:
            return None
        values[:] = found[0]
        return found[1][:]
    options: Options = list(layout.tables)
    coarse = None if whole else opened.get(True)
    if coarse is not None:
        # Cell by cell narrows at least as far as whole cages do, and propagation only
        # narrows, so from the board they reached it reaches the same one (fewer looks).
        values[:] = coarse[0]
        options = coarse[1][:]
        kept = _propagate(layout, values, options, set(range(len(values))), whole)
    else:
        # Each cage's first look would keep in its cells the digits of its full table:
        # they are written straight in, and only the cages without a table are looked
        # at before a single or a line changes a cell.
        untabled = set()
        for k, (cells, table) in enumerate(zip(layout.cage_cells, layout.tables)):
            if table is None:
                untabled.add(k)
            elif whole:
                union = 0
                for allowed in table[0]:
                    union |= allowed
                for i in cells:
                    values[i] = union
            else:
                for i, allowed in zip(cells, table[0]):
                    values[i] = allowed
        every = ALL_DIGITS[layout.size]
        changed = {i for i, v in enumerate(values) if v != every}
        kept = all(values) and _propagate(layout, values, options, changed, whole, untabled)
    opened[whole] = (values[:], options[:]) if kept else None
    return options if kept else None


def _opened_under(layout: _Layout, values: Values, whole: bool) -> Settled | None:
    """What `_opened` remembers of this puzzle's open board (with `whole`), when `values`
    keep no digit it does not: propagation may go on from there. None otherwise."""
    found = layout.opened.get(whole)
    if found is not None and all(now & ~then == 0 for now, then in zip(values, found[0])):
        return found
    return None


@lru_cache(maxsize=4096)
def _form_bits(n: int, shape: Shape, op: str, target: int) -> Pairs | Listed:
    """The fillings of a cage of this form, every one left, as the propagation keeps them:
    a generator asks for cages of the same form again and again, in every place on the board."""
    if fillings_of_form(n, shape, op, target) is None:
        fillings(n, Cage(shape, op, target))  # raises CageTooLarge, naming the cage
    return _clash_bits(n, clashes_of(shape), op, target)


@lru_cache(maxsize=4096)
def _clash_bits(n: int, clashes: tuple[tuple[int, ...], ...], op: str, target: int) -> Pairs | Listed:
    """`_form_bits` by how the cage's cells clash: cages of other shapes share them."""
    return _entry(listed(n, clashes, op, target), len(clashes))


forget_with_tables(_form_bits.cache_clear)
forget_with_tables(_clash_bits.cache_clear)
forget_with_tables(_cage_form.cache_clear)
forget_with_tables(_layout_of.cache_clear)


ALL_DIGITS = tuple((1 << n + 1) - 2 for n in range(MAX_SIZE + 1))
"""The mask of every digit of a board of size n (bits 1 to n), by n."""

_BITS = tuple(1 << d for d in range(MAX_SIZE + 1))
"""Each digit's one-bit mask, looked up: building a fresh process's filling tables, half
the time of shifting each digit."""

DIGITS_OF = tuple(tuple(d for d in range(1, MAX_SIZE + 1) if mask >> d & 1) for mask in range(1 << (MAX_SIZE + 1)))
"""Each mask's digits, looked up: the cage rule walks the digits a cell lost at every step."""

_LONE = tuple(mask & (mask - 1) == 0 for mask in range(1 << (MAX_SIZE + 1)))
"""Whether a mask holds at most one digit, looked up: a bool tests faster than an int's AND."""

_HOLDING = {bit: ((False,) * bit + (True,) * bit) * ((1 << MAX_SIZE) // bit) for bit in _BITS}
"""By a digit's one-bit mask, whether each mask holds it, looked up: a solved cell's peers are
tested for its digit, and a bool from a table tests faster than an int's AND."""

_DIGIT_COUNT = tuple(mask.bit_count() for mask in range(1 << (MAX_SIZE + 1)))
"""How many digits a mask holds, looked up: the search counts every cell's at each node."""

_AS_ONES = tuple(bytes(ord("1") if b == d else ord("0") for b in range(256)) for d in range(MAX_SIZE + 1))
"""Per digit, a bytes.translate table writing "1" for that digit and "0" for any other."""


def _as_bits(digit_tuples) -> tuple[tuple[int, ...], ...]:
    """Fillings as digits, as one-bit masks: column by column and zipped back in C, not a
    Python loop per filling (a 9×9 generator lists tables of thousands)."""
    bit = _BITS.__getitem__
    return tuple(zip(*[map(bit, column) for column in zip(*digit_tuples)]))


def _entry(digit_table, size: int) -> Pairs | Listed:
    """A cage's fillings (of `size` cells, as digits) with every one left. A pair keeps
    its fillings as a tuple, filtered pair by pair (few, and most cages are pairs); a
    larger cage a bitset over its table, so that a cell losing a digit costs one AND
    however many fillings the cage has (up to 16,384 for six cells)."""
    table = _as_bits(digit_table)
    if size == 2:
        return _unions(table, size), table, {}
    # The fillings putting digit d in cell p are read off the column of p's digits as a
    # string of 0s and 1s, last filling first: int(..., 2) makes the bitset in C.
    columns = [bytes(column) for column in zip(*digit_table)] or [b""] * size
    everyone = (1 << len(table)) - 1
    unions, keeps = [], []
    for column in columns:
        union, keep = 0, [everyone] * (MAX_SIZE + 1)
        for d in range(1, MAX_SIZE + 1):
            if d in column:
                union |= _BITS[d]
                keep[d] = everyone ^ int(column.translate(_AS_ONES[d])[::-1], 2)
        unions.append(union)
        keeps.append(tuple(keep))
    return tuple(unions), everyone, table, tuple(keeps), {}


def _digit(mask: int) -> int:
    return mask.bit_length() - 1


def _grid(n: int, values: Values) -> Grid:
    digits = [v.bit_length() - 1 for v in values]  # `_digit` of each, without a call per cell
    return tuple([tuple(digits[first:first + n]) for first in range(0, n * n, n)])


def _propagate(
    layout: _Layout, values: Values, options: Options, changed: set[int], whole: bool = False,
    touched: set[int] | None = None, placed: bool = False, avoid: Values | None = None,
) -> bool:
    """Apply singles and cage fillings until nothing changes; False on a contradiction.
    With `whole`, a tabled cage's cells keep the digits of its fillings as a whole, not
    cell by cell. `changed` holds every cell changed since the board last met the rules
    (every caller's board did, or all its cells are given): the rest are not looked at.
    `changed` itself is only read (a search passes one set to every branch). `touched`,
    when given, holds the cages to look at first instead of those of the changed cells
    (each of the others has nothing to narrow). `placed` says every changed cell holds one
    digit (a search's branch). On reaching `avoid`, the full board a search is not to
    find (its known solution), it stops with True: the search only returns from there.

    Any order reaches the same values and fillings, since each rule only narrows and
    each change brings back the rules that look at the changed cell: the rules are
    written out here, in one loop, because this is where the solvers spend their time."""
    peers, lines, line_sets, cage_of = layout.peers, layout.lines, layout.line_sets, layout.cage_of
    cage_cells, pairs, n = layout.cage_cells, layout.pairs, layout.size
    digits_of, bits, single, holding = DIGITS_OF, _BITS, _LONE, _HOLDING
    full = ALL_DIGITS[n]
    looked = set(changed)  # cells whose lines are yet to be looked at for hidden singles
    # Cells down to one digit whose peers are yet to lose it: a changed cell with more
    # has nothing for its peers, and is looked at only by its cage and its lines.
    singles = (set(changed) if placed
               else set(compress(changed, map(single.__getitem__, map(values.__getitem__, changed)))))
    # Cages to look at: those with a cell that a single or a line changed. A cage's own
    # narrowing keeps every filling it has left, so it does not bring the cage back.
    if touched is None:
        touched = set(map(cage_of.__getitem__, changed))  # no comprehension's call of its own (3.11)
    while True:
        while singles:  # singles to the end first: a cage is then looked at once for all of them
            i = singles.pop()
            v = values[i]
            holds = holding[v]
            for p in peers[i]:
                if holds[values[p]]:
                    # v is one of its digits: ints' + and - are specialised by CPython 3.11, ^ and | are not
                    w = values[p] - v
                    if not w:
                        return False
                    values[p] = w
                    if single[w]:
                        singles.add(p)
                    looked.add(p)
                    touched.add(cage_of[p])
        if avoid is not None and values == avoid:
            return True
        dirty, touched = touched, set()
        for k in dirty:
            entry = options[k]
            pair = pairs[k]
            if pair is not None:
                a, b = pair
                va, vb = values[a], values[b]
                (ua, ub), table, memo = entry  # type: ignore[misc]  # a two-cell cage's are Pairs
                xa, xb = va & ua, vb & ub
                if xa != ua or xb != ub:  # a cell lost a digit some pair puts there
                    # Filtering the pairs left by the masks is filtering the form's table by them.
                    key = xa * 65536 + xb  # not xa << 16 | xb, for the same reason
                    narrowed: Pairs | tuple[()] | None = memo.get(key)
                    if narrowed is None:
                        kept = []
                        ua = ub = 0
                        for filling in table:
                            da, db = filling
                            if da & va and db & vb:
                                kept.append(filling)
                                ua |= da
                                ub |= db
                        narrowed = ((ua, ub), tuple(kept), memo) if kept else ()
                        if len(memo) < MEMO_LIMIT:
                            memo[key] = narrowed
                    if not narrowed:
                        return False
                    options[k] = narrowed
                    xa, xb = narrowed[0]
                # (xa, xb) are the unions of the pairs left now, within the masks.
                if whole:
                    union = xa | xb
                    xa, xb = va & union, vb & union
                if xa != va:
                    values[a] = xa
                    looked.add(a)
                    if single[xa]:
                        singles.add(a)
                if xb != vb:
                    values[b] = xb
                    looked.add(b)
                    if single[xb]:
                        singles.add(b)
                continue
            if entry is None:
                # Bounds are not settled by one look: the cage looks again after its own changes.
                moved: set[int] = set()
                if not _narrow_cage(layout, k, values, options, moved):
                    return False
                looked |= moved
                singles.update(compress(moved, map(single.__getitem__, map(values.__getitem__, moved))))
                if options[k] is None and moved:
                    touched.add(k)
                continue
            cells = cage_cells[k]
            unions, alive, table, keeps, memo = entry  # type: ignore[misc]  # a larger cage's are Listed
            left = alive
            for i, allowed, keep in zip(cells, unions, keeps):
                lost = allowed - (allowed & values[i])
                if lost:
                    for d in digits_of[lost]:
                        left &= keep[d]
            if left != alive:
                if not left:
                    return False
                # A digit stays in a cell while some filling left puts it there.
                found = memo.get(left)
                if found is None:
                    # Loops, not comprehensions: each of those was a call of its own (3.11).
                    kept_unions = []
                    for allowed, keep in zip(unions, keeps):
                        union = 0
                        for d in digits_of[allowed]:
                            if left & keep[d] != left:
                                union += bits[d]
                        kept_unions.append(union)
                    found = tuple(kept_unions)
                    if len(memo) < MEMO_LIMIT:
                        memo[left] = found
                unions = found
                options[k] = unions, left, table, keeps, memo
            if whole:
                union = 0
                for allowed in unions:
                    union |= allowed
                unions = (union,) * len(cells)
            for i, allowed in zip(cells, unions):
                v = values[i]
                if v & allowed != v:
                    v &= allowed
                    values[i] = v
                    looked.add(i)
                    if single[v]:
                        singles.add(i)
        if singles or touched:  # touched: a cage without a table looks again
            continue
        # Lines last, once singles and cages have nothing left to do: a line costs a
        # look at each of its cells, so it is looked at once after many changes.
        for cells, members in zip(lines, line_sets):
            if looked.isdisjoint(members):
                continue
            once = twice = solved = 0
            if singles:  # a hidden single of this pass has its digit in its peers still
                for i in cells:
                    v = values[i]
                    twice |= once & v
                    once |= v
            else:
                # A solved cell's digit is in no other cell of its line (singles are done):
                # the digits of one open cell alone are the hidden singles.
                for i in cells:
                    v = values[i]
                    if single[v]:
                        solved += v  # the solved cells of a line hold different digits
                    else:
                        twice |= once & v
                        once |= v
            if once + solved != full:  # solved digits are in no open cell
                return False
            lone = once - twice
            if lone:  # each digit of `lone` is in one cell: stop once all are found
                for i in cells:
                    v = values[i]
                    here = v & lone
                    if here:
                        if v != here:
                            if here & (here - 1):
                                return False
                            values[i] = here
                            singles.add(i)
                            touched.add(cage_of[i])
                        lone -= here
                        if not lone:
                            break
        if not singles:
            return True
        looked = set(singles)


def _narrow_cage(layout: _Layout, k: int, values: Values, options: Options, changed: set[int]) -> bool:
    """A cage without a table is bounded, or given one once its cells allow few enough
    combinations to list its fillings, which then narrow its cells."""
    cells = layout.cage_cells[k]
    masks = [values[i] for i in cells]
    if prod(m.bit_count() for m in masks) > LIST_LIMIT:
        return _bound_cage(layout.cages[k], cells, values, changed)
    listed = _list_fillings(layout, k, masks)
    if not listed:
        return False
    entry = options[k] = _entry(listed, len(cells))
    for i, allowed, v in zip(cells, entry[0], masks):
        if v & allowed != v:
            values[i] = v & allowed
            changed.add(i)
    return True


def _unions(table: Table, size: int) -> tuple[int, ...]:
    """Per cage cell, the digits some filling puts there (distinct one-bit masks sum to their union)."""
    return tuple(sum(set(column)) for column in zip(*table)) if table else (0,) * size


def _list_fillings(layout: _Layout, k: int, masks: list[int]) -> list[tuple[int, ...]]:
    """The fillings of a large cage, as digits, listed from its cells' current candidates."""
    cage, cells, n = layout.cages[k], layout.cage_cells[k], layout.size
    clashes = [
        (a, b)
        for a in range(len(cells))
        for b in range(a)
        if cells[a] // n == cells[b] // n or cells[a] % n == cells[b] % n
    ]
    digit_choices = [[d for d in range(1, n + 1) if m >> d & 1] for m in masks]
    return [
        digits
        for digits in product(*digit_choices)
        if all(digits[a] != digits[b] for a, b in clashes) and cage.fits(digits)
    ]


def _bound_cage(cage: Cage, cells: tuple[int, ...], values: Values, changed: set[int]) -> bool:
    """Prune a large + or × cage by what its other cells can still make (a hidden one is
    left to the check of the full board)."""
    if cage.hidden:
        return True
    if cage.op == "*":
        for i in cells:
            allowed = sum(1 << d for d in range(1, values[i].bit_length()) if cage.target % d == 0)
            if not _keep(values, i, allowed, changed):
                return False
        return True
    low = [(values[i] & -values[i]).bit_length() - 1 for i in cells]
    high = [values[i].bit_length() - 1 for i in cells]
    total_low, total_high = sum(low), sum(high)
    for i, lo, hi in zip(cells, low, high):
        least = cage.target - (total_high - hi)
        most = cage.target - (total_low - lo)
        allowed = sum(1 << d for d in range(max(least, 1), min(most, hi) + 1))
        if not _keep(values, i, allowed, changed):
            return False
    return True


def _keep(values: Values, i: int, allowed: int, changed: set[int]) -> bool:
    """Narrow cell i to `allowed`; False when nothing is left."""
    v = values[i]
    if v & allowed != v:
        if not v & allowed:
            return False
        values[i] = v & allowed
        changed.add(i)
    return True


def _search(
    layout: _Layout, values: Values, options: Options, limit: int, found: list[Values], avoid: Values | None,
    left: list[int] | None = None, proof: list | None = None,
) -> None:
    """Depth first over the choice with fewest options, collecting solutions up to `limit`
    other than `avoid`. Its choices go first: another solution mostly differs from it in
    a few cells, so it lies near that path (8×8 rival searches 28% faster). `left`, when
    given, holds the nodes it may still visit; Undecided when they run out. `proof`, the
    nodes until a `Proof` is asked and its question: _Proved when it answers yes."""
    if left is not None:
        left[0] -= 1
        if left[0] < 0:
            raise Undecided(f"no answer within {layout.size}×{layout.size} search's budget of nodes")
    if proof is not None:
        proof[0] -= 1
        if proof[0] == 0 and proof[1]():
            raise _Proved
    if values == avoid:  # where a branch placing its digits mostly leads
        return
    # The first cell of fewest candidates, two being the fewest an open cell has.
    counts = itemgetter(*values)(_DIGIT_COUNT)  # a tuple made in C, not a call per cell through map
    for best in range(2, layout.size + 1):
        if best in counts:
            break
    else:
        if _cages_met(layout, values, options):
            found.append(values)
        return
    best_cell = counts.index(best)
    best_cage = -1
    if best > 2:  # no cage has fewer than two fillings left to choose from
        for k, entry in enumerate(options):
            if entry is not None:
                count = _count(entry)
                if 1 < count < best:
                    best_cage, best = k, count
    if best_cage >= 0:
        cells = layout.cage_cells[best_cage]
        chosen = options[best_cage]
        assert chosen is not None  # best_cage was picked among the cages with a table
        branches = _fillings_left(chosen)
        if avoid is not None:
            branches.sort(key=lambda filling: not all(avoid[i] == bit for i, bit in zip(cells, filling)))
        placed = set(cells)  # _propagate reads it, every branch alike
        for filling in branches:
            trial, trial_options = values[:], options[:]
            for i, bit in zip(cells, filling):
                trial[i] = bit
            if _propagate(layout, trial, trial_options, placed, placed=True, avoid=avoid):
                _search(layout, trial, trial_options, limit, found, avoid, left, proof)
                if len(found) >= limit:
                    return
        return
    v = values[best_cell]
    first = avoid[best_cell] & v if avoid is not None else 0
    bits = [first] if first else []
    bits += [_BITS[d] for d in DIGITS_OF[v & ~first]]
    placed = {best_cell}
    for bit in bits:
        trial, trial_options = values[:], options[:]
        trial[best_cell] = bit
        if _propagate(layout, trial, trial_options, placed, placed=True, avoid=avoid):
            _search(layout, trial, trial_options, limit, found, avoid, left, proof)
            if len(found) >= limit:
                return


def _count(entry: Pairs | Listed) -> int:
    """How many fillings a cage has left."""
    left = entry[1]
    return len(left) if isinstance(left, tuple) else left.bit_count()


def _fillings_left(entry: Pairs | Listed) -> list[tuple[int, ...]]:
    """A cage's fillings left, in its table's order."""
    if len(entry) == 3:
        return list(entry[1])
    _, left, table, _, _ = entry
    found = []
    while left:
        low = left & -left
        found.append(table[low.bit_length() - 1])
        left ^= low
    return found


def _cages_met(layout: _Layout, values: Values, options: Options) -> bool:
    """Whether a full board meets every clue: tabled cages do once propagated, so only the
    cages too large to tabulate are looked at."""
    return all(
        cage.fits([_digit(values[i]) for i in cells])
        for cage, cells, table in zip(layout.cages, layout.cage_cells, options)
        if table is None
    )
