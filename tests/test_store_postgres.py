"""The PostgreSQL store against a real server (tests/pg_server.py): what only a server has
(many processes and players at once, a busy or vanished server, an injected full disk, the
schema made once by whoever starts first, a URL that leads nowhere). What every store does
is in the contract suite, run on both stores."""

from __future__ import annotations

import shutil
import threading
import time

import psycopg
import pytest

from kaldoku_tui.engine.formats import read_keen
from kaldoku_tui.engine.kinds import GameKind
from kaldoku_tui.session.game import TAKEN
from kaldoku_tui.session.store.base import GameDamaged, PendingMove, StoreError
from kaldoku_tui.session.store.journal import checksum
from kaldoku_tui.session.store import postgres

from kaldoku_tui.session.store.postgres import PostgresStore

from conftest import EXAMPLE_ID, EXAMPLE_SOLUTION
from pg_server import USER, missing, start_server
from sshbox import KALDOKU, KEEN_4, MOVES, MOVES_ON_SCREEN, Terminal, wait_for

PUZZLE = read_keen(EXAMPLE_ID).with_solution(EXAMPLE_SOLUTION)
KIND = GameKind.of(PUZZLE)


def move(n: int) -> dict:
    return {"move": "place", "cell": [n % 4, n // 4 % 4], "digit": n % 4 + 1, "n": n}


def behind_the_back(url: str, query: str, *args) -> list[tuple]:
    """Run `query` on the store's database, committed, as something other than kaldoku."""
    with psycopg.connect(url, autocommit=True) as conn:
        cursor = conn.execute(query, args or None)
        return cursor.fetchall() if cursor.description else []


def deadline_poll(condition, seconds: float = 10.0) -> None:
    end = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < end, "condition not met in time"


@pytest.mark.parametrize("url, words", [
    ("postgresql://nohost.invalid/kaldoku", "cannot reach PostgreSQL database kaldoku on nohost.invalid"),
    ("postgresql://kaldoku@/kaldoku?host=/nonexistent", "cannot reach PostgreSQL database kaldoku on /nonexistent"),
    ("postgresql://me:secret@:99999999/x", "invalid port"),
    ("postgresql://me:secret@[::1/x", "its URL cannot be read"),
])
def test_a_store_that_cannot_be_reached_is_one_line_and_never_shows_a_password(url, words):
    with pytest.raises(StoreError) as raised:
        PostgresStore(url, "local")
    message = str(raised.value)
    assert words in message and "\n" not in message and "secret" not in message


def test_a_database_of_a_newer_kaldoku_is_refused_and_left_as_it_is(pg_url):
    PostgresStore(pg_url, "local").close()
    behind_the_back(pg_url, "UPDATE kaldoku_schema SET version = 99")
    with pytest.raises(StoreError, match="newer kaldoku"):
        PostgresStore(pg_url, "local")
    assert behind_the_back(pg_url, "SELECT version FROM kaldoku_schema") == [(99,)]


def test_a_schema_1_database_gains_the_races_and_keeps_its_games(pg_url):
    with PostgresStore(pg_url, "name:ann") as store:
        journal, _ = store.new_game(read_keen(EXAMPLE_ID).with_solution(EXAMPLE_SOLUTION), GameKind(4))
        assert journal.append(move(0), 1.0) is None
    for statement in ("DROP TABLE race_players", "DROP TABLE races", "UPDATE kaldoku_schema SET version = 1"):
        behind_the_back(pg_url, statement)
    with PostgresStore(pg_url, "name:ann") as store:
        assert behind_the_back(pg_url, "SELECT version FROM kaldoku_schema") == [(2,)]
        assert len(store.open_games()) == 1
        name = store.race_open("4", "code")
        assert store.race(name).me is not None


def test_kaldokus_starting_at_once_on_an_empty_database_make_the_tables_once(pg_url):
    opened, failed = [], []

    def start() -> None:
        try:
            opened.append(PostgresStore(pg_url, "local"))
        except StoreError as error:
            failed.append(error)
    threads = [threading.Thread(target=start) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not failed and len(opened) == 6
    assert behind_the_back(pg_url, "SELECT version FROM kaldoku_schema") == [(postgres.SCHEMA_VERSION,)]
    for store in opened:
        store.close()


def test_every_move_is_committed_before_the_next_key(pg_url):
    store = PostgresStore(pg_url, "name:ann")
    journal, _ = store.new_game(PUZZLE, KIND)
    for n in range(3):
        assert journal.append(move(n), float(n)) is None
        # Another connection sees it at once: it is committed, not waiting in a transaction.
        assert behind_the_back(pg_url, "SELECT count(*) FROM moves") == [(n + 1,)]
    assert behind_the_back(pg_url, "SELECT DISTINCT player FROM games") == [("name:ann",)]
    setting = behind_the_back(pg_url, "SELECT current_setting('synchronous_commit')")
    assert setting == [("on",)]


def test_the_server_answering_disk_full_keeps_the_moves_until_it_has_room(pg_url):
    store = PostgresStore(pg_url, "local")
    journal, _ = store.new_game(PUZZLE, KIND)
    journal.append(move(0), 1.0)
    # The server's own disk-full error (SQLSTATE 53100), raised where a full disk would be.
    behind_the_back(pg_url, """
        CREATE FUNCTION no_room() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION 'could not extend file: No space left on device'
              USING ERRCODE = 'disk_full'; END $$;
        CREATE TRIGGER no_room BEFORE INSERT ON moves FOR EACH ROW EXECUTE FUNCTION no_room();""")
    started = time.monotonic()
    notice = journal.append(move(1), 2.0)
    assert notice.startswith("Saving is off: could not extend file: No space left on device")
    assert time.monotonic() - started < 1.0  # a full disk is not waited for
    assert journal.append(move(2), 3.0) is None  # said once
    assert store.saving is False and len(journal.pending) == 2
    behind_the_back(pg_url, "DROP TRIGGER no_room ON moves")
    assert journal.append(move(3), 4.0) == "Saving is back on: every move so far is saved."
    again = PostgresStore(pg_url, "local")
    assert again.resume(journal.game_id).game.moves == [move(n) for n in range(4)]


def test_a_busy_server_is_tried_again_then_the_player_is_told_and_nothing_set_aside(pg_url, monkeypatch):
    monkeypatch.setattr(postgres, "BUSY_FOR", 0.3)
    store = PostgresStore(pg_url, "local")
    journal, _ = store.new_game(PUZZLE, KIND)
    journal.append(move(0), 1.0)
    # Another connection holds the game's row, as a stuck writer would.
    with psycopg.connect(pg_url) as stuck:
        stuck.execute("SELECT * FROM games FOR UPDATE")
        notice = journal.append(move(1), 2.0)
        assert notice.startswith("Saving is off:") and "lock" in notice
        assert [m.record for m in journal.pending] == ['{"move":"place","cell":[1,0],"digit":2,"n":1}']
        started = time.monotonic()
        assert journal.append(move(2), 3.0) is None, "told once"
        assert time.monotonic() - started < 1.0, "while saving is off a key waits little"
        assert len(journal.pending) == 2
    assert journal.append(move(3), 4.0) == "Saving is back on: every move so far is saved."
    assert [r["n"] for r in store.move_log(journal.game_id)] == [0, 1, 2, 3]
    assert behind_the_back(pg_url, "SELECT count(*) FROM games") == [(1,)]


def test_a_dropped_connection_is_made_again_and_loses_nothing(pg_url):
    store = PostgresStore(pg_url, "local")
    journal, _ = store.new_game(PUZZLE, KIND)
    journal.append(move(0), 1.0)
    behind_the_back(pg_url, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                            "WHERE application_name = 'kaldoku'")
    assert journal.append(move(1), 2.0) is None
    assert [r["n"] for r in store.move_log(journal.game_id)] == [0, 1]


def test_a_commit_whose_answer_was_lost_is_not_written_twice(pg_url):
    store = PostgresStore(pg_url, "local")
    journal, _ = store.new_game(PUZZLE, KIND)
    journal.append(move(0), 1.0)
    journal.append(move(1), 2.0)
    # As if the answer to move 1's commit had been lost: the journal still holds it.
    saved = behind_the_back(pg_url, "SELECT move, elapsed, at FROM moves WHERE seq = 2")[0]
    journal.pending.append(PendingMove(saved[0], saved[1], postgres.iso(saved[2])))
    journal.last -= 1
    assert journal.append(move(2), 3.0) is None
    assert [r["n"] for r in store.move_log(journal.game_id)] == [0, 1, 2]


def test_resume_claims_first_then_reads_so_an_old_window_adds_nothing(pg_url):
    old = PostgresStore(pg_url, "local")
    journal, _ = old.new_game(PUZZLE, KIND)
    stop = threading.Event()
    results: list[str | None] = []

    def keep_typing() -> None:
        n = 0
        while not stop.is_set() and not journal.taken:
            results.append(journal.append(move(n), float(n)))
            n += 1
    typist = threading.Thread(target=keep_typing)
    typist.start()
    deadline_poll(lambda: len(results) >= 20)
    new = PostgresStore(pg_url, "local")
    resumed = new.resume(journal.game_id)
    deadline_poll(lambda: journal.taken)
    stop.set()
    typist.join()
    assert results[-1] == TAKEN and TAKEN not in results[:-1]
    read = [m["n"] for m in resumed.game.moves]
    assert read == list(range(len(read)))
    # What was read is what is saved: the old window wrote nothing after the claim.
    assert [r["n"] for r in new.move_log(journal.game_id)] == read
    resumed.journal.append(move(999), 99.0)
    assert [r["n"] for r in new.move_log(journal.game_id)] == read + [999]


def test_a_game_with_a_move_missing_or_damaged_is_never_resumed_as_whole(pg_url):
    store = PostgresStore(pg_url, "local")
    journal, _ = store.new_game(PUZZLE, KIND)
    for n in range(5):
        journal.append(move(n), float(n))
    behind_the_back(pg_url, "DELETE FROM moves WHERE seq = 3")
    with pytest.raises(GameDamaged, match="move 3 is missing"):
        store.resume(journal.game_id)
    behind_the_back(pg_url, "INSERT INTO moves SELECT game, 3, %s, elapsed, at, %s FROM moves "
                            "WHERE seq = 2", '{"move":', checksum(3, '{"move":'))
    with pytest.raises(GameDamaged, match="move 3 cannot be read"):
        store.resume(journal.game_id)
    behind_the_back(pg_url, "UPDATE moves SET move = '{}' WHERE seq = 3")
    with pytest.raises(GameDamaged, match="move 3 is damaged"):
        store.resume(journal.game_id)
    behind_the_back(pg_url, "UPDATE moves SET move = '{}', sum = %s, elapsed = 'NaN' WHERE seq = 3",
                    checksum(3, "{}"))
    with pytest.raises(GameDamaged, match="move 3's time nan is not a time"):
        store.resume(journal.game_id)
    behind_the_back(pg_url, "UPDATE games SET last_seq = 9223372036854775807")
    with pytest.raises(GameDamaged, match="move numbers are damaged"):
        store.game(journal.game_id)
    assert "kept aside" in store.set_game_aside(journal.game_id, "damaged")
    assert store.open_games() == []
    assert behind_the_back(pg_url, "SELECT outcome, count(*) FROM games JOIN moves ON game = id "
                                   "GROUP BY outcome") == [("damaged", 5)]


def test_a_huge_move_number_stops_saving_and_is_never_an_overflow(pg_url):
    store = PostgresStore(pg_url, "local")
    journal, _ = store.new_game(PUZZLE, KIND)
    behind_the_back(pg_url, "UPDATE games SET last_seq = 9223372036854775807")
    assert journal.append(move(0), 1.0) == ("Saving is off: the game's move numbers are "
                                            "damaged. Your moves are kept and saved when it can.")
    assert len(journal.pending) == 1


@pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")
def test_kaldoku_on_a_real_terminal_plays_and_resumes_from_the_server(pg_url, tmp_path):
    home = tmp_path / "home"
    env = {"TERM": "xterm-256color", "LANG": "C.UTF-8", "KALDOKU_HOME": str(home)}
    first = Terminal([KALDOKU, "--store", pg_url, KEEN_4], env=env)
    try:
        first.wait_for_text("┏")
        first.press(*MOVES)
        first.wait_for_text(MOVES_ON_SCREEN)
        first.press("q")
        assert wait_for(first.dead, 15)
    finally:
        first.close()
    store = PostgresStore(pg_url, "local")
    (found,) = store.open_games()
    moves = store.resume(found.id).game.moves
    assert [(m["move"], m["cell"]) for m in moves] == [("place", [0, 0]), ("place", [0, 1]),
                                                       ("note", [1, 1])]
    assert not home.exists(), "the moves are on the server, not in a file"
    store.close()
    # KALDOKU_STORE names the store as well as --store does.
    again = Terminal([KALDOKU], env={**env, "KALDOKU_STORE": pg_url})
    try:
        screen = again.wait_for_text(MOVES_ON_SCREEN)
        assert "Resumed your game" in screen
        again.press("q")
        assert wait_for(again.dead, 15)
    finally:
        again.close()


@pytest.mark.parametrize("damage, words", [
    ("UPDATE moves SET move = replace(move, '\"digit\":2', '\"digit\":3') WHERE seq = 2",
     "move 2 is damaged"),
    ("DELETE FROM moves WHERE seq = 2", "move 2 is missing"),
    ("UPDATE moves SET seq = 9223372036854775807 WHERE seq = 2", "move 2 is missing"),
    ("UPDATE games SET kind = '6/all/any', sum = NULL", "the game's puzzle is damaged"),
])
def test_a_damaged_game_on_the_server_is_never_shown_as_resumed(pg_url, damage, words):
    from kaldoku_tui.app import resume
    from kaldoku_tui.session import Session
    from kaldoku_tui.session.moves import Place
    from kaldoku_tui.session.settings import Settings

    store = PostgresStore(pg_url, "local")
    journal, _ = store.new_game(PUZZLE, KIND)
    session = Session(PUZZLE, journal=journal, now=lambda: 0.0)
    for c in range(3):
        assert session.apply(Place((0, c), EXAMPLE_SOLUTION[0][c])).message is None
    store.close()
    behind_the_back(pg_url, damage)
    again = PostgresStore(pg_url, "local")
    said: list[str | None] = []
    assert resume(again, lambda: 0.0, Settings(), said) is None
    assert "Resumed your game." not in said
    assert any(words in line and "kept aside" in line for line in said if line), said
    assert behind_the_back(pg_url, "SELECT outcome FROM games") == [("damaged",)]
    assert behind_the_back(pg_url, "SELECT count(*) FROM moves") == [(3 if "DELETE" not in damage else 2,)]


@pytest.mark.skipif(missing() is not None, reason=str(missing()))
def test_a_server_that_goes_away_in_play_keeps_the_moves_until_it_is_back():
    server = start_server()
    try:
        url = server.url(USER)
        store = PostgresStore(url, "local")
        journal, _ = store.new_game(PUZZLE, KIND)
        journal.append(move(0), 1.0)
        server.down()
        notice = journal.append(move(1), 2.0)
        assert notice.startswith("Saving is off:") and "\n" not in notice
        assert store.records() == [] and store.settings() == {}, "shown empty, no crash"
        started = time.monotonic()
        assert journal.append(move(2), 3.0) is None
        assert time.monotonic() - started < 1.0, "no wait per key while it is away"
        server.up()
        store.reconnect_at = 0.0  # as RECONNECT_EVERY seconds later
        assert journal.append(move(3), 4.0) == "Saving is back on: every move so far is saved."
        again = PostgresStore(url, "local")
        assert [m["n"] for m in again.resume(journal.game_id).game.moves] == [0, 1, 2, 3]
    finally:
        server.stop()


def test_a_nul_which_postgresql_text_cannot_hold_never_turns_saving_off(pg_url):
    store = PostgresStore(pg_url, "name:ann")
    assert store.set_display_name("a\x00b") is None and store.saving
    assert store.save_settings({"key\x00": "value\x00"}) is None
    assert store.display_name() == "a\ufffdb" and store.name_holder("a\x00b") == "name:ann"
    assert store.settings() == {"key\ufffd": "value\x00"}


def test_a_long_game_resumes_from_its_snapshot_exactly_as_from_every_move(pg_url, monkeypatch):
    import random

    from kaldoku_tui.app import resume
    from kaldoku_tui.session import Session
    from kaldoku_tui.session.moves import Clear, Note, Place, Redo, Undo
    from kaldoku_tui.session.settings import Settings
    from kaldoku_tui.session.snapshot import attach
    from kaldoku_tui.session.store import base

    monkeypatch.setattr(base, "SNAPSHOT_EVERY", 10)
    store = PostgresStore(pg_url, "local")
    journal, _ = store.new_game(PUZZLE, KIND)
    session = attach(Session(PUZZLE, journal=journal, now=lambda: 0.0))
    rng = random.Random(5)
    for _ in range(200):
        cell, digit = (rng.randrange(4), rng.randrange(4)), rng.randrange(1, 4)
        session.apply(rng.choice([Place(cell, digit), Note(cell, digit), Clear(cell), Undo(),
                                  Redo()]))
    kept = journal.count
    assert behind_the_back(pg_url, "SELECT snapshot_seq FROM games") == [(kept - kept % 10,)]
    said: list = []
    again = resume(PostgresStore(pg_url, "local"), lambda: 0.0, Settings(), said)
    assert said == ["Resumed your game."]
    whole = PostgresStore(pg_url, "local").game(journal.game_id)
    assert whole.snapshot is None and len(whole.moves) == kept
    everything = Session.resume(whole.puzzle, whole.moves, whole.kind, now=lambda: 0.0)
    assert again.board.view() == everything.board.view() == session.board.view()
    for _ in range(40):
        for one in (again, everything):
            one.apply(Undo())
        assert again.board.view() == everything.board.view()
