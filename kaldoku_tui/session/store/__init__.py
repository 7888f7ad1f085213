"""Where kaldoku keeps its games: the interface (base.py) and its implementations, SQLite
(sqlite.py, the default: a file in the data directory) and PostgreSQL (postgres.py).

`open_store(location, player)` opens the one a location names."""

from __future__ import annotations

import os
from pathlib import Path

from kaldoku_tui.session.store.base import LOCAL, StoreError, check_player, player_id
from kaldoku_tui.session.store.base import Store as StoreInterface
# Until sqlite.py implements the interface, the names the game uses come from it as before.
from kaldoku_tui.session.store.sqlite import (
    DB_FILE, SCHEMA_VERSION, PastGame, Record, SavedGame, Store, UnsafeDirectory, data_dir,
    finite, history_table, now_iso, records_table, streak_text,
)

POSTGRES_SCHEMES = ("postgresql://", "postgres://")


def open_store(location: str | os.PathLike | None, player: str = LOCAL) -> StoreInterface:
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


__all__ = [
    "DB_FILE", "LOCAL", "SCHEMA_VERSION", "PastGame", "Record", "SavedGame", "Store",
    "StoreError", "StoreInterface", "UnsafeDirectory", "check_player", "data_dir", "finite",
    "history_table", "now_iso", "open_store", "player_id", "records_table", "streak_text",
]
