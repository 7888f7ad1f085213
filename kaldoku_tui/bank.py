"""Ready puzzles kept for new games, so that choosing any kind of game starts one at once.

A bank holds a few generated puzzles for each kind of game (size, operator set, level),
in the store, so they survive a restart and two kaldoku processes never take the same
one. The app takes one when the player asks for a new game and refills the bank in a
background thread.
"""

from __future__ import annotations

from typing import Callable, Iterable

from kaldoku_tui.engine.errors import Stopped
from kaldoku_tui.engine.kinds import LEVELS, SIZES, GameKind, offered_levels
from kaldoku_tui.engine.puzzle import Puzzle, PuzzleError
from kaldoku_tui.session.store import Store


def make_puzzle(kind: GameKind, stop: Callable[[], bool] = lambda: False) -> Puzzle:
    """A new puzzle of this kind (up to a second or two for the hardest: call from a worker); raises
    Stopped soon after `stop` says yes."""
    from kaldoku_tui.engine.generator import generate  # not at startup: the bank fills later

    return generate(kind.size, ops=kind.ops, level=kind.level, stop=stop)


STARTING_KINDS = tuple(
    GameKind(size, "all", level)
    for level in (None, *LEVELS)
    for size in SIZES
    if level is None or level in offered_levels(size, "all")
)
"""The kinds kept ready from the start: every size at every level it offers, with every
operator. Any level first, then easy to unreasonable, small sizes first within a level:
the order a player tends to try them, and the cheap ones first so most are ready soonest
(an 8×8 extreme or a 9×9 unreasonable takes a few tenths of a second to make, at times
over a second; most kinds a tenth of that or less)."""

DEPTH = 2
"""Ready puzzles per kind: one to start now and one for a second new game at once, while
the first is being replaced."""


class Bank:
    """Up to `depth` ready puzzles of each kind, kept in `store`."""

    def __init__(self, store: Store, depth: int = DEPTH) -> None:
        self.store = store
        self.depth = depth
        self.unmakeable: set[GameKind] = set()
        """Kinds the generator gave up on (an operator set too poor for a level): not retried."""

    def take(self, kind: GameKind) -> Puzzle | None:
        """A ready puzzle of this kind, or None when there is none yet."""
        return self.store.bank_take(kind)

    def add(self, kind: GameKind, puzzle: Puzzle) -> None:
        """Keep `puzzle` for a later game of this kind."""
        self.store.bank_add(kind, puzzle)

    def count(self, kind: GameKind) -> int:
        """How many puzzles of this kind are ready."""
        return self.store.bank_counts().get(kind, 0)

    def fill(
        self,
        kinds: Iterable[GameKind],
        make: Callable[[GameKind, Callable[[], bool]], Puzzle],
        stop: Callable[[], bool] = lambda: False,
    ) -> int:
        """Make puzzles until each kind has `depth` ready, one of each kind in turn, in
        the order given. `stop` is asked between puzzles and passed to `make`, which may
        raise Stopped when it says yes (so that quitting need not wait for the slowest kinds).
        A kind `make` refuses with PuzzleError is left out from then on. Returns how
        many were made."""
        kinds = tuple(kinds)
        made = 0
        for round_ in range(self.depth):
            counts = self.store.bank_counts()
            for kind in kinds:
                if stop():
                    return made
                if kind in self.unmakeable or counts.get(kind, 0) > round_:
                    continue
                try:
                    puzzle = make(kind, stop)
                except Stopped:
                    return made
                except PuzzleError:
                    self.unmakeable.add(kind)
                    continue
                self.add(kind, puzzle)
                made += 1
        return made
