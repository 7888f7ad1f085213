"""Moving house from kaldoku 0.1.0, which kept four JSON files in the data directory:
game.json (the game in progress with its undo history), stats.json (records per kind of
game), settings.json and bank.json (ready puzzles).

On the first start with a database, what they hold is written into it in one transaction:
the game resumes exactly (digits, notes, undo and redo, time, help used), the records and
settings carry over. The files are then renamed NAME.imported, never deleted. A file whose
content is not what 0.1.0 wrote is renamed NAME.unusable instead, with a notice; the
others still come over.
"""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path
from typing import Any, Callable

from kaldoku_tui.engine.board import Board
from kaldoku_tui.engine.formats import puzzle_from_dict, puzzle_to_dict
from kaldoku_tui.engine.kinds import GameKind
from kaldoku_tui.engine.puzzle import PuzzleError
from kaldoku_tui.session.game import HELP, MoveError, Session, states_to_list
from kaldoku_tui.session.settings import Settings
from kaldoku_tui.session.store import Store, finite, now_iso

Writer = Callable[[sqlite3.Connection], Any]
"""Writes what one 0.1.0 file held into the database, inside the import's transaction."""

FILES = {"game.json": "game", "stats.json": "stats", "settings.json": "settings",
         "bank.json": "bank"}
"""0.1.0's files, each with the key its envelope keeps its content under."""
MAX_BYTES = 16 * 2**20
"""A 0.1.0 file larger than this is not one it wrote."""


class Unusable(Exception):
    """A 0.1.0 file whose content cannot be carried over; the message says why."""


def import_legacy(store: Store) -> list[str]:
    """Carry 0.1.0's files in `store`'s directory over into it, once; the notices."""
    directory = store.directory
    if directory is None or store.read("SELECT value FROM meta WHERE key = 'legacy'"):
        return []
    found = {name: directory / name for name in FILES if (directory / name).is_file()}
    found = {name: path for name, path in found.items() if not path.is_symlink()}
    if not found:
        return []
    contents, notices, bad = {}, [], []
    for name, path in found.items():
        try:
            contents[FILES[name]] = read_envelope(path, FILES[name])
        except Unusable as error:
            bad.append(name)
            notices.append(f"The 0.1.0 {name} could not be carried over ({error}); "
                           f"kept as {name}.unusable.")
    writers = []
    for key, convert in (("game", game_writer), ("stats", stats_writer),
                         ("settings", settings_writer), ("bank", bank_writer)):
        if key in contents:
            try:
                writers.append(convert(contents[key]))
            except (Unusable, PuzzleError, MoveError, ValueError, TypeError, KeyError,
                    RecursionError) as error:
                name = f"{key}.json"
                bad.append(name)
                notices.append(f"The 0.1.0 {name} could not be carried over "
                               f"({str(error)[:120]}); kept as {name}.unusable.")

    def write(c: sqlite3.Connection) -> None:
        if c.execute("SELECT 1 FROM meta WHERE key = 'legacy'").fetchone():
            return  # Another kaldoku carried them over meanwhile.
        for writer in writers:
            writer(c)
        c.execute("INSERT INTO meta VALUES ('legacy', ?)", (f"0.1.0 imported {now_iso()}",))

    _, notice = store.write(write)
    if notice or not store.saving:
        return notices + ([notice] if notice else [])
    for name, path in found.items():
        suffix = ".unusable" if name in bad else ".imported"
        try:
            os.replace(path, path.with_name(name + suffix))
        except OSError:
            pass  # The database says they were carried over; they stay as they are.
    if "game" in contents and "game.json" not in bad:
        notices.append("Your game from kaldoku 0.1.0 was carried over.")
    return notices


def read_envelope(path: Path, key: str) -> Any:
    """The content of a 0.1.0 file: {"format": "kaldoku-KEY", "version": 1, KEY: {...}}."""
    try:
        if path.stat().st_size > MAX_BYTES:
            raise Unusable("too large")
        data = json.loads(path.read_bytes().decode("utf-8"))
    except OSError as error:
        raise Unusable(f"unreadable: {error.strerror}") from None
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise Unusable("corrupt or truncated") from None
    if not isinstance(data, dict) or data.get("format") != f"kaldoku-{key}":
        raise Unusable(f"not a kaldoku {key} file")
    if data.get("version") != 1:
        raise Unusable(f"format version {data.get('version')!r}, not 1")
    content = data.get(key)
    if not isinstance(content, dict):
        raise Unusable(f"no {key} in it")
    return content


