"""The cost of a key press until its move is durable, 10 and 1,000 moves into a 9×9 game,
and 20 players' processes appending moves at once (moves per second, p95 latency): each
store given (SQLite in a temporary data directory by default; --store URL adds one, such
as a PostgreSQL database), beside kaldoku 0.1.0's save (the whole game with its undo
history as JSON, temp file, fsync, rename, fsync of the directory), measured in the same
run on the same disk.

    python -m benchmarks.store                # about a minute
    python -m benchmarks.store --postgres     # and a private PostgreSQL 15 on 127.0.0.1
    python -m benchmarks.store --samples 500 --store postgresql://kaldoku@/kaldoku?host=DIR

Also makes a full database (`full_database`) for the startup row of benchmarks.terminal.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import multiprocessing
import os
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

from kaldoku_tui.engine.board import Board
from kaldoku_tui.engine.formats import puzzle_to_dict
from kaldoku_tui.engine.generator import generate
from kaldoku_tui.engine.kinds import GameKind
from kaldoku_tui.engine.puzzle import Puzzle
from kaldoku_tui.session import NoJournal, Session
from kaldoku_tui.session.moves import Clear, Place
from kaldoku_tui.session.store import DB_FILE, open_store
from kaldoku_tui.session.store.journal import checksum
from kaldoku_tui.session.legacy import board_to_dict

TARGET_MS = {"SQLite": 2.0, "PostgreSQL": 5.0}
"""Median cost of a durable move (issues 10 and 24), whatever the number of moves before it."""
PLAYERS = 20
"""Players' processes appending at once."""


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
    game = {"board": board_to_dict(board), "elapsed": round(elapsed, 1),
            "help": {"checks": 0, "reveals": 0, "hints": 0}}
    write_atomically(path, json.dumps({"format": "kaldoku-game", "version": 1, "game": game},
                                      separators=(",", ":")))


def key_to_durable(location: Any, before: int, samples: int, puzzle: Puzzle) -> list[float]:
    """Milliseconds per key press into the store at `location`, after `before` moves."""
    rng = random.Random(before)
    store = open_store(location, f"name:bench-{before}-{time.monotonic_ns()}")
    journal, _ = store.new_game(puzzle, GameKind.of(puzzle))
    session = Session(puzzle, journal=journal)
    move = moves(puzzle, rng)
    while len(session.board._undo) < before:
        move(session)
    new = []
    for _ in range(samples):
        start = time.perf_counter()
        move(session)
        new.append((time.perf_counter() - start) * 1000)
    store.close()
    return new


def old_key_to_durable(before: int, samples: int, puzzle: Puzzle, directory: Path) -> list[float]:
    """Milliseconds per key press with kaldoku 0.1.0's save, after `before` moves."""
    rng = random.Random(before)
    session = Session(puzzle, journal=NoJournal())
    move = moves(puzzle, rng)
    while len(session.board._undo) < before:
        move(session)
    old = []
    old_path = directory / f"game-{before}.json"
    for _ in range(samples):
        move(session)
        start = time.perf_counter()
        old_save(old_path, session.board, session.elapsed)
        old.append((time.perf_counter() - start) * 1000)
    return old


def append_as(location: Any, player: str, count: int, puzzle: Puzzle, ready: Any, go: Any,
              times: Any) -> None:
    """One player's process: a new game, then `count` moves as fast as they go; the
    milliseconds of each put on `times`."""
    store = open_store(location, player)
    session = Session(puzzle, journal=store.new_game(puzzle, GameKind.of(puzzle))[0])
    move = moves(puzzle, random.Random(player))
    ready.release()
    go.wait()
    taken = []
    for _ in range(count):
        start = time.perf_counter()
        move(session)
        taken.append((time.perf_counter() - start) * 1000)
    store.close()
    times.put(taken)


