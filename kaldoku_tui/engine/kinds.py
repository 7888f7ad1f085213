"""The kinds of game: board sizes, operator sets and levels, each named here once.

A kind is what a player picks for a new game (size, operator set, level); the engine,
the command line, the dialogs, the bank and the statistics all take their names from
this module. Text here is Unicode; the screen turns it into ASCII where it must.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Protocol


class Described(Protocol):
    """What GameKind.of reads of a puzzle (puzzle.py imports this module, not the reverse)."""

    @property
    def size(self) -> int: ...

    @property
    def meta(self) -> Mapping[str, Any]: ...

MIN_SIZE, MAX_SIZE = 3, 9
SIZES = tuple(range(MIN_SIZE, MAX_SIZE + 1))
"""The board sizes, 3×3 to 9×9."""

LEVELS = ("easy", "normal", "hard", "extreme", "unreasonable")
"""Difficulty levels, easiest first; level i needs tier i + 1 of the deductions."""

LEVELS_BY_SIZE = {3: LEVELS[:3]}
"""The levels a size can have where not all five: no 3×3 puzzle needs fish, chains or
trials, whatever its operations (an exhaustive search: see IMPOSSIBLE)."""

OP_SETS = {"all": "+-*/", "addmul": "+*", "mul": "*", "hidden": "+-*/"}
"""The operator sets, by name: the operations their multi-cell cages may use."""

HIDDEN_OPS = frozenset({"hidden"})
"""The operator sets whose cages show their target only: the operation chosen is hidden."""

OP_SET_SYMBOLS = {"all": "+−×÷", "addmul": "+×", "mul": "×", "hidden": "hidden"}
"""Each operator set as the title line shows it."""

OP_SET_LABELS = {"all": "+ − × ÷", "addmul": "+ ×", "mul": "× only", "hidden": "hidden"}
"""Each operator set as the new-game dialog offers it."""


def levels_for(size: int) -> tuple[str, ...]:
    """The levels a puzzle of `size` can have."""
    return LEVELS_BY_SIZE.get(size, LEVELS)


IMPOSSIBLE = {
    "addmul": {3: {"hard": "no 3×3 puzzle with + and × only needs hard deductions (every one was checked)"}},
    "mul": {3: {"hard": "no 3×3 puzzle with × only needs hard deductions (every one was checked)"}},
}
"""Levels no puzzle of that size and operator set has, with the reason the new-game dialog
shows, by operator set and size. Proved by an exhaustive search on 2026-11-26 (and again
on 2026-11-27 with the line rule above extreme, the same counts): every 3×3
latin square (12) under every caging of the 3×3 board into connected cages of any size
(1,434), each multi-cell cage with every operation of the set that makes a whole target,
the puzzles with one solution graded by `tier_needed`. × only: 11,748 unique puzzles,
11,016 easy and 732 normal. + and ×: 58,220, 55,084 easy and 3,136 normal. All four
operations: 167,284, 157,748 easy, 9,520 normal and 16 hard; hidden operations: 110,780,
72,792 easy, 17,068 normal and 920 hard; none extreme or unreasonable, which is why
`levels_for(3)` stops at hard. (A cage is told apart by its cells, operation and target;
`python -m benchmarks.impossible`, 5 to 55 s of CPU a set.)"""


def why_impossible(size: int, ops: str, level: str | None) -> str | None:
    """Why no puzzle of this kind exists, or None when it does (see IMPOSSIBLE)."""
    if level is not None and level in LEVELS and level not in levels_for(size):
        return (f"a {size}×{size} board is too small for {level}: no {size}×{size} puzzle needs it "
                "(every one was checked)")
    return IMPOSSIBLE.get(ops, {}).get(size, {}).get(level or "", None)


def offered_levels(size: int, ops: str) -> tuple[str, ...]:
    """The levels kaldoku offers at `size` with the operator set `ops`, easiest first:
    every level a puzzle of that kind can have."""
    return tuple(level for level in levels_for(size) if why_impossible(size, ops, level) is None)


def offered_kinds() -> list[GameKind]:
    """Every kind kaldoku offers with a level asked for, in order."""
    return [GameKind(size, ops, level) for size in SIZES for ops in OP_SETS
            for level in offered_levels(size, ops)]


@dataclass(frozen=True)
class GameKind:
    """What a player picks for a new game: size, operator set and level (None: any)."""

    size: int = 6
    ops: str = "all"
    level: str | None = None

    @classmethod
    def of(cls, puzzle: Described) -> GameKind:
        """The kind of an existing puzzle, from what its meta says (a generated one says
        all; see `offered` for a level this kaldoku does not know)."""
        ops = puzzle.meta.get("ops", "all")
        level = puzzle.meta.get("difficulty")
        return cls(puzzle.size, ops if ops in OP_SETS else "all",
                   level if isinstance(level, str) else None)

    @property
    def offered(self) -> bool:
        """Whether kaldoku makes puzzles of this kind: every kind that can exist (see IMPOSSIBLE)."""
        if self.size not in SIZES or self.ops not in OP_SETS:
            return False
        return self.level is None or self.level in offered_levels(self.size, self.ops)

    @property
    def known_level(self) -> str | None:
        """The level if it is one of LEVELS: a puzzle file may claim any text (an escape
        sequence, a megabyte), which is never shown nor counted."""
        return self.level if self.level in LEVELS else None

    def describe(self) -> str:
        """The kind in a few words, as the title line shows it: '6×6 · +−×÷ · hard'."""
        words = [f"{self.size}×{self.size}", OP_SET_SYMBOLS[self.ops]]
        return " · ".join(words + ([self.known_level] if self.known_level else []))

    @property
    def key(self) -> str:
        """The kind as a short text, e.g. '9/all/hard' ('any' when no level was asked)."""
        return f"{self.size}/{self.ops}/{self.known_level or 'any'}"

    @classmethod
    def from_key(cls, key: Any) -> GameKind | None:
        """The kind a key names (see `key`); None when it names none."""
        if not isinstance(key, str):
            return None
        size, _, rest = key.partition("/")
        ops, _, level = rest.partition("/")
        if not size.isdigit() or int(size) not in SIZES or ops not in OP_SETS:
            return None
        if level != "any" and level not in LEVELS:
            return None
        return cls(int(size), ops, None if level == "any" else level)

    def order(self) -> tuple[int, int, int]:
        """A sort key: by size, then operator set, then level (any first)."""
        return (self.size, list(OP_SETS).index(self.ops), (None, *LEVELS).index(self.level))


DEFAULT_KIND = GameKind()
"""A new game when the player has not chosen: 6×6, every operator, any level."""
