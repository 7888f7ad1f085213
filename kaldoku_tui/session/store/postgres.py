"""A store in a PostgreSQL database, shared by any number of players and processes
(`--store postgresql://...` or KALDOKU_STORE), through psycopg 3.

Every row has its player; a store reads and writes only its own player's. The tables are
made, or brought up to date, when a store opens (a schema version table, under an advisory
lock so that two kaldokus starting at once do it once). Each move is committed at once with
synchronous_commit on, so it is durable before the next key. A game belongs to the process
that last claimed it: the claim locks the game's row, so a journal still writing from an
older window waits, then finds the game taken over and writes nothing more. Resuming claims
first and reads after, in the same transaction, so the board resumed is exactly the board
saved.

A busy or unreachable server (a lock held past LOCK_WAIT, a dropped connection, a full
disk) is tried again briefly; then saving is off with a notice and the moves are kept, to be
written with the next write that succeeds. Nothing is ever set aside for being busy: only a
game that cannot be read whole is marked damaged (kept, never deleted).
"""

from __future__ import annotations

import json
import os
import socket
import threading
import time
import uuid
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any, Callable, Mapping, Sequence, TypeVar

import psycopg
from psycopg import errors, sql
from psycopg.abc import Buffer
from psycopg.types.string import StrDumperUnknown

from kaldoku_tui.engine.formats import puzzle_from_dict, puzzle_to_dict
from kaldoku_tui.engine.kinds import GameKind
from kaldoku_tui.engine.puzzle import Puzzle, PuzzleError
from kaldoku_tui.session.store.journal import LAST_SEQ, checksum
from kaldoku_tui.session.store.sqlite import chosen_name, default_name
from kaldoku_tui.session.store.base import (
    COUNTED, RECENT, GameDamaged, GameJournal, LegacyData, OpenGame, PastGame, PendingMove,
    Race, Record, Resumed, SavedGame, Standing, Store, StoreError, TakenOver, Unavailable, finite,
    REJOIN_WITHIN, START_WITHIN, now_iso, race_key, race_name, race_of,
)

SCHEMA_VERSION = 2
CONNECT_TIMEOUT = 5
"""Seconds to reach the server before the store counts as unreachable."""
LOCK_WAIT = "1s"
"""How long a write waits for a row another process holds before it is tried again."""
RETRIES = (0.05, 0.2, 0.5, 1.0)
"""Pauses (seconds) after each try of a write the server could not do at once."""
PAUSED_WAIT = "200ms"
"""How long a write waits for a row while saving is off."""
RECONNECT_EVERY = 5.0
"""Seconds between tries to reach a server that could not be reached."""
BUSY_FOR = 2.0
"""Seconds a write keeps trying before saving is off (the moves are kept) and the player
is told."""
MIGRATION_LOCK = 0x6B616C64
"""The advisory lock (with the schema's name) held while the tables are made or migrated."""

SCHEMA = """
CREATE TABLE kaldoku_schema (version integer NOT NULL);
CREATE TABLE players (
    player text PRIMARY KEY,
    name text
);
CREATE INDEX players_name ON players (lower(name));
CREATE TABLE games (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    player text NOT NULL,
    puzzle text NOT NULL,
    kind text NOT NULL,
    started timestamptz NOT NULL,
    touched timestamptz NOT NULL,
    ended timestamptz,
    outcome text,
    elapsed double precision NOT NULL DEFAULT 0,
    checks integer NOT NULL DEFAULT 0,
    hints integer NOT NULL DEFAULT 0,
    reveals integer NOT NULL DEFAULT 0,
    owner text,
    daily date,
    last_seq bigint NOT NULL DEFAULT 0,
    sum bigint,
    snapshot text,
    snapshot_seq bigint,
    snapshot_sum bigint
) WITH (fillfactor = 80);
CREATE INDEX games_player ON games (player, outcome);
CREATE INDEX games_history ON games (player, started, id);
CREATE INDEX games_wins ON games (player, kind, ended) WHERE outcome = 'won';
CREATE INDEX games_daily_wins ON games (player, daily) WHERE outcome = 'won' AND daily IS NOT NULL;
CREATE INDEX games_daily ON games (daily) WHERE outcome = 'won';
CREATE INDEX games_kind ON games (kind) WHERE outcome = 'won';
CREATE TABLE moves (
    game bigint NOT NULL REFERENCES games (id),
    seq bigint NOT NULL,
    move text NOT NULL,
    elapsed double precision NOT NULL,
    at timestamptz NOT NULL,
    sum bigint NOT NULL,
    PRIMARY KEY (game, seq)
);
CREATE TABLE settings (
    player text NOT NULL,
    key text NOT NULL,
    value text NOT NULL,
    PRIMARY KEY (player, key)
);
CREATE TABLE bank (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    player text NOT NULL,
    kind text NOT NULL,
    puzzle text NOT NULL
);
CREATE INDEX bank_player_kind ON bank (player, kind, id);
CREATE TABLE carried (
    player text NOT NULL,
    kind text NOT NULL,
    played integer NOT NULL,
    won integer NOT NULL,
    unaided integer NOT NULL,
    best double precision,
    PRIMARY KEY (player, kind)
);
CREATE TABLE legacy (
    player text PRIMARY KEY,
    carried timestamptz NOT NULL
);
CREATE TABLE races (
    name text PRIMARY KEY,
    opener text NOT NULL,
    kind text NOT NULL,
    code text NOT NULL,
    opened timestamptz NOT NULL,
    started timestamptz
);
CREATE TABLE race_players (
    race text NOT NULL REFERENCES races (name),
    player text NOT NULL,
    filled integer NOT NULL DEFAULT 0,
    seconds double precision,
    PRIMARY KEY (race, player)
)
"""
"""games: as in the SQLite store, with the player; last_seq is the number of the game's
last move (kept on the row, whose lock orders the writers of one game), snapshot the game's
state after move snapshot_seq. The sums are the SQLite store's checksums (of puzzle and
kind, seq and move, snapshot_seq and snapshot): a row changed inside is found. legacy: the
players whose kaldoku 0.1.0 files were carried over. races and race_players: as in the
SQLite store, shared by every server of the store. No index holds a column a move
changes (last_seq, touched), so a move's update of its game's row is a heap-only one, in
the room fillfactor leaves on the row's page."""

