"""The store in one SQLite database in the data directory (the default).

Each move is one small insert, committed at once (WAL, synchronous=FULL), so kill -9 or a
dropped SSH link loses at most the move being made. Any number of kaldoku processes and
players share the file: a write waits for another's (busy_timeout) and, past it, is kept
and tried again with the next one, saying that saving is paused; a busy file is never set
aside. Only a file that is damaged or no kaldoku's is renamed aside (never deleted) and a
new one made; where none can be opened (a full disk, an I/O error) the game plays on,
saving is off, and each write tries the file again.
"""

from __future__ import annotations

import json
import os
import random
import socket
import sqlite3
import threading
import time
import uuid
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Callable, Mapping, TypeVar

from kaldoku_tui.engine.formats import puzzle_from_dict, puzzle_to_dict
from kaldoku_tui.engine.kinds import GameKind
from kaldoku_tui.engine.puzzle import Puzzle, PuzzleError
from kaldoku_tui.session.store import base
from kaldoku_tui.session.store.base import (
    COUNTED, LOCAL, RECENT, GameDamaged, LegacyData, OpenGame, PastGame, Race, Record, Resumed,
    SavedGame, Standing, Store, StoreError, Unavailable, UnsafeDirectory, day, finite, now_iso,
    REJOIN_WITHIN, START_WITHIN, race_key, race_name, race_of, why,
)
from kaldoku_tui.session.store.files import DB_FILE, check_directory, check_file, data_dir, set_aside
from kaldoku_tui.session.store.journal import LAST_SEQ, SQLiteJournal, checksum
from kaldoku_tui.session.store.schema import (
    SCHEMA_VERSION, UnusableDatabase, create, missing_tables, upgrade, version_of,
)

__all__ = ["DB_FILE", "SCHEMA_VERSION", "SQLiteStore", "data_dir"]

LOCK_WAIT = 0.005
"""Seconds SQLite itself waits for a lock before transact's loop tries again."""
BUSY_TIMEOUT = 5.0
"""Seconds a write waits for other kaldokus' writes before it is kept for later."""
PAUSED_TIMEOUT = 0.1
"""Seconds a write waits while saving is paused: a stuck writer elsewhere must not make
every key wait BUSY_TIMEOUT; the moves wait in the journal instead."""

DAMAGED = ("SQLITE_CORRUPT", "SQLITE_NOTADB")
"""Errors that say the file itself is damaged (set aside), not that it is busy or the
disk full (tried again)."""

T = TypeVar("T")

NUMBER = "typeof({0}) IN ('integer', 'real') AND {0} BETWEEN 0 AND 1e9"
"""SQL: the column holds a time (a damaged or crafted row holds text or worse)."""
WHOLE = "CASE WHEN typeof({0}) = 'integer' AND {0} BETWEEN 0 AND 1e9 THEN {0} ELSE 0 END"
"""SQL: the column as a count, 0 when it holds anything else."""


def busy(error: sqlite3.Error) -> bool:
    """Whether `error` says another connection holds the lock."""
    return getattr(error, "sqlite_errorname", "").startswith(("SQLITE_BUSY", "SQLITE_LOCKED"))


def busy_or_damaged(error: BaseException) -> bool:
    """Whether another process may be writing the file, or it is damaged: no read of the
    main file alone can be trusted then."""
    return damaged(error) or (isinstance(error, sqlite3.Error) and busy(error))


def damaged(error: BaseException) -> bool:
    """Whether `error`, met opening the file, means the file is damaged or not kaldoku's."""
    if isinstance(error, (UnusableDatabase, UnicodeDecodeError)):
        return True
    return isinstance(error, sqlite3.DatabaseError) and (
        getattr(error, "sqlite_errorname", "") in DAMAGED
        or str(error) in ("file is not a database", "database disk image is malformed",
                          "unsupported file format"))


def ago(span: timedelta) -> str:
    """The moment `span` ago, as the store writes moments (ISO, UTC, to the second)."""
    return (datetime.now(timezone.utc) - span).isoformat(timespec="seconds")