def game_writer(game: dict) -> Writer:
    """The game in progress as a games row and its moves, which rebuild its board, undo
    history and all."""
    board = Board.from_dict(game.get("board"))
    puzzle = board.puzzle
    if any(board.digit(cell) and board.notes(cell) for cell in puzzle.cells):
        raise Unusable("a cell holds a digit and notes")
    if puzzle.solution is None:
        from kaldoku_tui.engine.solver import solve  # 0.1.0 stored it; a hand-made file may not

        found = solve(puzzle, limit=1)
        if not found:
            raise Unusable("its puzzle has no solution")
        puzzle = puzzle.with_solution(found[0])
    elapsed = game.get("elapsed", 0.0)
    if not finite(elapsed):
        raise Unusable(f"time played {elapsed!r} is not a time")
    used = game.get("help", {})
    if not isinstance(used, dict):
        raise Unusable("help used is not a record")
    help_used = {key: used.get(key, 0) for key in HELP}
    if not all(isinstance(n, int) and not isinstance(n, bool) and 0 <= n <= 10_000
               for n in help_used.values()):
        raise Unusable(f"help used {help_used} is not a count")
    records = history_moves(board)
    kind = GameKind.of(puzzle)
    try:
        session = Session.resume(puzzle, records, kind)
        same = all(session.board.digit(c) == board.digit(c) and session.board.notes(c) == board.notes(c)
                   for c in puzzle.cells)
    except (MoveError, PuzzleError):
        same = False
    if not same:
        # A history that does not lead to the board: keep the board, not the history.
        records = [{"move": "change", "states": states_to_list(
            (cell, (board.digit(cell), board.notes(cell))) for cell in puzzle.cells
            if board.digit(cell) or board.notes(cell))}]
        records = records if records[0]["states"] else []
    records += [{"move": "check"}] * help_used["checks"] + [{"move": "hint"}] * help_used["hints"]
    stamp, seconds = now_iso(), round(float(elapsed), 1)
    key = kind.key if kind.offered else GameKind(puzzle.size).key

    def write(c: sqlite3.Connection) -> None:
        game_id = c.execute(
            "INSERT INTO games (puzzle, kind, started, touched, elapsed) VALUES (?, ?, ?, ?, ?)",
            (as_json(puzzle_to_dict(puzzle)), key, stamp, stamp, seconds)).lastrowid
        c.executemany("INSERT INTO moves VALUES (?, ?, ?, ?, ?)",
                      [(game_id, seq, as_json(record), seconds, stamp)
                       for seq, record in enumerate(records, 1)])
    return write


def history_moves(board: Board) -> list[dict[str, Any]]:
    """Moves that rebuild `board` from an empty one, its undo and redo history included:
    each change undo could take back, then those redo would make again (last first),
    then as many undos."""
    def move(change: Any) -> dict[str, Any]:
        return {"move": "change", "states": states_to_list((edit.cell, edit.after) for edit in change)}

    undo, redo = board._undo, board._redo
    return ([move(change) for change in undo] + [move(change) for change in reversed(redo)]
            + [{"move": "undo"}] * len(redo))


def as_json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def stats_writer(stats: dict) -> Writer:
    kinds = stats.get("kinds")
    if not isinstance(kinds, dict):
        raise Unusable("no records in it")
    rows = []
    for key, record in kinds.items():
        kind = GameKind.from_key(key)
        if kind is None or not isinstance(record, dict):
            continue
        counts = [record.get(name, 0) for name in ("finished", "won", "unaided")]
        if not all(isinstance(n, int) and not isinstance(n, bool) and 0 <= n <= 10**7 for n in counts):
            raise Unusable(f"the record of {key} holds {counts}, not counts")
        best = record.get("best")
        if best is not None and not finite(best):
            raise Unusable(f"the best time of {key}, {best!r}, is not a time")
        rows.append((kind.key, *counts, best))
    return lambda c: c.executemany("INSERT OR REPLACE INTO carried VALUES (?, ?, ?, ?, ?)", rows)


def settings_writer(settings: dict) -> Writer:
    rows = [(key, json.dumps(value)) for key, value in Settings.from_dict(settings).to_dict().items()]
    return lambda c: c.executemany("INSERT OR REPLACE INTO settings VALUES (?, ?)", rows)


def bank_writer(bank: dict) -> Writer:
    entries = bank.get("puzzles")
    rows = []
    for data in entries if isinstance(entries, list) else ():
        try:
            puzzle = puzzle_from_dict(data)
        except PuzzleError:
            continue  # One bad entry costs one puzzle to make again, not the bank.
        kind = GameKind.of(puzzle)
        if puzzle.solution is not None and kind.offered:
            rows.append((kind.key, as_json(puzzle_to_dict(puzzle))))
    return lambda c: c.executemany("INSERT INTO bank (kind, puzzle) VALUES (?, ?)", rows)