MIGRATIONS: dict[int, tuple[str, ...]] = {
    1: tuple(s for s in SCHEMA.split(";") if s.strip().startswith(
        ("CREATE TABLE races", "CREATE TABLE race_players"))),
}
"""The statements that bring schema N to N + 1, keeping all it holds."""

TRANSIENT = (errors.LockNotAvailable, errors.SerializationFailure, errors.DeadlockDetected,
             errors.TooManyConnections, errors.AdminShutdown, errors.CannotConnectNow,
             psycopg.OperationalError)
"""What a busy or briefly unreachable server answers: worth trying again."""

T = TypeVar("T")
Work = Callable[[psycopg.Connection], T]


class TextDumper(StrDumperUnknown):
    """Text as PostgreSQL can keep it: a NUL (which text cannot hold, and only hostile
    input has) becomes U+FFFD instead of failing the write."""

    def dump(self, obj: str) -> Buffer | None:
        return super().dump(obj.replace("\x00", "\ufffd"))


def where(url: str) -> str:
    """The server and database a URL names, for messages (never its password)."""
    try:
        found = psycopg.conninfo.conninfo_to_dict(url)
    except psycopg.Error:
        return "the PostgreSQL store (its URL cannot be read)"
    host = str(found.get("host") or "localhost")
    port = f":{found['port']}" if found.get("port") else ""
    return f"PostgreSQL database {found.get('dbname') or found.get('user') or '?'} on {host}{port}"


def one_line(error: BaseException, url: str = "") -> str:
    """A server's or libpq's error in one short line (`url`, password and all, left out)."""
    lines = (str(error).replace(url, "the URL") if url else str(error)).strip().splitlines()
    text = lines[0] if lines else type(error).__name__
    return "".join(ch if ch.isprintable() else "?" for ch in text[:200])


def value(cursor: psycopg.Cursor) -> Any:
    """The first column of the row a statement returns (a DataError when there is none)."""
    row = cursor.fetchone()
    if row is None:
        raise psycopg.DataError("the server returned no row")
    return row[0]


