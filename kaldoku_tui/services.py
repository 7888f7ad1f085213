"""What the game's screens use, handed to them by the app: the store, the bank of ready
puzzles, the player's settings and how the game is drawn. Nothing here imports Textual."""

from __future__ import annotations

import time
from datetime import date
from dataclasses import dataclass, field
from typing import Any, Callable

from kaldoku_tui.bank import Bank
from kaldoku_tui.engine.daily import daily_of
from kaldoku_tui.engine.kinds import GameKind
from kaldoku_tui.engine.puzzle import Cell, Puzzle, PuzzleError
from kaldoku_tui.session.game import MoveError, Session
from kaldoku_tui.session.settings import Settings
from kaldoku_tui.session.snapshot import attach, resume_saved
from kaldoku_tui.session.store import GameDamaged, PastGame, Store, StoreError

CURSOR_KEY = "cursor"
"""The settings table's key of the cursor of the game in progress: kept with its game, to
be where the player left it when the game is resumed."""

PRACTICE = "Practice: this daily is done; this game is kept and counted nowhere."


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
    kept: dict[str, Any] | None = field(default=None, init=False)
    """The cursor as last kept in the store."""

    def finished_daily(self, day: date) -> PastGame | None:
        """The first game of `day`'s daily puzzle that ended won or revealed, if one did:
        the one that counts."""
        ended = [game for game in self.store.history()
                 if game.daily == day and game.outcome in ("won", "revealed")]
        return ended[-1] if ended else None  # the history lists the last begun first

    def new_session(self, puzzle: Puzzle, kind: GameKind) -> tuple[Session, str | None]:
        """A new game of `puzzle`, kept in the store; and a notice if saving it failed.
        A daily puzzle whose game ended already is practice: kept and counted nowhere."""
        day = daily_of(puzzle)
        if day is not None and self.finished_daily(day) is not None:
            session = Session(puzzle, kind, now=self.now,
                              auto_clean_notes=self.settings.auto_clean_notes)
            session.practice = True
            return session, PRACTICE
        journal, notice = self.store.new_game(puzzle, kind, day)
        session = Session(puzzle, kind, journal=journal, now=self.now,
                          auto_clean_notes=self.settings.auto_clean_notes)
        return attach(session), notice

    def next_game(self, leaving: Session, puzzle: Puzzle, kind: GameKind) -> tuple[Session, str]:
        """Leave `leaving` (see put_down) for a new game of `puzzle`; the new game and what
        to tell the player."""
        left = self.put_down(leaving)
        session, notice = self.new_session(puzzle, kind)
        return session, " ".join(filter(None, [left, notice])) or f"New {kind.describe()} puzzle."

    def put_down(self, leaving: Session) -> str | None:
        """Leave `leaving` for another game: one with moves stays unfinished, to be resumed
        (its time is saved); one left untouched is dropped. A notice if saving failed."""
        if leaving.moved and not leaving.over:
            return leaving.keep_time()
        return leaving.leave()

    def take_over(self, game_id: int) -> tuple[Session | None, str | None]:
        """The player's game `game_id` in progress, taken over (see take_over)."""
        return take_over(self.store, game_id, self.now, self.settings.auto_clean_notes)

    def switch_to(self, leaving: Session, game_id: int) -> tuple[Session, str]:
        """Leave `leaving` (see put_down) for the unfinished game `game_id`; the game now
        played (still `leaving` when that one cannot be resumed) and what to tell."""
        if game_id == getattr(leaving.journal, "game_id", None):
            return leaving, "This is the game being played."
        left = self.put_down(leaving)
        session, notice = self.take_over(game_id)
        if session is None:
            return leaving, notice or f"Game {game_id} cannot be resumed now."
        return session, " ".join(filter(None, [left, notice]))

    def keep_cursor(self, session: Session, cell: Cell) -> None:
        """Keep where the cursor of `session` is, if it changed since last kept."""
        game = getattr(session.journal, "game_id", None)
        spot = {"game": game, "cell": list(cell)}
        if game is not None and not session.over and spot != self.kept:
            self.kept = spot
            self.store.save_settings({CURSOR_KEY: spot})

    def kept_cursor(self, session: Session) -> Cell | None:
        """Where the cursor of `session` was last kept, if it was."""
        spot = self.store.settings().get(CURSOR_KEY)
        game = getattr(session.journal, "game_id", None)
        if not isinstance(spot, dict) or game is None or spot.get("game") != game:
            return None
        cell = spot.get("cell")
        if isinstance(cell, list) and len(cell) == 2 and all(type(i) is int for i in cell):
            self.kept = spot
            return (cell[0], cell[1])
        return None

    def keep(self, session: Session, cursor: Cell) -> str | None:
        """Keep the time played of `session` and where its cursor is (now and then, and
        on the way out); a notice if saving stopped or came back."""
        notice = session.keep_time()
        self.keep_cursor(session, cursor)
        return notice

    def change_settings(self, settings: Settings) -> str | None:
        """Play by `settings` from now on, and keep them; a notice if they were not saved."""
        self.settings = settings
        return self.store.save_settings(settings.to_dict())


def take_over(store: Store, game_id: int, now: Callable[[], float],
              auto_clean_notes: bool) -> tuple[Session | None, str | None]:
    """The player's game `game_id` in progress, taken over by this process (another
    kaldoku playing it stops saving it); None when it cannot be, with why. A game that
    cannot be resumed is set aside with a notice."""
    try:
        resumed = store.resume(game_id)
        session = resume_saved(resumed.game, now, auto_clean_notes)
    except GameDamaged as error:
        return None, store.set_game_aside(game_id, str(error))
    except (MoveError, PuzzleError) as error:
        return None, store.set_game_aside(game_id, str(error)[:200])
    except StoreError:
        return None, None  # Ended or taken by another kaldoku since it was listed.
    session.journal = resumed.journal
    return attach(session), resumed.notice or "Resumed your game."
