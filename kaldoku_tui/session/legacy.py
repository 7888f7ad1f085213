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
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

from kaldoku_tui.engine.board import NO_NOTES, Board, Change, Edit, Notes
from kaldoku_tui.engine.formats import puzzle_from_dict, puzzle_to_dict
from kaldoku_tui.engine.kinds import GameKind
from kaldoku_tui.engine.puzzle import PuzzleError
from kaldoku_tui.session.game import HELP, MoveError, Session, states_to_list
from kaldoku_tui.session.settings import Settings
from kaldoku_tui.session.store import LegacyData, Store, finite

Writer = Callable[[LegacyData], None]
"""Adds what one 0.1.0 file held to what the import writes in one go."""

FILES = {"game.json": "game", "stats.json": "stats", "settings.json": "settings",
         "bank.json": "bank"}
"""0.1.0's files, each with the key its envelope keeps its content under."""
MAX_BYTES = 16 * 2**20
"""A 0.1.0 file larger than this is not one it wrote."""


class Unusable(Exception):
    """A 0.1.0 file whose content cannot be carried over; the message says why."""


def import_legacy(store: Store, directory: Path | None = None) -> list[str]:
    """Carry 0.1.0's files in the data `directory` (by default the SQLite store's) over
    into `store`, once; the notices."""
    directory = directory if directory is not None else getattr(store, "directory", None)
    if directory is None or store.memory or store.legacy_done():
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

    data = LegacyData()
    for writer in writers:
        writer(data)
    written, notice = store.carry_over(data)
    if not written:
        # Not carried over now (saving is off) or by another kaldoku meanwhile: the files
        # stay where they are, to be carried over by the next start if they were not.
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
    board = board_from_dict(game.get("board"))
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
    key = kind.key if kind.offered else GameKind(puzzle.size).key

    def write(data: LegacyData) -> None:
        data.game = (puzzle, key, round(float(elapsed), 1), records)
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
    return lambda data: data.carried.extend(rows)


def settings_writer(settings: dict) -> Writer:
    found = Settings.from_dict(settings).to_dict()
    return lambda data: data.settings.update(found)


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
    return lambda data: data.bank.extend(rows)


# 0.1.0's board: puzzle, digits, notes and the undo/redo history, each change a list of
# [row, column, digit before, notes before, digit after, notes after].


def board_to_dict(board: Board) -> dict[str, Any]:
    """The board as 0.1.0 saved it in game.json."""
    return {
        "puzzle": puzzle_to_dict(board.puzzle),
        "digits": [list(row) for row in board.grid],
        "notes": [[r, c, sorted(board.notes((r, c)))] for r, c in board.puzzle.cells
                  if board.notes((r, c))],
        "auto_clean_notes": board.auto_clean_notes,
        "undo": [change_to_list(change) for change in board._undo],
        "redo": [change_to_list(change) for change in board._redo],
    }


def board_from_dict(data: Any) -> Board:
    """The board `board_to_dict` (or 0.1.0) wrote; PuzzleError on data that does not fit."""
    if not isinstance(data, Mapping):
        raise PuzzleError("a saved board must be a JSON object")
    board = Board(puzzle_from_dict(data.get("puzzle")))
    try:
        board.auto_clean_notes = bool(data.get("auto_clean_notes", True))
        digits = data["digits"]
        if len(digits) != board.size:
            raise ValueError("wrong number of rows")
        for r, row in enumerate(digits):
            if len(row) != board.size:
                raise ValueError("wrong number of digits in a row")
            for c, digit in enumerate(row):
                board._write([((r, c), (checked_digit(board, digit, allow_blank=True), NO_NOTES))])
        for r, c, notes in data.get("notes", []):
            cell = (whole(r), whole(c))
            board._check(cell)
            board._write([(cell, (board.digit(cell), checked_notes(board, notes)))])
        board._undo = [change_from_list(board, item) for item in data.get("undo", [])]
        board._redo = [change_from_list(board, item) for item in data.get("redo", [])]
    except (KeyError, TypeError, ValueError) as error:
        raise PuzzleError(f"saved board is damaged: {error}") from None
    return board


def change_to_list(change: Change) -> list[list[Any]]:
    """Each edit as [row, column, digit before, notes before, digit after, notes after]."""
    return [
        [*edit.cell, edit.before[0], sorted(edit.before[1]), edit.after[0], sorted(edit.after[1])]
        for edit in change
    ]


def change_from_list(board: Board, items: Iterable[Any]) -> Change:
    """The change `change_to_list` wrote, checked against `board`; ValueError (or
    TypeError) for anything else."""
    change = []
    for r, c, old, old_notes, new, new_notes in items:
        cell = (whole(r), whole(c))
        board._check(cell)
        change.append(Edit(
            cell,
            (checked_digit(board, old, allow_blank=True), checked_notes(board, old_notes)),
            (checked_digit(board, new, allow_blank=True), checked_notes(board, new_notes)),
        ))
    if not change:
        raise ValueError("an empty change in the history")
    return tuple(change)


def whole(value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"{value!r} is not a whole number")
    return value


def checked_digit(board: Board, value: Any, *, allow_blank: bool = False) -> int:
    digit = whole(value)
    if not (1 <= digit <= board.size or (allow_blank and digit == 0)):
        raise ValueError(f"digit {digit} is not in 1..{board.size}")
    return digit


def checked_notes(board: Board, values: Iterable[Any]) -> Notes:
    return frozenset(checked_digit(board, value) for value in values)
