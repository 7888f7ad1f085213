"""The SQLite store's journal: one game's moves, each committed as it is made."""

from __future__ import annotations

import sqlite3
import zlib
from typing import TYPE_CHECKING, Mapping, Sequence

from kaldoku_tui.session.store import base
from kaldoku_tui.session.store.base import GameJournal, PendingMove, TakenOver, Unavailable

if TYPE_CHECKING:
    from kaldoku_tui.session.store.sqlite import SQLiteStore

LAST_SEQ = 2**53
"""A move number past this is damage (no game has so many moves), not a number to add to."""


def checksum(*parts: object) -> int:
    """The checksum kept beside a row's text, so that damage inside a record is found."""
    return zlib.crc32("\x1f".join(map(str, parts)).encode("utf-8", "surrogatepass"))


class SQLiteJournal(GameJournal):
    """A game's moves in the SQLite store (see base.GameJournal)."""

    store: SQLiteStore

    def __init__(self, store: SQLiteStore, game_id: int | None, puzzle_text: str, kind_key: str,
                 daily: str | None = None, claim: bool = False) -> None:
        super().__init__(store, game_id, claim=claim)
        self.puzzle_text = puzzle_text
        self.kind_key = kind_key
        self.daily_text = daily

    def insert(self, c: sqlite3.Connection) -> int:
        """Write the game's row (begun now, owned by this process); its id."""
        stamp = base.now_iso()
        game_id = c.execute(
            "INSERT INTO games (puzzle, kind, started, touched, owner, daily, player, sum) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (self.puzzle_text, self.kind_key, stamp, stamp, self.store.owner, self.daily_text,
             self.store.player, checksum(self.puzzle_text, self.kind_key))).lastrowid
        assert game_id is not None
        return game_id

    def write(self, moves: Sequence[PendingMove], elapsed: float,
              ending: tuple[str, Mapping[str, int]] | None) -> None:
        def work(c: sqlite3.Connection) -> int:
            game_id = self.game_id if self.game_id is not None else self.insert(c)
            if self.claim:
                c.execute("UPDATE games SET owner = ? WHERE id = ? AND player = ?",
                          (self.store.owner, game_id, self.store.player))
            owner = c.execute("SELECT owner FROM games WHERE id = ? AND player = ?",
                              (game_id, self.store.player)).fetchone()
            if owner is None or owner[0] != self.store.owner:
                raise TakenOver
            last = c.execute("SELECT max(seq) FROM moves WHERE game = ?", (game_id,)).fetchone()[0] or 0
            if not isinstance(last, int) or not 0 <= last < LAST_SEQ:
                raise Unavailable("the game's move numbers are damaged")
            c.executemany("INSERT INTO moves VALUES (?, ?, ?, ?, ?, ?)",
                          [(game_id, seq, m.record, m.elapsed, m.at, checksum(seq, m.record))
                           for seq, m in enumerate(moves, last + 1)])
            if self.snapshot is not None:
                seq, state = self.snapshot
                c.execute("INSERT OR REPLACE INTO snapshots VALUES (?, ?, ?, ?)",
                          (game_id, seq, state, checksum(seq, state)))
            if not moves or ending is not None:
                # A move carries its own time: only the clock's saves and the end write
                # the game's row, so a move costs one page of the log.
                c.execute("UPDATE games SET elapsed = ?, touched = ? WHERE id = ?",
                          (round(elapsed, 1), base.now_iso(), game_id))
            if ending is not None:
                outcome, used = ending
                c.execute("UPDATE games SET outcome = ?, ended = ?, checks = ?, hints = ?, "
                          "reveals = ? WHERE id = ?",
                          (outcome, base.now_iso(), used["checks"], used["hints"], used["reveals"], game_id))
            return game_id
        self.game_id = self.store.transact(work)
