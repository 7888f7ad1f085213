"""The player's record: counts and best times per kind of game, robust to bad data."""

import pytest

from kaldoku_tui.bank import GameKind
from kaldoku_tui.stats import Record, record_of, with_game

HARD9 = GameKind(9, "all", "hard")


def test_a_first_unaided_win_sets_the_best_time():
    stats = with_game(None, HARD9, won=True, seconds=312.44, helped=False)
    assert record_of(stats, HARD9) == Record(finished=1, won=1, unaided=1, best=312.4)
    assert record_of(stats, GameKind(9)) == Record()


def test_only_faster_unaided_wins_beat_the_best():
    stats = with_game(None, HARD9, won=True, seconds=300, helped=False)
    stats = with_game(stats, HARD9, won=True, seconds=200, helped=True)
    stats = with_game(stats, HARD9, won=False, seconds=100, helped=True)
    assert record_of(stats, HARD9) == Record(finished=3, won=2, unaided=1, best=300)
    stats = with_game(stats, HARD9, won=True, seconds=250, helped=False)
    assert record_of(stats, HARD9).best == 250


def test_recording_leaves_the_old_stats_alone():
    before = with_game(None, HARD9, won=True, seconds=300, helped=False)
    with_game(before, HARD9, won=True, seconds=100, helped=False)
    assert record_of(before, HARD9).best == 300


@pytest.mark.parametrize(
    "stats",
    [{}, {"kinds": []}, {"kinds": {"9/all/hard": "x"}},
     {"kinds": {"9/all/hard": {"won": -3, "finished": True, "best": "fast"}}}, "junk", 7],
)
def test_malformed_stats_count_as_nothing(stats):
    assert record_of(stats, HARD9) == Record()
    assert record_of(with_game(stats, HARD9, True, 60, False), HARD9) == Record(1, 1, 1, 60)