def loads(text: str, what: str) -> Any:
    """The JSON `text` of `what`; GameDamaged when it cannot be read."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        raise GameDamaged(f"{what} cannot be read") from None


@dataclass(frozen=True)
class StoredGame:
    """A game's rows as read: (puzzle, kind, elapsed, outcome, daily, last_seq, sum), the
    snapshot (state, seq, sum) or None, and the moves (seq, move, elapsed, sum)."""

    row: tuple
    snapshot: tuple | None
    moves: list[tuple]


def iso(moment: datetime | None) -> str | None:
    return moment.isoformat(timespec="seconds") if moment is not None else None


class PostgresStore(Store):
    """One player's view of a PostgreSQL database."""

    def __init__(self, url: str, player: str) -> None:
        self.url = url
        self._player = player
        self.notices = []
        self.saving = True
        self.memory = False
        self.owner = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        """This process, as the owner of the games it plays."""
        self.lock = threading.RLock()
        """One connection, shared by the UI and the bank's thread, one use at a time."""
        self.conn: psycopg.Connection | None = None
        self.reconnect_at = 0.0
        """Before this moment (time.monotonic) a broken connection is not made again."""
        self.closed = False
        """Closed for good: nothing more is read or written."""
        self.conn = self.connect()
        self.migrate()

    @property
    def player(self) -> str:
        return self._player

    # The connection.

    def connect(self) -> psycopg.Connection:
        """A connection made ready (UTC, durable commits, bounded lock waits); StoreError
        in one line when the server cannot be reached or the URL is wrong."""
        try:
            conn = psycopg.connect(self.url, autocommit=False, connect_timeout=CONNECT_TIMEOUT,
                                   application_name="kaldoku")
        except (psycopg.Error, ValueError) as error:
            raise StoreError(f"cannot reach {where(self.url)}: {one_line(error, self.url)}") from None
        conn.adapters.register_dumper(str, TextDumper)
        try:
            with conn.transaction():
                # A server set up with synchronous_commit off would lose the last moves.
                conn.execute("SET synchronous_commit = on")
                conn.execute("SET TIME ZONE 'UTC'")
                conn.execute(sql.SQL("SET lock_timeout = {}").format(LOCK_WAIT))
        except psycopg.Error as error:
            conn.close()
            raise StoreError(f"cannot use {where(self.url)}: {one_line(error)}") from None
        return conn

    def connection(self) -> psycopg.Connection:
        """The connection, made again when the last one broke (not more often than every
        RECONNECT_EVERY seconds: reaching a vanished server can take CONNECT_TIMEOUT)."""
        if self.conn is None or self.conn.closed or self.conn.broken:
            if self.conn is not None:
                self.conn.close()
            self.conn = None
            if self.closed:
                raise StoreError("the store is closed")
            if time.monotonic() < self.reconnect_at:
                raise StoreError(f"{where(self.url)} cannot be reached now")
            self.reconnect_at = time.monotonic() + RECONNECT_EVERY
            self.conn = self.connect()
        return self.conn

    def migrate(self) -> None:
        """Make the tables, or bring them to SCHEMA_VERSION, once whoever else starts now."""
        conn = self.connection()
        try:
            with conn.transaction():
                if self.version(conn) == SCHEMA_VERSION:
                    return
            # A session lock, taken before the transaction that reads the version: a new
            # transaction sees the tables another kaldoku made while this one waited.
            with conn.transaction():
                conn.execute("SELECT pg_advisory_lock(%s, hashtext(current_schema()))",
                             (MIGRATION_LOCK,))
            try:
                with conn.transaction():
                    self.upgrade(conn)
            finally:
                with conn.transaction():
                    conn.execute("SELECT pg_advisory_unlock(%s, hashtext(current_schema()))",
                                 (MIGRATION_LOCK,))
        except psycopg.Error as error:
            self.close()
            raise StoreError(f"cannot set up {where(self.url)}: {one_line(error)}") from None
        except StoreError:
            self.close()
            raise

    def upgrade(self, conn: psycopg.Connection) -> None:
        """Make the tables (an empty database) or migrate them to SCHEMA_VERSION."""
        version = self.version(conn)
        if version is None:
            for statement in SCHEMA.split(";"):
                conn.execute(statement)
            conn.execute("INSERT INTO kaldoku_schema VALUES (%s)", (SCHEMA_VERSION,))
        elif version > SCHEMA_VERSION:
            raise StoreError(f"{where(self.url)} was made by a newer kaldoku "
                             f"(schema {version}); update kaldoku to use it")
        else:
            for step in range(version, SCHEMA_VERSION):
                for statement in MIGRATIONS[step]:
                    conn.execute(statement)
            conn.execute("UPDATE kaldoku_schema SET version = %s", (SCHEMA_VERSION,))

    @staticmethod
    def version(conn: psycopg.Connection) -> int | None:
        """The schema's version, None when it has no kaldoku tables yet."""
        if value(conn.execute("SELECT to_regclass('kaldoku_schema')")) is None:
            return None
        row = conn.execute("SELECT max(version) FROM kaldoku_schema").fetchone()
        return row[0] if row else None

    def close(self) -> None:
        with self.lock:
            self.closed = True
            if self.conn is not None:
                self.conn.close()

    def attempt(self, work: Work[T]) -> T:
        """Run `work` in one transaction, tried again for up to BUSY_FOR seconds while the
        server is busy or the connection comes back; Unavailable (from the last failure)
        when it never went. What `work` raises as a StoreError passes through."""
        with self.lock:
            # While saving is off, each write tries once and waits little: the player is
            # told already, and the moves are kept.
            deadline = time.monotonic() + (BUSY_FOR if self.saving else 0.0)
            for pause in RETRIES:
                try:
                    conn = self.connection()
                except StoreError as error:
                    failure: BaseException = error  # the server is not reachable (yet)
                else:
                    try:
                        with conn.transaction():
                            if not self.saving:
                                conn.execute(sql.SQL("SET LOCAL lock_timeout = {}").format(PAUSED_WAIT))
                            return work(conn)
                    except errors.DiskFull as error:
                        raise Unavailable(one_line(error)) from error
                    except TRANSIENT as error:
                        failure = error
                    except psycopg.Error as error:
                        # A damaged row, a value out of range: no use waiting.
                        raise Unavailable(one_line(error)) from error
                if time.monotonic() + pause > deadline:
                    break
                time.sleep(pause)
            raise Unavailable(one_line(failure)) from failure

    def write(self, work: Work[T]) -> tuple[T | None, str | None]:
        """Run `work` in one committed transaction; its result (None when it failed) and a
        notice when saving stops or comes back."""
        try:
            result = self.attempt(work)
        except Unavailable as error:
            return None, self.written(error.__cause__ or error)
        return result, self.written(None)

    def read(self, query: str, *args: Any) -> list[tuple]:
        """The rows of `query`; StoreError (one line) when the server cannot answer."""
        try:
            return self.attempt(lambda c: c.execute(query, args).fetchall())
        except Unavailable as error:
            raise StoreError(f"cannot read {where(self.url)}: {error}") from None

    def read_or_none(self, query: str, *args: Any) -> list[tuple]:
        """As `read`, but none when they cannot be read: for what the game shows beside
        play (records, settings), which an unreachable server must not stop."""
        try:
            return self.read(query, *args)
        except StoreError:
            return []

    # Games.

    def new_game(self, puzzle: Puzzle, kind: GameKind,
                 daily: date | None = None) -> tuple[GameJournal, str | None]:
        journal = PostgresJournal(self, None, puzzle, kind, daily=daily)
        return journal, journal.touch(0.0)

    def open_games(self) -> list[OpenGame]:
        try:
            found = self.read("SELECT id, kind, daily, touched FROM games WHERE player = %s "
                              "AND outcome IS NULL ORDER BY touched DESC, id DESC", self.player)
        except StoreError as error:
            self.notices.append(f"The games in progress cannot be read ({error}).")
            return []
        return [OpenGame(game_id, key, daily, iso(touched) or "")
                for game_id, key, daily, touched in found]

    def resume(self, game_id: int) -> Resumed:
        """Claim game `game_id`, then read it in the same transaction: the row stays locked
        until the read is done, so no older window writes in between. When the claim cannot
        be written (a full disk), the game is read and claimed with the next write."""
        def claim_and_read(c: psycopg.Connection) -> StoredGame | None:
            claimed = c.execute("UPDATE games SET owner = %s WHERE id = %s AND player = %s "
                                "AND outcome IS NULL", (self.owner, game_id, self.player))
            return self.stored(c, game_id, True) if claimed.rowcount else None
        claim, notice = False, None
        try:
            found = self.attempt(claim_and_read)
        except Unavailable as error:
            found = self.read_stored(game_id, True)
            claim, notice = True, self.written(error.__cause__ or error)
        if found is None or found.row[3] is not None:
            raise StoreError(f"no game {game_id} in progress")
        saved = self.saved_game(game_id, found)
        journal = PostgresJournal(self, game_id, saved.puzzle, saved.kind, daily=saved.daily,
                                  claim=claim)
        journal.last = found.row[5]
        return Resumed(saved, journal, notice)

    def game(self, game_id: int, from_snapshot: bool = False) -> SavedGame | None:
        found = self.read_stored(game_id, from_snapshot)
        return self.saved_game(game_id, found) if found is not None else None

    def read_stored(self, game_id: int, from_snapshot: bool) -> StoredGame | None:
        try:
            return self.attempt(lambda c: self.stored(c, game_id, from_snapshot))
        except Unavailable as error:
            raise StoreError(f"cannot read game {game_id}: {error}") from None

    def stored(self, c: psycopg.Connection, game_id: int, from_snapshot: bool) -> StoredGame | None:
        """Game `game_id`'s rows as stored (None when this player has no such game): the
        snapshot and the moves after it, or every move."""
        row = c.execute("SELECT puzzle, kind, elapsed, outcome, daily, last_seq, sum, snapshot, "
                        "snapshot_seq, snapshot_sum FROM games WHERE id = %s AND player = %s",
                        (game_id, self.player)).fetchone()
        if row is None:
            return None
        snapshot = row[7:] if from_snapshot and row[7] is not None else None
        start = snapshot[1] if snapshot is not None and snapshot[1] is not None else 0
        moves = c.execute("SELECT seq, move, elapsed, sum FROM moves WHERE game = %s AND seq > %s "
                          "ORDER BY seq", (game_id, start)).fetchall()
        return StoredGame(row[:7], snapshot, moves)

    def saved_game(self, game_id: int, found: StoredGame) -> SavedGame:
        """The game read whole from its rows; GameDamaged (what is wrong) when it cannot be."""
        puzzle_text, key, elapsed, outcome, daily, last, total = found.row
        if total != checksum(puzzle_text, key):
            raise GameDamaged("the game's puzzle is damaged")
        kind = GameKind.from_key(key)
        if kind is None:
            raise GameDamaged(f"unknown kind of game {str(key)[:40]!r}")
        if not finite(elapsed):
            raise GameDamaged(f"time played {elapsed!r} is not a time")
        start, state = 0, None
        if found.snapshot is not None:
            text, start, total = found.snapshot
            if start is None or total != checksum(start, text) or not 0 <= start <= last:
                raise GameDamaged("the game's snapshot is damaged")
            state = loads(text, "the game's snapshot")
        if not 0 <= last < LAST_SEQ:
            raise GameDamaged("the game's move numbers are damaged")
        records: list[Any] = []
        for seq, text, move_elapsed, total in found.moves:
            if seq != start + len(records) + 1:
                break
            if total != checksum(seq, text):
                raise GameDamaged(f"move {seq} is damaged")
            if not finite(move_elapsed):
                raise GameDamaged(f"move {seq}'s time {move_elapsed!r} is not a time")
            records.append(loads(text, f"move {seq}"))
            elapsed = max(elapsed, move_elapsed)
        if start + len(records) != last:
            raise GameDamaged(f"move {start + len(records) + 1} is missing")
        try:
            puzzle = puzzle_from_dict(json.loads(puzzle_text))
        except (PuzzleError, ValueError, TypeError, RecursionError) as error:
            raise GameDamaged(f"the puzzle cannot be read ({str(error)[:100]})") from None
        if puzzle.solution is None:
            raise GameDamaged("the saved puzzle has no solution")
        if puzzle.size != kind.size:
            raise GameDamaged(f"a {puzzle.size}×{puzzle.size} puzzle saved as {kind.describe()}")
        return SavedGame(game_id, puzzle, kind, float(elapsed), records, outcome, daily,
                         state, start)

    def move_log(self, game_id: int) -> list[dict[str, Any]] | None:
        if not self.read("SELECT 1 FROM games WHERE id = %s AND player = %s", game_id, self.player):
            return None
        log = []
        for seq, text, elapsed, at in self.read(
                "SELECT m.seq, m.move, m.elapsed, m.at FROM moves m JOIN games g ON g.id = m.game "
                "WHERE m.game = %s AND g.player = %s ORDER BY m.seq", game_id, self.player):
            try:
                record = json.loads(text)
            except (ValueError, RecursionError):
                record = None  # kept in its place: the numbers show the gap
            log.append({"seq": seq, "elapsed": elapsed, "at": iso(at),
                        **(record if isinstance(record, dict) else {"move": None})})
        return log

    def set_game_aside(self, game_id: int, reason: str) -> str:
        self.write(lambda c: c.execute(
            "UPDATE games SET outcome = 'damaged', ended = %s WHERE id = %s AND player = %s",
            (now_iso(), game_id, self.player)))
        return f"A saved game could not be resumed ({reason}); it is kept aside, starting afresh."

    # Records: the database counts.

    def records(self) -> list[tuple[GameKind, Record]]:
        found = []
        for key, played, won, unaided, best, median in self.read_or_none(
                """
                WITH played AS (
                    SELECT kind, count(*) AS played,
                           count(*) FILTER (WHERE outcome = 'won') AS won,
                           count(*) FILTER (WHERE unaided) AS unaided,
                           min(elapsed) FILTER (WHERE unaided AND timed) AS best,
                           percentile_cont(0.5) WITHIN GROUP (ORDER BY elapsed)
                               FILTER (WHERE unaided AND timed) AS median
                    FROM (SELECT kind, outcome, elapsed,
                                 outcome = 'won' AND checks + hints + reveals = 0 AS unaided,
                                 elapsed BETWEEN 0 AND 1e9 AS timed
                          FROM games WHERE player = %s AND outcome = ANY(%s)) AS counted
                    GROUP BY kind),
                carried AS (SELECT kind, played, won, unaided,
                                   CASE WHEN best BETWEEN 0 AND 1e9 THEN best END AS best
                            FROM carried WHERE player = %s)
                SELECT coalesce(p.kind, c.kind),
                       coalesce(p.played, 0) + coalesce(c.played, 0),
                       coalesce(p.won, 0) + coalesce(c.won, 0),
                       coalesce(p.unaided, 0) + coalesce(c.unaided, 0),
                       least(p.best, c.best), p.median
                FROM played p FULL JOIN carried c ON p.kind = c.kind
                """, self.player, list(COUNTED), self.player):
            kind = GameKind.from_key(key)
            if kind is None:
                continue
            found.append((kind, Record(played, won, unaided,
                                       round(best, 1) if best is not None else None,
                                       round(median, 1) if median is not None else None)))
        return sorted(found, key=lambda item: item[0].order())

    def daily_days(self) -> set[date]:
        return {daily for (daily,) in self.read_or_none(
            "SELECT DISTINCT daily FROM games WHERE player = %s AND outcome = 'won' "
            "AND daily = (started AT TIME ZONE 'UTC')::date", self.player)}

    def win_times(self, kind: GameKind, count: int = RECENT) -> list[float]:
        rows = self.read_or_none("SELECT elapsed FROM games WHERE player = %s AND kind = %s AND "
                         "outcome = 'won' ORDER BY ended DESC, id DESC LIMIT %s",
                         self.player, kind.key, count)
        return [float(t) for (t,) in reversed(rows) if finite(t)]

    def history(self, count: int | None = None, offset: int = 0) -> list[PastGame]:
        rows = self.read(
            "SELECT id, puzzle, kind, started, outcome, elapsed, checks + hints + reveals > 0, "
            "daily FROM games WHERE player = %s AND outcome IS DISTINCT FROM 'skipped' "
            "ORDER BY started DESC, id DESC LIMIT %s OFFSET %s", self.player, count, offset)
        return [PastGame(game_id, puzzle, key, iso(started) or "", outcome,
                         float(elapsed) if finite(elapsed) else 0.0, helped, daily)
                for game_id, puzzle, key, started, outcome, elapsed, helped, daily in rows]

    # Leaderboards.

    BOARD = """
        SELECT rank() OVER (ORDER BY b.best), p.name, b.best, b.player
        FROM (SELECT player, min(elapsed) AS best FROM games
              WHERE outcome = 'won' AND checks + hints + reveals = 0
                    AND elapsed BETWEEN 0 AND 1e9 AND {which}
              GROUP BY player) AS b
        LEFT JOIN players p ON p.player = b.player
        ORDER BY b.best, b.player LIMIT %s
    """

    def standings(self, rows: list[tuple]) -> list[Standing]:
        return [Standing(rank, name or default_name(player), float(best))
                for rank, name, best, player in rows]

    def daily_leaderboard(self, when: date, count: int = 20) -> list[Standing]:
        return self.standings(self.read_or_none(self.BOARD.format(
            which="daily = %s AND (started AT TIME ZONE 'UTC')::date = daily"), when, count))

    def kind_leaderboard(self, kind: GameKind, count: int = 20) -> list[Standing]:
        return self.standings(self.read_or_none(self.BOARD.format(which="kind = %s"), kind.key, count))

    def display_name(self) -> str:
        rows = self.read_or_none("SELECT name FROM players WHERE player = %s AND name IS NOT NULL",
                         self.player)
        return rows[0][0] if rows else default_name(self.player)

    def set_display_name(self, name: str) -> str | None:
        return self.write(lambda c: c.execute(
            "INSERT INTO players VALUES (%s, %s) ON CONFLICT (player) DO UPDATE SET name = %s",
            (self.player, name, name)))[1]

    def name_holder(self, name: str) -> str | None:
        found = self.read("SELECT player FROM players WHERE lower(name) = lower(%s) LIMIT 1", name)
        return found[0][0] if found else None

    # Races.

    def race_open(self, kind: str, code: str) -> str:
        def open_race(c: psycopg.Connection) -> str:
            c.execute("DELETE FROM race_players WHERE race IN "
                      "(SELECT name FROM races WHERE started IS NULL AND opened <= now() - %s)", (START_WITHIN,))
            c.execute("DELETE FROM races WHERE started IS NULL AND opened <= now() - %s", (START_WITHIN,))
            while True:
                name = race_name()
                if c.execute("INSERT INTO races VALUES (%s, %s, %s, %s, now(), NULL) "
                             "ON CONFLICT DO NOTHING", (name, self.player, kind, code)).rowcount:
                    break
            c.execute("INSERT INTO race_players (race, player) VALUES (%s, %s)", (name, self.player))
            return name

        return self.attempt(open_race)

    def race_join(self, name: str) -> Race | None:
        key = race_key(name)
        if key is None:
            return None
        self.attempt(lambda c: c.execute(
            "INSERT INTO race_players (race, player) SELECT name, %s FROM races "
            "WHERE name = %s AND started IS NULL AND opened > now() - %s ON CONFLICT DO NOTHING",
            (self.player, key, START_WITHIN)))
        race = self.race(key)
        return race if race is not None and race.me is not None else None

    def race_start(self, name: str) -> bool:
        self.attempt(lambda c: c.execute(
            "UPDATE races SET started = now() WHERE name = %s AND opener = %s AND started IS NULL "
            "AND opened > now() - %s", (race_key(name), self.player, START_WITHIN)))
        race = self.race(name)
        return race is not None and race.started

    def race_progress(self, name: str, filled: int, seconds: float | None) -> None:
        self.attempt(lambda c: c.execute(
            "UPDATE race_players SET filled = %s, seconds = coalesce(seconds, %s) "
            "WHERE race = %s AND player = %s", (filled, seconds, race_key(name), self.player)))

    def race(self, name: str) -> Race | None:
        key = race_key(name)
        found = self.read("SELECT r.name, r.opener, r.kind, r.code, r.started, p.name FROM races r "
                          "LEFT JOIN players p ON p.player = r.opener WHERE r.name = %s "
                          "AND (r.started IS NOT NULL OR r.opened > now() - %s)", key, START_WITHIN)
        if not found:
            return None
        racers = self.read("SELECT r.player, r.filled, r.seconds, p.name FROM race_players r "
                           "LEFT JOIN players p ON p.player = r.player WHERE r.race = %s", key)
        return race_of(found[0], racers, self.player, chosen_name)

    def races_to_rejoin(self) -> list[Race]:
        names = self.read_or_none(
            "SELECT r.name FROM races r JOIN race_players p ON p.race = r.name "
            "WHERE p.player = %s AND r.started IS NOT NULL AND p.seconds IS NULL "
            "AND r.opened > now() - %s ORDER BY r.opened DESC LIMIT 3", self.player, REJOIN_WITHIN)
        return [race for (name,) in names if (race := self.race(name)) is not None]

    # Settings.

    def settings(self) -> dict[str, Any]:
        found = {}
        for key, value in self.read_or_none("SELECT key, value FROM settings WHERE player = %s",
                                    self.player):
            try:
                found[key] = json.loads(value)
            except (ValueError, RecursionError):
                continue
        return found

    def save_settings(self, settings: Mapping[str, Any]) -> str | None:
        def save(c: psycopg.Connection) -> None:
            with c.cursor() as cursor:
                cursor.executemany(
                    "INSERT INTO settings VALUES (%s, %s, %s) "
                    "ON CONFLICT (player, key) DO UPDATE SET value = excluded.value",
                    [(self.player, key, json.dumps(value)) for key, value in settings.items()])
        return self.write(save)[1]

    # Ready puzzles.

    def bank_add(self, kind: GameKind, puzzle: Puzzle) -> None:
        text = json.dumps(puzzle_to_dict(puzzle), separators=(",", ":"))
        self.write(lambda c: c.execute(
            "INSERT INTO bank (player, kind, puzzle) VALUES (%s, %s, %s)",
            (self.player, kind.key, text)))

    def bank_pop(self, kind: GameKind) -> str | None:
        def take(c: psycopg.Connection) -> str | None:
            row = c.execute(
                "DELETE FROM bank WHERE id = (SELECT id FROM bank WHERE player = %s AND kind = %s "
                "ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED) RETURNING puzzle",
                (self.player, kind.key)).fetchone()
            return row[0] if row else None
        return self.write(take)[0]

    def bank_rows(self) -> list[tuple[Any, Any]]:
        return self.read_or_none("SELECT kind, count(*) FROM bank WHERE player = %s GROUP BY kind",
                                 self.player)

    # Moving house from kaldoku 0.1.0.

    def legacy_done(self) -> bool:
        return bool(self.read_or_none("SELECT 1 FROM legacy WHERE player = %s", self.player))

    def carry_over(self, data: LegacyData) -> tuple[bool, str | None]:
        def carry(c: psycopg.Connection) -> bool:
            if c.execute("INSERT INTO legacy VALUES (%s, %s) ON CONFLICT DO NOTHING RETURNING 1",
                         (self.player, now_iso())).fetchone() is None:
                return False
            with c.cursor() as cursor:
                if data.game is not None:
                    puzzle, key, elapsed, records = data.game
                    stamp = now_iso()
                    text = json.dumps(puzzle_to_dict(puzzle), separators=(",", ":"))
                    game_id = value(cursor.execute(
                        "INSERT INTO games (player, puzzle, kind, started, touched, elapsed, owner, "
                        "last_seq, sum) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s) RETURNING id",
                        (self.player, text, key, stamp, stamp, elapsed, self.owner, len(records),
                         checksum(text, key))))
                    moves = [json.dumps(record, separators=(",", ":")) for record in records]
                    cursor.executemany(
                        "INSERT INTO moves VALUES (%s, %s, %s, %s, %s, %s)",
                        [(game_id, seq, move, elapsed, stamp, checksum(seq, move))
                         for seq, move in enumerate(moves, 1)])
                cursor.executemany(
                    "INSERT INTO carried VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
                    [(self.player, *row) for row in data.carried])
                cursor.executemany(
                    "INSERT INTO settings VALUES (%s, %s, %s) ON CONFLICT DO NOTHING",
                    [(self.player, key, json.dumps(value)) for key, value in data.settings.items()])
                cursor.executemany("INSERT INTO bank (player, kind, puzzle) VALUES (%s, %s, %s)",
                                   [(self.player, key, text) for key, text in data.bank])
            return True
        done, notice = self.write(carry)
        return bool(done), notice


