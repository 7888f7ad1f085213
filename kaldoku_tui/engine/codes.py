"""Share codes: a short text that names one puzzle, to pass from player to player.

Two forms, told apart by their first letters; both are URL-safe (lower-case letters,
digits and one dash) and read back in any case:

- `kg1-…` a generated puzzle: what regenerates it (size, operator set, level, seed)
  and a fingerprint of the puzzle. The `1` is the generator edition: a kaldoku whose
  generator makes other puzzles from the same seeds has another edition and refuses
  the code instead of playing a different puzzle; the fingerprint catches a typo, or
  an edition that was not moved on.
- `kp1-…` any other puzzle (a Keen ID, a file): the puzzle itself, as its cage walls,
  its solution, and each cage's operation (targets follow from the solution), with a
  check value against typos. The `1` is the version of this packing.

The body is one whole number written in base 32 (Crockford's digits: no i, l, o, u),
built from mixed-radix digits whose bases the reader knows as it goes.
"""

from __future__ import annotations

import re
from functools import lru_cache
from hashlib import blake2b

from kaldoku_tui.engine.formats import _cages_from_walls, _edges
from kaldoku_tui.engine.kinds import LEVELS, MIN_SIZE, OP_SETS, SIZES, GameKind, levels_for
from kaldoku_tui.engine.puzzle import Cage, Puzzle, PuzzleError, combine

GENERATOR_EDITION = 7
"""Bump whenever `generate(size, seed, ops, level)` gives another puzzle for the same
arguments: codes of the old edition are then refused, never misread."""

PACKING_VERSION = 1
"""Version of the `kp` packing; a new packing takes the next number."""

DIGITS = "0123456789abcdefghjkmnpqrstvwxyz"
"""Crockford's base 32, lower case."""

READ_AS = {"i": "1", "l": "1", "o": "0"}
"""Letters a person may type for the digits they look like."""

CODE = re.compile(r"k([a-z])(\d{1,3})-([0-9a-z]+)", re.ASCII | re.IGNORECASE)
"""A share code: `k`, its form, its version, a dash and the body."""

CODE_START = re.compile(r"k[gp]\d+-", re.ASCII | re.IGNORECASE)
"""What makes a text meant as a share code, well formed or not."""

MAX_BODY = 200
"""Longer bodies are refused unread (a 9×9 puzzle code takes about 80 digits)."""

FINGERPRINT, CHECK = 2**15, 2**10
"""How many values the `kg` fingerprint and the `kp` check value can take."""

MAX_SEED = 2**64
"""Seeds at or above this have no seed code (generate's own are below 2**31)."""

FIELD = 8
"""The base of the size, operator-set and level fields: room for kinds added later."""

OPS_BY_CELLS = {1: "=+*?", 2: "+-*/?"}
"""The operations a cage of so many cells can carry, in code order; larger cages: `+*?`."""

MANY_CELL_OPS = "+*?"
HIDDEN_SOURCES = "+-*/"
"""A hidden cage keeps the first of these operations that makes its target."""


def share_code(puzzle: Puzzle) -> str:
    """The share code of `puzzle`: the seed form when its meta says how `generate` made
    it and this kaldoku's generator still makes it so, the puzzle form otherwise (a
    puzzle saved by an older edition, or of a kind no longer made).

    The puzzle form needs a solution; one is found when the puzzle carries none."""
    seed, ops, level = puzzle.meta.get("seed"), puzzle.meta.get("ops"), puzzle.meta.get("difficulty")
    if (
        isinstance(seed, int) and not isinstance(seed, bool) and 0 <= seed < MAX_SEED
        and ops in OP_SETS and (level is None or level in levels_for(puzzle.size))
        and GameKind(puzzle.size, ops, level).offered
        and fingerprint(regenerate(puzzle.size, seed, ops, level)) == fingerprint(puzzle)
    ):
        return _seed_code(puzzle, seed, ops, level)
    return _puzzle_code(puzzle)


def puzzle_code(puzzle: Puzzle) -> str:
    """The puzzle form of the share code, whatever the puzzle's meta says."""
    return _puzzle_code(puzzle)


def is_code(text: str) -> bool:
    """Whether `text` is meant as a share code (it may still be malformed)."""
    return CODE_START.match(text.strip()) is not None


