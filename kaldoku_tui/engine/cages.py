"""Random cages the way Simon Tatham's Keen makes them, and their clues.

Blocks first: dominoes laid in random order, then the cells left alone merged into a
neighbouring block, so most cages have 2 or 3 cells. Then each block gets an
operation chosen by Keen's rules, dealt evenly, and the target its solution digits give.
"""

from __future__ import annotations

import random
from functools import lru_cache
from math import prod
from operator import attrgetter
from typing import Sequence

from kaldoku_tui.engine.arithmetic import shape_of
from kaldoku_tui.engine.draws import DIGITS_OF_FOUR, one_of_up_to, orders, shuffle
from kaldoku_tui.engine.fillings import TABLE_LIMIT, fillings_of_form
from kaldoku_tui.engine.kinds import HIDDEN_OPS, OP_SETS
from kaldoku_tui.engine.puzzle import HIDDEN, Cage, Cell, Grid, PuzzleError, combine

MAX_CELLS = 6
"""No cage grows beyond this many cells (Keen's limit)."""

MAX_SINGLE_SHARE = 0.05
"""At most this share of the cages of a board of SINGLES_FROM or more is a single given cell."""
SINGLES_FROM = 6
MAX_SMALL_SINGLES = 1
"""At most this many single given cells on a board below SINGLES_FROM (4×4 and 5×5: a
given cell is a sixteenth of a 4×4); 3×3 has no limit, being too small to need none."""


def singles_allowed(size: int, cages: Sequence[Cage], more: int) -> bool:
    """Whether `more` single-cell cages, made by splitting one of `cages`, keep a board
    within MAX_SINGLE_SHARE (MAX_SMALL_SINGLES on a small board)."""
    if size < SINGLES_FROM:
        if size <= 3:
            return True
        most: float = MAX_SMALL_SINGLES
        if more > most:  # told without counting: two more on a small board
            return False
    else:
        most = MAX_SINGLE_SHARE * (len(cages) + 1)
    return list(map(len, map(_cells_of, cages))).count(1) + more <= most

Block = tuple[Cell, ...]

_cells_of = attrgetter("cells")


DOMINOES_IN_FOUR = 3
"""Of four lone cells, how many are joined to a lone neighbour as a domino (Keen's 3)."""


def random_blocks(n: int, rng: random.Random, max_cells: int = MAX_CELLS,
                  dominoes_in_four: int = DOMINOES_IN_FOUR) -> list[Block]:
    """A random division of the n×n board into connected blocks, in reading order; the
    fewer lone cells become dominoes, the larger the blocks."""
    # Cells by their index in reading order: a throwaway candidate's blocks cost less so.
    cells = n * n
    # One draw (draws.py) for the order and, for each cell alone at its turn, a digit below
    # 4 × DIGITS_OF_FOUR: its last two bits a coin for a domino, the rest which lone neighbour
    # it pairs with or, when it stays alone to the end, which block it joins then (the rest is
    # read only once, so it is as good as new).
    draw = rng.randrange(_blocks_draws(cells))
    order = list(range(cells))
    draw = shuffle(order, draw)
    block_of = [[i] for i in range(cells)]  # by cell, its block, in order
    alone = [True] * cells  # by cell, whether its block is itself alone
    is_alone = alone.__getitem__
    beside = _beside(n)
    picks = [0] * cells
    lone = []  # the cells alone after their turn, and by cell its pick
    coin = 4 - dominoes_in_four
    radix = 4 * DIGITS_OF_FOUR
    for cell in order:
        if alone[cell]:
            draw, pick = divmod(draw, radix)
            if pick & 3 >= coin:
                singles = [*filter(is_alone, beside[cell])]
                if singles:
                    other = singles[(pick >> 2) % len(singles)]
                    block_of[cell] = block_of[other] = [cell, other] if cell < other else [other, cell]
                    alone[cell] = alone[other] = False
                    continue
            picks[cell] = pick >> 2
            lone.append(cell)
    for cell in lone:
        if len(block_of[cell]) == 1:
            roomy = [nb for nb in beside[cell] if len(block_of[nb]) < max_cells]
            if roomy:
                joined = sorted([cell, *block_of[roomy[picks[cell] % len(roomy)]]])
                for member in joined:
                    block_of[member] = joined
    at = board_cells(n).__getitem__
    return [tuple(map(at, block)) for i, block in enumerate(block_of) if block[0] == i]