class PostgresJournal(GameJournal):
    """The moves of one game, each committed to the server as it is made."""

    def __init__(self, store: PostgresStore, game_id: int | None, puzzle: Puzzle, kind: GameKind,
                 daily: date | None = None, claim: bool = False) -> None:
        super().__init__(store, game_id, daily=daily, claim=claim)
        self.store: PostgresStore = store
        self.puzzle = puzzle
        self.kind = kind
        self.last: int | None = None
        """The number of the game's last move as this journal last committed it."""

    def insert(self, c: psycopg.Connection) -> int:
        """The game's row (begun now, owned by this process); its id."""
        stamp = now_iso()
        text = json.dumps(puzzle_to_dict(self.puzzle), separators=(",", ":"))
        return value(c.execute(
            "INSERT INTO games (player, puzzle, kind, started, touched, owner, daily, sum) "
            "VALUES (%s, %s, %s, %s, %s, %s, %s, %s) RETURNING id",
            (self.store.player, text, self.kind.key, stamp, stamp, self.store.owner, self.daily,
             checksum(text, self.kind.key))))

    def write(self, moves: Sequence[PendingMove], elapsed: float,
              ending: tuple[str, Mapping[str, int]] | None) -> None:
        store = self.store
        owner, player = store.owner, store.player

        def work(c: psycopg.Connection) -> tuple[int, int]:
            game_id = self.game_id if self.game_id is not None else self.insert(c)
            if self.claim:
                c.execute("UPDATE games SET owner = %s WHERE id = %s AND player = %s",
                          (owner, game_id, player))
            # The row's lock orders the writers of this game; its owner is read under it.
            row = c.execute("SELECT owner, last_seq FROM games WHERE id = %s AND player = %s "
                            "FOR UPDATE", (game_id, player)).fetchone()
            if row is None or row[0] != owner:
                raise TakenOver("this game is being played in another kaldoku")
            last = row[1]
            if not 0 <= last < LAST_SEQ - len(moves):
                raise Unavailable("the game's move numbers are damaged")
            todo = moves
            done = last - self.last if self.last is not None else 0
            if 0 < done <= len(moves) and self.same(c, game_id, moves[:done]):
                # A write whose commit went unanswered (a dropped connection) did commit.
                todo = moves[done:]
            with c.cursor() as cursor:
                cursor.executemany("INSERT INTO moves VALUES (%s, %s, %s, %s, %s, %s)",
                                   [(game_id, seq, move.record, move.elapsed, move.at,
                                     checksum(seq, move.record))
                                    for seq, move in enumerate(todo, last + 1)])
            last += len(todo)
            # A move carries its own time: the clock's saves and the end write the game's.
            changes = {"last_seq": last, "touched": now_iso()}
            if not moves or ending is not None:
                changes["elapsed"] = round(elapsed, 1)
            if self.snapshot is not None:
                changes["snapshot_seq"], changes["snapshot"] = self.snapshot
                changes["snapshot_sum"] = checksum(*self.snapshot)
            if ending is not None:
                outcome, used = ending
                changes.update(outcome=outcome, ended=now_iso(), **used)
            c.execute(sql.SQL("UPDATE games SET ({}) = ROW({}) WHERE id = {}").format(
                sql.SQL(", ").join(map(sql.Identifier, changes)),
                sql.SQL(", ").join([sql.Placeholder()] * len(changes)), sql.Placeholder()),
                (*changes.values(), game_id))
            return game_id, last

        self.game_id, self.last = store.attempt(work)

    @staticmethod
    def same(c: psycopg.Connection, game_id: int, moves: Sequence[PendingMove]) -> bool:
        """Whether the game's last saved moves are `moves` (written by a commit whose answer
        was lost)."""
        rows = c.execute("SELECT move, at FROM moves WHERE game = %s ORDER BY seq DESC LIMIT %s",
                         (game_id, len(moves))).fetchall()
        return [(m, iso(at)) for m, at in reversed(rows)] == [(m.record, m.at) for m in moves]