class SQLiteStore(Store):
    """One player's view of the database of one data directory (or, with none, in memory)."""

    def __init__(self, location: str | os.PathLike | None, player: str = LOCAL) -> None:
        self.who = player
        self.path: Path | None = None
        if location is not None:
            chosen = Path(location)
            self.path = chosen if chosen.suffix == ".db" or chosen.is_file() else chosen / DB_FILE
        self.owner = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        """This process, as the owner of the games it plays."""
        self.lock = threading.RLock()
        """One connection, shared by the UI and the bank's thread, one use at a time."""
        self.notices: list[str] = []
        self.saving = True
        self.memory = False
        self.reading_only = False
        """Whether `conn` only reads the file, which cannot be written now."""
        self.conn: sqlite3.Connection | None = self.connect()
        """None while the file cannot be opened (each write tries again)."""

    @property
    def player(self) -> str:
        return self.who

    @property
    def directory(self) -> Path | None:
        """The data directory (None in memory)."""
        return self.path.parent if self.path is not None else None

    # Opening.

    def connect(self) -> sqlite3.Connection | None:
        """The database, made ready; what went wrong on the way is in `notices`."""
        if self.path is None:
            self.saving, self.memory = False, True
            return self.fresh(":memory:")
        directory = self.path.parent
        check_directory(directory)
        try:
            directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        except OSError as error:
            # No directory to try again in: play on in memory, as with no data directory.
            self.saving, self.memory = False, True
            self.notices.append(f"Saving is off: cannot make {directory} ({error.strerror}).")
            return self.fresh(":memory:")
        check_file(self.path)
        for attempt in range(2):
            try:
                return self.ready()
            except UnsafeDirectory:
                raise
            except (sqlite3.Error, OSError, UnusableDatabase, UnicodeDecodeError) as error:
                if not damaged(error) or attempt:
                    # Busy, full or failing: the file is left as it is, to be tried again.
                    self.saving = False
                    self.notices.append(saving_off_at_start(error))
                    return None if busy_or_damaged(error) else self.read_only()
                self.notices.append(set_aside(self.path, why(error)))
        return None

    def read_only(self) -> sqlite3.Connection | None:
        """The file opened to be read only, with no write of its own (no WAL index), so
        that the games stay in view while it cannot be written: only when no other
        process has moves in its log (an empty or absent -wal file), as such a read sees
        just the main file. None when it cannot be read so."""
        assert self.path is not None
        wal = Path(f"{self.path}-wal")
        try:
            if not self.path.is_file() or (wal.exists() and wal.stat().st_size > 0):
                return None
            conn = sqlite3.connect(f"{self.path.resolve().as_uri()}?mode=ro&immutable=1", uri=True,
                                   check_same_thread=False, isolation_level=None)
        except (OSError, sqlite3.Error):
            return None
        try:
            if version_of(conn) == SCHEMA_VERSION and not missing_tables(conn):
                self.reading_only = True
                return conn
        except (sqlite3.Error, UnusableDatabase, UnicodeDecodeError):
            pass
        conn.close()
        return None

    def fresh(self, target: str) -> sqlite3.Connection:
        conn = sqlite3.connect(target, timeout=BUSY_TIMEOUT, check_same_thread=False,
                               isolation_level=None)
        with transaction(conn):
            create(conn)
        return conn

    def ready(self) -> sqlite3.Connection:
        """Open the database file, check it and bring its tables up to date."""
        assert self.path is not None
        check_file(self.path)
        conn = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT, check_same_thread=False,
                               isolation_level=None)
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=FULL")
            # No quick_check: it reads the whole file (80 ms of a start with 2,000 games);
            # a damaged header fails here, damage further in fails a read or a write.
            if version_of(conn) < SCHEMA_VERSION:
                with transaction(conn):
                    upgrade(conn)
            missing = missing_tables(conn)
            if missing:
                raise UnusableDatabase(f"table {missing[0]} is missing")
            # A read-only file fails here and not at the first move; a full disk leaves the
            # database as it is, to be read, and saving off until there is room.
            try:
                with transaction(conn):
                    conn.execute("INSERT OR REPLACE INTO meta VALUES ('opened', ?)", (base.now_iso(),))
            except sqlite3.OperationalError as error:
                if damaged(error):
                    raise
                self.saving = False
                self.notices.append(saving_off_at_start(error))
        except BaseException:
            conn.close()
            raise
        conn.execute(f"PRAGMA busy_timeout = {int(LOCK_WAIT * 1000)}")
        return conn

    def close(self) -> None:
        with self.lock:
            if self.conn is not None:
                self.conn.close()
                self.conn = None

    # Reading and writing.

    def transact(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """Run `work` in one transaction, committed; Unavailable (from the failure) when
        nothing was committed, the file not opened yet included. TakenOver passes through."""
        with self.lock:
            if self.conn is None or self.reading_only:
                try:
                    conn = self.ready()
                except (sqlite3.Error, OSError, UnusableDatabase, UnicodeDecodeError) as error:
                    raise Unavailable(why(error)) from error
                if self.conn is not None:
                    self.conn.close()
                self.conn, self.reading_only = conn, False
            wait = BUSY_TIMEOUT if self.saving else PAUSED_TIMEOUT
            deadline = time.monotonic() + wait
            while True:
                try:
                    with transaction(self.conn):
                        return work(self.conn)
                except sqlite3.OperationalError as error:
                    # SQLite's own wait sleeps up to 100 ms between tries, so a writer can
                    # starve behind busier ones; trying again every few ms takes turns.
                    if busy(error) and time.monotonic() < deadline:
                        time.sleep(random.uniform(0.001, 0.004))
                        continue
                    raise Unavailable(why(error)) from error
                except (sqlite3.Error, OSError, OverflowError) as error:
                    raise Unavailable(why(error)) from error

    def change(self, work: Callable[[sqlite3.Connection], T]) -> tuple[T | None, str | None]:
        """`work` written; its result (None when it failed) and a notice when saving stops
        or comes back."""
        try:
            result = self.transact(work)
        except Unavailable as error:
            return None, self.written(error.__cause__ or error)
        return result, self.written(None)

    def rows(self, query: str, *args: Any) -> list[tuple]:
        """The rows `query` gives; StoreError when they cannot be read (damage, a busy
        file past the timeout, no file)."""
        with self.lock:
            if self.conn is None:
                raise StoreError("the saved games cannot be read now")
            params = args[0] if len(args) == 1 and isinstance(args[0], Mapping) else args
            try:
                return self.conn.execute(query, params).fetchall()
            except (sqlite3.Error, OverflowError) as error:
                raise StoreError(why(error)) from error

    def rows_or_none(self, query: str, *args: Any) -> list[tuple]:
        """As `rows`, but none when they cannot be read: for what the game shows beside
        play (records, settings), which a damaged store must not stop."""
        try:
            return self.rows(query, *args)
        except StoreError:
            return []

    # Games.

    def new_game(self, puzzle: Puzzle, kind: GameKind,
                 daily: date | None = None) -> tuple[SQLiteJournal, str | None]:
        text = json.dumps(puzzle_to_dict(puzzle), separators=(",", ":"))
        journal = SQLiteJournal(self, None, text, kind.key, daily.isoformat() if daily else None)
        game_id, notice = self.change(journal.insert)
        journal.game_id = game_id
        return journal, notice

    def open_games(self) -> list[OpenGame]:
        try:
            found = self.rows(
                "SELECT id, kind, daily, max(touched, coalesce((SELECT at FROM moves WHERE "
                "game = id ORDER BY seq DESC LIMIT 1), '')) AS last FROM games "
                "WHERE player = ? AND outcome IS NULL ORDER BY last DESC, id DESC", self.player)
        except StoreError as error:
            if not damaged(error.__cause__ or error) or self.path is None or self.memory:
                self.notices.append(f"The games in progress cannot be read ({error}).")
                return []
            # The file is damaged: set aside whole, as at start, and a new one made.
            with self.lock:
                if self.conn is not None:
                    self.conn.close()
                self.notices.append(set_aside(self.path, why(error.__cause__ or error)))
                self.conn = self.connect()
            return []
        return [OpenGame(game_id, str(key), day(daily), str(last))
                for game_id, key, daily, last in found]

    def resume(self, game_id: int) -> Resumed:
        def claim(c: sqlite3.Connection) -> int:
            return c.execute("UPDATE games SET owner = ? WHERE id = ? AND player = ? AND "
                             "outcome IS NULL", (self.owner, game_id, self.player)).rowcount
        claimed, notice = self.change(claim)
        if claimed == 0:
            raise StoreError(f"no game {game_id} in progress")
        saved = self.game(game_id, from_snapshot=True)
        if saved is None or saved.outcome is not None:
            raise StoreError(f"no game {game_id} in progress")
        journal = SQLiteJournal(self, game_id, "", saved.kind.key, claim=claimed is None)
        return Resumed(saved, journal, notice)

    def game(self, game_id: int, from_snapshot: bool = False) -> SavedGame | None:
        try:
            return self.read_game(game_id, from_snapshot)
        except StoreError as error:
            raise GameDamaged(str(error)) from None
        except (PuzzleError, ValueError, TypeError, RecursionError) as error:
            raise GameDamaged(str(error)[:200]) from None

    def read_game(self, game_id: int, from_snapshot: bool) -> SavedGame | None:
        found = self.rows("SELECT puzzle, kind, elapsed, outcome, daily, sum FROM games "
                          "WHERE id = ? AND player = ?", game_id, self.player)
        if not found:
            return None
        puzzle_text, key, elapsed, outcome, daily, total = found[0]
        if total is not None and total != checksum(puzzle_text, key):
            raise ValueError("the game's puzzle is damaged")
        kind = GameKind.from_key(key)
        if kind is None:
            raise ValueError(f"unknown kind of game {str(key)[:40]!r}")
        if not finite(elapsed):
            raise ValueError(f"time played {str(elapsed)[:20]!r} is not a time")
        start, snapshot = 0, None
        for seq, state, total in self.rows("SELECT seq, state, sum FROM snapshots WHERE game = ?",
                                           game_id) if from_snapshot else ():
            if total != checksum(seq, state) or not isinstance(seq, int):
                raise ValueError("the game's snapshot is damaged")
            start, snapshot = seq, json.loads(state)
        moves: list[Any] = []
        for seq, text, move_elapsed, total in self.rows(
                "SELECT seq, move, elapsed, sum FROM moves WHERE game = ? AND seq > ? ORDER BY seq",
                game_id, start):
            if seq != start + len(moves) + 1:
                raise ValueError(f"move {start + len(moves) + 1} is missing")
            if total is not None and total != checksum(seq, text):
                raise ValueError(f"move {seq} is damaged")
            if not finite(move_elapsed):
                raise ValueError(f"move {seq}'s time is not a time")
            elapsed = max(elapsed, move_elapsed)
            moves.append(json.loads(text))
        puzzle = puzzle_from_dict(json.loads(puzzle_text))
        if puzzle.solution is None:
            raise ValueError("the saved puzzle has no solution")
        if GameKind.of(puzzle).size != kind.size:
            raise ValueError(f"a {puzzle.size}×{puzzle.size} puzzle saved as {kind.describe()}")
        return SavedGame(game_id, puzzle, kind, float(elapsed), moves, outcome, day(daily),
                         snapshot, start)

    def move_log(self, game_id: int) -> list[dict[str, Any]] | None:
        if not self.rows("SELECT 1 FROM games WHERE id = ? AND player = ?", game_id, self.player):
            return None
        log = []
        for seq, text, elapsed, at in self.rows(
                "SELECT seq, CAST(move AS BLOB), moves.elapsed, CAST(at AS BLOB) FROM moves "
                "JOIN games ON id = game WHERE game = ? AND player = ? ORDER BY seq",
                game_id, self.player):
            at = at.decode("utf-8", "replace") if isinstance(at, bytes) else at
            try:
                record = json.loads(text.decode("utf-8"))
            except (ValueError, TypeError, AttributeError, RecursionError):
                record = None  # kept in its place: the numbers show the gap
            log.append({"seq": seq, "elapsed": elapsed, "at": at,
                        **(record if isinstance(record, dict) else {"move": None})})
        return log

    def set_game_aside(self, game_id: int, reason: str) -> str:
        self.change(lambda c: c.execute(
            "UPDATE games SET outcome = 'damaged', ended = ? WHERE id = ? AND player = ?",
            (base.now_iso(), game_id, self.player)))
        return (f"A saved game could not be resumed ({reason[:200]}); it is kept aside, "
                "starting afresh.")

    # Records.

    def records(self) -> list[tuple[GameKind, Record]]:
        unaided_win = f"outcome = 'won' AND {WHOLE.format('checks + hints + reveals')} = 0"
        rows = self.rows_or_none(f"""
            WITH counted AS (
                SELECT kind, outcome = 'won' AS won, {unaided_win} AS unaided,
                       CASE WHEN {NUMBER.format('elapsed')} THEN elapsed END AS time
                FROM games WHERE player = :player AND outcome IN {COUNTED}),
            totals AS (
                SELECT kind, count(*) AS played, sum(won) AS won, sum(unaided) AS unaided,
                       min(CASE WHEN unaided THEN time END) AS best
                FROM counted GROUP BY kind),
            wins AS (
                SELECT kind, time, row_number() OVER (PARTITION BY kind ORDER BY time) AS n,
                       count(*) OVER (PARTITION BY kind) AS c
                FROM counted WHERE unaided AND time IS NOT NULL),
            medians AS (
                SELECT kind, avg(time) AS median FROM wins
                WHERE n IN ((c + 1) / 2, (c + 2) / 2) GROUP BY kind),
            old AS (
                SELECT kind, {WHOLE.format('played')} AS played, {WHOLE.format('won')} AS won,
                       {WHOLE.format('unaided')} AS unaided,
                       CASE WHEN {NUMBER.format('best')} THEN best END AS best
                FROM carried WHERE player = :player)
            SELECT kind, coalesce(t.played, 0) + coalesce(o.played, 0),
                   coalesce(t.won, 0) + coalesce(o.won, 0),
                   coalesce(t.unaided, 0) + coalesce(o.unaided, 0),
                   min(coalesce(t.best, o.best), coalesce(o.best, t.best)), m.median
            FROM (SELECT kind FROM totals UNION SELECT kind FROM old)
                 LEFT JOIN totals AS t USING (kind) LEFT JOIN old AS o USING (kind)
                 LEFT JOIN medians AS m USING (kind)""", {"player": self.player})
        found = []
        for key, played, won, unaided, best, median in rows:
            kind = GameKind.from_key(key) if isinstance(key, str) else None
            if kind is not None:
                found.append((kind, Record(played, won, unaided,
                                           round(best, 1) if best is not None else None,
                                           round(median, 1) if median is not None else None)))
        return sorted(found, key=lambda item: item[0].order())

    def daily_days(self) -> set[date]:
        return {found for (text,) in self.rows_or_none(
                    "SELECT daily FROM games WHERE player = ? AND outcome = 'won' "
                    "AND daily = substr(started, 1, 10)", self.player)
                if (found := day(text)) is not None}

    def win_times(self, kind: GameKind, count: int = RECENT) -> list[float]:
        rows = self.rows_or_none(
            f"SELECT elapsed FROM games WHERE player = ? AND kind = ? AND outcome = 'won' "
            f"AND {NUMBER.format('elapsed')} ORDER BY ended DESC, id DESC LIMIT ?",
            self.player, kind.key, count)
        return [float(t) for (t,) in reversed(rows)]

    def history(self, count: int | None = None, offset: int = 0) -> list[PastGame]:
        rows = self.rows(
            "SELECT id, puzzle, kind, started, outcome, elapsed, "
            f"{WHOLE.format('checks + hints + reveals')}, daily FROM games "
            "WHERE player = ? AND outcome IS NOT 'skipped' ORDER BY started DESC, id DESC "
            "LIMIT ? OFFSET ?", self.player, -1 if count is None else count, offset)
        return [PastGame(game_id, str(puzzle), str(key), str(started),
                         outcome if isinstance(outcome, str) else None,
                         float(elapsed) if finite(elapsed) else 0.0, bool(helped), day(daily))
                for game_id, puzzle, key, started, outcome, elapsed, helped, daily in rows]

    # Leaderboards.

    def standings(self, where: str, args: tuple, count: int) -> list[Standing]:
        rows = self.rows_or_none(
            "SELECT rank() OVER (ORDER BY best), player, name, best FROM ("
            "  SELECT player, min(elapsed) AS best FROM games WHERE outcome = 'won' AND "
            f"  {WHOLE.format('checks + hints + reveals')} = 0 AND {NUMBER.format('elapsed')} "
            f"  AND {where} GROUP BY player) LEFT JOIN players ON players.id = player "
            "ORDER BY best, player LIMIT ?", *args, count)
        return [Standing(rank, name if isinstance(name, str) else default_name(player), float(best))
                for rank, player, name, best in rows]

    def daily_leaderboard(self, when: date, count: int = 20) -> list[Standing]:
        return self.standings("daily = ? AND substr(started, 1, 10) = daily",
                              (when.isoformat(),), count)

    def kind_leaderboard(self, kind: GameKind, count: int = 20) -> list[Standing]:
        return self.standings("kind = ?", (kind.key,), count)

    def display_name(self) -> str:
        found = self.rows_or_none("SELECT name FROM players WHERE id = ?", self.player)
        return found[0][0] if found and isinstance(found[0][0], str) else default_name(self.player)

    def set_display_name(self, name: str) -> str | None:
        return self.change(lambda c: c.execute("INSERT OR REPLACE INTO players VALUES (?, ?)",
                                               (self.player, name[:40])))[1]

    def name_holder(self, name: str) -> str | None:
        found = self.rows("SELECT id FROM players WHERE lower(name) = lower(?) LIMIT 1", name)
        return found[0][0] if found else None

    # Races.

    def race_open(self, kind: str, code: str) -> str:
        def open_race(c: sqlite3.Connection) -> str:
            stale = ago(START_WITHIN)
            c.execute("DELETE FROM race_players WHERE race IN "
                      "(SELECT name FROM races WHERE started IS NULL AND opened <= ?)", (stale,))
            c.execute("DELETE FROM races WHERE started IS NULL AND opened <= ?", (stale,))
            while True:
                name = race_name()
                if not c.execute("SELECT 1 FROM races WHERE name = ?", (name,)).fetchone():
                    break
            c.execute("INSERT INTO races VALUES (?, ?, ?, ?, ?, NULL)",
                      (name, self.player, kind, code, now_iso()))
            c.execute("INSERT INTO race_players (race, player) VALUES (?, ?)", (name, self.player))
            return name

        return self.transact(open_race)

    def race_join(self, name: str) -> Race | None:
        key = race_key(name)
        if key is None:
            return None

        def join(c: sqlite3.Connection) -> None:
            c.execute("INSERT OR IGNORE INTO race_players (race, player) SELECT name, ? FROM races "
                      "WHERE name = ? AND started IS NULL AND opened > ?", (self.player, key, ago(START_WITHIN)))

        self.transact(join)
        race = self.race(key)
        return race if race is not None and race.me is not None else None

    def race_start(self, name: str) -> bool:
        self.transact(lambda c: c.execute(
            "UPDATE races SET started = ? WHERE name = ? AND opener = ? AND started IS NULL AND opened > ?",
            (now_iso(), race_key(name), self.player, ago(START_WITHIN))))
        race = self.race(name)
        return race is not None and race.started

    def race_progress(self, name: str, filled: int, seconds: float | None) -> None:
        self.transact(lambda c: c.execute(
            "UPDATE race_players SET filled = ?, seconds = coalesce(seconds, ?) "
            "WHERE race = ? AND player = ?", (filled, seconds, race_key(name), self.player)))

    def race(self, name: str) -> Race | None:
        key = race_key(name)
        found = self.rows("SELECT r.name, r.opener, r.kind, r.code, r.started, p.name FROM races r "
                          "LEFT JOIN players p ON p.id = r.opener "
                          "WHERE r.name = ? AND (r.started IS NOT NULL OR r.opened > ?)", key, ago(START_WITHIN))
        if not found:
            return None
        racers = self.rows("SELECT r.player, r.filled, r.seconds, p.name FROM race_players r "
                           "LEFT JOIN players p ON p.id = r.player WHERE r.race = ?", key)
        return race_of(found[0], racers, self.player, chosen_name)

    def races_to_rejoin(self) -> list[Race]:
        names = self.rows_or_none(
            "SELECT r.name FROM races r JOIN race_players p ON p.race = r.name "
            "WHERE p.player = ? AND r.started IS NOT NULL AND p.seconds IS NULL AND r.opened > ? "
            "ORDER BY r.opened DESC LIMIT 3", self.player, ago(REJOIN_WITHIN))
        return [race for (name,) in names if (race := self.race(name)) is not None]

    # Settings.

    def settings(self) -> dict[str, Any]:
        found = {}
        for key, value in self.rows_or_none("SELECT key, value FROM settings WHERE player = ?",
                                            self.player):
            try:
                found[str(key)] = json.loads(value)
            except (ValueError, TypeError, RecursionError):
                continue
        return found

    def save_settings(self, settings: Mapping[str, Any]) -> str | None:
        rows = [(self.player, key, json.dumps(value)) for key, value in settings.items()]
        return self.change(lambda c: c.executemany(
            "INSERT OR REPLACE INTO settings VALUES (?, ?, ?)", rows))[1]

    # Ready puzzles.

    def bank_add(self, kind: GameKind, puzzle: Puzzle) -> None:
        text = json.dumps(puzzle_to_dict(puzzle), separators=(",", ":"))
        self.change(lambda c: c.execute("INSERT INTO bank (kind, puzzle, player) VALUES (?, ?, ?)",
                                        (kind.key, text, self.player)))

    def bank_pop(self, kind: GameKind) -> str | None:
        def take(c: sqlite3.Connection) -> str | None:
            row = c.execute("DELETE FROM bank WHERE id = (SELECT min(id) FROM bank WHERE "
                            "player = ? AND kind = ?) RETURNING puzzle",
                            (self.player, kind.key)).fetchone()
            return row[0] if row else None
        return self.change(take)[0]

    def bank_rows(self) -> list[tuple[Any, Any]]:
        return self.rows_or_none("SELECT kind, count(*) FROM bank WHERE player = ? GROUP BY kind",
                                 self.player)

    # Moving house from kaldoku 0.1.0.

    def legacy_done(self) -> bool:
        return bool(self.rows_or_none("SELECT 1 FROM meta WHERE key = 'legacy'"))

    def carry_over(self, data: LegacyData) -> tuple[bool, str | None]:
        def write(c: sqlite3.Connection) -> bool:
            if c.execute("SELECT 1 FROM meta WHERE key = 'legacy'").fetchone():
                return False  # Another kaldoku carried them over meanwhile.
            if data.game is not None:
                puzzle, key, elapsed, records = data.game
                text, stamp = json.dumps(puzzle_to_dict(puzzle), separators=(",", ":")), base.now_iso()
                game_id = c.execute(
                    "INSERT INTO games (puzzle, kind, started, touched, elapsed, player, sum) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (text, key, stamp, stamp, elapsed, self.player, checksum(text, key))).lastrowid
                moves = [json.dumps(record, separators=(",", ":")) for record in records]
                c.executemany("INSERT INTO moves VALUES (?, ?, ?, ?, ?, ?)",
                              [(game_id, seq, move, elapsed, stamp, checksum(seq, move))
                               for seq, move in enumerate(moves, 1)])
            c.executemany("INSERT OR REPLACE INTO carried VALUES (?, ?, ?, ?, ?, ?)",
                          [(self.player, *row) for row in data.carried])
            c.executemany("INSERT OR REPLACE INTO settings VALUES (?, ?, ?)",
                          [(self.player, key, json.dumps(value)) for key, value in data.settings.items()])
            c.executemany("INSERT INTO bank (kind, puzzle, player) VALUES (?, ?, ?)",
                          [(key, text, self.player) for key, text in data.bank])
            c.execute("INSERT INTO meta VALUES ('legacy', ?)", (f"0.1.0 imported {base.now_iso()}",))
            return True
        done, notice = self.change(write)
        return bool(done), notice


def saving_off_at_start(error: BaseException) -> str:
    """What to tell the player when the store cannot be written from the start."""
    when = "there is room" if getattr(error, "sqlite_errorname", "") == "SQLITE_FULL" else "it can"
    return f"Saving is off: {why(error)}. Your moves are kept and saved when {when}."


def chosen_name(player: str, chosen: str | None) -> str:
    """The name `player` is shown by: the one chosen, else the default."""
    return chosen if isinstance(chosen, str) and chosen else default_name(player)


def default_name(player: str) -> str:
    """The name a player is shown by until they choose one."""
    kind, _, rest = player.partition(":")
    if kind == "name":
        return rest
    if kind == "key":
        return f"player {rest.removeprefix('SHA256:')[:8]}"
    return kind


class transaction:
    """BEGIN IMMEDIATE ... COMMIT (or ROLLBACK on an error): one durable change."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def __enter__(self) -> sqlite3.Connection:
        self.conn.execute("BEGIN IMMEDIATE")
        return self.conn

    def __exit__(self, kind: type | None, *_: Any) -> None:
        try:
            if kind is None:
                self.conn.execute("COMMIT")
        finally:
            # A COMMIT that fails (a full disk) leaves the transaction open: end it here.
            if self.conn.in_transaction:
                try:
                    self.conn.execute("ROLLBACK")
                except sqlite3.Error:
                    pass  # SQLite rolled back already; the first error is the one to tell.


__all__ += ["BUSY_TIMEOUT", "LAST_SEQ"]
