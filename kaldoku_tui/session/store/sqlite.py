"""Where kaldoku keeps its games and their moves, the settings, the records carried over
from older versions and the ready puzzles: one SQLite database in the data directory.

Each move is one small insert, committed at once (WAL, synchronous=FULL), so kill -9 or a
dropped SSH link loses at most the move being made. Two kaldoku processes share the
database: a game belongs to the process that last opened it, and a process that no longer
owns its game writes nothing more to it (it is told so), so a stale window never
overwrites a game played elsewhere.

A database that cannot be used (corrupt, locked past a timeout, from a newer kaldoku,
read-only) is set aside, renamed and never deleted, and a new one is made; where none can
be made the game plays on in memory and the player is told at once. A write that fails
(a full disk) turns saving off with a notice; the moves made meanwhile are written when a
later write succeeds, and the player is told saving is back.
"""

from __future__ import annotations

import json
import math
import os
import socket
import sqlite3
import stat
import statistics
import threading
import time
import uuid
from dataclasses import dataclass
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any, Callable, Collection, Iterator, Mapping

from kaldoku_tui.engine.daily import Streaks, streaks
from kaldoku_tui.engine.formats import puzzle_from_dict, puzzle_to_dict
from kaldoku_tui.engine.kinds import GameKind
from kaldoku_tui.engine.puzzle import Puzzle, PuzzleError
from kaldoku_tui.session.game import TAKEN

DB_FILE = "kaldoku.db"
SCHEMA_VERSION = 2
BUSY_TIMEOUT = 2.0
"""Seconds a write waits for another kaldoku's write before it counts as failed."""

SCHEMA = """
CREATE TABLE games (
    id INTEGER PRIMARY KEY,
    puzzle TEXT NOT NULL,
    kind TEXT NOT NULL,
    started TEXT NOT NULL,
    touched TEXT NOT NULL,
    ended TEXT,
    outcome TEXT,
    elapsed REAL NOT NULL DEFAULT 0,
    checks INTEGER NOT NULL DEFAULT 0,
    hints INTEGER NOT NULL DEFAULT 0,
    reveals INTEGER NOT NULL DEFAULT 0,
    owner TEXT,
    daily TEXT
);
CREATE TABLE moves (
    game INTEGER NOT NULL REFERENCES games (id),
    seq INTEGER NOT NULL,
    move TEXT NOT NULL,
    elapsed REAL NOT NULL,
    at TEXT NOT NULL,
    PRIMARY KEY (game, seq)
) WITHOUT ROWID;
CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE bank (id INTEGER PRIMARY KEY, kind TEXT NOT NULL, puzzle TEXT NOT NULL);
CREATE INDEX bank_kind ON bank (kind);
CREATE TABLE carried (
    kind TEXT PRIMARY KEY,
    played INTEGER NOT NULL,
    won INTEGER NOT NULL,
    unaided INTEGER NOT NULL,
    best REAL
);
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""
"""games.outcome: won, revealed, left (counted as played), skipped (left untouched),
damaged (could not be resumed); NULL while the game goes on. games.daily: the date
(YYYY-MM-DD) of the daily puzzle the game plays, NULL for any other game. carried: records
kept by kaldoku 0.1.0, which saved no games, added to what the games say."""

MIGRATIONS = {
    1: ("ALTER TABLE games ADD COLUMN daily TEXT",),
}
"""The statements that bring a database of schema N to N + 1, keeping all it holds.
(Schema 1 marked no game as daily: its games stay ordinary ones.)"""

COUNTED = ("won", "revealed", "left")


class UnsafeDirectory(Exception):
    """A data directory kaldoku will not write in; the message says why and what to do."""


def data_dir(override: str | os.PathLike | None = None) -> Path:
    """The directory of kaldoku's data: `override` (--data-dir), else KALDOKU_HOME, else
    the platform's user data directory."""
    chosen = override or os.environ.get("KALDOKU_HOME")
    if chosen:
        return Path(chosen).expanduser()
    from platformdirs import user_data_dir

    return Path(user_data_dir("kaldoku", appauthor=False))


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def finite(value: Any, low: float = 0.0, high: float = 1e9) -> bool:
    """Whether `value` is a real number in [low, high] (not NaN, not infinite, not a bool)."""
    return (isinstance(value, (int, float)) and not isinstance(value, bool)
            and math.isfinite(value) and low <= value <= high)


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