@lru_cache(maxsize=None)
def _blocks_draws(cells: int) -> int:
    """The range `random_blocks` draws from for a board of `cells` cells."""
    return orders(cells) * (4 * DIGITS_OF_FOUR) ** cells


@lru_cache(maxsize=None)
def _beside(n: int) -> list[list[int]]:
    """`neighbours` of every cell of the n×n board, by index in reading order."""
    return [[r * n + c for r, c in neighbours(n, divmod(i, n))] for i in range(n * n)]


@lru_cache(maxsize=None)
def board_cells(n: int) -> list[Cell]:
    """The cells of the n×n board in reading order (by index)."""
    return [(r, c) for r in range(n) for c in range(n)]


def allowed_ops(block: Block, solution: Grid, ops: str = "all", easiest: bool = False) -> list[str]:
    """The operations Keen's rules let `block` take, given its solution digits.

    Singles take `=`; 3+ cells take + or ×; a domino takes − when the difference is
    below N−1, ÷ when the quotient is exact and at most N/2, + unless the sum pins the
    digits, × unless (above the easiest level) a single pair of digits makes it. When
    the rules leave nothing, any operation that can describe the digits is allowed.
    """
    if ops not in OP_SETS:
        raise PuzzleError(f"operator set must be one of {', '.join(OP_SETS)}, not {ops!r}")
    return list(digits_ops(len(solution), [solution[r][c] for r, c in block], ops, easiest))


def digits_ops(n: int, digits: Sequence[int], ops: str, easiest: bool) -> tuple[str, ...]:
    """`allowed_ops` of a block holding `digits` on the n×n board, `ops` a known operator set."""
    if len(digits) == 1:
        return ("=",)
    if len(digits) == 2:
        one, two = digits
        return _domino_ops(n, min(one, two), max(one, two), ops, easiest)
    return _large_ops(ops)


@lru_cache(maxsize=None)
def _large_ops(ops: str) -> tuple[str, ...]:
    """The operations a block of three or more cells may take with operator set `ops`."""
    return tuple(op for op in "+*" if op in OP_SETS[ops])


@lru_cache(maxsize=4096)
def _domino_ops(n: int, small: int, big: int, ops: str, easiest: bool) -> tuple[str, ...]:
    """`allowed_ops` of a domino holding `small` and `big`: remembered, as candidates ask
    for the same few pairs again and again."""
    usable = OP_SETS[ops]
    good = []
    if big - small < n - 1:
        good.append("-")
    if big % small == 0 and big // small <= n / 2:
        good.append("/")
    if small + big not in (3, 4, 2 * n - 1, 2 * n - 2):
        good.append("+")
    if easiest or _factor_pairs(small * big, n) > 1:
        good.append("*")
    good = [op for op in good if op in usable]
    if good:
        return tuple(good)
    return tuple(op for op in usable if combine(op, (small, big)) is not None)


