"""The SQLite store under a full disk, I/O errors and damage (issue 25, items 1-7): nothing
is lost or reported saved when it was not, and what is shown as resumed is exactly what
was saved."""

from __future__ import annotations

import os
import random
import shutil
import sqlite3
import subprocess
from pathlib import Path

import pytest

from conftest import EXAMPLE_ID, EXAMPLE_SOLUTION, saved_session, sql, sql_write
from kaldoku_tui.app import resume
from kaldoku_tui.engine.formats import read_keen
from kaldoku_tui.engine.kinds import GameKind
from kaldoku_tui.session import Session
from kaldoku_tui.session.game import TAKEN
from kaldoku_tui.session.moves import Place
from kaldoku_tui.session.settings import Settings
from kaldoku_tui.session.store import DB_FILE, UnsafeDirectory, open_store
from kaldoku_tui.session.store import sqlite as store_module

PUZZLE = read_keen(EXAMPLE_ID).with_solution(EXAMPLE_SOLUTION)
MOVES = [Place((r, c), EXAMPLE_SOLUTION[r][c]) for r in range(4) for c in range(3)]
"""Twelve right digits: no win (the last column stays empty)."""


class Faulty(sqlite3.Connection):
    """A connection whose statements starting with a word of `failing` fail with that
    word's SQLite error, as on a full disk or a failing device."""

    failing: dict[str, str] = {}

    def execute(self, statement, *args):
        for start, name in Faulty.failing.items():
            if statement.lstrip().upper().startswith(start):
                error = sqlite3.OperationalError({"SQLITE_FULL": "database or disk is full"}.get(
                    name, "disk I/O error"))
                error.sqlite_errorname = name
                raise error
        return super().execute(statement, *args)


@pytest.fixture
def faults(monkeypatch):
    connect = sqlite3.connect
    monkeypatch.setattr(store_module.sqlite3, "connect",
                        lambda *a, **k: connect(*a, factory=Faulty, **k))
    yield Faulty.failing
    Faulty.failing.clear()


def play(store, *moves) -> Session:
    journal, _ = store.new_game(PUZZLE, GameKind.of(PUZZLE))
    session = Session(PUZZLE, journal=journal, now=lambda: 0.0)
    for move in moves:
        session.apply(move)
    return session


def start(directory: Path) -> tuple[Session | None, list[str | None]]:
    """What `kaldoku` does at start: the game resumed (or None) and what it says."""
    store = open_store(directory)
    notices: list[str | None] = list(store.notices)
    session = resume(store, lambda: 0.0, Settings(), notices)
    return session, [n for n in notices if n]


def aside(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if ".unusable" in p.name)


# 1. A full disk at COMMIT keeps the moves until a COMMIT succeeds.


def test_moves_whose_commit_fails_on_a_full_disk_are_kept_until_one_succeeds(tmp_path, faults):
    session = play(open_store(tmp_path), *MOVES[:1])
    faults["COMMIT"] = "SQLITE_FULL"
    assert session.apply(MOVES[1]).message.startswith("Saving is off: database or disk is full")
    assert session.apply(MOVES[2]).message is None and session.apply(MOVES[3]).message is None
    faults.clear()
    assert session.apply(MOVES[4]).message == "Saving is back on: every move so far is saved."
    again, said = start(tmp_path)
    assert "Resumed your game." in said and again.board.view() == session.board.view()
    assert len(sql(tmp_path, "SELECT * FROM moves")) == 5


# 2. A full disk or an I/O error at start never sets a healthy database aside.


@pytest.mark.parametrize("error", ["SQLITE_IOERR_SHMSIZE", "SQLITE_FULL", "SQLITE_IOERR"])
def test_an_error_at_the_first_statement_never_sets_the_database_aside(tmp_path, faults, error):
    kept = play(open_store(tmp_path), *MOVES[:3])
    faults["PRAGMA JOURNAL_MODE"] = error
    store = open_store(tmp_path)
    assert store.notices and store.notices[0].startswith("Saving is off") and not store.saving
    assert not aside(tmp_path)
    session = play(store, *MOVES[5:7])
    faults.clear()
    assert session.apply(MOVES[7]).message == "Saving is back on: every move so far is saved."
    assert not aside(tmp_path)
    new_game = saved_session(tmp_path)
    assert new_game.board.view() == session.board.view(), "the game played meanwhile is saved"
    store = open_store(tmp_path)
    assert [m["digit"] for m in store.game(kept.journal.game_id).moves] == [1, 2, 3]