def concurrent_players(location: Any, count: int, puzzle: Puzzle) -> tuple[float, float]:
    """Moves per second and the p95 milliseconds of a move, PLAYERS processes each
    appending `count` moves at once into the store at `location`."""
    context = multiprocessing.get_context("fork")
    ready, go, times = context.Semaphore(0), context.Event(), context.Queue()
    stamp = time.monotonic_ns()
    players = [context.Process(target=append_as, args=(
        location, f"name:crowd-{stamp}-{n}", count, puzzle, ready, go, times)) for n in range(PLAYERS)]
    for player in players:
        player.start()
    for _ in players:
        ready.acquire()
    start = time.perf_counter()
    go.set()
    taken = [t for _ in players for t in times.get()]
    wall = time.perf_counter() - start
    for player in players:
        player.join()
    return len(taken) / wall, statistics.quantiles(taken, n=20)[18]


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

    open_store(home).close()
    conn = sqlite3.connect(home / DB_FILE)
    with conn:
        for i, records in enumerate(played):
            outcome = None if i == games else "left"
            game = conn.execute(
                "INSERT INTO games (puzzle, kind, started, touched, outcome, elapsed, sum) "
                "VALUES (?, '9/all/any', '2026-11-01', ?, ?, 600, ?)",
                (text, f"2026-11-01T{i // 3600 % 24:02}:{i // 60 % 60:02}:{i % 60:02}", outcome,
                 checksum(text, "9/all/any"))).lastrowid
            conn.executemany("INSERT INTO moves VALUES (?, ?, ?, 600, '2026-11-01', ?)",
                             [(game, seq, record, checksum(seq, record))
                              for seq, record in enumerate(records, 1)])
    conn.close()


@contextlib.contextmanager
def loopback_server(wanted: bool) -> Iterator[str | None]:
    """The URL of a private PostgreSQL server on 127.0.0.1 for the run (None if not
    wanted), stopped at the end."""
    if not wanted:
        yield None
        return
    sys.path.insert(0, str(Path(__file__).parents[1] / "tests"))
    from pg_server import USER, start_server

    server = start_server(tcp=True)
    try:
        yield server.url(USER)
    finally:
        server.stop()


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=200, help="key presses timed (default 200)")
    parser.add_argument("--moves", type=int, default=100,
                        help="moves each of the 20 players' processes appends (default 100)")
    parser.add_argument("--store", action="append", default=[], metavar="URL",
                        help="a store to measure besides SQLite (postgresql://...)")
    parser.add_argument("--postgres", action="store_true",
                        help="start a private PostgreSQL 15 server on 127.0.0.1 (Debian's "
                             "binaries, fsync on, the tests' tests/pg_server.py) and measure it")
    args = parser.parse_args(argv)
    puzzle = generate(9, seed=7)
    with tempfile.TemporaryDirectory() as directory, loopback_server(args.postgres) as url:
        if url:
            args.store.append(url)
        stores = {"SQLite": Path(directory) / "home"}
        stores.update(("PostgreSQL" if url.startswith("postgres") else url, url) for url in args.store)
        rows: dict[str, list[str]] = {}
        medians: dict[str, list[float]] = {name: [] for name in stores}
        for name, location in stores.items():
            for before in (10, 1000):
                taken = key_to_durable(location, before, args.samples, puzzle)
                medians[name].append(statistics.median(taken))
                rows.setdefault(f"{before:,} moves before: median ms", []).append(f"{statistics.median(taken):.2f}")
                rows.setdefault(f"{before:,} moves before: p95 ms", []).append(
                    f"{statistics.quantiles(taken, n=20)[18]:.2f}")
            rate, p95 = concurrent_players(location, args.moves, puzzle)
            rows.setdefault(f"{PLAYERS} players at once: moves/s", []).append(f"{rate:.0f}")
            rows.setdefault(f"{PLAYERS} players at once: p95 ms", []).append(f"{p95:.2f}")
        for before in (10, 1000):
            old = old_key_to_durable(before, args.samples, puzzle, Path(directory))
            rows[f"{before:,} moves before: median ms"].append(f"{statistics.median(old):.2f}")
            rows[f"{before:,} moves before: p95 ms"].append(f"{statistics.quantiles(old, n=20)[18]:.2f}")
    print(f"A key press until its move is durable (9×9, {args.samples} samples) and {PLAYERS} "
          f"players' processes appending {args.moves} moves each (load {os.getloadavg()[0]:.1f}):\n")
    names = [*stores, "0.1.0 save"]
    print("| | " + " | ".join(names) + " |")
    print("|---|" + "---:|" * len(names))
    for label, cells in rows.items():
        print(f"| {label} | " + " | ".join(cells + ["-"] * (len(names) - len(cells))) + " |")
    for name, (few, many) in medians.items():
        target = TARGET_MS.get(name)
        if target is not None:
            met = max(few, many) <= target and many <= 1.5 * few
            print(f"\n{name}: median <= {target} ms and not growing with the moves: "
                  f"{'met' if met else 'MISSED'} ({few:.2f} -> {many:.2f} ms)", end="")
    print()


if __name__ == "__main__":
    main()
