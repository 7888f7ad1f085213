"""What the game asks of a store, whatever keeps it: the games and their moves, the
records, the leaderboards, the settings and the ready puzzles, each belonging to a player.

No SQL, connection or file path here: `sqlite.py` keeps a store in one SQLite file of the
data directory, `postgres.py` in a PostgreSQL database; one contract test suite
(tests/test_store_contract.py) holds both to what is written here.

A store belongs to one player for as long as it is open: every read and write is that
player's, and two players never see, resume or change each other's games. Writes that fail
(a full disk, a busy server) turn saving off with a one-line notice; nothing that was not
written is ever reported saved, and the moves kept meanwhile are written when a later
write succeeds ("Saving is back on").
"""

from __future__ import annotations

import json
import math
import re
import secrets
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone
from typing import Any, Callable, Mapping, Sequence

from kaldoku_tui.engine.daily import Streaks, streaks
from kaldoku_tui.engine.formats import puzzle_from_dict
from kaldoku_tui.engine.kinds import GameKind
from kaldoku_tui.engine.puzzle import Puzzle, PuzzleError

LOCAL = "local"
"""The player at a shell: `kaldoku` with no --player."""

PLAYER = re.compile(r"local|name:[^\x00-\x1f\x7f]{1,64}|key:SHA256:[A-Za-z0-9+/=]{1,64}"
                    r"|guest:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
"""A player's id: the local player, a name (--player NAME), an SSH key's fingerprint, or
a guest of one session."""

OUTCOMES = ("won", "revealed", "left", "skipped", "damaged")
"""How a game ended: won, revealed, left (counted as played), skipped (left untouched),
damaged (could not be resumed: kept, not counted)."""
COUNTED = ("won", "revealed", "left")
HELP = ("checks", "hints", "reveals")
RECENT = 30
"""How many recent wins the statistics chart."""
SNAPSHOT_EVERY = 1000
"""A game's state is kept whole after every this many moves, so that resuming a long game
reads the last snapshot and the moves after it, not every move since the start."""


class StoreError(Exception):
    """A store that cannot be used as asked; the message says why, in a line."""


class UnsafeDirectory(StoreError):
    """A data directory kaldoku will not write in; the message says why and what to do."""


class TakenOver(StoreError):
    """This process no longer owns the game it writes to: another took it over."""


class Unavailable(StoreError):
    """A write that did not happen (a full disk, a busy or unreachable store): what was to
    be written is kept, to be written with the next write that succeeds."""


class GameDamaged(StoreError):
    """A saved game that cannot be read whole; the message says what is wrong."""


def player_id(name: str | None) -> str:
    """The player id for `--player NAME` (the local player when None or empty); StoreError
    for a name no player can have."""
    if not name:
        return LOCAL
    return check_player(name if ":" in name or name == LOCAL else f"name:{name}")


def check_player(player: str) -> str:
    """`player` when it is a player id (see PLAYER), else StoreError."""
    if not isinstance(player, str) or not PLAYER.fullmatch(player):
        raise StoreError(f"{str(player)[:70]!r} is not a player (a name of up to 64 "
                         "printable characters)")
    return player


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def finite(value: Any, low: float = 0.0, high: float = 1e9) -> bool:
    """Whether `value` is a real number in [low, high] (not NaN, not infinite, not a bool)."""
    return (isinstance(value, (int, float)) and not isinstance(value, bool)
            and math.isfinite(value) and low <= value <= high)


def count(value: Any) -> int:
    """A stored count as a whole number, 0 for anything else (a damaged row)."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def day(text: Any) -> date | None:
    """The date a stored YYYY-MM-DD text names, or None."""
    try:
        return date.fromisoformat(text) if isinstance(text, str) and len(text) == 10 else None
    except ValueError:
        return None


@dataclass(frozen=True)
class Record:
    """One kind of game: games played (won, revealed or left after a move), won, won
    without help; the best and median time of the wins without help, in seconds."""

    played: int = 0
    won: int = 0
    unaided: int = 0
    best: float | None = None
    median: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"played": self.played, "won": self.won, "unaided": self.unaided,
                "best": self.best, "median": self.median}


@dataclass(frozen=True)
class SavedGame:
    """A game as the store holds it (in progress unless `outcome` says how it ended).

    `snapshot` is the game's state after its first `start` moves, as the session made it
    (None: from the start); `moves` are the journal records after it, oldest first."""

    id: int
    puzzle: Puzzle
    kind: GameKind
    elapsed: float
    moves: list[Any]
    outcome: str | None = None
    daily: date | None = None
    snapshot: Mapping[str, Any] | None = None
    start: int = 0


@dataclass(frozen=True)
class OpenGame:
    """A game in progress of this player, as listed before one is resumed."""

    id: int
    kind_key: str
    daily: date | None
    touched: str


@dataclass(frozen=True)
class PastGame:
    """A game as `kaldoku history` lists it; the puzzle as stored (JSON), read on demand."""

    id: int
    puzzle_text: str
    kind_key: str
    started: str
    outcome: str | None
    elapsed: float
    helped: bool
    daily: date | None

    def puzzle(self) -> Puzzle:
        """The puzzle played; PuzzleError (or ValueError) when the stored one is damaged."""
        return puzzle_from_dict(json.loads(self.puzzle_text))


@dataclass(frozen=True)
class Standing:
    """One row of a leaderboard: a player's best time without help, and their rank."""

    rank: int
    name: str
    time: float


@dataclass(frozen=True)
class Resumed:
    """A game taken over by this process and read whole after the claim."""

    game: SavedGame
    journal: GameJournal
    notice: str | None

    def __post_init__(self) -> None:
        # The journal goes on counting from the moves read, for its snapshots.
        self.journal.count = self.game.start + len(self.game.moves)


@dataclass
class PendingMove:
    """A move kept until a write of it is committed."""

    record: str
    elapsed: float
    at: str


@dataclass
class LegacyData:
    """What kaldoku 0.1.0's files held, to be carried over in one write (session/legacy.py):
    the game in progress (puzzle, kind key, time, journal records), records per kind (key,
    played, won, unaided, best), settings and ready puzzles (kind key, puzzle JSON)."""

    game: tuple[Puzzle, str, float, Sequence[Mapping[str, Any]]] | None = None
    carried: list[tuple[str, int, int, int, float | None]] = field(default_factory=list)
    settings: dict[str, Any] = field(default_factory=dict)
    bank: list[tuple[str, str]] = field(default_factory=list)


RACE_LETTERS = "abcdefghjkmnpqrstuvwxyz23456789"
"""The letters of a race's short name (none that reads as another: no i, l, o, 0, 1)."""
RACE_NAME = re.compile(f"[{RACE_LETTERS}]{{4}}")
RACE_DAILY = "daily"
"""The kind of a race on the daily puzzle."""
REJOIN_WITHIN = timedelta(days=1)
"""How long after it opened a race is offered to the racers who dropped out of it."""
START_WITHIN = timedelta(hours=2)
"""How long a race waits for its opener to start it: past that it is gone (nobody joins,
starts or sees it) and its name is free again."""


def race_name() -> str:
    """A new race's short name: four letters a player reads out and types."""
    return "".join(secrets.choice(RACE_LETTERS) for _ in range(4))


def race_key(name: str) -> str | None:
    """The race name a player typed, as stored (None when it cannot be one)."""
    name = name.strip().lower()
    return name if RACE_NAME.fullmatch(name) else None


@dataclass(frozen=True)
class Racer:
    """One player of a race as every racer sees them: cells filled, never digits."""

    name: str
    filled: int
    seconds: float | None
    """The time they finished in, None until they have."""
    me: bool

    @property
    def finished(self) -> bool:
        return self.seconds is not None


@dataclass(frozen=True)
class Race:
    """A race: its players get the same puzzle (a share code) at the same moment."""

    name: str
    kind: str
    """The kind key of its puzzle, or RACE_DAILY."""
    code: str
    """The puzzle, as a share code."""
    opener: str
    """The display name of who opened it (and starts it)."""
    mine: bool
    """Whether this player opened it."""
    started: bool
    racers: tuple[Racer, ...]
    """Finished first (fastest first), then by cells filled."""

    @property
    def over(self) -> bool:
        return self.started and all(r.finished for r in self.racers)

    @property
    def me(self) -> Racer | None:
        return next((r for r in self.racers if r.me), None)


def race_of(row: tuple, racers: Sequence[tuple], player: str, names: Callable[[str, str | None], str]) -> Race:
    """A Race from its stored row (name, opener, kind, code, started, opener's name) and its
    players' rows (player, filled, seconds, chosen name)."""
    name, opener, kind, code, started, opener_name = row
    standing = sorted(
        (Racer(names(who, chosen), count(filled), seconds if finite(seconds) else None, who == player)
         for who, filled, seconds, chosen in racers),
        key=lambda r: (not r.finished, r.seconds or 0.0, -r.filled, r.name))
    return Race(name, str(kind), str(code), names(opener, opener_name), opener == player,
                started is not None, tuple(standing))


SAVING_OFF = "Saving is off: {}. Your moves are kept and saved when it can."
SAVING_BACK = "Saving is back on: every move so far is saved."


class Store(ABC):
    """One player's view of a store: their games, records, settings and ready puzzles."""

    notices: list[str]
    """One-line notices from opening the store, for the player."""
    saving: bool = True
    """False while writes fail (each write tries again), or for good in memory."""
    memory: bool = False
    """Whether nothing outlives the process (a store in memory)."""

    @property
    @abstractmethod
    def player(self) -> str:
        """The player id every read and write of this store is for."""

    def written(self, error: BaseException | None) -> str | None:
        """Note that a write succeeded (None) or failed (`error`); the notice when saving
        stops or comes back."""
        if error is not None:
            if not self.saving:
                return None
            self.saving = False
            return SAVING_OFF.format(why(error))
        if self.saving or self.memory:
            return None
        self.saving = True
        return SAVING_BACK

    @abstractmethod
    def close(self) -> None:
        """Let the store go; nothing is read or written after."""

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *_: Any) -> None:
        self.close()

    # Games.

    @abstractmethod
    def new_game(self, puzzle: Puzzle, kind: GameKind,
                 daily: date | None = None) -> tuple[GameJournal, str | None]:
        """A game of `puzzle` begun now, owned by this process (the daily puzzle of the
        day `daily`, if it is one); its journal and a notice."""

    @abstractmethod
    def open_games(self) -> list[OpenGame]:
        """This player's games in progress, the last played first; none, with a line in
        `notices` saying why, when they cannot be read."""

    @abstractmethod
    def resume(self, game_id: int) -> Resumed:
        """Take game `game_id` over (another kaldoku playing it stops saving it), then read
        it whole. GameDamaged when it cannot be read whole; StoreError when it is not this
        player's game in progress."""

    @abstractmethod
    def game(self, game_id: int, from_snapshot: bool = False) -> SavedGame | None:
        """This player's game `game_id`, in progress or ended, with all its moves (or, with
        `from_snapshot`, its last snapshot and the moves after it); None when there is
        none. GameDamaged when it cannot be read whole."""

    @abstractmethod
    def move_log(self, game_id: int) -> list[dict[str, Any]] | None:
        """None when this player has no game `game_id`; else its moves, each its journal record
        with its number (`seq`), the time played when it was made (`elapsed`) and the moment (`at`, UTC); a record that
        cannot be read is {"move": None} in its place."""

    @abstractmethod
    def set_game_aside(self, game_id: int, reason: str) -> str:
        """Mark a game that cannot be resumed (kept, not counted); the notice."""

    # Records.

    @abstractmethod
    def records(self) -> list[tuple[GameKind, Record]]:
        """Every kind of game played, with its record: by size, operators, then level."""

    def record(self, kind: GameKind) -> Record:
        return dict(self.records()).get(kind, Record())

    @abstractmethod
    def daily_days(self) -> set[date]:
        """The days whose daily puzzle the player won, having begun it that day (UTC)."""

    def streaks(self, today: date) -> Streaks:
        """The current and longest run of days with the daily puzzle won, as of `today`."""
        return streaks(self.daily_days(), today)

    @abstractmethod
    def win_times(self, kind: GameKind, count: int = RECENT) -> list[float]:
        """The times of the last `count` wins of `kind` (with or without help), oldest first."""

    @abstractmethod
    def history(self, count: int | None = None, offset: int = 0) -> list[PastGame]:
        """The games played (not those skipped untouched), the last begun first: `count`
        of them (all when None) after the first `offset`."""

    # Leaderboards (every player's, by display name).

    @abstractmethod
    def daily_leaderboard(self, when: date, count: int = 20) -> list[Standing]:
        """The fastest wins without help of the daily puzzle of `when`, begun that day: one
        per player, fastest first."""

    @abstractmethod
    def kind_leaderboard(self, kind: GameKind, count: int = 20) -> list[Standing]:
        """The fastest wins without help of `kind`: one per player, fastest first."""

    @abstractmethod
    def display_name(self) -> str:
        """The name this player is shown by on leaderboards."""

    @abstractmethod
    def set_display_name(self, name: str) -> str | None:
        """Show this player as `name`; a notice when it cannot be saved."""

    @abstractmethod
    def name_holder(self, name: str) -> str | None:
        """The player who chose display name `name` (compared without regard to case), if
        anyone did: a server keeps names unique with it."""

    # Races (every player's: the store is what racers on several servers share).

    @abstractmethod
    def race_open(self, kind: str, code: str) -> str:
        """A new race on the puzzle `code` (a share code) of `kind` (a kind key or
        RACE_DAILY), opened by this player, who is in it; its short name. Races not started
        within START_WITHIN are deleted on the way. StoreError when it cannot be written."""

    @abstractmethod
    def race_join(self, name: str) -> Race | None:
        """Put this player in race `name` (typed as a player types it), not started yet;
        the race, or None when there is no such race (or it was not started within
        START_WITHIN) or it started without them. A player in it already gets it back (a
        rejoin)."""

    @abstractmethod
    def race_start(self, name: str) -> bool:
        """Start race `name` now, if this player opened it (within START_WITHIN); whether
        it is started."""

    @abstractmethod
    def race_progress(self, name: str, filled: int, seconds: float | None) -> None:
        """Keep this player's cells filled in race `name`, and their time once finished
        (`seconds`). StoreError when it cannot be written."""

    @abstractmethod
    def race(self, name: str) -> Race | None:
        """Race `name` as its racers see it; None when there is none, or it was not
        started within START_WITHIN."""

    @abstractmethod
    def races_to_rejoin(self) -> list[Race]:
        """The races this player is in, started and not finished by them, opened within
        REJOIN_WITHIN, the last opened first: a player who dropped out comes back to them."""

    # Settings.

    @abstractmethod
    def settings(self) -> dict[str, Any]:
        """This player's settings as saved (what cannot be read is left out)."""

    @abstractmethod
    def save_settings(self, settings: Mapping[str, Any]) -> str | None:
        """Keep `settings` (added to those saved); a notice when saving stops or resumes."""

    # Ready puzzles.

    @abstractmethod
    def bank_add(self, kind: GameKind, puzzle: Puzzle) -> None:
        """Keep `puzzle` ready for this player's next game of `kind`."""

    def bank_take(self, kind: GameKind) -> Puzzle | None:
        """A ready puzzle of `kind`, taken out (no other kaldoku gets it too)."""
        from kaldoku_tui.engine.techniques import level_of  # not at startup: the first game asks

        while (text := self.bank_pop(kind)) is not None:
            try:
                puzzle = puzzle_from_dict(json.loads(text))
            except (PuzzleError, ValueError, TypeError, RecursionError):
                continue  # A bad entry costs one puzzle to make again, not the bank.
            if puzzle.size != kind.size or puzzle.solution is None:
                continue
            # One an older kaldoku made may have another level now (the line rule went
            # above extreme at generator edition 26): it is made again, never mislabelled.
            if kind.level is None or level_of(puzzle) == kind.level:
                return puzzle
        return None

    @abstractmethod
    def bank_pop(self, kind: GameKind) -> str | None:
        """The oldest ready puzzle of `kind` as kept (JSON), taken out; None when there is
        none or the store cannot be written."""

    def bank_counts(self) -> dict[GameKind, int]:
        """How many puzzles are ready, per kind."""
        counts = {}
        for key, n in self.bank_rows():
            kind = GameKind.from_key(key) if isinstance(key, str) else None
            if kind is not None:
                counts[kind] = n
        return counts

    @abstractmethod
    def bank_rows(self) -> list[tuple[Any, Any]]:
        """(kind key, count) of the ready puzzles, as kept; none when they cannot be read."""

    # Moving house from kaldoku 0.1.0.

    @abstractmethod
    def legacy_done(self) -> bool:
        """Whether 0.1.0's files were carried over into this store already."""

    @abstractmethod
    def carry_over(self, data: LegacyData) -> tuple[bool, str | None]:
        """Write what 0.1.0's files held for this player in one write, once; whether it was
        written (False too when it had been already) and a notice."""


