"""The cost of a key press until its move is durable, 10 and 1,000 moves into a 9×9 game:
the SQLite store (one insert a move, committed with synchronous=FULL) against kaldoku
0.1.0's save (the whole game with its undo history as JSON, temp file, fsync, rename,
fsync of the directory), measured in the same run on the same disk.

    python -m benchmarks.store                # about half a minute
    python -m benchmarks.store --samples 500

Also makes a full database (`full_database`) for the startup row of benchmarks.terminal.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Callable, Sequence

from kaldoku_tui.engine.board import Board
from kaldoku_tui.engine.formats import puzzle_to_dict
from kaldoku_tui.engine.generator import generate
from kaldoku_tui.engine.kinds import GameKind
from kaldoku_tui.engine.puzzle import Puzzle
from kaldoku_tui.session import NoJournal, Session
from kaldoku_tui.session.moves import Clear, Place
from kaldoku_tui.session.store import Store

TARGET_MS = 2.0
"""Median cost of a durable move (issue 10), whatever the number of moves before it."""


def moves(puzzle: Puzzle, rng: random.Random) -> Callable[[Session], None]:
    """A maker of plausible moves: a digit in a random cell, or clearing one."""
    n = puzzle.size

    def one(session: Session) -> None:
        cell = (rng.randrange(n), rng.randrange(n))
        if session.board.digit(cell) and rng.random() < 0.3:
            session.apply(Clear(cell))
        else:
            session.apply(Place(cell, rng.randrange(1, n + 1)))
    return one


def write_atomically(path: Path, text: str) -> None:
    """kaldoku 0.1.0's save of a file: temp file, fsync, rename, fsync of the directory."""
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(temp, path)
    directory = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)


def old_save(path: Path, board: Board, elapsed: float) -> None:
    """What 0.1.0 did after every key: the whole game, undo history and all."""
    game = {"board": board.to_dict(), "elapsed": round(elapsed, 1),
            "help": {"checks": 0, "reveals": 0, "hints": 0}}
    write_atomically(path, json.dumps({"format": "kaldoku-game", "version": 1, "game": game},
                                      separators=(",", ":")))


def sample(before: int, samples: int, puzzle: Puzzle, directory: Path) -> tuple[list[float], list[float]]:
    """Milliseconds per key press, store and 0.1.0 save, after `before` moves."""
    rng = random.Random(before)
    store = Store(directory / f"store-{before}")
    journal, _ = store.new_game(puzzle, GameKind.of(puzzle))
    session = Session(puzzle, journal=journal)
    move = moves(puzzle, rng)
    while len(session.board._undo) < before:
        move(session)
    new, old = [], []
    # One after the other, not interleaved: a big fsync just before a small one makes the
    # small one wait for the file system's journal.
    for _ in range(samples):
        start = time.perf_counter()
        move(session)
        new.append((time.perf_counter() - start) * 1000)
    store.close()
    session.journal = NoJournal()
    old_path = directory / f"game-{before}.json"
    for _ in range(samples):
        move(session)
        start = time.perf_counter()
        old_save(old_path, session.board, session.elapsed)
        old.append((time.perf_counter() - start) * 1000)
    return new, old


class Kept:
    """A journal that keeps the records in a list (to be written in bulk)."""

    taken = False

    def __init__(self) -> None:
        self.records: list[str] = []

    def append(self, record, elapsed):
        self.records.append(json.dumps(record, separators=(",", ":")))

    def touch(self, elapsed):
        return None

    def end(self, outcome, elapsed, help_used):
        return None


def full_database(home: Path, games: int = 2000, moves_each: int = 80, in_progress: int = 1000) -> None:
    """A data directory of a keen player: `games` finished 9×9 games of `moves_each`
    moves, and one in progress `in_progress` moves long (the last played), written in
    one transaction."""
    puzzle = generate(9, seed=1)
    text = json.dumps(puzzle_to_dict(puzzle), separators=(",", ":"))
    rng = random.Random(0)
    played = []
    for count in [moves_each] * games + [in_progress]:
        session = Session(puzzle, journal=Kept())
        move = moves(puzzle, rng)
        while len(session.journal.records) < count:
            move(session)
        played.append(session.journal.records)

    def write(c) -> None:
        for i, records in enumerate(played):
            outcome = None if i == games else "left"
            game = c.execute("INSERT INTO games (puzzle, kind, started, touched, outcome, elapsed) "
                             "VALUES (?, '9/all/any', '2026-11-01', ?, ?, 600)",
                             (text, f"2026-11-01T{i // 3600 % 24:02}:{i // 60 % 60:02}:{i % 60:02}",
                              outcome)).lastrowid
            c.executemany("INSERT INTO moves VALUES (?, ?, ?, 600, '2026-11-01')",
                          [(game, seq, record) for seq, record in enumerate(records, 1)])
    store = Store(home)
    store.write(write)
    store.close()


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=200, help="key presses timed (default 200)")
    args = parser.parse_args(argv)
    puzzle = generate(9, seed=7)
    print(f"A key press until its move is durable, 9×9, ms, {args.samples} samples "
          f"(load {os.getloadavg()[0]:.1f}):")
    print(f"{'moves before':>12}  {'store median':>12}  {'p95':>6}  {'0.1.0 median':>12}  {'p95':>6}")
    medians = []
    with tempfile.TemporaryDirectory() as directory:
        for before in (10, 1000):
            new, old = sample(before, args.samples, puzzle, Path(directory))
            q_new, q_old = statistics.quantiles(new, n=20), statistics.quantiles(old, n=20)
            medians.append(statistics.median(new))
            print(f"{before:>12}  {statistics.median(new):>12.2f}  {q_new[18]:>6.2f}  "
                  f"{statistics.median(old):>12.2f}  {q_old[18]:>6.2f}")
    grows = medians[1] > 1.5 * medians[0]
    met = max(medians) <= TARGET_MS and not grows
    print(f"target: median <= {TARGET_MS} ms and not growing with the moves: "
          f"{'met' if met else 'MISSED'} ({medians[0]:.2f} -> {medians[1]:.2f} ms)")


if __name__ == "__main__":
    main()
