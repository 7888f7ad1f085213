"""Snapshots of a game in progress, so that a long game resumes from its last snapshot and
the moves after it instead of replaying every move since the start.

A snapshot is the session after its first N moves: the board's digits and notes, its undo
and redo history (each change written as 0.1.0 wrote it, session/legacy.py), the help used.
Its history is kept as written and read back lazily: a
change is made an undo step again only when undo or redo reaches it, so a game of 200,000
moves starts in well under a second with all its undo history."""

from __future__ import annotations

import json
from typing import Any, Callable, Mapping, SupportsIndex

from kaldoku_tui.engine.board import Board
from kaldoku_tui.engine.puzzle import PuzzleError
from kaldoku_tui.session.game import HELP, MoveError, Session, states_from_list, states_to_list
from kaldoku_tui.session.legacy import change_from_list, change_to_list
from kaldoku_tui.session.store.base import SavedGame

FORMAT = 1


class LazyChanges(list):
    """A board's undo or redo history whose older changes are kept as written (each its
    JSON text: one string to read, not a dozen lists) and made Changes when undo or redo
    reaches them."""

    board: Board

    def __getitem__(self, index: Any) -> Any:
        item = super().__getitem__(index)
        if isinstance(index, int) and isinstance(item, str):
            item = self.change(item)
            super().__setitem__(index, item)
        return item

    def pop(self, index: SupportsIndex = -1) -> Any:
        item = super().pop(index)
        return self.change(item) if isinstance(item, str) else item

    def change(self, text: str) -> Any:
        try:
            return change_from_list(self.board, json.loads(text))
        except (ValueError, TypeError, RecursionError) as error:
            raise MoveError(f"a change kept in the snapshot is damaged: {str(error)[:80]}") from None


def lazy(board: Board, items: list[Any]) -> LazyChanges:
    history = LazyChanges(items)
    history.board = board
    return history


class Dumper:
    """The JSON of a growing and shrinking history, each change written once: a change
    already written keeps its text while it stays in the history."""

    def __init__(self) -> None:
        self.items: list[Any] = []
        self.texts: list[str] = []

    def dump(self, history: list[Any]) -> str:
        """The history as a JSON array of each change's JSON text."""
        same = 0
        limit = min(len(history), len(self.items))
        raw = list.__getitem__  # the entries as kept, not made Changes
        while same < limit and raw(history, same) is self.items[same]:
            same += 1
        del self.items[same:], self.texts[same:]
        for i in range(same, len(history)):
            item = raw(history, i)
            self.items.append(item)
            text = item if isinstance(item, str) else json.dumps(change_to_list(item),
                                                                 separators=(",", ":"))
            self.texts.append(json.dumps(text))
        return "[" + ",".join(self.texts) + "]"


def snapshot_maker(session: Session) -> Callable[[], str]:
    """What the journal calls every SNAPSHOT_EVERY moves: the session's state, as JSON."""
    undo, redo = Dumper(), Dumper()

    def make() -> str:
        board = session.board
        head = json.dumps({
            "format": FORMAT,
            "cells": states_to_list((cell, (board.digit(cell), board.notes(cell)))
                                    for cell in board.puzzle.cells
                                    if board.digit(cell) or board.notes(cell)),
            "help": session.help, "moved": session.moved, "version": session.version,
        }, separators=(",", ":"))
        return (f'{head[:-1]},"undo":{undo.dump(board._undo)},'
                f'"redo":{redo.dump(board._redo)}}}')
    return make


def attach(session: Session) -> Session:
    """Have `session`'s journal keep snapshots of it (a journal of the store)."""
    if hasattr(session.journal, "snapshots"):
        session.journal.snapshots = snapshot_maker(session)
    return session


def resume_saved(saved: SavedGame, now: Callable[[], float], auto_clean_notes: bool) -> Session:
    """The session of a saved game in progress: its snapshot, if it has one, and the moves
    after it. MoveError (or PuzzleError) when they do not fit the puzzle."""
    if saved.snapshot is None:
        session = Session.resume(saved.puzzle, saved.moves, saved.kind, now=now,
                                 elapsed=saved.elapsed, auto_clean_notes=auto_clean_notes)
        return session
    session = Session.resume(saved.puzzle, [], saved.kind, now=now, elapsed=saved.elapsed,
                             auto_clean_notes=auto_clean_notes)
    restore(session, saved.snapshot)
    for record in saved.moves:
        session.replay(record)
    if session.outcome is not None:
        raise MoveError("the game ended already")
    session.paused = False
    session.update_clock()
    return session


def restore(session: Session, state: Mapping[str, Any]) -> None:
    """Give `session` the state a snapshot kept; MoveError when it is not one."""
    try:
        if state.get("format") != FORMAT:
            raise MoveError(f"a snapshot of format {str(state.get('format'))[:20]}")
        board = session.board
        board.change(dict(states_from_list(state["cells"])))
        histories = state["undo"], state["redo"]
        if not all(isinstance(h, list) and all(isinstance(c, str) for c in h) for h in histories):
            raise MoveError("a snapshot's history is not a list of changes")
        board._undo, board._redo = lazy(board, histories[0]), lazy(board, histories[1])
        used = state["help"]
        session.help = {key: int(used[key]) for key in HELP}
        session.moved, session.version = bool(state["moved"]), int(state["version"])
    except (KeyError, TypeError, ValueError, AttributeError, PuzzleError) as error:
        raise MoveError(f"the snapshot is damaged: {str(error)[:100]}") from None

