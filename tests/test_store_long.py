"""Long games (issue 25 item 6): a game resumes from its last snapshot and the moves after
it, with its whole undo history, and starts in well under a second at 200,000 moves."""

from __future__ import annotations

import json
import random
import time

from conftest import EXAMPLE_ID, EXAMPLE_SOLUTION, saved_session, sql, sql_write
from kaldoku_tui.app import resume
from kaldoku_tui.engine.formats import puzzle_to_dict, read_keen
from kaldoku_tui.engine.kinds import GameKind
from kaldoku_tui.session import Session
from kaldoku_tui.session.moves import Clear, Move, Note, Place, Redo, Undo
from kaldoku_tui.session.settings import Settings
from kaldoku_tui.session.snapshot import attach
from kaldoku_tui.session.store import base, open_store
from kaldoku_tui.session.store.journal import checksum

PUZZLE = read_keen(EXAMPLE_ID).with_solution(EXAMPLE_SOLUTION)


def some_moves(rng: random.Random, count: int) -> list[Move]:
    made = []
    for _ in range(count):
        cell, digit = (rng.randrange(4), rng.randrange(4)), rng.randrange(1, 4)
        made.append(rng.choice([Place(cell, digit), Place(cell, digit), Note(cell, digit),
                                Clear(cell), Undo(), Redo()]))
    return made


def test_a_game_resumes_from_its_snapshot_exactly_as_from_every_move(tmp_path, monkeypatch):
    monkeypatch.setattr(base, "SNAPSHOT_EVERY", 10)
    store = open_store(tmp_path)
    journal, _ = store.new_game(PUZZLE, GameKind(4))
    session = attach(Session(PUZZLE, journal=journal, now=lambda: 0.0))
    for move in some_moves(random.Random(5), 200):
        session.apply(move)
    kept = journal.count
    assert sql(tmp_path, "SELECT seq FROM snapshots") == [(kept - kept % 10,)]
    notices: list = []
    again = resume(open_store(tmp_path), lambda: 0.0, Settings(), notices)
    assert notices == ["Resumed your game."]
    everything = saved_session(tmp_path)  # every move replayed, no snapshot
    assert again.board.view() == everything.board.view() == session.board.view()
    for _ in range(60):
        assert again.board.view() == everything.board.view()
        assert again.help == everything.help and again.moved == everything.moved
        for one in (again, everything):
            one.apply(Undo())
    for _ in range(30):
        for one in (again, everything):
            one.apply(Redo())
        assert again.board.view() == everything.board.view()


def test_a_game_of_200000_moves_starts_in_well_under_a_second(tmp_path):
    open_store(tmp_path).close()
    before, after = 199_980, 20
    # Cell (0, 0) gets 1, then is cleared, over and over: 199,980 changes of history.
    undo = ["[[0,0,0,[],1,[]]]", "[[0,0,1,[],0,[]]]"] * (before // 2)
    state = json.dumps({"format": 1, "cells": [], "help": {"checks": 0, "hints": 0, "reveals": 0},
                        "moved": True, "version": before, "undo": undo, "redo": []},
                       separators=(",", ":"))
    moves = [json.dumps({"move": "place", "cell": [1, i % 4], "digit": i % 4 + 1,
                         "states": [[1, i % 4, i % 4 + 1, []]]}) for i in range(after)]
    text = json.dumps(puzzle_to_dict(PUZZLE), separators=(",", ":"))

    def write(c):
        c.execute("INSERT INTO games (id, puzzle, kind, started, touched, elapsed, sum) VALUES "
                  "(1, ?, '4/all/any', '2026-11-26', '2026-11-26', 600, ?)",
                  (text, checksum(text, "4/all/any")))
        c.execute("INSERT INTO snapshots VALUES (1, ?, ?, ?)", (before, state, checksum(before, state)))
        c.executemany("INSERT INTO moves VALUES (1, ?, ?, 600, '2026-11-26', ?)",
                      [(seq, move, checksum(seq, move)) for seq, move in enumerate(moves, before + 1)])
    sql_write(tmp_path, write)
    started = time.perf_counter()
    notices: list = []
    session = resume(open_store(tmp_path), lambda: 0.0, Settings(), notices)
    took = time.perf_counter() - started
    print(f"started in {took:.3f} s")
    assert notices == ["Resumed your game."] and took < 0.5, took
    assert session.board.grid[1] == (1, 2, 3, 4) and session.board.digit((0, 0)) == 0
    assert session.elapsed == 600
    for _ in range(after + 2):  # undo back into the snapshot's history
        assert session.apply(Undo()).board
    assert session.board.grid[1] == (0, 0, 0, 0) and session.board.digit((0, 0)) == 0
    assert session.apply(Undo()).board and session.board.digit((0, 0)) == 1
    assert session.journal.count == before + after + after + 3
