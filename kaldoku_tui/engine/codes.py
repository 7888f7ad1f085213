"""Share codes: a short text that names one puzzle, to pass from player to player.

Two forms, told apart by their first letters; both are URL-safe (lower-case letters,
digits and one dash) and read back in any case:

- `kp1-…` / `kp2-…` the puzzle itself, as its cage walls, its solution, and each cage's
  operation (targets follow from the solution), with a check value against typos; `kp2`
  adds the kind (operator set and level) the puzzle was made as. The digit is the version
  of the packing. This is the form kaldoku gives: it opens the same puzzle in every later
  kaldoku, whatever its generator becomes. A puzzle with no kind known gets `kp1`, which
  kaldoku 0.2 reads too.
- `kg7-…` what an older kaldoku gave for a generated puzzle: what regenerates it (size,
  operator set, level, seed) and a fingerprint of the puzzle. The `7` is the generator
  edition: a kaldoku whose generator makes other puzzles from the same seeds reads the
  code only where it still has the puzzle (a pinned daily), and otherwise says how to
  get the puzzle instead of playing a different one.

The body is one whole number written in base 32 (Crockford's digits: no i, l, o, u),
built from mixed-radix digits whose bases the reader knows as it goes.
"""

from __future__ import annotations

import re
from functools import lru_cache
from hashlib import blake2b

from kaldoku_tui.engine.formats import _cages_from_walls, _edges
from kaldoku_tui.engine.kinds import LEVELS, MIN_SIZE, OP_SETS, SIZES, levels_for
from kaldoku_tui.engine.puzzle import Cage, Puzzle, PuzzleError, combine

GENERATOR_EDITION = 26
"""Bump whenever `generate(size, seed, ops, level)` gives another puzzle for the same
arguments: codes of the old edition are then refused, never misread."""

PACKING_VERSION = 2
"""Version of the `kp` packing; a new packing takes the next number. Version 1 is version 2
without the kind, and is still written for a puzzle of no known kind."""

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
    """The share code of `puzzle`: the puzzle itself, with its kind where its meta says
    one, so that every later kaldoku opens the same puzzle (see the module's note).

    The code needs a solution; one is found when the puzzle carries none."""
    return _puzzle_code(puzzle)


def puzzle_code(puzzle: Puzzle) -> str:
    """The puzzle form of the share code (all kaldoku gives now: see `share_code`)."""
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
        if version == GENERATOR_EDITION:
            return _read_seed_code(number, shown)
        if version in PINNED_EDITIONS:
            pinned = _pinned_seed_code(number)
            if pinned is not None:
                return pinned
        newer = "a newer" if version > GENERATOR_EDITION else "an older"
        raise PuzzleError(
            f"share code {_short(shown)} names a puzzle by a seed of {newer} kaldoku's generator "
            f"(edition {version}), which makes other puzzles now: ask its sender for the kp code "
            "their kaldoku shows (kaldoku export --format code), a Keen ID or the file"
        )
    if form == "p":
        if version not in (1, PACKING_VERSION):
            raise PuzzleError(
                f"share code {_short(shown)} uses packing version {version}; this kaldoku reads "
                f"versions 1 to {PACKING_VERSION}: a newer kaldoku reads it"
            )
        return _read_puzzle_code(number, shown, with_kind=version >= 2)
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


def _seed_fields(number: int, shown: str) -> tuple[int, str, str | None, int, int]:
    """What a seed code holds: size, operator set, level, fingerprint and seed."""
    digits = _Digits(number)
    size = digits.take(FIELD) + MIN_SIZE
    ops_index, level_index = digits.take(FIELD), digits.take(FIELD)
    mark = digits.take(FINGERPRINT)
    seed = digits.rest
    if size not in SIZES or ops_index >= len(OP_SETS) or level_index > len(LEVELS) or seed >= MAX_SEED:
        raise PuzzleError(f"share code {_short(shown)} names no kind of puzzle kaldoku makes")
    return size, list(OP_SETS)[ops_index], LEVELS[level_index - 1] if level_index else None, mark, seed


def _read_seed_code(number: int, shown: str) -> Puzzle:
    size, ops, level, mark, seed = _seed_fields(number, shown)
    try:
        puzzle = regenerate(size, seed, ops, level)
    except PuzzleError:
        raise PuzzleError(f"share code {_short(shown)} names no kind of puzzle kaldoku makes") from None
    if fingerprint(puzzle) != mark:
        raise PuzzleError(
            f"share code {_short(shown)} does not match the puzzle it regenerates: mistyped, or made "
            "by a kaldoku whose generator gives another puzzle for that seed"
        )
    return Puzzle(puzzle.size, puzzle.cages, puzzle.solution, dict(puzzle.meta))  # the cache's own stays untouched


PINNED_EDITIONS = frozenset({7})
"""Generator editions whose daily puzzles are pinned (engine/dailies.txt was made by
edition 7): their seed codes of a pinned day still open."""


def _pinned_seed_code(number: int) -> Puzzle | None:
    """The pinned daily puzzle an old seed code names, or None when it names none."""
    from kaldoku_tui.engine.daily import pinned_day_of_seed, daily_puzzle

    try:
        size, ops, level, mark, seed = _seed_fields(number, "")
    except PuzzleError:
        return None
    day = pinned_day_of_seed(seed)
    if day is None:
        return None
    puzzle = daily_puzzle(day)
    if ((size, ops, level) != (puzzle.size, puzzle.meta["ops"], puzzle.meta["difficulty"])
            or fingerprint(puzzle) != mark):
        return None
    return puzzle


@lru_cache(maxsize=16)
def regenerate(size: int, seed: int, ops: str, level: str | None) -> Puzzle:
    """What `generate` gives for these arguments, kept for the next asker (a code is
    often read twice in a row: to check it and to play it)."""
    from kaldoku_tui.engine.generator import generate  # the generator imports much

    return generate(size, seed=seed, ops=ops, level=level)


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
    kind = _kind_fields(puzzle)
    version = PACKING_VERSION if kind else 1
    body = _pack(fields + kind)
    return f"kp{version}-{_to_base32(body * CHECK + _hash(str(body)) % CHECK)}"


def _kind_fields(puzzle: Puzzle) -> list[tuple[int, int]]:
    """The operator set and level (0 for none) the puzzle's meta says, as code digits;
    none when it names no operator set kaldoku knows."""
    ops, level = puzzle.meta.get("ops"), puzzle.meta.get("difficulty")
    if ops not in OP_SETS:
        return []
    level_index = LEVELS.index(level) + 1 if level in levels_for(puzzle.size) else 0
    return [(list(OP_SETS).index(ops), FIELD), (level_index, FIELD)]


def _read_puzzle_code(number: int, shown: str, with_kind: bool) -> Puzzle:
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
        meta = _read_kind(digits, n) if with_kind else {}
        if digits.rest or meta is None:
            raise PuzzleError(bad)
        return Puzzle(n, tuple(cages), solution, meta)
    except (PuzzleError, KeyError, IndexError):
        raise PuzzleError(bad) from None


def _read_kind(digits: _Digits, n: int) -> dict[str, str] | None:
    """The meta of a `kp2` code's kind digits; None when they name no kind."""
    ops_index, level_index = digits.take(FIELD), digits.take(FIELD)
    if ops_index >= len(OP_SETS) or level_index > len(LEVELS):
        return None
    level = LEVELS[level_index - 1] if level_index else None
    if level is not None and level not in levels_for(n):
        return None
    return {"ops": list(OP_SETS)[ops_index], **({"difficulty": level} if level else {})}


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
