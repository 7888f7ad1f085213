"""Shared fixtures: small puzzles with known properties."""

from __future__ import annotations

import asyncio
import contextlib
import time
from pathlib import Path

import pytest
from hypothesis import settings

from kaldoku_tui.engine.formats import read_keen
from kaldoku_tui.engine.kinds import GameKind
from kaldoku_tui.engine.puzzle import Cage, Puzzle
from pg_server import pg_server, pg_url, postgresql_location  # noqa: F401  (a private PostgreSQL)
from strategies import LONG_EXAMPLES

settings.register_profile("long", max_examples=LONG_EXAMPLES)

PUZZLE_DIR = Path(__file__).parent / "puzzles"

EXAMPLE_ID = "4:aa_a__a__a_a__a_a,d2m12s1a5s1m4d2a5"
"""The worked example of formats.md; its one solution is EXAMPLE_SOLUTION."""
EXAMPLE_SOLUTION = ((1, 2, 3, 4), (4, 1, 2, 3), (3, 4, 1, 2), (2, 3, 4, 1))

KEEN_IDS = (PUZZLE_DIR / "keen.txt").read_text().split()
"""Game IDs printed by Keen itself (Debian's sgt-puzzles 20230122, `sgt-keen --generate 1 NdL`),
sizes 3 to 9: each has exactly one solution."""


@pytest.fixture
def puzzle_dir() -> Path:
    """The directory of puzzle files used by the tests."""
    return PUZZLE_DIR


@pytest.fixture
def example() -> Puzzle:
    """The worked example of formats.md, with its solution."""
    return read_keen(EXAMPLE_ID).with_solution(EXAMPLE_SOLUTION)


@pytest.fixture
def row_sums() -> Puzzle:
    """A 3×3 whose cages are the rows, each 6+: every latin square of order 3 solves it.

    It stores one of them; the others win too.
    """
    rows = tuple(Cage(((r, 0), (r, 1), (r, 2)), "+", 6) for r in range(3))
    return Puzzle(3, rows, ((1, 2, 3), (2, 3, 1), (3, 1, 2)))


@pytest.fixture
def no_solution() -> Puzzle:
    """A valid 3×3 with no solution: two 1s forced into the top row."""
    rest = ((0, 2), (1, 0), (1, 1), (1, 2), (2, 0), (2, 1), (2, 2))
    return Puzzle(3, (Cage(((0, 0),), "=", 1), Cage(((0, 1),), "=", 1), Cage(rest, "+", 15)))


@pytest.fixture
def on_a_terminal(monkeypatch):
    """kaldoku started from a terminal (the game refuses to start without one), while the
    test runs main() in-process with pytest holding the standard streams."""
    monkeypatch.setattr("kaldoku_tui.cli.on_a_terminal", lambda: True)


def game_app(puzzle: Puzzle, directory: Path | None = None, *, kind=None, depth: int = 0,
             now=lambda: 0.0, **kwargs):
    """The app playing a new game of `puzzle`, kept in a store in `directory` (in memory
    when None), with a bank of `depth` and a clock stopped at 0 unless `now` is given."""
    from kaldoku_tui.app import KaldokuApp
    from kaldoku_tui.bank import Bank
    from kaldoku_tui.services import Services
    from kaldoku_tui.session.settings import Settings
    from kaldoku_tui.session.store import open_store

    store = open_store(directory)
    settings = kwargs.pop("settings", None) or Settings.from_dict(store.settings())
    services = Services(store, Bank(store, depth=depth), settings,
                        ascii=kwargs.pop("ascii", False), now=now)
    session, _ = services.new_session(puzzle, kind or GameKind.of(puzzle))
    return KaldokuApp(session, services, **kwargs)


def saved_session(directory: Path):
    """The game in progress kept in `directory`, resumed (None when there is none)."""
    from kaldoku_tui.session import Session
    from kaldoku_tui.session.store import open_store

    store = open_store(directory)
    for found in store.open_games():
        saved = store.game(found.id)
        store.close()
        return Session.resume(saved.puzzle, saved.moves, saved.kind, elapsed=saved.elapsed,
                              now=lambda: 0.0)
    store.close()
    return None


def sql(directory: Path, query: str, *args):
    """The rows of `query` on the SQLite store in `directory`, read (or written, committed)
    behind the store's back: to look at what it wrote, or to damage it on purpose."""
    import sqlite3

    conn = sqlite3.connect(directory / "kaldoku.db", isolation_level=None)
    try:
        return conn.execute(query, args).fetchall()
    finally:
        conn.close()


def sql_write(directory: Path, work) -> None:
    """Run `work(connection)` on the SQLite store in `directory` in one transaction."""
    import sqlite3

    conn = sqlite3.connect(directory / "kaldoku.db")
    try:
        with conn:
            work(conn)
    finally:
        conn.close()


STORES = ["sqlite", "postgresql"]
"""The store implementations the contract suite (tests/test_store_contract.py) holds to
one interface; each but SQLite has a fixture `<name>_location` giving where one is."""


class StoreFactory:
    """Opens stores of one location for any player, and closes them all at the end."""

    def __init__(self, kind: str, location) -> None:
        self.kind = kind
        self.location = location
        """Where the store is: a data directory, or a postgresql:// URL."""
        self.opened: list = []

    def __call__(self, player: str = "local"):
        from kaldoku_tui.session.store import open_store

        store = open_store(self.location, player)
        self.opened.append(store)
        return store

    def close(self) -> None:
        for store in self.opened:
            store.close()


@pytest.fixture(params=STORES)
def store_factory(request, tmp_path):
    """Opens the store of one fresh location for a player: store_factory("name:ann")."""
    location = (tmp_path / "home" if request.param == "sqlite"
                else request.getfixturevalue(f"{request.param}_location"))
    factory = StoreFactory(request.param, location)
    yield factory
    factory.close()


async def workers_done(app, timeout: float = 60.0) -> None:
    """Wait until no worker of `app` runs, those started meanwhile too. A worker cancelled on
    the way (a palette search superseded by the next key) is done; one that failed raises.

    Textual's `app.workers.wait_for_complete()` raises WorkerCancelled instead, so a test
    that waits through a search the next key cancels fails only when the machine is slow."""
    from textual.worker import WorkerCancelled

    deadline = time.monotonic() + timeout
    while running := [worker for worker in app.workers if worker.is_running]:
        left = deadline - time.monotonic()
        assert left > 0, f"workers still running after {timeout} s: {running}"
        with contextlib.suppress(WorkerCancelled):
            await asyncio.wait_for(running[0].wait(), left)


async def until(pilot, condition, timeout: float = 30.0, what: str = "") -> None:
    """Let the app run until `condition()` is true; an AssertionError after `timeout`
    seconds, generous for a machine whose cores are busy with other work."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"not after {timeout} s: {what or condition}"
        await pilot.pause(0.05)