def test_with_no_database_and_a_full_disk_play_is_saved_once_there_is_room(tmp_path, faults):
    faults["PRAGMA JOURNAL_MODE"] = "SQLITE_FULL"
    store = open_store(tmp_path)
    assert store.notices[0].startswith("Saving is off: database or disk is full")
    session = play(store, *MOVES[:2])
    faults.clear()
    assert session.keep_time() == "Saving is back on: every move so far is saved."
    assert saved_session(tmp_path).board.view() == session.board.view()


def test_a_full_disk_at_start_on_a_real_small_tmpfs(tmp_path):
    if os.geteuid() != 0:
        pytest.fail("this check needs root to mount a tmpfs (the CI runs as root)")
    mount = tmp_path / "small"
    mount.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m,mode=0700", "tmpfs", str(mount)], check=True)
    try:
        home = mount / "home"
        session = play(open_store(home), *MOVES[:1])
        filler = mount / "filler"
        fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o600)
        try:
            while os.write(fd, b"\0" * 4096):
                pass
        except OSError:
            pass  # the disk is full
        finally:
            os.close(fd)
        messages = [session.apply(move).message for move in MOVES[1:4]]
        assert messages[0].startswith("Saving is off") and messages[1:] == [None, None]
        filler.unlink()
        assert session.apply(MOVES[4]).message == "Saving is back on: every move so far is saved."
        again, said = start(home)
        assert "Resumed your game." in said and again.board.view() == session.board.view()
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=True)


# 3. Damage inside a record is found, said, and set aside; never "Resumed your game.".


def test_a_move_made_invalid_utf8_is_never_resumed_silently(tmp_path):
    session = play(open_store(tmp_path), *MOVES[:6])
    sql_write(tmp_path, lambda c: c.execute(
        "UPDATE moves SET move = CAST(x'7b226d6f7665223a22ff227d' AS TEXT) WHERE seq = 3"))
    again, said = start(tmp_path)
    assert again is None and "Resumed your game." not in said
    assert any("could not be resumed" in line and "kept aside" in line for line in said)
    assert sql(tmp_path, "SELECT outcome FROM games WHERE id = ?", session.journal.game_id) == [("damaged",)]
    assert sql(tmp_path, "SELECT count(*) FROM moves") == [(6,)], "kept, not deleted"


def test_a_move_changed_inside_is_found_by_its_checksum(tmp_path):
    play(open_store(tmp_path), *MOVES[:6])
    sql_write(tmp_path, lambda c: c.execute(
        "UPDATE moves SET move = replace(move, '\"digit\":1', '\"digit\":2') WHERE seq = 1"))
    again, said = start(tmp_path)
    assert again is None and any("move 1 is damaged" in line for line in said)


def test_a_dropped_moves_table_sets_the_file_aside_and_says_so(tmp_path):
    play(open_store(tmp_path), *MOVES[:2])
    sql_write(tmp_path, lambda c: c.execute("DROP TABLE moves"))
    again, said = start(tmp_path)
    assert again is None and "table moves is missing" in said[0] and aside(tmp_path)


def test_a_lost_move_row_is_a_gap_and_the_game_is_not_resumed(tmp_path):
    play(open_store(tmp_path), *MOVES[:4])
    sql_write(tmp_path, lambda c: c.execute("DELETE FROM moves WHERE seq = 2"))
    again, said = start(tmp_path)
    assert again is None and any("move 2 is missing" in line for line in said)


# 4. Odd values at start crash nothing.


def test_a_negative_user_version_is_set_aside_not_a_crash(tmp_path):
    play(open_store(tmp_path), *MOVES[:1]).journal.store.close()
    sql(tmp_path, "PRAGMA user_version = -5")
    store = open_store(tmp_path)
    assert "not a kaldoku database (schema -5)" in store.notices[0] and aside(tmp_path)


def test_non_utf8_schema_text_is_set_aside_not_a_crash(tmp_path):
    open_store(tmp_path).close()

    def spoil(c):
        c.execute("PRAGMA writable_schema = ON")
        c.execute("UPDATE sqlite_master SET sql = sql || CAST(x'202dff' AS TEXT) WHERE name = 'meta'")
    sql_write(tmp_path, spoil)
    store = open_store(tmp_path)
    assert store.notices and "kept as kaldoku.db.unusable" in store.notices[0]
    assert play(store, *MOVES[:1]).journal.game_id is not None


