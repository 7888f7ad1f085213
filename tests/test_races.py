"""Races: the lobby's race room (open, join by short name, start), the racer's game that
writes its progress and shows the others', rejoining after a drop, and the results table.
The store's side is in tests/test_store_contract.py (both stores)."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from conftest import EXAMPLE_ID, EXAMPLE_SOLUTION, until
from textual.widgets import Input, Static

from kaldoku_tui.app import build_app
from kaldoku_tui.config import AppConfig
from kaldoku_tui.engine.codes import share_code
from kaldoku_tui.engine.formats import read_keen
from kaldoku_tui.engine.kinds import GameKind
from kaldoku_tui.serve.lobby import LobbyApp, NameScreen, RaceDesk, RaceScreen, lobby_view, renamer
from kaldoku_tui.session.store import open_store

PUZZLE = read_keen(EXAMPLE_ID).with_solution(EXAMPLE_SOLUTION)
KIND = GameKind(4)


def panel(app) -> str:
    return str(app.screen.query_one("#race-panel", Static).render())


def lobby(store) -> LobbyApp:
    view = lobby_view(store, KIND)
    return LobbyApp(view, ["--size", "4"], None, ask_name=False, races=RaceDesk(store, KIND))


async def test_a_race_is_opened_in_the_lobby_joined_by_its_name_and_started_by_its_opener(tmp_path):
    ann, bob = open_store(tmp_path, "name:ann"), open_store(tmp_path, "name:bob")
    ann.set_display_name("Ann")
    opener = lobby(ann)
    async with opener.run_test(size=(100, 30)) as pilot:
        options = [o.id for o in opener.query_one("#menu").options]
        assert "race" in options
        await pilot.press(*["down"] * options.index("race"), "enter")
        assert isinstance(opener.screen, RaceScreen)
        await pilot.press("enter")  # Open a race: 4×4
        await until(pilot, lambda: "Race " in panel(opener), what="the race opened")
        name = opener.screen.name_in
        assert name and f"tell others its name, {name}" in panel(opener) and "s starts it" in panel(opener)
        assert ann.race(name).kind == KIND.key and not ann.race(name).started

        joiner = lobby(bob)
        async with joiner.run_test(size=(100, 30)) as bob_pilot:
            await bob_pilot.press(*["down"] * options.index("race"), "enter")
            joiner.screen.query_one("#race-join", Input).focus()
            await bob_pilot.press("n", "o", "p", "e", "enter")
            await until(bob_pilot, lambda: "No race 'nope'" in panel(joiner), what="no such race")
            field = joiner.screen.query_one("#race-join", Input)
            field.value = name.upper()
            await bob_pilot.press("enter")
            await until(bob_pilot, lambda: "Ann starts it" in panel(joiner), what="bob in the race")
            await until(pilot, lambda: "bob" in panel(opener), what="ann sees bob join")
            await pilot.press("s")
            await until(bob_pilot, lambda: joiner.return_value is not None, what="bob's race starts")
        assert joiner.return_value == ["--race", name]
        await until(pilot, lambda: opener.return_value is not None, what="ann's race starts")
    assert opener.return_value == ["--race", name]
    assert [r.name for r in bob.race(name).racers] and bob.race(name).started


async def test_racers_see_each_others_cells_filled_rejoin_and_get_a_results_table(tmp_path):
    ann, bob = open_store(tmp_path, "name:ann"), open_store(tmp_path, "name:bob")
    ann.set_display_name("Ann")
    name = ann.race_open(KIND.key, share_code(PUZZLE))
    assert bob.race_join(name) and ann.race_start(name)
    ann.race_progress(name, 5, None)

    app = build_app(AppConfig(data_dir=tmp_path, player="bob", race=name))
    async with app.run_test(size=(80, 24)) as pilot:
        assert app.game.session.puzzle.cages == PUZZLE.cages
        await pilot.press("1")
        await until(pilot, lambda: bob.race(name).me.filled == 1, what="bob's cell written")
        await until(pilot, lambda: f"Race {name}: Ann 5/16" in app.game.message, what="ann's progress shown")
        ann.race_progress(name, 16, 61.0)
        await until(pilot, lambda: "Ann done 1:01" in app.game.message, what="ann done")
        assert "1" not in app.game.message.split(":", 1)[1].replace("1:01", ""), "no digit of hers"
    # Bob drops out: the lobby offers the race again, and his own game comes back.
    assert lobby_view(bob, KIND).rejoin == (name,)
    again = build_app(AppConfig(data_dir=tmp_path, player="bob", race=name))
    async with again.run_test(size=(80, 24)) as pilot:
        assert again.game.session.board.digit((0, 0)) == 1
        moves = []
        for digits in EXAMPLE_SOLUTION:
            for digit in digits:
                moves += [str(digit), "right"]
            moves += ["down", *["left"] * 4]
        await pilot.press(*moves)
        await until(pilot, lambda: bob.race(name).me.seconds is not None, what="bob's time written")
    table = lobby_view(bob, KIND, race=name).race_table
    assert table[0] == f"Race {name}:", "over: both finished"
    assert "1. bob" in table[1] and "(you)" in table[1], "bob was faster than Ann's 1:01"
    assert "2. Ann" in table[2] and "1:01" in table[2]
    assert lobby_view(bob, KIND).rejoin == ()


async def test_a_race_on_the_daily_counts_as_the_daily_and_old_races_are_not_offered(tmp_path):
    import sqlite3

    from kaldoku_tui.engine.daily import daily_puzzle, utc_day
    from kaldoku_tui.session.store import DB_FILE, RACE_DAILY

    ann = open_store(tmp_path, "name:ann")
    today = utc_day()
    name = ann.race_open(RACE_DAILY, share_code(daily_puzzle(today)))
    assert ann.race_start(name)
    app = build_app(AppConfig(data_dir=tmp_path, player="ann", race=name))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("1")
        await until(pilot, lambda: ann.race(name).me.filled == 1, what="ann's cell written")
    assert [g.daily for g in ann.open_games()] == [today], "her game is today's daily"
    assert lobby_view(ann, KIND).rejoin == (name,)
    with sqlite3.connect(tmp_path / DB_FILE) as db:
        db.execute("UPDATE races SET opened = '2026-01-01T00:00:00+00:00'")
    assert lobby_view(ann, KIND).rejoin == (), "a race opened long ago is not offered again"


async def open_a_race(app, pilot, desk: RaceDesk) -> None:
    """Go to the race room of `desk` and open a race of its kind, as Enter on the first entry does."""
    app.push_screen(RaceScreen(desk))
    await pilot.press("enter")
    await until(pilot, lambda: "s starts it" in panel(app), what="the race opened")


async def test_the_race_room_says_so_when_the_store_cannot_be_read(tmp_path):
    ann = open_store(tmp_path, "name:ann")
    app = lobby(ann)
    async with app.run_test(size=(100, 30)) as pilot:
        await open_a_race(app, pilot, RaceDesk(ann, KIND))
        ann.close()  # from now on nothing can be read
        await until(pilot, lambda: "The races cannot be reached now" in panel(app), what="told")
        assert app.is_running


@dataclass
class SlowDesk(RaceDesk):
    """A race desk whose store, once `slow` is set, takes its time to read a race (as in a
    PostgreSQL outage): it waits for `answer`, at most 5 s."""

    slow: threading.Event = field(default_factory=threading.Event)
    asked: threading.Event = field(default_factory=threading.Event)
    answer: threading.Event = field(default_factory=threading.Event)
    answered: threading.Event = field(default_factory=threading.Event)

    def race(self, name: str):
        if self.slow.is_set():
            self.asked.set()
            self.answer.wait(5)
            self.answered.set()
        return super().race(name)


async def test_the_race_room_answers_keys_while_the_store_is_slow_to_answer(tmp_path):
    ann = open_store(tmp_path, "name:ann")
    desk = SlowDesk(ann, KIND)
    app = lobby(ann)
    async with app.run_test(size=(100, 30)) as pilot:
        await open_a_race(app, pilot, desk)
        desk.slow.set()
        await until(pilot, desk.asked.is_set, what="the race read again")
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, RaceScreen), what="back in the lobby")
        assert not desk.answered.is_set(), "Esc was handled while the store had not answered"
        desk.answer.set()


async def test_a_race_not_started_in_time_is_said_to_be_gone(tmp_path):
    import sqlite3

    from kaldoku_tui.session.store import DB_FILE

    ann = open_store(tmp_path, "name:ann")
    app = lobby(ann)
    async with app.run_test(size=(100, 30)) as pilot:
        await open_a_race(app, pilot, RaceDesk(ann, KIND))
        with sqlite3.connect(tmp_path / DB_FILE) as db:
            db.execute("UPDATE races SET opened = '2026-01-01T00:00:00+00:00'")
        await until(pilot, lambda: "is gone: it was not started within 2 hours" in panel(app), what="told")
        await pilot.press("s")
        await until(pilot, lambda: not app.screen.asking, what="the start tried")
        assert isinstance(app.screen, RaceScreen) and not ann.race_start(app.screen.name_in)


async def test_the_name_is_kept_off_the_ui_thread_and_a_store_that_fails_is_said_so(tmp_path):
    """The lobby's name prompt (in this file for its lobby helpers): a name kept shows in the
    panel; a store that cannot keep it is told in the prompt, and the lobby goes on."""
    ann = open_store(tmp_path, "name:ann")
    app = LobbyApp(lobby_view(ann, KIND), ["--size", "4"], renamer(ann), ask_name=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, NameScreen), what="asked for a name")
        await pilot.press("A", "n", "n", "enter")
        await until(pilot, lambda: "You: Ann" in str(app.query_one("#panel", Static).render()), what="shown")
        assert ann.display_name() == "Ann"
        ann.close()  # from now on nothing can be written
        await pilot.press("n", "B", "o", "b", "enter")
        problem = lambda: str(app.screen.query_one("#name-problem", Static).render())  # noqa: E731
        await until(pilot, lambda: "Your name cannot be kept now" in problem(), what="told")
        assert app.is_running and isinstance(app.screen, NameScreen)