RECORD_HEADINGS = ("Kind of game", "Played", "Won", "No help", "Best", "Median")


def records_table(records: list[tuple[GameKind, Record]]) -> str:
    """The records as a table for people, headings first; best and median are the times
    of wins without help."""
    from kaldoku_tui.session.game import clock_text

    def time_text(seconds: float | None) -> str:
        return clock_text(seconds) if seconds is not None else "-"

    rows = [RECORD_HEADINGS] + [
        (kind.describe(), str(r.played), str(r.won), str(r.unaided), time_text(r.best),
         time_text(r.median))
        for kind, r in records
    ]
    return text_table(rows, right=range(1, len(RECORD_HEADINGS)))


def text_table(rows: list[tuple[str, ...]], right: Collection[int]) -> str:
    """Rows of cells as lines of aligned columns two spaces apart; the columns numbered
    in `right` are aligned right (numbers, times)."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(cell.rjust(w) if i in right else cell.ljust(w)
                               for i, (cell, w) in enumerate(zip(row, widths))).rstrip()
                     for row in rows)


def streak_text(found: Streaks) -> str:
    """The daily streaks in a line for people."""
    def days(n: int) -> str:
        return f"{n} day{'' if n == 1 else 's'}"
    return f"Daily puzzle streak: {days(found.current)} now, longest {days(found.longest)}."


HISTORY_HEADINGS = ("ID", "Begun (UTC)", "Kind of game", "Outcome", "Time", "Share code")


def history_table(games: list[PastGame]) -> str:
    """The games as a table for people, headings first."""
    from kaldoku_tui.engine.codes import share_code
    from kaldoku_tui.session.game import clock_text
    from kaldoku_tui.terminal import shown

    def code(game: PastGame) -> str:
        try:
            return share_code(game.puzzle())
        except (PuzzleError, ValueError, TypeError, RecursionError):
            return "-"  # a damaged puzzle: the game is listed all the same

    def kind(game: PastGame) -> str:
        found = GameKind.from_key(game.kind_key)
        words = found.describe() if found else str(game.kind_key)[:40]
        return f"daily {game.daily} {words}" if game.daily else words

    def outcome(game: PastGame) -> str:
        text = game.outcome or "playing"
        return f"{text} with help" if game.helped and game.outcome == "won" else text

    # What the database holds is shown escaped: a damaged or crafted file prints nothing raw.
    rows = [HISTORY_HEADINGS] + [
        (str(g.id), shown(str(g.started)[:16].replace("T", " ")), shown(kind(g)), shown(outcome(g), 40),
         clock_text(g.elapsed), code(g))
        for g in games
    ]
    return text_table(rows, right=(0, 4))


@dataclass(frozen=True)
class SavedGame:
    """A game as the store holds it (in progress unless `outcome` says how it ended)."""

    id: int
    puzzle: Puzzle
    kind: GameKind
    elapsed: float
    moves: list[Any]
    outcome: str | None = None
    daily: date | None = None


RECENT = 30
"""How many recent wins the statistics chart."""


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


def day(text: Any) -> date | None:
    """The date a stored YYYY-MM-DD text names, or None."""
    try:
        return date.fromisoformat(text) if isinstance(text, str) and len(text) == 10 else None
    except ValueError:
        return None


class TakenOver(Exception):
    """This process no longer owns the game it writes to."""


class Store:
    """The database of one data directory (or, with no directory, one in memory)."""

    def __init__(self, directory: str | os.PathLike | None) -> None:
        self.directory = Path(directory) if directory is not None else None
        self.owner = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        """This process, as the owner of the games it plays."""
        self.lock = threading.RLock()
        """One connection, shared by the UI and the bank's thread, one use at a time."""
        self.notices: list[str] = []
        """One-line notices from opening the database, for the player."""
        self.saving = True
        """False while writes fail (they are retried with the next one), or for good when
        the database is in memory."""
        self.memory = False
        """Whether the database is in memory: nothing outlives the process."""
        self.conn = self.connect()

    # Opening.

    @property
    def path(self) -> Path | None:
        return self.directory / DB_FILE if self.directory is not None else None

    def connect(self) -> sqlite3.Connection:
        """The database, made ready; what went wrong on the way is in `notices`."""
        if self.directory is None:
            self.saving, self.memory = False, True
            return self.fresh(":memory:")
        check_directory(self.directory)
        try:
            self.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        except OSError as error:
            return self.in_memory(f"cannot make {self.directory} ({error.strerror})")
        try:
            return self.ready(str(self.path))
        except (sqlite3.Error, OSError, UnusableDatabase) as error:
            self.notices.append(self.set_aside(why(error)))
        try:
            return self.ready(str(self.path))
        except (sqlite3.Error, OSError, UnusableDatabase) as error:
            return self.in_memory(f"cannot write to {self.directory} ({why(error)})")

    def in_memory(self, reason: str) -> sqlite3.Connection:
        self.saving, self.memory = False, True
        self.notices.append(f"Saving is off: {reason}.")
        return self.fresh(":memory:")

    def fresh(self, target: str) -> sqlite3.Connection:
        conn = sqlite3.connect(target, timeout=BUSY_TIMEOUT, check_same_thread=False,
                               isolation_level=None)
        with transaction(conn):
            create(conn)
        return conn

    def ready(self, target: str) -> sqlite3.Connection:
        """Open the database file, check it and bring its tables up to date."""
        path = Path(target)
        if path.is_symlink():
            raise UnsafeDirectory(f"{path} is a symbolic link; kaldoku does not follow links "
                                  "it did not make (remove it or choose --data-dir)")
        conn = sqlite3.connect(target, timeout=BUSY_TIMEOUT, check_same_thread=False,
                               isolation_level=None)
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=FULL")
            # No quick_check: it reads the whole file (80 ms of a start with 2,000 games);
            # a damaged header fails above, damage further in fails a read or a write.
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise UnusableDatabase(f"made by a newer kaldoku, schema {version}")
            if version < SCHEMA_VERSION:
                with transaction(conn):
                    upgrade(conn)
            # A read-only file fails here and not at the first move; a full disk leaves the
            # database as it is, to be read, and saving off until there is room.
            try:
                with transaction(conn):
                    conn.execute("INSERT OR REPLACE INTO meta VALUES ('opened', ?)", (now_iso(),))
            except sqlite3.OperationalError as error:
                if getattr(error, "sqlite_errorname", "") not in ("SQLITE_FULL", "SQLITE_IOERR"):
                    raise
                self.saving = False
                self.notices.append(f"Saving is off: {why(error)}. Your moves are kept and "
                                    "saved when there is room.")
        except BaseException:
            conn.close()
            raise
        return conn

    def set_aside(self, reason: str) -> str:
        """Rename the database (and its WAL files) out of the way; the notice."""
        stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
        path = self.path
        assert path is not None
        aside = path.with_name(f"{DB_FILE}.unusable-{stamp}")
        n = 1
        while aside.exists():
            n += 1
            aside = path.with_name(f"{DB_FILE}.unusable-{stamp}-{n}")
        try:
            for suffix in ("", "-wal", "-shm"):
                source = Path(f"{path}{suffix}")
                if source.exists() and not source.is_symlink():
                    os.replace(source, f"{aside}{suffix}")
        except OSError as error:
            return f"The saved games ({reason}) could not be moved aside: {error.strerror}."
        return f"The saved games were unusable ({reason}); kept as {aside.name}, starting afresh."

    def close(self) -> None:
        with self.lock:
            self.conn.close()

    # Writing.

    def write(self, work: Callable[[sqlite3.Connection], Any]) -> tuple[Any, str | None]:
        """Run `work` in one transaction; its result and a notice when saving stops or
        comes back. TakenOver passes through."""
        with self.lock:
            try:
                with transaction(self.conn):
                    result = work(self.conn)
            except (sqlite3.Error, OSError) as error:
                if not self.saving:
                    return None, None
                self.saving = False
                return None, f"Saving is off: {why(error)}. Your moves are kept and saved when it can."
            if self.saving or self.memory:
                return result, None
            self.saving = True
            return result, "Saving is back on: every move so far is saved."

    def read(self, query: str, *args: Any) -> list[tuple]:
        with self.lock:
            try:
                return self.conn.execute(query, args).fetchall()
            except sqlite3.Error:
                return []

    # Games.

    def new_game(self, puzzle: Puzzle, kind: GameKind,
                 daily: date | None = None) -> tuple[GameJournal, str | None]:
        """A game of `puzzle` begun now, owned by this process (the daily puzzle of the
        day `daily`, if it is one); its journal and a notice."""
        journal = GameJournal(self, None, puzzle, kind, daily=daily)
        game_id, notice = self.write(journal.insert)
        journal.game_id = game_id
        return journal, notice

    def open_games(self) -> Iterator[SavedGame | tuple[int, str]]:
        """The games in progress, the last played first: each a SavedGame, or its id and
        why it cannot be resumed."""
        for game_id, puzzle, key, elapsed in self.read(
                "SELECT id, puzzle, kind, elapsed FROM games WHERE outcome IS NULL ORDER BY "
                "max(touched, coalesce((SELECT max(at) FROM moves WHERE game = id), '')) DESC, "
                "id DESC"):
            try:
                yield self.saved_game(game_id, puzzle, key, elapsed)
            except (PuzzleError, ValueError, TypeError, RecursionError) as error:
                yield game_id, str(error)[:200]

    def game(self, game_id: int) -> SavedGame | None:
        """Game `game_id`, in progress or ended, with all its moves; None when there is
        no such game. Raises ValueError (or PuzzleError) when it cannot be read."""
        rows = self.read("SELECT puzzle, kind, elapsed, outcome, daily FROM games WHERE id = ?",
                         game_id)
        if not rows:
            return None
        puzzle, key, elapsed, outcome, daily = rows[0]
        saved = self.saved_game(game_id, puzzle, key, elapsed)
        return SavedGame(saved.id, saved.puzzle, saved.kind, saved.elapsed, saved.moves,
                         outcome, day(daily))

    def move_log(self, game_id: int) -> list[dict[str, Any]]:
        """Game `game_id`'s moves, each its journal record with its number (`seq`), the
        time played when it was made (`elapsed`) and the moment (`at`, UTC)."""
        log = []
        for seq, text, elapsed, at in self.read(
                "SELECT seq, move, elapsed, at FROM moves WHERE game = ? ORDER BY seq", game_id):
            try:
                record = json.loads(text)
            except (ValueError, RecursionError):
                record = {"move": None}  # kept in its place: the numbers show the gap
            log.append({"seq": seq, "elapsed": elapsed, "at": at,
                        **(record if isinstance(record, dict) else {"move": None})})
        return log

    def saved_game(self, game_id: int, puzzle: str, key: str, elapsed: Any) -> SavedGame:
        kind = GameKind.from_key(key)
        if kind is None:
            raise ValueError(f"unknown kind of game {key!r}")
        if not finite(elapsed):
            raise ValueError(f"time played {elapsed!r} is not a time")
        moves = []
        for text, move_elapsed in self.read(
                "SELECT move, elapsed FROM moves WHERE game = ? ORDER BY seq", game_id):
            if not finite(move_elapsed):
                raise ValueError(f"a move's time {move_elapsed!r} is not a time")
            elapsed = max(elapsed, move_elapsed)
            moves.append(json.loads(text))
        found = puzzle_from_dict(json.loads(puzzle))
        if found.solution is None:
            raise ValueError("the saved puzzle has no solution")
        return SavedGame(game_id, found, kind, float(elapsed), moves)

    def take(self, game: SavedGame) -> tuple[GameJournal, str | None]:
        """Play `game` in this process from now on: another that had it stops saving it
        (if that cannot be written now, it is with the next move that can)."""
        journal = GameJournal(self, game.id, game.puzzle, game.kind, claim=True)
        return journal, journal.touch(game.elapsed)

    def set_game_aside(self, game_id: int, reason: str) -> str:
        """Mark a game that cannot be resumed (kept in the database, not counted)."""
        self.write(lambda c: c.execute(
            "UPDATE games SET outcome = 'damaged', ended = ? WHERE id = ?", (now_iso(), game_id)))
        return f"A saved game could not be resumed ({reason}); it is kept aside, starting afresh."

    # Records.

    def records(self) -> list[tuple[GameKind, Record]]:
        """Every kind of game played, with its record: by size, operators, then level."""
        times: dict[str, list[float]] = {}
        counts: dict[str, list[int]] = {}
        for key, outcome, elapsed, helped in self.read(
                "SELECT kind, outcome, elapsed, checks + hints + reveals > 0 FROM games "
                f"WHERE outcome IN {COUNTED}"):
            played, won, unaided = counts.setdefault(key, [0, 0, 0])
            unaided_win = outcome == "won" and not helped
            counts[key] = [played + 1, won + (outcome == "won"), unaided + unaided_win]
            if unaided_win and finite(elapsed):
                times.setdefault(key, []).append(float(elapsed))
        carried = {key: row for key, *row in self.read("SELECT * FROM carried")}
        found = []
        for key in counts.keys() | carried.keys():
            kind = GameKind.from_key(key)
            if kind is None:
                continue
            played, won, unaided = counts.get(key, [0, 0, 0])
            wins = times.get(key, [])
            old_played, old_won, old_unaided, old_best = carried.get(key, (0, 0, 0, None))
            bests = wins + ([old_best] if finite(old_best) else [])
            found.append((kind, Record(
                played + old_played, won + old_won, unaided + old_unaided,
                round(min(bests), 1) if bests else None,
                round(statistics.median(wins), 1) if wins else None)))
        return sorted(found, key=lambda item: item[0].order())

    def record(self, kind: GameKind) -> Record:
        return dict(self.records()).get(kind, Record())

    def daily_days(self) -> set[date]:
        """The days whose daily puzzle the player won, having begun it that day (UTC):
        an older day's puzzle played later is practice, and counts for no streak."""
        return {found for (text,) in self.read(
                    "SELECT daily FROM games WHERE outcome = 'won' AND daily = substr(started, 1, 10)")
                if (found := day(text)) is not None}

    def streaks(self, today: date) -> Streaks:
        """The current and longest run of days with the daily puzzle won, as of `today`."""
        return streaks(self.daily_days(), today)

    def win_times(self, kind: GameKind, count: int = RECENT) -> list[float]:
        """The times of the last `count` wins of `kind` (with or without help), oldest first."""
        rows = self.read("SELECT elapsed FROM games WHERE kind = ? AND outcome = 'won' "
                         "ORDER BY ended DESC, id DESC LIMIT ?", kind.key, count)
        return [float(t) for (t,) in reversed(rows) if finite(t)]

    def history(self, count: int | None = None) -> list[PastGame]:
        """The games played (not those skipped untouched), the last begun first."""
        rows = self.read(
            "SELECT id, puzzle, kind, started, outcome, elapsed, checks + hints + reveals, daily "
            "FROM games WHERE outcome IS NOT 'skipped' ORDER BY started DESC, id DESC LIMIT ?",
            -1 if count is None else count)
        return [PastGame(game_id, puzzle, key, started, outcome, float(elapsed) if finite(elapsed) else 0.0,
                         bool(helped), day(daily))
                for game_id, puzzle, key, started, outcome, elapsed, helped, daily in rows]

    # Settings.

    def settings(self) -> dict[str, Any]:
        found = {}
        for key, value in self.read("SELECT key, value FROM settings"):
            try:
                found[key] = json.loads(value)
            except (ValueError, RecursionError):
                continue
        return found

    def save_settings(self, settings: Mapping[str, Any]) -> str | None:
        def save(c: sqlite3.Connection) -> None:
            c.executemany("INSERT OR REPLACE INTO settings VALUES (?, ?)",
                          [(key, json.dumps(value)) for key, value in settings.items()])
        return self.write(save)[1]

    # Ready puzzles.

    def bank_add(self, kind: GameKind, puzzle: Puzzle) -> None:
        text = json.dumps(puzzle_to_dict(puzzle), separators=(",", ":"))
        self.write(lambda c: c.execute("INSERT INTO bank (kind, puzzle) VALUES (?, ?)",
                                       (kind.key, text)))

    def bank_take(self, kind: GameKind) -> Puzzle | None:
        """A ready puzzle of `kind`, taken out (so no other kaldoku gets it too)."""
        def take(c: sqlite3.Connection) -> str | None:
            row = c.execute("DELETE FROM bank WHERE id = (SELECT min(id) FROM bank WHERE kind = ?)"
                            " RETURNING puzzle", (kind.key,)).fetchone()
            return row[0] if row else None
        while (text := self.write(take)[0]) is not None:
            try:
                return puzzle_from_dict(json.loads(text))
            except (PuzzleError, ValueError, RecursionError):
                continue  # A bad entry costs one puzzle to make again, not the bank.
        return None

    def bank_counts(self) -> dict[GameKind, int]:
        counts = {}
        for key, n in self.read("SELECT kind, count(*) FROM bank GROUP BY kind"):
            kind = GameKind.from_key(key)
            if kind is not None:
                counts[kind] = n
        return counts


