"""The store contract: what every store (SQLite, PostgreSQL) does for the game, through
the interface of session/store/base.py only. Each test runs once per implementation
(`store_factory`, tests/conftest.py)."""

from __future__ import annotations

import multiprocessing
import time
from datetime import date

import pytest

from conftest import EXAMPLE_ID, EXAMPLE_SOLUTION
from kaldoku_tui.engine.daily import Streaks
from kaldoku_tui.engine.formats import read_keen
from kaldoku_tui.engine.generator import generate
from kaldoku_tui.engine.techniques import grade
from kaldoku_tui.engine.kinds import LEVELS, GameKind
from kaldoku_tui.session.game import TAKEN
from kaldoku_tui.session.store import (
    LegacyData, Record, Standing, Store, StoreError, open_store, player_id,
)

PUZZLE = read_keen(EXAMPLE_ID).with_solution(EXAMPLE_SOLUTION)
KIND = GameKind(4)
ANN, BOB = "name:ann", "name:bob"
NO_HELP = {"checks": 0, "hints": 0, "reveals": 0}
MONDAY = date(2026, 11, 23)


def record(i: int) -> dict:
    return {"move": "place", "cell": [i % 4, i // 4 % 4], "digit": i % 4 + 1, "i": i}


def game(store: Store, moves: int = 0, outcome: str | None = None, elapsed: float = 10.0,
         help_used: dict | None = None, kind: GameKind = KIND, daily: date | None = None) -> int:
    """A game of `store`'s player with `moves` moves, ended as `outcome` (None: in progress);
    its id."""
    journal, notice = store.new_game(PUZZLE, kind, daily)
    assert notice is None and journal.game_id is not None
    for i in range(moves):
        assert journal.append(record(i), float(i)) is None
    if outcome is not None:
        assert journal.end(outcome, elapsed, help_used or NO_HELP) is None
    else:
        assert journal.touch(elapsed) is None
    return journal.game_id


# Players.


def test_two_players_never_see_each_others_games_settings_records_or_bank(store_factory):
    ann, bob = store_factory(ANN), store_factory(BOB)
    assert (ann.player, bob.player) == (ANN, BOB)
    ann_open, ann_won = game(ann, 3), game(ann, 2, "won", 42.0)
    ann.save_settings({"theme": "nord"})
    ann.bank_add(KIND, PUZZLE)
    assert [g.id for g in ann.open_games()] == [ann_open]
    assert bob.open_games() == [] and bob.history() == [] and bob.records() == []
    assert bob.settings() == {} and bob.bank_counts() == {} and bob.bank_take(KIND) is None
    assert bob.game(ann_open) is None and bob.game(ann_won) is None
    assert bob.move_log(ann_open) is None
    with pytest.raises(StoreError):
        bob.resume(ann_open)
    bob_open = game(bob, 1)
    assert [g.id for g in bob.open_games()] == [bob_open]
    assert [g.id for g in ann.open_games()] == [ann_open], "bob's game is not ann's"
    assert ann.settings() == {"theme": "nord"} and ann.bank_counts() == {KIND: 1}
    assert ann.records() == [(KIND, Record(1, 1, 1, 42.0, 42.0))]


def test_player_ids_from_names_and_bad_names_refused(store_factory):
    assert player_id(None) == "local" and player_id("ann") == ANN
    assert player_id("guest:0b7e5d34-26b1-4d5c-9a7e-3b1a2f7c9d10").startswith("guest:")
    for bad in ("x" * 65, "a\x1bb", "key:", "nobody:x"):
        with pytest.raises(StoreError):
            player_id(bad)
    with pytest.raises(StoreError):
        open_store(store_factory.location, "a\nb")


# Moves and resuming.


def test_moves_are_kept_in_order_and_a_game_resumes_with_all_of_them(store_factory):
    store = store_factory()
    game_id = game(store, 25, elapsed=31.5)
    again = store_factory()
    (found,) = again.open_games()
    assert found.id == game_id and found.kind_key == KIND.key and found.daily is None
    resumed = again.resume(game_id)
    assert resumed.notice is None
    saved = resumed.game
    assert saved.moves == [record(i) for i in range(25)] and saved.elapsed == 31.5
    assert saved.puzzle == PUZZLE and saved.kind == KIND and saved.outcome is None
    log = again.move_log(game_id)
    assert [line["seq"] for line in log] == list(range(1, 26)) and log[3]["i"] == 3
    assert resumed.journal.append(record(25), 32.0) is None
    assert store_factory().game(game_id).moves[-1] == record(25)


def test_the_last_played_game_is_offered_first(store_factory):
    store = store_factory()
    first, second = game(store, 1), game(store, 1)
    assert [g.id for g in store.open_games()] == [second, first]
    journal = store.resume(first).journal
    time.sleep(1.1)  # the moments kept are to the second
    journal.append(record(9), 2.0)
    assert [g.id for g in store_factory().open_games()] == [first, second]


def test_a_resumed_game_is_taken_over_and_the_other_process_writes_no_more(store_factory):
    first = store_factory()
    journal, _ = first.new_game(PUZZLE, KIND)
    journal.append(record(0), 1.0)
    second = store_factory()
    taken = second.resume(journal.game_id)
    assert taken.game.moves == [record(0)]
    assert journal.append(record(1), 2.0) == TAKEN and journal.taken
    assert journal.append(record(2), 3.0) is None, "told once"
    assert taken.journal.append(record(7), 4.0) is None
    assert store_factory().game(journal.game_id).moves == [record(0), record(7)]


def test_a_snapshot_is_resumed_with_the_moves_after_it_and_a_replay_gets_every_move(store_factory):
    store = store_factory()
    journal, _ = store.new_game(PUZZLE, KIND)
    for i in range(5):
        journal.append(record(i), float(i))
    journal.keep_snapshot(5, '{"board": "after five"}')
    journal.append(record(5), 5.0)
    resumed = store_factory().resume(journal.game_id).game
    assert resumed.snapshot == {"board": "after five"} and resumed.start == 5
    assert resumed.moves == [record(5)]
    whole = store_factory().game(journal.game_id)
    assert whole.snapshot is None and whole.moves == [record(i) for i in range(6)]


def test_an_ended_game_is_no_longer_open_and_a_skipped_one_is_not_history(store_factory):
    store = store_factory()
    won, skipped, left = game(store, 2, "won"), game(store, 0, "skipped"), game(store, 1, "left")
    assert store.open_games() == []
    assert store.game(won).outcome == "won"
    assert [g.id for g in store.history()] == [left, won]
    with pytest.raises(StoreError):
        store.resume(won)
    assert skipped


def test_a_game_set_aside_is_kept_and_not_counted(store_factory):
    store = store_factory()
    game_id = game(store, 2)
    assert "kept aside" in store.set_game_aside(game_id, "a test")
    assert store.open_games() == [] and store.records() == []
    assert store.game(game_id).outcome == "damaged"


# History, records, streaks.


def test_history_comes_in_pages_the_last_begun_first(store_factory):
    store = store_factory()
    ids = [game(store, 1, "won") for _ in range(7)]
    assert [g.id for g in store.history()] == ids[::-1]
    pages = [store.history(3, offset) for offset in (0, 3, 6)]
    assert [[g.id for g in page] for page in pages] == [ids[6:3:-1], ids[3:0:-1], ids[:1]]
    assert store.history(3, 7) == []
    past = pages[0][0]
    assert past.outcome == "won" and past.kind_key == KIND.key and past.puzzle() == PUZZLE
    assert not past.helped and past.elapsed == 10.0


def test_records_count_played_won_unaided_and_time_the_wins_without_help(store_factory):
    store = store_factory()
    for elapsed in (30.0, 10.0, 20.0, 50.0):
        game(store, 1, "won", elapsed)
    game(store, 1, "won", 5.0, {"checks": 1, "hints": 0, "reveals": 0})
    game(store, 1, "revealed", 9.0, {"checks": 0, "hints": 0, "reveals": 1})
    game(store, 1, "left")
    game(store, 0, "skipped")
    game(store, 1)  # in progress
    other = GameKind(4, "all", "easy")
    game(store, 1, "won", 70.0, kind=other)
    assert store.records() == [(KIND, Record(7, 5, 4, 10.0, 25.0)), (other, Record(1, 1, 1, 70.0, 70.0))]
    assert store.record(KIND) == Record(7, 5, 4, 10.0, 25.0)
    assert store.record(GameKind(9)) == Record()
    assert store.win_times(KIND) == [30.0, 10.0, 20.0, 50.0, 5.0]
    assert store.win_times(KIND, 2) == [50.0, 5.0]


def test_records_carried_over_from_0_1_0_add_to_the_games(store_factory):
    store = store_factory()
    game(store, 1, "won", 40.0)
    written, notice = store.carry_over(LegacyData(
        carried=[(KIND.key, 3, 2, 1, 33.5)], settings={"theme": "nord"},
        bank=[(KIND.key, '{"size": 4}')]))
    assert written and notice is None and store.legacy_done()
    assert store.carry_over(LegacyData(carried=[(KIND.key, 9, 9, 9, 1.0)])) == (False, None)
    assert store.records() == [(KIND, Record(4, 3, 2, 33.5, 40.0))]
    assert store.settings() == {"theme": "nord"} and store.bank_counts() == {KIND: 1}
    assert store.bank_take(KIND) is None, "a bad ready puzzle is dropped, not played"
    assert store_factory(ANN).records() == []


def test_daily_streaks_count_the_days_won_the_same_day(store_factory):
    store = store_factory()
    today = date.today()
    daily = GameKind(4, "all", "normal")
    game(store, 1, "won", kind=daily, daily=today)
    game(store, 1, "won", kind=daily, daily=MONDAY)  # an older day, played today: practice
    assert store.daily_days() == {today}
    assert store.streaks(today) == Streaks(1, 1)
    assert store_factory(ANN).daily_days() == set()


# Leaderboards and names.


def test_leaderboards_rank_each_players_best_win_without_help(store_factory):
    today = date.today()
    daily = GameKind(4, "all", "normal")
    times = {ANN: (50.0, 40.0), BOB: (45.0,), "name:cy": (40.0,)}
    for player, elapsed in times.items():
        store = store_factory(player)
        for t in elapsed:
            game(store, 1, "won", t, kind=daily, daily=today)
            game(store, 1, "won", t - 30, kind=KIND)
    dan = store_factory("name:dan")
    game(dan, 1, "won", 1.0, {"checks": 1, "hints": 0, "reveals": 0}, kind=daily, daily=today)
    game(dan, 1, "revealed", 1.0, kind=KIND)
    assert dan.set_display_name("Dan the Man") is None
    game(dan, 1, "won", 44.0, kind=daily, daily=today)
    store_factory(BOB).set_display_name("Bob B.")
    assert dan.display_name() == "Dan the Man" and store_factory(ANN).display_name() == "ann"
    assert store_factory(ANN).name_holder("dan THE man") == "name:dan"
    assert dan.name_holder("ann") is None  # a default name is nobody's choice
    board = store_factory(ANN).daily_leaderboard(today)
    assert board == [Standing(1, "ann", 40.0), Standing(1, "cy", 40.0),
                     Standing(3, "Dan the Man", 44.0), Standing(4, "Bob B.", 45.0)]
    assert store_factory().daily_leaderboard(today, 2) == board[:2]
    assert store_factory().daily_leaderboard(MONDAY) == []
    assert [(s.name, s.time) for s in store_factory().kind_leaderboard(KIND)] == [
        ("ann", 10.0), ("cy", 10.0), ("Bob B.", 15.0)]


# Settings and the bank.


def test_settings_are_kept_per_player_and_added_to(store_factory):
    store = store_factory()
    assert store.save_settings({"theme": "nord", "shade_peers": True}) is None
    assert store.save_settings({"theme": "dracula", "cursor": {"game": 3, "cell": [1, 2]}}) is None
    assert store_factory().settings() == {"theme": "dracula", "shade_peers": True,
                                          "cursor": {"game": 3, "cell": [1, 2]}}
    assert store_factory(ANN).settings() == {}


def test_the_bank_gives_each_puzzle_once_and_only_of_the_kind_asked(store_factory):
    store = store_factory()
    six = GameKind(6)
    store.bank_add(KIND, PUZZLE)
    store.bank_add(KIND, PUZZLE)
    store.bank_add(six, PUZZLE)  # a 4×4 kept as a 6×6 (a damaged or crafted row)
    assert store.bank_counts() == {KIND: 2, six: 1}
    assert store.bank_take(six) is None, "never played as a 6×6"
    other = store_factory()
    assert store.bank_take(KIND) == PUZZLE and other.bank_take(KIND) == PUZZLE
    assert store.bank_take(KIND) is None and other.bank_counts() == {}
    made = generate(5, seed=3)
    store_factory(ANN).bank_add(GameKind(5), made)
    assert store.bank_take(GameKind(5)) is None and store_factory(ANN).bank_take(GameKind(5)) == made


def test_a_ready_puzzle_is_played_only_at_the_level_it_has_now(store_factory):
    """An older kaldoku graded otherwise (the line rule was hard until edition 26)."""
    store = store_factory()
    level = grade(PUZZLE).level
    for kept in LEVELS:
        store.bank_add(GameKind(4, "all", kept), PUZZLE)
    assert [store.bank_take(GameKind(4, "all", kept)) for kept in LEVELS] == [
        PUZZLE if kept == level else None for kept in LEVELS]
    assert store.bank_counts() == {}


# Many processes at once.


WRITER_TRIES = 1500
"""Writes a writer tries before its moves count as lost: each waits at most the paused
timeout (0.1 s) and a pause, so 3 minutes of a quiet machine; the rush needs a few."""


def append_moves(location, player: str, moves: int, ready, go) -> None:
    store = open_store(location, player)
    journal, notice = store.new_game(PUZZLE, KIND)
    assert notice is None
    ready.release()
    go.wait()
    for i in range(moves):
        journal.append({**record(i), "player": player}, float(i))
    # A writer kept waiting past the busy timeout pauses saving and keeps its moves: they
    # must all be written once the rush is over. The bound counts tries, not seconds: a
    # machine that stalls for a minute stalls every writer and then lets them go on.
    notice = None
    for _ in range(WRITER_TRIES):
        if not journal.pending:
            break
        notice = journal.flush(float(moves)) or notice
        if journal.pending:
            # A player's next key comes later; 22 writers trying back to back starve the
            # one that holds the lock on a busy machine.
            time.sleep(0.02)
    assert not journal.pending, f"{player}: {len(journal.pending)} moves never saved ({notice})"
    store.close()


def test_twenty_players_and_two_of_one_player_appending_at_once_lose_and_corrupt_nothing(store_factory):
    store_factory().close()  # made before the rush
    players = [f"name:p{n}" for n in range(20)] + ["name:twice"] * 2
    moves = 8  # enough for every writer to meet the others; more only loads a busy machine
    context = multiprocessing.get_context("fork")
    ready, go = context.Semaphore(0), context.Event()
    writers = [context.Process(target=append_moves, args=(store_factory.location, p, moves, ready, go))
               for p in players]
    for writer in writers:
        writer.start()
    for _ in writers:
        assert ready.acquire(timeout=30)
    go.set()
    # Quiet, the rush takes 2 s. The bound is for a busy machine, where a writer holding
    # the lock is often not running; it counts waits, so a stalled machine spends none.
    for _ in range(240):
        running = [writer for writer in writers if writer.is_alive()]
        if not running:
            break
        running[0].join(1.0)
    for writer in writers:
        assert writer.exitcode == 0, f"a writer {'is still writing' if writer.exitcode is None else 'failed'}"
    for player in set(players):
        store = store_factory(player)
        found = store.open_games()
        assert len(found) == players.count(player)
        for open_game in found:
            saved = store.game(open_game.id)
            assert saved.moves == [{**record(i), "player": player} for i in range(moves)]


# Races (the store is what racers on several servers share).


def test_a_race_is_opened_joined_by_its_short_name_started_and_ranked(store_factory):
    from kaldoku_tui.session.store import race_key

    ann, bob, cat = store_factory(ANN), store_factory(BOB), store_factory("name:cat")
    ann.set_display_name("Ann")
    name = ann.race_open(KIND.key, "CODE-4x4")
    assert race_key(name) == name and len(name) == 4
    assert bob.race_join(f" {name.upper()} ") is not None, "typed as a player types it"
    assert bob.race_join("zzzz" if name != "zzzz" else "yyyy") is None, "no such race"
    assert bob.race_join("no race!") is None
    seen = bob.race(name)
    assert seen is not None and not seen.started and not seen.mine and seen.opener == "Ann"
    assert (seen.kind, seen.code) == (KIND.key, "CODE-4x4")
    assert sorted(r.name for r in seen.racers) == ["Ann", "bob"] and seen.me and seen.me.name == "bob"

    assert bob.race_start(name) is False, "only its opener starts it"
    assert ann.race_start(name) is True and bob.race(name).started
    assert cat.race_join(name) is None, "started without cat"
    assert cat.race(name).me is None

    assert [r.name for r in bob.races_to_rejoin()] == [name] == [r.name for r in ann.races_to_rejoin()]
    bob.race_progress(name, 5, None)
    ann.race_progress(name, 16, 70.5)
    ann.race_progress(name, 12, 99.0)  # a finished time stays
    seen = cat.race(name)
    assert [(r.name, r.filled, r.seconds) for r in seen.racers] == [("Ann", 12, 70.5), ("bob", 5, None)]
    assert not seen.over and ann.races_to_rejoin() == []
    assert bob.race_join(name) is not None, "a racer rejoins a started race"
    bob.race_progress(name, 16, 80.0)
    final = ann.race(name)
    assert final.over and [r.name for r in final.racers] == ["Ann", "bob"] and final.me.name == "Ann"
    assert bob.races_to_rejoin() == []


def test_races_are_many_and_apart(store_factory):
    ann, bob = store_factory(ANN), store_factory(BOB)
    names = {ann.race_open("daily", f"code{i}") for i in range(20)}
    assert len(names) == 20
    one = sorted(names)[0]
    bob.race_join(one)
    assert all(len(ann.race(n).racers) == 1 for n in names - {one})
    assert ann.race(one).kind == "daily" and len(ann.race(one).racers) == 2


def behind_its_back(factory, query: str, *args):
    """The rows of `query` (? for each argument) run on `factory`'s store directly: to make a
    race old, or to see what is left of one."""
    if factory.kind == "sqlite":
        from conftest import sql

        return sql(factory.location, query, *args)
    import psycopg

    with psycopg.connect(factory.location, autocommit=True) as conn:
        cursor = conn.execute(query.replace("?", "%s"), args)
        return cursor.fetchall() if cursor.description else []


def test_a_race_not_started_in_time_is_gone_and_its_name_free_again(store_factory):
    from datetime import UTC, datetime, timedelta

    from kaldoku_tui.session.store.base import START_WITHIN

    def opened(name: str, before: timedelta) -> None:
        moment = datetime.now(UTC) - before
        behind_its_back(store_factory, "UPDATE races SET opened = ? WHERE name = ?",
                        moment.isoformat(timespec="seconds") if store_factory.kind == "sqlite" else moment,
                        name)

    ann, bob = store_factory(ANN), store_factory(BOB)
    stale, started, fresh = (ann.race_open(KIND.key, f"code{i}") for i in range(3))
    assert ann.race_start(started)
    opened(stale, START_WITHIN + timedelta(minutes=1))
    opened(started, START_WITHIN + timedelta(minutes=1))
    opened(fresh, START_WITHIN - timedelta(minutes=5))
    assert ann.race(stale) is None and bob.race_join(stale) is None and ann.race_start(stale) is False
    assert bob.race_join(fresh) is not None and ann.race_start(fresh), "not too old yet"
    assert ann.race(started).started and ann.races_to_rejoin(), "a race that started stays"
    ann.race_open(KIND.key, "code3")
    assert behind_its_back(store_factory, "SELECT count(*) FROM races WHERE name = ?", stale) == [(0,)]
    assert behind_its_back(store_factory, "SELECT count(*) FROM race_players WHERE race = ?", stale) == [(0,)]
    assert ann.race(started).racers and ann.race(fresh).started, "only the stale race was deleted"
