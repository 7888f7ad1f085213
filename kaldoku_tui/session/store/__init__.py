"""Where kaldoku keeps its games: the interface (base.py) and its implementations, SQLite
(sqlite.py, the default: a file in the data directory) and PostgreSQL (postgres.py).

`open_store(location, player)` opens the one a location names."""

from __future__ import annotations

import os

from kaldoku_tui.session.store.base import (
    COUNTED, LOCAL, RACE_DAILY, RECENT, GameDamaged, GameJournal, LegacyData, OpenGame, PastGame, Race, Racer, Record,
    Resumed, SavedGame, Standing, Store, StoreError, TakenOver, Unavailable, UnsafeDirectory,
    check_player, day, finite, now_iso, player_id, race_key,
)
from kaldoku_tui.session.store.files import DB_FILE, data_dir

POSTGRES_SCHEMES = ("postgresql://", "postgres://")


def open_store(location: str | os.PathLike | None, player: str = LOCAL) -> Store:
    """The store at `location` for `player`: PostgreSQL for a postgresql:// URL, else
    SQLite in that data directory (or that .db file); in memory when None.
    UnsafeDirectory for a data directory others can write in; StoreError for a store
    that cannot be reached at all."""
    check_player(player)
    if isinstance(location, str) and location.startswith(POSTGRES_SCHEMES):
        from kaldoku_tui.session.store.postgres import PostgresStore

        return PostgresStore(location, player)
    from kaldoku_tui.session.store.sqlite import SQLiteStore

    return SQLiteStore(location, player)


def store_location(store_url: str | None, directory: str | os.PathLike | None) -> str | os.PathLike:
    """Where the store is: --store (or KALDOKU_STORE), else the data directory."""
    return store_url or os.environ.get("KALDOKU_STORE") or data_dir(directory)


__all__ = [
    "COUNTED", "DB_FILE", "LOCAL", "RACE_DAILY", "RECENT", "Race", "Racer", "GameDamaged", "GameJournal", "LegacyData",
    "OpenGame", "PastGame", "Record", "Resumed", "SavedGame", "Standing", "Store", "StoreError",
    "TakenOver", "Unavailable", "UnsafeDirectory", "check_player", "data_dir", "day", "finite",
    "now_iso", "open_store", "player_id", "race_key", "store_location",
]
