"""What the game's screens use, handed to them by the app: the store, the bank of ready
puzzles, the player's settings and how the game is drawn. Nothing here imports Textual."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable

from kaldoku_tui.bank import Bank
from kaldoku_tui.engine.daily import daily_of
from kaldoku_tui.engine.kinds import GameKind
from kaldoku_tui.engine.puzzle import Puzzle
from kaldoku_tui.session.game import Session
from kaldoku_tui.session.settings import Settings
from kaldoku_tui.session.store import Store


@dataclass
class Services:
    """One player's game: their store, bank and settings, and the clock of their games."""

    store: Store
    """Where games are kept (a store in memory plays without saving)."""
    bank: Bank
    """Ready puzzles, kept in the store."""
    settings: Settings = Settings()
    """The player's settings; the settings screen replaces them."""
    ascii: bool = False
    """Draw with ASCII characters only."""
    now: Callable[[], float] = time.monotonic
    """The clock of every game (tests drive it by hand)."""

    def new_session(self, puzzle: Puzzle, kind: GameKind) -> tuple[Session, str | None]:
        """A new game of `puzzle`, kept in the store; and a notice if saving it failed."""
        journal, notice = self.store.new_game(puzzle, kind, daily_of(puzzle))
        session = Session(puzzle, kind, journal=journal, now=self.now,
                          auto_clean_notes=self.settings.auto_clean_notes)
        return session, notice