def read_code(text: str) -> Puzzle:
    """The puzzle a share code names, carrying its solution.

    Raises PuzzleError with a one-line reason for a malformed code, a code of another
    kaldoku that would be read differently, or a code that fails its check."""
    shown = text.strip()
    match = CODE.fullmatch(shown)
    if not match:
        raise PuzzleError(f"not a share code: {_short(shown)} (expected like kg1-… or kp1-…)")
    form, version, body = match[1].lower(), int(match[2]), match[3].lower()
    if len(body) > MAX_BODY:
        raise PuzzleError(f"share code too long: {_short(shown)}")
    number = _from_base32(body)
    if form == "g":
        if version != GENERATOR_EDITION:
            newer = "a newer" if version > GENERATOR_EDITION else "an older"
            raise PuzzleError(
                f"share code {_short(shown)} comes from {newer} kaldoku whose generator makes other "
                f"puzzles (edition {version}; this one is {GENERATOR_EDITION}): ask for the puzzle's "
                "Keen ID or file instead"
            )
        return _read_seed_code(number, shown)
    if form == "p":
        if version != PACKING_VERSION:
            raise PuzzleError(
                f"share code {_short(shown)} uses packing version {version}; this kaldoku reads "
                f"version {PACKING_VERSION}"
            )
        return _read_puzzle_code(number, shown)
    raise PuzzleError(f"not a share code: {_short(shown)} (unknown form {match[1]!r}; kg or kp)")


# --- The seed form ------------------------------------------------------------------


def _seed_code(puzzle: Puzzle, seed: int, ops: str, level: str | None) -> str:
    fields = [
        (puzzle.size - MIN_SIZE, FIELD),
        (list(OP_SETS).index(ops), FIELD),
        (0 if level is None else LEVELS.index(level) + 1, FIELD),
        (fingerprint(puzzle), FINGERPRINT),
    ]
    return f"kg{GENERATOR_EDITION}-{_to_base32(_pack(fields, rest=seed))}"


def _read_seed_code(number: int, shown: str) -> Puzzle:
    digits = _Digits(number)
    size = digits.take(FIELD) + MIN_SIZE
    ops_index, level_index = digits.take(FIELD), digits.take(FIELD)
    mark = digits.take(FINGERPRINT)
    seed = digits.rest
    if size not in SIZES or ops_index >= len(OP_SETS) or level_index > len(LEVELS) or seed >= MAX_SEED:
        raise PuzzleError(f"share code {_short(shown)} names no kind of puzzle kaldoku makes")
    level = LEVELS[level_index - 1] if level_index else None
    try:
        puzzle = regenerate(size, seed, list(OP_SETS)[ops_index], level)
    except PuzzleError:
        raise PuzzleError(f"share code {_short(shown)} names no kind of puzzle kaldoku makes") from None
    if fingerprint(puzzle) != mark:
        raise PuzzleError(
            f"share code {_short(shown)} does not match the puzzle it regenerates: mistyped, or made "
            "by a kaldoku whose generator gives another puzzle for that seed"
        )
    return Puzzle(puzzle.size, puzzle.cages, puzzle.solution, dict(puzzle.meta))  # the cache's own stays untouched


@lru_cache(maxsize=16)
def regenerate(size: int, seed: int, ops: str, level: str | None) -> Puzzle:
    """What `generate` gives for these arguments, kept for the next asker (a code is
    often read twice in a row: to check it and to play it). A kind no longer offered is
    made too: a code an older kaldoku gave names it."""
    from kaldoku_tui.engine.generator import generate  # the generator imports much

    return generate(size, seed=seed, ops=ops, level=level, retired=True)


def fingerprint(puzzle: Puzzle) -> int:
    """A short hash of the puzzle's cages, the same in every process."""
    text = ";".join(f"{cage.cells}{cage.op}{cage.target}" for cage in puzzle.cages)
    return _hash(f"{puzzle.size}|{text}") % FINGERPRINT


# --- The puzzle form -------------------------------------------------------------


def _puzzle_code(puzzle: Puzzle) -> str:
    solution = puzzle.solution or _solve(puzzle)
    n = puzzle.size
    fields = [(n - MIN_SIZE, FIELD)]
    fields += [(int(puzzle.cage_index(a) != puzzle.cage_index(b)), 2) for a, b in _edges(n)]
    fields += _latin_digits(solution)
    for cage in puzzle.cages:
        ops = _ops_for(len(cage.cells))
        fields.append((ops.index(cage.op), len(ops)))
        if cage.op == "?":
            sources = _hidden_sources(len(cage.cells))
            digits = [solution[r][c] for r, c in cage.cells]
            fields.append((next(i for i, op in enumerate(sources)
                                if combine(op, digits) == cage.target), len(sources)))
    body = _pack(fields)
    return f"kp{PACKING_VERSION}-{_to_base32(body * CHECK + _hash(str(body)) % CHECK)}"


