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
"""The levels a size can have where not all five: 3×3 is too small for fish, chains or trials."""

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


GENERATION_LIMIT = 2.0
"""Seconds a kind may take to make at the 95th percentile to be offered."""

ALL_LEVELS = (None, *LEVELS)
"""Every level and "any" (None): a size an operator set is not offered at."""

NOT_OFFERED = {
    "all": {9: ("extreme",)},
    "addmul": {3: ("hard",), 4: ("extreme", "unreasonable"),
               **{size: ("extreme", "unreasonable") for size in range(5, 10)}},
    "mul": {3: ("hard",), **{size: ("extreme", "unreasonable") for size in range(4, 10)}},
    "hidden": {6: ("extreme", "unreasonable"), 7: ("normal", "extreme", "unreasonable"),
               8: ALL_LEVELS, 9: ALL_LEVELS},
}
"""Levels kaldoku does not make, by operator set and size: those whose generation took
more than GENERATION_LIMIT seconds at the 95th percentile, or failed, or came within 2×
of it (a busy machine is that much slower), in two runs on 2026-11-23 at load 0.7 to 1
on this project's 2-core machine: `python -m benchmarks.levels --every-kind --seeds 12
--no-keen` (seeds 0..11), and 20 seeds from 100 up for the kinds near the line.
None stands for "any level". 9×9 extreme: p95 1.4 and 2.1 s, 1.9 to 2.2 s in four more
runs of 30 seeds; at edition 7 1.23 and 0.79 s (seeds 0..29 and 100..129, medians 0.18 and
0.14 s), still over the 1 s margin once. × only, measured again on 2026-11-24 with its
larger cages (generator edition 5), seeds 0..11 and 100..119: 6×6 unreasonable p95 0.99
and 7.1 s; the × only kinds offered are within 1 s. 5×5 and 9×9 × only hard, left out
at edition 5 (p95 0.78 and 1.37 s, 0.63 and 1.12 s), are offered since edition 7: p95
0.47 and 0.49 s, and 0.30, 0.90 and 0.69 s (seeds 0..11, 100..119, and 200..229 for 9×9;
load 0.5 to 0.8).
Extreme is rare below Keen's extreme because the line sum and product rules solve many
such puzzles at hard; × only extreme and unreasonable puzzles are rarer still (at 4×4
and 5×5 most seeds gave up after 5,000 candidates, 6×6 to 9×9 took seconds); hidden
operations leave 8×8 and 9×9 cagings ambiguous so often that even an any-level puzzle
takes seconds (8×8 p95 2.6 s, 9×9 29 s)."""


KEEN_RATIO_LIMIT = 5.0
"""How many times Keen's median time a kind may take to make to be offered, where Keen's
median is 2 ms or more (below that, process noise and Python's start-up cost per puzzle
dominate: kaldoku takes 1 to 13 ms there)."""

RETIRED = {
    "all": {4: ("extreme",), 5: ("extreme", "unreasonable"), 6: ("extreme",)},
    "mul": {4: ("hard",)},
}
"""Levels kaldoku offered until 2026-11-24 and no longer, by operator set and size: each
is made in well under a second (medians 23 to 78 ms, p95 under 0.3 s), but more than
KEEN_RATIO_LIMIT times slower than Keen makes it. kaldoku's median over Keen's,
`python -m benchmarks.keen --sizes 4,5,6,7,8 --levels normal,hard,extreme,unreasonable
--seeds 60` on 2026-11-24 (load 0.55 to 1.0): 4×4 extreme 12.6×, 5×5 extreme 10.4×, 5×5
unreasonable 8.7×, 6×6 extreme 7.9×, 4×4 × only hard 5.6×. Not offered for new games, but
still made for a share code that names one (see `generate`'s `retired`)."""


def _left_out(size: int, ops: str) -> tuple[str | None, ...]:
    return NOT_OFFERED.get(ops, {}).get(size, ()) + RETIRED.get(ops, {}).get(size, ())


def offered_levels(size: int, ops: str) -> tuple[str, ...]:
    """The levels kaldoku offers at `size` with the operator set `ops`, easiest first."""
    left_out = _left_out(size, ops)
    return tuple(level for level in levels_for(size) if level not in left_out)


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
        """Whether kaldoku makes puzzles of this kind (see NOT_OFFERED)."""
        if self.size not in SIZES or self.ops not in OP_SETS:
            return False
        if self.level is None:
            return None not in _left_out(self.size, self.ops)
        return self.level in offered_levels(self.size, self.ops)

    @property
    def retired(self) -> bool:
        """Whether an older kaldoku offered this kind and this one no longer does (see RETIRED)."""
        return self.size in SIZES and self.level in RETIRED.get(self.ops, {}).get(self.size, ())

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