def make_cages(
    blocks: Sequence[Block],
    solution: Grid,
    rng: random.Random,
    ops: str = "all",
    others: Sequence[Cage] = (),
    easiest: bool = False,
    widest: bool = False,
) -> list[Cage]:
    """A cage for each block (connected cells in reading order, as `random_blocks` and the
    splits give them: not checked again) with its clue: the allowed operation used least so far.

    Counting starts from the operations of `others`, so cages made later (when one is
    split) keep the kinds even across the whole puzzle. With `widest`, of the operations
    used least, one that most fillings meet (a candidate for the hardest levels). A hidden operator set keeps the
    target and hides the operation.
    """
    trusted = Cage.trusted
    if ops == "mul":  # × alone gives every block of two or more cells the one clue: nothing to deal
        return [trusted(block, "*" if len(block) > 1 else "=", prod(solution[r][c] for r, c in block))
                for block in blocks]
    if ops not in OP_SETS:
        raise PuzzleError(f"operator set must be one of {', '.join(OP_SETS)}, not {ops!r}")
    n = len(solution)
    hidden = ops in HIDDEN_OPS
    used = dict.fromkeys("=+-*/?", 0)  # a hidden clue's cage counts as none of them
    for other in others:  # written out: a count of each operation took about twice as long
        used[other.op] += 1
    dominoes = _domino_clues(n, ops, easiest)
    large = _large_ops(ops)
    domino_widths = _domino_widths(n) if widest else ()
    # Ties between operations used least are broken by the digits of one draw (draws.py).
    draw = rng.randrange(DIGITS_OF_FOUR ** len(blocks))
    cages = []
    count_of = used.__getitem__
    choices: Sequence[str]
    for block in blocks:
        cells = len(block)
        if cells == 2:
            (r1, c1), (r2, c2) = block
            one, two = solution[r1][c1], solution[r2][c2]
            choices, clues = dominoes[one][two]
        elif cells == 1:
            (r, c), = block
            used["="] += 1
            cages.append(trusted(block, "=", solution[r][c]))
            continue
        else:
            choices = large
            held = [solution[r][c] for r, c in block]
        if len(choices) == 1:
            op = choices[0]
        else:
            counts = list(map(count_of, choices))
            fewest = min(counts)
            if counts.count(fewest) == 1:  # one used least (7 in 10 at 5×5 extreme): no list of them
                op = choices[counts.index(fewest)]
            else:
                choices = [op for op in choices if used[op] == fewest]
                if widest:
                    if cells == 2:
                        widths = domino_widths[one][two]
                        most = max(map(widths.__getitem__, choices))
                        choices = [op for op in choices if widths[op] == most]
                    else:
                        choices = _widest(n, _shape_at(block), tuple(held), tuple(choices))
                if len(choices) == 1:
                    op = choices[0]
                else:
                    draw, pick = divmod(draw, DIGITS_OF_FOUR)
                    op = choices[pick % len(choices)]
        used[op] += 1
        if cells == 2:
            target = clues[op]
        else:  # + or ×
            target = sum(held) if op == "+" else prod(held)
        cages.append(trusted(block, HIDDEN if hidden else op, target))
    return cages


@lru_cache(maxsize=None)
def _domino_clues(n: int, ops: str, easiest: bool) -> tuple[tuple[tuple[tuple[str, ...], dict[str, int]], ...], ...]:
    """By a domino's two digits (first, second), the operations `allowed_ops` lets it take
    on the n×n board and each one's target: looked up, as candidates deal thousands."""
    def clues(one: int, two: int) -> tuple[tuple[str, ...], dict[str, int]]:
        small, big = min(one, two), max(one, two)
        allowed = _domino_ops(n, small, big, ops, easiest)
        targets = {op: combine(op, (small, big)) for op in allowed}
        return allowed, {op: target for op, target in targets.items() if target is not None}

    return tuple(tuple(clues(one, two) if one and two and one != two else ((), {}) for two in range(n + 1))
                 for one in range(n + 1))


@lru_cache(maxsize=None)
def _domino_widths(n: int) -> tuple[tuple[dict[str, int], ...], ...]:
    """By a domino's two digits (first, second), how many fillings each clue they make has
    on the n×n board (`_widest` of a domino, looked up): ordered pairs of different digits,
    in a row or a column alike."""
    pairs = [(a, b) for a in range(1, n + 1) for b in range(1, n + 1) if a != b]

    def widths(one: int, two: int) -> dict[str, int]:
        made = {op: combine(op, (one, two)) for op in "+-*/"}
        return {op: sum(combine(op, pair) == target for pair in pairs)
                for op, target in made.items() if target is not None}

    return tuple(tuple(widths(one, two) if one and two and one != two else {} for two in range(n + 1))
                 for one in range(n + 1))


@lru_cache(maxsize=4096)
def _widest(n: int, shape: tuple[Cell, ...], digits: tuple[int, ...], ops: tuple[str, ...]) -> tuple[str, ...]:
    """Those of `ops` whose clue on a block of `shape` holding `digits` most fillings meet
    (n×n): remembered, as small boards meet the same few blocks again and again."""

    def width(op: str) -> int:
        target = combine(op, digits)
        assert target is not None, "allowed_ops only offers operations the digits meet"
        table = fillings_of_form(n, shape, op, target)
        return TABLE_LIMIT if table is None else len(table)

    widths = {op: width(op) for op in ops}
    most = max(widths.values())
    return tuple(op for op in ops if widths[op] == most)


