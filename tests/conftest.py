"""Shared fixtures: small puzzles with known properties."""

from __future__ import annotations

from pathlib import Path

import pytest

from kaldoku_tui.engine.formats import read_keen
from kaldoku_tui.engine.kinds import GameKind
from kaldoku_tui.engine.puzzle import Cage, Puzzle

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


def game_app(puzzle: Puzzle, directory: Path | None = None, *, kind=None, depth: int = 0,
             now=lambda: 0.0, **kwargs):
    """The app playing a new game of `puzzle`, kept in a store in `directory` (in memory
    when None), with a bank of `depth` and a clock stopped at 0 unless `now` is given."""
    from kaldoku_tui.app import KaldokuApp
    from kaldoku_tui.bank import Bank
    from kaldoku_tui.services import Services
    from kaldoku_tui.session.settings import Settings
    from kaldoku_tui.session.store import Store

    store = Store(directory)
    settings = kwargs.pop("settings", None) or Settings.from_dict(store.settings())
    services = Services(store, Bank(store, depth=depth), settings,
                        ascii=kwargs.pop("ascii", False), now=now)
    session, _ = services.new_session(puzzle, kind or GameKind.of(puzzle))
    return KaldokuApp(session, services, **kwargs)


def saved_session(directory: Path):
    """The game in progress kept in `directory`, resumed (None when there is none)."""
    from kaldoku_tui.session import Session
    from kaldoku_tui.session.store import Store

    store = Store(directory)
    for saved in store.open_games():
        store.close()
        return Session.resume(saved.puzzle, saved.moves, saved.kind, elapsed=saved.elapsed,
                              now=lambda: 0.0)
    store.close()
    return None
