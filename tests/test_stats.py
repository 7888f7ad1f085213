"""The player's record: counts and best times per kind of game, robust to bad data, and
kept by the game when it is won or given up."""

import pytest

from kaldoku_tui.app import KaldokuApp
from kaldoku_tui.bank import Bank
from kaldoku_tui.engine.kinds import GameKind
from kaldoku_tui.engine.board import Board
from kaldoku_tui.screens.records import RecordsScreen
from kaldoku_tui.screens.win import WinScreen
from kaldoku_tui.stats import Record, record_of, records, with_game
from kaldoku_tui.storage import STATS_FILE, Store
from test_grid import screen_lines
from test_looks import not_ascii

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


def screen_text(app) -> str:
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


async def solve_by_keys(app, pilot, grid) -> None:
    for r, row in enumerate(grid):
        for c, digit in enumerate(row):
            app.game.grid.cursor = (r, c)
            await pilot.press(str(digit))
    await pilot.pause()


async def test_a_win_is_counted_once_and_shown(row_sums, tmp_path):
    now = [0.0]
    app = KaldokuApp(Board(row_sums), store=Store(tmp_path), bank=Bank(depth=0), clock=lambda: now[0])
    async with app.run_test(size=(80, 24)) as pilot:
        now[0] = 83.0
        await solve_by_keys(app, pilot, row_sums.solution)
        assert isinstance(app.screen, WinScreen)
        assert str(app.screen.query_one("#win-record").render()) == (
            "New best time! Won 1 of 1 played, best without help 1:23.")
        await pilot.press("n", "1", "u")  # back on the finished board: keys change nothing
        await pilot.press("s")
        assert isinstance(app.screen, RecordsScreen)
        table = screen_text(app)
        assert "Kind of game  Won  Played  Best without help" in table
        assert "3×3 · +−×÷      1       1  1:23" in table
    stats, _ = Store(tmp_path).load_stats()
    assert record_of(stats, GameKind.of(row_sums)) == Record(finished=1, won=1, unaided=1, best=83.0)


async def test_a_win_with_help_sets_no_best_time_and_shows_only_ascii(row_sums, tmp_path):
    app = KaldokuApp(Board(row_sums), store=Store(tmp_path), bank=Bank(depth=0), ascii=True,
                     help_used={"checks": 1})
    async with app.run_test(size=(80, 24)) as pilot:
        await solve_by_keys(app, pilot, row_sums.solution)
        assert str(app.screen.query_one("#win-record").render()) == "Won 1 of 1 played."
        assert not_ascii(screen_lines(app)) == {}
    stats, _ = Store(tmp_path).load_stats()
    assert record_of(stats, GameKind.of(row_sums)) == Record(finished=1, won=1, unaided=0, best=None)


async def test_a_reveal_counts_as_finished_not_won_even_after_corrupt_stats(example, tmp_path):
    (tmp_path / STATS_FILE).write_text("{half a file")
    app = KaldokuApp(Board(example), store=Store(tmp_path), bank=Bank(depth=0))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("v", "y")
        assert "stats.json was unusable" in app.game.message
    assert list(tmp_path.glob(f"{STATS_FILE}.corrupt-*"))
    stats, _ = Store(tmp_path).load_stats()
    assert record_of(stats, GameKind.of(example)) == Record(finished=1, won=0, unaided=0, best=None)


def test_records_list_the_kinds_played_in_order_and_skip_bad_keys():
    stats = with_game(None, HARD9, won=True, seconds=100, helped=False)
    stats = with_game(stats, GameKind(4, "mul"), won=False, seconds=50, helped=True)
    stats["kinds"].update({"bogus": {}, "12/all/any": {}, "5/all/fiendish": {}})
    assert records(stats) == [
        (GameKind(4, "mul"), Record(finished=1)),
        (HARD9, Record(finished=1, won=1, unaided=1, best=100.0)),
    ]
    assert records({"kinds": [1, 2]}) == [] and records(None) == []