class UnusableDatabase(Exception):
    """A database file kaldoku cannot use; the message says why."""


class GameJournal:
    """The moves of one game, written as they are made (see session.game.Journal)."""

    def __init__(self, store: Store, game_id: int | None, puzzle: Puzzle, kind: GameKind,
                 claim: bool = False, daily: date | None = None) -> None:
        self.store = store
        self.daily = daily
        """The day of the daily puzzle this game plays, or None."""
        self.game_id = game_id
        """None while the game's row could not be written (saving is off)."""
        self.puzzle = puzzle
        self.kind = kind
        self.pending: list[tuple[str, float, str]] = []
        """Moves not written yet (saving is off), oldest first."""
        self.taken = False
        """Another kaldoku took this game over: nothing more is written."""
        self.claim = claim
        """This process is to take the game over with its next write."""

    def insert(self, c: sqlite3.Connection) -> int:
        """Write the game's row (begun now, owned by this process); its id."""
        text = json.dumps(puzzle_to_dict(self.puzzle), separators=(",", ":"))
        stamp = now_iso()
        daily = self.daily.isoformat() if self.daily is not None else None
        return c.execute(
            "INSERT INTO games (puzzle, kind, started, touched, owner, daily) VALUES (?, ?, ?, ?, ?, ?)",
            (text, self.kind.key, stamp, stamp, self.store.owner, daily)).lastrowid

    def append(self, record: Mapping[str, Any], elapsed: float) -> str | None:
        self.pending.append((json.dumps(record, separators=(",", ":")), elapsed, now_iso()))
        return self.flush(elapsed)

    def touch(self, elapsed: float) -> str | None:
        return self.flush(elapsed)

    def end(self, outcome: str, elapsed: float, help_used: Mapping[str, int]) -> str | None:
        return self.flush(elapsed, (outcome, help_used))

    def flush(self, elapsed: float, ending: tuple[str, Mapping[str, int]] | None = None) -> str | None:
        if self.taken:
            return None

        def work(c: sqlite3.Connection) -> bool:
            if self.claim:
                c.execute("UPDATE games SET owner = ? WHERE id = ?", (self.store.owner, self.game_id))
            if self.game_id is None:
                self.game_id = self.insert(c)
            owner = c.execute("SELECT owner FROM games WHERE id = ?", (self.game_id,)).fetchone()
            if owner is None or owner[0] != self.store.owner:
                raise TakenOver
            last = c.execute("SELECT max(seq) FROM moves WHERE game = ?", (self.game_id,)).fetchone()
            c.executemany("INSERT INTO moves VALUES (?, ?, ?, ?, ?)",
                          [(self.game_id, (last[0] or 0) + i, move, t, at)
                           for i, (move, t, at) in enumerate(self.pending, 1)])
            if not self.pending or ending is not None:
                # A move carries its own time: only the clock's saves and the end write
                # the game's row, so a move costs one page of the log.
                c.execute("UPDATE games SET elapsed = ?, touched = ? WHERE id = ?",
                          (round(elapsed, 1), now_iso(), self.game_id))
            if ending is not None:
                outcome, used = ending
                c.execute("UPDATE games SET outcome = ?, ended = ?, checks = ?, hints = ?, "
                          "reveals = ? WHERE id = ?",
                          (outcome, now_iso(), used["checks"], used["hints"], used["reveals"],
                           self.game_id))
            self.pending.clear()
            return True
        try:
            written, notice = self.store.write(work)
            if written:
                self.claim = False
        except TakenOver:
            self.taken = True
            self.pending.clear()
            return TAKEN
        return notice