def split_cage(
    cage: Cage,
    solution: Grid,
    rng: random.Random,
    ops: str = "all",
    others: Sequence[Cage] = (),
    easiest: bool = False,
    smallest: int = 1,
) -> list[Cage]:
    """Two cages, each connected, that cover the cells of `cage`, as even in size as can be;
    none when no split leaves both of at least `smallest` cells."""
    if len(cage.cells) < 2:
        raise PuzzleError(f"a single cell cage cannot be split ({cage.label()})")
    halves = _split_cells(cage.cells, rng, smallest)
    return make_cages(halves, solution, rng, ops, others, easiest) if halves else []


def _split_cells(cells: Block, rng: random.Random, smallest: int = 1) -> list[Block]:
    """Connected part + connected rest, the part as close to half the cells as possible
    and no smaller than `smallest`; empty when there is none.

    From each cell a part is grown, a neighbour at a time at random; of the parts found
    whose rest is connected, one is chosen. Cells are by their place in `cells` (reading
    order), a part a bit mask of them."""
    shape = _shape_at(cells)
    links = shape_links(shape)
    connected = _connected_masks(shape)
    count = len(cells)
    every = (1 << count) - 1
    radix = one_of_up_to(count)  # of every choice below: fewer than `count` cells or parts
    for size in range(count // 2, smallest - 1, -1):
        # One draw (draws.py) for every cell each part grows by, and for the part chosen.
        draw = rng.randrange(radix ** (count * (size - 1) + 1))
        found = set()
        for start in range(count):
            part, near = 1 << start, links[start]
            for _ in range(size - 1):
                options = _places(near & ~part)
                if not options:
                    break
                draw, pick = divmod(draw, radix)
                cell = options[pick % len(options)]
                part |= 1 << cell
                near |= links[cell]
            else:
                if connected >> (every & ~part) & 1:
                    found.add(part)
        if found:
            parts = sorted(found)
            chosen = parts[draw % radix % len(parts)]
            halves = [tuple([cells[i] for i in _places(half)]) for half in (chosen, every & ~chosen)]
            return halves if chosen & 1 else halves[::-1]  # the half of the first cell first
    assert smallest > 1, "every connected group of cells has a cell whose removal keeps it connected"
    return []


@lru_cache(maxsize=4096)
def _shape_at(cells: Block) -> tuple[Cell, ...]:
    """`shape_of` a block, remembered by its cells: candidates deal the same blocks again and again."""
    return shape_of(cells)


@lru_cache(maxsize=4096)
def shape_links(shape: tuple[Cell, ...]) -> tuple[int, ...]:
    """By its place in `shape`, each cell's neighbours in it as a bit mask of their places."""
    place = {cell: i for i, cell in enumerate(shape)}
    return tuple(sum(1 << place[nb] for nb in _adjacent(cell) if nb in place) for cell in shape)


@lru_cache(maxsize=4096)
def _connected_masks(shape: tuple[Cell, ...]) -> int:
    """The masks of places in `shape` whose cells are connected, as the bits of one number:
    looked up, as splits ask of the same few shapes again and again."""
    links = shape_links(shape)
    return sum(1 << mask for mask in range(1, 1 << len(shape)) if linked(mask, links))


@lru_cache(maxsize=4096)
def _places(mask: int) -> tuple[int, ...]:
    """The places of the bits of `mask`, lowest first."""
    return tuple(i for i in range(mask.bit_length()) if mask >> i & 1)


def linked(mask: int, links: tuple[int, ...]) -> bool:
    """Whether the cells of `mask` (places in a shape whose `links` are given) are connected."""
    reached = mask & -mask
    while True:
        near = reached
        for i in _places(reached):
            near |= links[i]
        near &= mask
        if near == reached:
            return reached == mask
        reached = near


def _adjacent(cell: Cell) -> list[Cell]:
    r, c = cell
    return [(r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)]


def neighbours(n: int, cell: Cell) -> list[Cell]:
    """The cells of the n×n board beside `cell`."""
    return [(r, c) for r, c in _adjacent(cell) if 0 <= r < n and 0 <= c < n]


@lru_cache(maxsize=None)
def beside_cells(n: int) -> dict[Cell, tuple[Cell, ...]]:
    """`neighbours` of every cell of the n×n board, by cell: looked up, as repairs ask again and again."""
    return {cell: tuple(neighbours(n, cell)) for cell in board_cells(n)}


def _factor_pairs(product: int, n: int) -> int:
    """How many pairs of different digits 1..n multiply to `product`."""
    return sum(1 for a in range(1, n + 1) for b in range(a + 1, n + 1) if a * b == product)