def test_a_text_count_in_the_carried_records_is_no_crash(tmp_path):
    store = open_store(tmp_path)
    sql_write(tmp_path, lambda c: c.execute(
        "INSERT INTO carried VALUES ('local', '4/all/any', 'many', 2, 1, 'fast')"))
    ((kind, record),) = store.records()
    assert (record.played, record.won, record.unaided, record.best) == (0, 2, 1, None)


def test_a_huge_move_number_is_damage_not_an_overflow(tmp_path):
    session = play(open_store(tmp_path), *MOVES[:2])
    sql_write(tmp_path, lambda c: c.execute("UPDATE moves SET seq = 9223372036854775807 WHERE seq = 2"))
    assert "damaged" in session.apply(MOVES[2]).message
    again, said = start(tmp_path)
    assert again is None and any("move 2 is missing" in line for line in said)


# 5. Claim, then read.


def test_the_game_is_claimed_before_it_is_read(tmp_path, monkeypatch):
    first = play(open_store(tmp_path), *MOVES[:3])
    second = open_store(tmp_path)
    read = second.read_game

    def read_while_the_first_plays(*args):
        # The old window's move lands while the new one reads: it must be refused.
        assert first.apply(MOVES[3]).message == TAKEN
        return read(*args)
    monkeypatch.setattr(second, "read_game", read_while_the_first_plays)
    taken = second.resume(first.journal.game_id)
    assert [m["digit"] for m in taken.game.moves] == [1, 2, 3]
    assert open_store(tmp_path).game(first.journal.game_id).moves == taken.game.moves


# 7. Data directories others can write in are refused.


@pytest.mark.parametrize("mode", [0o770, 0o1777, 0o777, 0o720])
def test_a_data_directory_others_can_write_in_is_refused(tmp_path, mode):
    home = tmp_path / "home"
    home.mkdir()
    home.chmod(mode)
    with pytest.raises(UnsafeDirectory, match="can be written by"):
        open_store(home)


# The fault-injection run: damage at random offsets.


@pytest.mark.parametrize("seed", range(40))
def test_damage_at_a_random_offset_never_resumes_a_game_other_than_the_one_saved(tmp_path, seed):
    rng = random.Random(seed)
    home = tmp_path / "home"
    store = open_store(home)
    for _ in range(3):
        play(store, *MOVES[:rng.randrange(1, 12)]).leave()
    saved = play(store, *MOVES[:rng.randrange(1, 12)])
    store.close()
    data = bytearray((home / DB_FILE).read_bytes())
    size = rng.randrange(1, 513)
    offset = rng.randrange(0, len(data) - size)
    data[offset:offset + size] = rng.randbytes(size)
    (home / DB_FILE).write_bytes(bytes(data))
    again, said = start(home)
    if again is not None and "Resumed your game." in said:
        assert again.board.view() == saved.board.view(), (offset, size)
    else:
        # Never a new game with no word: the file or the game was set aside, and it says so.
        assert "Resumed your game." not in said
        assert any("kept as kaldoku.db.unusable" in line or "kept aside" in line for line in said), said
    assert all("\n" not in line for line in said)
    shutil.rmtree(home)


def test_with_the_disk_full_at_start_the_games_stay_in_view_and_the_game_resumes(tmp_path, faults):
    """Issue 25 item 2: history, statistics and the game in progress do not vanish."""
    store = open_store(tmp_path)
    play(store, *MOVES[:12]).leave()
    kept = play(store, *MOVES[:3])
    store.close()
    faults["PRAGMA JOURNAL_MODE"] = "SQLITE_IOERR_SHMSIZE"
    again, said = start(tmp_path)
    assert said[0].startswith("Saving is off") and "Resumed your game." in said
    assert again.board.view() == kept.board.view() and not aside(tmp_path)
    shown = again.journal.store
    assert len(shown.history()) == 2 and shown.records()[0][1].played == 1
    assert again.apply(MOVES[3]).message is None, "told once already"
    faults.clear()
    assert again.apply(MOVES[4]).message == "Saving is back on: every move so far is saved."
    assert saved_session(tmp_path).board.view() == again.board.view()
