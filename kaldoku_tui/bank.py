"""Ready puzzles kept for new games, so that choosing any kind of game starts one at once.

A bank holds a few generated puzzles for each kind of game (size, operator set, level).
The app takes one when the player asks for a new game and refills the bank in a
background thread; taking and adding are safe from any thread. A bank loaded from a
Store is kept there as it changes, so the ready puzzles survive a restart.
"""

from __future__ import annotations

import threading
from collections import deque
from typing import Callable, Iterable

from kaldoku_tui.engine.formats import puzzle_from_dict, puzzle_to_dict
from kaldoku_tui.engine.generator import Stopped, generate
from kaldoku_tui.engine.kinds import LEVELS, SIZES, GameKind, levels_for
from kaldoku_tui.engine.puzzle import Puzzle, PuzzleError
from kaldoku_tui.storage import Store


def make_puzzle(kind: GameKind, stop: Callable[[], bool] = lambda: False) -> Puzzle:
    """A new puzzle of this kind (seconds for a 9×9 extreme: call from a worker); raises
    Stopped soon after `stop` says yes."""
    return generate(kind.size, ops=kind.ops, level=kind.level, stop=stop)


STARTING_KINDS = tuple(
    GameKind(size, "all", level)
    for level in (None, *LEVELS)
    for size in SIZES
    if level is None or level in levels_for(size)
)
"""The kinds kept ready from the start: every size at every level it offers, with every
operator. Any level first, then easy to unreasonable, small sizes first within a level:
the order a player tends to try them, and the cheap ones first so most are ready soonest
(a 9×9 extreme takes about a second to make, the rest mostly a tenth of that or less)."""

DEPTH = 2
"""Ready puzzles per kind: one to start now and one for a second new game at once, while
the first is being replaced."""


class Bank:
    """Up to `depth` ready puzzles of each kind, saved in `store` when there is one."""

    def __init__(self, depth: int = DEPTH, store: Store | None = None) -> None:
        self.depth = depth
        self.store = store
        self.ready: dict[GameKind, deque[Puzzle]] = {}
        self.unmakeable: set[GameKind] = set()
        """Kinds the generator gave up on (an operator set too poor for a level): not retried."""
        self.lock = threading.Lock()
        self.save_lock = threading.Lock()
        """Held while the bank is written, so that an older copy never replaces a newer one."""
        self.changed = False
        """Whether the bank differs from what its store holds."""
        self.restored = False
        """Whether the puzzles saved in the store were added (see restore)."""

    @classmethod
    def load(cls, store: Store, depth: int = DEPTH) -> tuple[Bank, str | None]:
        """The bank saved in `store` (empty if none), kept there from now on; and a
        one-line notice when the saved file was unusable and set aside."""
        bank = cls(depth, store)
        return bank, bank.restore()

    def restore(self) -> str | None:
        """Add the puzzles saved in the store, the first time only (the app does it in its
        bank worker: reading a full bank takes a tenth of the first screen's time); a
        one-line notice when the saved file was unusable and set aside."""
        if self.store is None or self.restored:
            return None
        self.restored = True
        content, notice = self.store.load_bank()
        entries = (content or {}).get("puzzles")
        for data in entries if isinstance(entries, list) else ():
            try:
                puzzle = puzzle_from_dict(data)
            except PuzzleError:
                continue  # One bad entry costs one puzzle to make again, not the bank.
            kind = GameKind.of(puzzle)
            if puzzle.solution is not None and kind.offered:
                self.add(kind, puzzle)
        with self.lock:
            self.changed = False
        return notice

    def to_dict(self) -> dict:
        """The ready puzzles as JSON, each with its kind in its meta."""
        with self.lock:
            return {"puzzles": [puzzle_to_dict(p) for puzzles in self.ready.values() for p in puzzles]}

    def save(self) -> None:
        """Write the bank to its store if it changed since it was last written."""
        if self.store is None:
            return
        with self.save_lock:
            if self.changed:
                self.changed = False
                self.store.save_bank(self.to_dict())

    def take(self, kind: GameKind) -> Puzzle | None:
        """A ready puzzle of this kind, or None when there is none yet."""
        with self.lock:
            puzzles = self.ready.get(kind)
            if not puzzles:
                return None
            self.changed = True
            return puzzles.popleft()

    def add(self, kind: GameKind, puzzle: Puzzle) -> None:
        """Keep `puzzle` for a later game of this kind."""
        with self.lock:
            self.ready.setdefault(kind, deque()).append(puzzle)
            self.changed = True

    def count(self, kind: GameKind) -> int:
        """How many puzzles of this kind are ready."""
        with self.lock:
            return len(self.ready.get(kind, ()))

    def fill(
        self,
        kinds: Iterable[GameKind],
        make: Callable[[GameKind, Callable[[], bool]], Puzzle],
        stop: Callable[[], bool] = lambda: False,
    ) -> int:
        """Make puzzles until each kind has `depth` ready, one of each kind in turn, in
        the order given. `stop` is asked between puzzles and passed to `make`, which may
        raise Stopped when it says yes (so that quitting need not wait for a 9×9 extreme).
        The bank is saved after each puzzle (and first, if one was taken). A kind `make`
        refuses with PuzzleError is left out from then on. Returns how many were made."""
        self.save()
        kinds = tuple(kinds)
        made = 0
        for round_ in range(self.depth):
            for kind in kinds:
                if stop():
                    return made
                if kind in self.unmakeable or self.count(kind) > round_:
                    continue
                try:
                    puzzle = make(kind, stop)
                except Stopped:
                    return made
                except PuzzleError:
                    self.unmakeable.add(kind)
                    continue
                self.add(kind, puzzle)
                self.save()
                made += 1
        return made
