"""Snapshots of the game screen at 80×24 (pytest-textual-snapshot), theme and clock pinned.

Update after a deliberate change of the look: pytest tests/test_snapshots.py --snapshot-update
"""

from __future__ import annotations

from kaldoku_tui.app import KaldokuApp, ensure_solution
from kaldoku_tui.engine.formats import read_keen

from conftest import KEEN_IDS, game_app


def still_app(puzzle, theme="textual-dark") -> KaldokuApp:
    """An app with a stopped clock, no bank filling and no saving: the same screen every run."""
    return game_app(puzzle, theme=theme)


def test_four_by_four_with_digits_notes_and_a_duplicate(snap_compare, example):
    keys = ["1", "right", "2", "down", "n", "1", "4", "n", "down", "2", "left", "3"]
    assert snap_compare(still_app(example), press=keys, terminal_size=(80, 24))


def test_four_by_four_checked_in_a_light_theme(snap_compare, example):
    keys = ["1", "right", "3", "right", "4", "c"]
    assert snap_compare(still_app(example, "textual-light"), press=keys, terminal_size=(80, 24))


def test_nine_by_nine_fits_80_by_24(snap_compare):
    nine = ensure_solution(read_keen(next(game_id for game_id in KEEN_IDS if game_id.startswith("9:"))))
    keys = ["right", "down", "5", "right", "n", "1", "2", "3"]
    assert snap_compare(still_app(nine), press=keys, terminal_size=(80, 24))