class transaction:
    """BEGIN IMMEDIATE ... COMMIT (or ROLLBACK on an error): one durable change."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def __enter__(self) -> sqlite3.Connection:
        self.conn.execute("BEGIN IMMEDIATE")
        return self.conn

    def __exit__(self, kind: type | None, *_: Any) -> None:
        if kind is None:
            self.conn.execute("COMMIT")
        elif self.conn.in_transaction:
            self.conn.execute("ROLLBACK")


def upgrade(conn: sqlite3.Connection) -> None:
    """Make the tables (a new database) or migrate them in place to SCHEMA_VERSION; the
    version is read again inside the transaction, as another kaldoku may have done it."""
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version == 0:
        create(conn)
        return
    for step in range(version, SCHEMA_VERSION):
        for statement in MIGRATIONS[step]:
            conn.execute(statement)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


def create(conn: sqlite3.Connection) -> None:
    for statement in SCHEMA.split(";"):
        if statement.strip():
            conn.execute(statement)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


def check_directory(directory: Path) -> None:
    """Refuse a data directory others could write in (UnsafeDirectory)."""
    try:
        info = directory.stat()
    except OSError:
        return  # Not there (or not reachable): making it says why, and play goes on.
    if not stat.S_ISDIR(info.st_mode):
        raise UnsafeDirectory(f"{directory} is not a directory")
    if hasattr(os, "getuid") and info.st_uid != os.getuid():
        raise UnsafeDirectory(f"{directory} belongs to another user; choose --data-dir")
    if info.st_mode & stat.S_IWOTH and not info.st_mode & stat.S_ISVTX:
        raise UnsafeDirectory(f"{directory} can be written by anyone; make it private "
                              f"(chmod 700) or choose --data-dir")


def why(error: BaseException) -> str:
    """An error in a few words."""
    if isinstance(error, OSError) and error.strerror:
        return error.strerror
    text = str(error) or type(error).__name__
    return {"file is not a database": "not a kaldoku database",
            "database disk image is malformed": "damaged"}.get(text, text)
