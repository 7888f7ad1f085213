"""The player's records on screen: counted by the game when it is won, revealed or left."""

from __future__ import annotations

from kaldoku_tui.engine.kinds import GameKind
from kaldoku_tui.screens.records import RecordsScreen
from kaldoku_tui.screens.win import WinScreen
from kaldoku_tui.session.store import Record, open_store

from conftest import game_app
from screen import screen_lines, screen_text
from test_looks import not_ascii


async def solve_by_keys(app, pilot, grid) -> None:
    for r, row in enumerate(grid):
        for c, digit in enumerate(row):
            app.game.grid.cursor = (r, c)
            await pilot.press(str(digit))
    await pilot.pause()


async def test_a_win_is_counted_once_and_shown(row_sums, tmp_path):
    now = [0.0]
    app = game_app(row_sums, tmp_path, now=lambda: now[0])
    async with app.run_test(size=(80, 24)) as pilot:
        now[0] = 83.0
        await solve_by_keys(app, pilot, row_sums.solution)
        assert isinstance(app.screen, WinScreen)
        assert str(app.screen.query_one("#win-record").render()) == (
            "New best time! Won 1 of 1 played, best without help 1:23.")
        await pilot.press("n", "1", "u")  # back on the finished board: keys change nothing
        assert app.game.session.board.grid == row_sums.solution
        assert "solved" in app.game.message
        await pilot.press("s")
        assert isinstance(app.screen, RecordsScreen)
        table = screen_text(app)
        assert "Kind of game  Played  Won  No help  Best  Median" in table
        assert "3×3 · +−×÷         1    1        1  1:23    1:23" in table
    assert open_store(tmp_path).record(GameKind.of(row_sums)) == Record(1, 1, 1, 83.0, 83.0)


async def test_a_win_with_help_sets_no_best_time_and_shows_only_ascii(row_sums, tmp_path):
    app = game_app(row_sums, tmp_path, ascii=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("c")
        await solve_by_keys(app, pilot, row_sums.solution)
        assert str(app.screen.query_one("#win-record").render()) == "Won 1 of 1 played."
        assert not_ascii(screen_lines(app)) == {}
    assert open_store(tmp_path).record(GameKind.of(row_sums)) == Record(1, 1, 0, None, None)


async def test_a_reveal_counts_as_played_not_won(example, tmp_path):
    app = game_app(example, tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("v", "y")
        assert app.game.session.outcome == "revealed"
    assert open_store(tmp_path).record(GameKind.of(example)) == Record(played=1)


async def test_a_game_left_for_a_new_one_stays_unfinished_and_uncounted(example, row_sums, tmp_path):
    # Issue 27: a game left for another is not dropped; it counts once it ends.
    app = game_app(example, tmp_path, depth=1)
    app.services.bank.add(GameKind(3), row_sums)
    async with app.run_test(size=(80, 24)) as pilot:
        app.workers.cancel_group(app, "bank")
        first = app.game.session.journal.game_id
        await pilot.press("1", "g", "3", "enter")
        assert app.game.session.board.puzzle == row_sums
        await pilot.press("g", "4", "escape")
    store = open_store(tmp_path)
    assert first in {game.id for game in store.open_games()}
    assert store.record(GameKind.of(example)) == Record()
    assert store.record(GameKind(3)) == Record(), "the 3×3 was not left: the dialog was cancelled"


async def test_no_games_yet_and_no_saving_say_so(example):
    app = game_app(example)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("s")
        assert "Statistics are not kept" in screen_text(app)


async def test_the_time_of_a_win_and_its_best_time_agree(row_sums, tmp_path):
    now = [0.0]
    app = game_app(row_sums, tmp_path, now=lambda: now[0])
    async with app.run_test(size=(80, 24)) as pilot:
        now[0] = 5.96  # rounds to 6.0 in the store: the win must not say 0:05
        await solve_by_keys(app, pilot, row_sums.solution)
        assert str(app.screen.query_one("#win-time").render()).endswith("in 0:06")
        assert str(app.screen.query_one("#win-record").render()).endswith("best without help 0:06.")
