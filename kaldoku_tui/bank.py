"""Ready puzzles kept in memory, so that a new game appears at once.

A bank holds a few generated puzzles for each kind of game (size, operator set, level).
The app takes one when the player asks for a new game and refills the bank in a
background thread; taking and adding are safe from any thread.
"""

from __future__ import annotations

import threading
from collections import deque
from dataclasses import dataclass
from typing import Callable, Iterable

from kaldoku_tui.engine.puzzle import MAX_SIZE, MIN_SIZE, Puzzle


OPS = {"all": "+−×÷", "addmul": "+×", "mul": "×"}
ASCII_OPS = {"all": "+-*/", "addmul": "+*", "mul": "*"}


@dataclass(frozen=True)
class GameKind:
    """What a player picks for a new game."""

    size: int = 6
    ops: str = "all"
    level: str | None = None

    @classmethod
    def of(cls, puzzle: Puzzle) -> GameKind:
        """The kind of an existing puzzle, from what its meta says (a generated one says all)."""
        ops = puzzle.meta.get("ops", "all")
        level = puzzle.meta.get("difficulty")
        return cls(puzzle.size, ops if ops in OPS else "all", level if isinstance(level, str) else None)

    def describe(self, ascii: bool = False) -> str:
        """The kind in a few words, as the header shows it: '6×6 · +−×÷ · hard'."""
        names = ASCII_OPS if ascii else OPS
        times, dot = ("x", "-") if ascii else ("×", "·")
        words = [f"{self.size}{times}{self.size}", names[self.ops]] + ([self.level] if self.level else [])
        return f" {dot} ".join(words)


DEFAULT_KIND = GameKind()
"""A new game when the player has not chosen: 6×6, every operator, any level."""

def make_puzzle(kind: GameKind) -> Puzzle:
    """A new puzzle of this kind (slow for the hardest levels: call from a worker)."""
    from kaldoku_tui.engine.generator import generate

    return generate(kind.size, ops=kind.ops, level=kind.level)


STARTING_KINDS = tuple(GameKind(size) for size in range(MIN_SIZE, MAX_SIZE + 1))
"""The kinds filled at start: every size with the default operators and level."""


class Bank:
    """Up to `depth` ready puzzles of each kind."""

    def __init__(self, depth: int = 2) -> None:
        self.depth = depth
        self.ready: dict[GameKind, deque[Puzzle]] = {}
        self.lock = threading.Lock()

    def take(self, kind: GameKind) -> Puzzle | None:
        """A ready puzzle of this kind, or None when there is none yet."""
        with self.lock:
            puzzles = self.ready.get(kind)
            return puzzles.popleft() if puzzles else None

    def add(self, kind: GameKind, puzzle: Puzzle) -> None:
        """Keep `puzzle` for a later game of this kind."""
        with self.lock:
            self.ready.setdefault(kind, deque()).append(puzzle)

    def count(self, kind: GameKind) -> int:
        """How many puzzles of this kind are ready."""
        with self.lock:
            return len(self.ready.get(kind, ()))

    def fill(
        self,
        kinds: Iterable[GameKind],
        make: Callable[[GameKind], Puzzle],
        stop: Callable[[], bool] = lambda: False,
    ) -> int:
        """Make puzzles until each kind has `depth` ready, the smaller kinds first;
        `stop` is asked between puzzles. Returns how many were made."""
        kinds = tuple(kinds)
        made = 0
        for round_ in range(self.depth):
            for kind in kinds:
                if stop():
                    return made
                if self.count(kind) <= round_:
                    self.add(kind, make(kind))
                    made += 1
        return made