class GameJournal(ABC):
    """The moves of one game, written as they are made (see session.game.Journal).

    A move stays in `pending` until the write that holds it is committed: a write that
    fails keeps it, and the next one writes it with the rest."""

    def __init__(self, store: Store, game_id: int | None, daily: date | None = None,
                 claim: bool = False) -> None:
        self.store = store
        self.game_id = game_id
        """None while the game's row could not be written (saving is off)."""
        self.daily = daily
        self.pending: list[PendingMove] = []
        """Moves not written yet, oldest first."""
        self.taken = False
        """Another kaldoku took this game over: nothing more is written."""
        self.claim = claim
        """This process is to take the game over with its next write."""
        self.snapshot: tuple[int, str] | None = None
        """A state of the game to keep with the next write: after how many moves, as JSON."""
        self.count = 0
        """The moves of the game so far, written or pending."""
        self.snapshots: Callable[[], str] | None = None
        """Makes the game's state as JSON, every SNAPSHOT_EVERY moves (None: never)."""

    def append(self, record: Mapping[str, Any], elapsed: float) -> str | None:
        self.pending.append(PendingMove(json.dumps(record, separators=(",", ":")), elapsed, now_iso()))
        self.count += 1
        if self.snapshots is not None and self.count % SNAPSHOT_EVERY == 0:
            self.keep_snapshot(self.count, self.snapshots())
        return self.flush(elapsed)

    def touch(self, elapsed: float) -> str | None:
        return self.flush(elapsed)

    def end(self, outcome: str, elapsed: float, help_used: Mapping[str, int]) -> str | None:
        return self.flush(elapsed, (outcome, {key: int(help_used.get(key, 0)) for key in HELP}))

    def keep_snapshot(self, moves: int, state: str) -> None:
        """Keep `state` (JSON), the game after its first `moves` moves, with the next write."""
        self.snapshot = (moves, state)

    def flush(self, elapsed: float, ending: tuple[str, Mapping[str, int]] | None = None) -> str | None:
        """Write what is pending (and the time, and the ending); a notice when saving stops
        or comes back, or when the game was taken over."""
        from kaldoku_tui.session.game import TAKEN

        if self.taken:
            return None
        moves = list(self.pending)
        try:
            self.write(moves, elapsed, ending)
        except TakenOver:
            self.taken = True
            self.pending.clear()
            return TAKEN
        except Unavailable as error:
            return self.store.written(error.__cause__ or error)
        # Only now is it durable: moves appended meanwhile (none in one thread) stay.
        del self.pending[:len(moves)]
        self.claim = False
        self.snapshot = None
        return self.store.written(None)

    @abstractmethod
    def write(self, moves: Sequence[PendingMove], elapsed: float,
              ending: tuple[str, Mapping[str, int]] | None) -> None:
        """In one committed transaction: the game's row if it has none yet, the claim if
        asked, `moves` after the last saved one, the snapshot if one is kept, and the time
        (with every write that holds no move, and with the ending). TakenOver when another
        process owns the game; Unavailable (from the failure) when nothing was committed."""


def why(error: BaseException) -> str:
    """An error in a few words."""
    if isinstance(error, OSError) and error.strerror:
        return error.strerror
    text = str(error) or type(error).__name__
    return {"file is not a database": "not a kaldoku database",
            "database disk image is malformed": "damaged",
            "database is locked": "another kaldoku holds the store"}.get(text, text)[:200]