def _read_puzzle_code(number: int, shown: str) -> Puzzle:
    body, check = divmod(number, CHECK)
    if _hash(str(body)) % CHECK != check:
        raise PuzzleError(f"share code {_short(shown)} fails its check: mistyped?")
    bad = f"share code {_short(shown)} holds no valid puzzle"
    digits = _Digits(body)
    n = digits.take(FIELD) + MIN_SIZE
    if n not in SIZES:
        raise PuzzleError(bad)
    try:
        walls = [bool(digits.take(2)) for _ in _edges(n)]
        groups = _cages_from_walls(n, walls)
        solution = _read_latin(digits, n)
        cages = []
        for cells in groups:
            ops = _ops_for(len(cells))
            op = ops[digits.take(len(ops))]
            source = op
            if op == "?":
                source = _hidden_sources(len(cells))[digits.take(len(_hidden_sources(len(cells))))]
            target = combine(source, [solution[r][c] for r, c in cells])
            if target is None:
                raise PuzzleError(bad)
            cages.append(Cage(cells, op, target))
        if digits.rest:
            raise PuzzleError(bad)
        return Puzzle(n, tuple(cages), solution)
    except (PuzzleError, KeyError, IndexError):
        raise PuzzleError(bad) from None


def _ops_for(cells: int) -> str:
    return OPS_BY_CELLS.get(cells, MANY_CELL_OPS)


def _hidden_sources(cells: int) -> str:
    return HIDDEN_SOURCES if cells == 2 else "".join(op for op in HIDDEN_SOURCES if op in "+*")


def _latin_digits(solution) -> list[tuple[int, int]]:
    """Each cell's digit as its place among those its row and column still allow."""
    n = len(solution)
    fields = []
    for r in range(n):
        for c in range(n):
            allowed = _allowed(solution, r, c)
            fields.append((allowed.index(solution[r][c]), len(allowed)))
    return fields


def _read_latin(digits: _Digits, n: int) -> tuple[tuple[int, ...], ...]:
    grid = [[0] * n for _ in range(n)]
    for r in range(n):
        for c in range(n):
            allowed = _allowed(grid, r, c)
            if not allowed:
                raise PuzzleError("no digit left for a cell")
            grid[r][c] = allowed[digits.take(len(allowed))]
    return tuple(tuple(row) for row in grid)


def _allowed(grid, r: int, c: int) -> list[int]:
    """The digits not yet used left of (r, c) in its row or above it in its column."""
    used = set(grid[r][:c]) | {grid[k][c] for k in range(r)}
    return [d for d in range(1, len(grid) + 1) if d not in used]


def _solve(puzzle: Puzzle):
    from kaldoku_tui.engine.solver import solve

    found = solve(puzzle, limit=1)
    if not found:
        raise PuzzleError("this puzzle has no solution, so it has no share code")
    return found[0]


# --- Numbers ---------------------------------------------------------------------


def _pack(fields: list[tuple[int, int]], rest: int = 0) -> int:
    """One number from mixed-radix digits (value, base), the first the least significant,
    with `rest` above them all."""
    number = rest
    for value, base in reversed(fields):
        number = number * base + value
    return number


class _Digits:
    """Takes mixed-radix digits off a number, least significant first."""

    def __init__(self, number: int) -> None:
        self.rest = number

    def take(self, base: int) -> int:
        self.rest, value = divmod(self.rest, base)
        return value


def _to_base32(number: int) -> str:
    text = ""
    while True:
        number, digit = divmod(number, 32)
        text = DIGITS[digit] + text
        if not number:
            return text


def _from_base32(text: str) -> int:
    number = 0
    for char in text:
        char = READ_AS.get(char, char)
        if char not in DIGITS:
            raise PuzzleError(f"share code has {char!r}, which is not a code digit")
        number = number * 32 + DIGITS.index(char)
    return number


def _hash(text: str) -> int:
    return int.from_bytes(blake2b(text.encode(), digest_size=8).digest(), "big")


def _short(text: str) -> str:
    return repr(text if len(text) <= 40 else text[:37] + "...")
