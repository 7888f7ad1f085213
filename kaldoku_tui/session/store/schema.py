"""The SQLite store's tables, and the migrations that bring an older kaldoku's database
up to them, keeping all it holds."""

from __future__ import annotations

import sqlite3

SCHEMA_VERSION = 4

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
    daily TEXT,
    player TEXT NOT NULL DEFAULT 'local',
    sum INTEGER
);
CREATE TABLE moves (
    game INTEGER NOT NULL REFERENCES games (id),
    seq INTEGER NOT NULL,
    move TEXT NOT NULL,
    elapsed REAL NOT NULL,
    at TEXT NOT NULL,
    sum INTEGER,
    PRIMARY KEY (game, seq)
) WITHOUT ROWID;
CREATE TABLE snapshots (
    game INTEGER PRIMARY KEY REFERENCES games (id),
    seq INTEGER NOT NULL,
    state TEXT NOT NULL,
    sum INTEGER NOT NULL
);
CREATE TABLE settings (
    player TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (player, key)
);
CREATE TABLE bank (
    id INTEGER PRIMARY KEY, kind TEXT NOT NULL, puzzle TEXT NOT NULL,
    player TEXT NOT NULL DEFAULT 'local'
);
CREATE TABLE carried (
    player TEXT NOT NULL,
    kind TEXT NOT NULL,
    played INTEGER NOT NULL,
    won INTEGER NOT NULL,
    unaided INTEGER NOT NULL,
    best REAL,
    PRIMARY KEY (player, kind)
);
CREATE TABLE players (id TEXT PRIMARY KEY, name TEXT NOT NULL);
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE races (
    name TEXT PRIMARY KEY, opener TEXT NOT NULL, kind TEXT NOT NULL, code TEXT NOT NULL,
    opened TEXT NOT NULL, started TEXT
);
CREATE TABLE race_players (
    race TEXT NOT NULL REFERENCES races (name),
    player TEXT NOT NULL,
    filled INTEGER NOT NULL DEFAULT 0,
    seconds REAL,
    PRIMARY KEY (race, player)
) WITHOUT ROWID;
""" + "".join(f"{index};\n" for index in (
    "CREATE INDEX games_player ON games (player, outcome, kind)",
    "CREATE INDEX games_daily ON games (daily, outcome)",
    "CREATE INDEX bank_kind ON bank (player, kind)",
))
"""games.outcome: won, revealed, left (counted as played), skipped (left untouched),
damaged (could not be resumed); NULL while the game goes on. games.daily: the date
(YYYY-MM-DD) of the daily puzzle the game plays. games.owner: the process that plays it.
sum: a checksum of the row's text (checksum()), so damage inside a record is found; NULL
in rows an older kaldoku wrote. snapshots: a game's state after its first `seq` moves, as
the session made it. carried: records kept by kaldoku 0.1.0, which saved no games.
moves and snapshots belong to their game's player. races: a race's puzzle (a share code)
and when it was opened and started; race_players: each racer's cells filled and, once
finished, their time (seconds)."""

MIGRATIONS: dict[int, tuple[str, ...]] = {
    1: ("ALTER TABLE games ADD COLUMN daily TEXT",),
    2: (
        "ALTER TABLE games ADD COLUMN player TEXT NOT NULL DEFAULT 'local'",
        "ALTER TABLE games ADD COLUMN sum INTEGER",
        "ALTER TABLE moves ADD COLUMN sum INTEGER",
        "ALTER TABLE bank ADD COLUMN player TEXT NOT NULL DEFAULT 'local'",
        "DROP INDEX bank_kind",
        "ALTER TABLE settings RENAME TO settings_2",
        "ALTER TABLE carried RENAME TO carried_2",
        *[s for s in SCHEMA.split(";") if s.strip().startswith(
            ("CREATE TABLE settings", "CREATE TABLE carried", "CREATE TABLE snapshots",
             "CREATE TABLE players", "CREATE INDEX"))],
        "INSERT INTO settings SELECT 'local', key, value FROM settings_2",
        "INSERT INTO carried SELECT 'local', * FROM carried_2",
        "DROP TABLE settings_2",
        "DROP TABLE carried_2",
    ),
    3: tuple(s for s in SCHEMA.split(";") if s.strip().startswith(
        ("CREATE TABLE races", "CREATE TABLE race_players"))),
}
"""The statements that bring a database of schema N to N + 1. Schema 1 marked no game as
daily; schema 2 knew one player: everything it holds becomes the local player's; schema 3
had no races."""

TABLES = ("games", "moves", "snapshots", "settings", "bank", "carried", "players", "meta",
          "races", "race_players")


class UnusableDatabase(Exception):
    """A database file kaldoku cannot use; the message says why."""


def version_of(conn: sqlite3.Connection) -> int:
    """The schema version the file says; UnusableDatabase for one no kaldoku wrote."""
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version > SCHEMA_VERSION:
        raise UnusableDatabase(f"made by a newer kaldoku, schema {version}")
    if version < 0 or (version == 0 and has_tables(conn)):
        raise UnusableDatabase(f"not a kaldoku database (schema {version})")
    return version


def has_tables(conn: sqlite3.Connection) -> bool:
    return conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] > 0


def upgrade(conn: sqlite3.Connection) -> None:
    """Make the tables (a new database) or migrate them in place to SCHEMA_VERSION, inside
    the caller's transaction; the version is read there, as another kaldoku may have done it."""
    version = version_of(conn)
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


def missing_tables(conn: sqlite3.Connection) -> list[str]:
    """The tables of the schema the file lacks (a damaged or hand-edited database)."""
    found = {name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    return [name for name in TABLES if name not in found]
