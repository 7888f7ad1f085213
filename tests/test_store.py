"""The store: games and their moves in SQLite, kept through kill -9, a second kaldoku, a
damaged or locked database and a full disk; and the move from kaldoku 0.1.0's files."""

from __future__ import annotations

import json
import multiprocessing
import os
import random
import shutil
import signal
import sqlite3
import time
from pathlib import Path

import pytest

from kaldoku_tui.engine.formats import read_keen
from kaldoku_tui.engine.kinds import GameKind
from kaldoku_tui.session import Session
from kaldoku_tui.session.store import sqlite as store_module
from kaldoku_tui.session.moves import Check, Place, Redo, Undo
from kaldoku_tui.session.legacy import import_legacy
from kaldoku_tui.bank import STARTING_KINDS
from kaldoku_tui.session.store import DB_FILE, GameDamaged, Store, UnsafeDirectory, data_dir, open_store
from kaldoku_tui.session.legacy import board_from_dict

from conftest import EXAMPLE_ID, EXAMPLE_SOLUTION, saved_session, sql, sql_write
from sshbox import KALDOKU, KEEN_4, MOVES, MOVES_ON_SCREEN, Terminal, aside, kaldoku_running, \
    moves_saved, saved_board, wait_for

OLD_HOME = Path(__file__).parent / "data" / "kaldoku-0.1.0"
"""A data directory made by the real kaldoku 0.1.0 (abbadd8), played in tmux: a 3×3 won
in 0:07, then a 4×4 left in progress (digits, notes, one check, an undo to redo, 24.2 s),
shading turned on in the settings, and the bank it had filled."""


@pytest.fixture
def example4():
    return read_keen(EXAMPLE_ID).with_solution(EXAMPLE_SOLUTION)


def play(store: Store, puzzle, *moves) -> Session:
    journal, notice = store.new_game(puzzle, GameKind.of(puzzle))
    assert notice is None
    session = Session(puzzle, journal=journal, now=lambda: 0.0)
    for move in moves:
        session.apply(move)
    return session


def test_a_game_is_kept_move_by_move_and_resumes(tmp_path, example4):
    session = play(open_store(tmp_path), example4, Place((0, 0), 1), Place((1, 1), 1))
    again = saved_session(tmp_path)
    assert again.board.view() == session.board.view()
    rows = sql(tmp_path, "SELECT seq, move FROM moves ORDER BY seq")
    assert [seq for seq, _ in rows] == [1, 2]
    assert json.loads(rows[1][1])["cell"] == [1, 1]


def test_the_database_is_wal_and_says_its_schema(tmp_path):
    store = open_store(tmp_path)
    assert store.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert store.conn.execute("PRAGMA user_version").fetchone()[0] == store_module.SCHEMA_VERSION
    assert store.notices == [] and store.saving


def test_data_dir_precedence(tmp_path, monkeypatch):
    monkeypatch.setenv("KALDOKU_HOME", str(tmp_path / "env"))
    assert data_dir(tmp_path / "opt") == tmp_path / "opt"
    assert data_dir() == tmp_path / "env"
    monkeypatch.delenv("KALDOKU_HOME")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert data_dir() == tmp_path / "xdg" / "kaldoku"


@pytest.mark.parametrize("content, words", [
    (b"not a database at all, just text" * 10, "not a kaldoku database"),
    (b"SQLite format 3\x00" + b"\xff" * 500, "unusable"),
    (b"", None),
])
def test_a_damaged_database_is_set_aside_and_play_goes_on(tmp_path, example4, content, words):
    (tmp_path / DB_FILE).write_bytes(content)
    store = open_store(tmp_path)
    if words is None:  # An empty file is a new database, not a damaged one.
        assert store.notices == []
        return
    assert len(store.notices) == 1 and words in store.notices[0] and "\n" not in store.notices[0]
    assert store.saving
    kept = aside(tmp_path)
    assert len(kept) == 1 and (tmp_path / kept[0]).read_bytes() == content, "renamed, never deleted"
    play(store, example4, Place((0, 0), 1))
    assert saved_session(tmp_path).board.digit((0, 0)) == 1


def test_a_database_of_a_newer_kaldoku_is_set_aside(tmp_path):
    with sqlite3.connect(tmp_path / DB_FILE) as db:
        db.execute("PRAGMA user_version = 99")
    store = open_store(tmp_path)
    assert "newer kaldoku" in store.notices[0]
    assert aside(tmp_path) == [p for p in aside(tmp_path) if p.startswith(DB_FILE)]


def test_a_database_locked_past_the_timeout_is_never_set_aside_and_saves_when_let_go(
        tmp_path, monkeypatch, example4):
    """Issue 24: a stuck writer never makes another process set the store aside; saving is
    paused (the player is told who holds it) and every move is saved once it lets go."""
    monkeypatch.setattr(store_module, "BUSY_TIMEOUT", 0.2)
    open_store(tmp_path).close()
    holder = sqlite3.connect(tmp_path / DB_FILE, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        store = open_store(tmp_path)
        assert "another kaldoku holds the store" in store.notices[0] and not store.saving
        session = play(store, example4, Place((0, 0), 1), Place((0, 1), 2))
    finally:
        holder.close()
    assert not aside(tmp_path)
    assert session.apply(Place((0, 2), 3)).message == "Saving is back on: every move so far is saved."
    assert [m for m in saved_session(tmp_path).board.grid[0]] == [1, 2, 3, 0]


def test_a_directory_that_cannot_be_made_plays_without_saving_and_says_so_at_once(tmp_path, example4):
    blocked = tmp_path / "file"
    blocked.write_text("")
    store = open_store(blocked / "home")
    assert store.notices[0].startswith("Saving is off") and not store.saving
    session = play(store, example4, Place((0, 0), 1))
    assert session.board.digit((0, 0)) == 1


class FullDisk(sqlite3.Connection):
    """A connection whose writes fail as on a full disk while `full` is set."""

    full = False

    def execute(self, sql, *args):
        if FullDisk.full and sql.split()[0] in ("INSERT", "UPDATE"):
            error = sqlite3.OperationalError("database or disk is full")
            error.sqlite_errorname = "SQLITE_FULL"
            raise error
        return super().execute(sql, *args)

    def executemany(self, sql, *args):
        return self.execute(sql) if FullDisk.full else super().executemany(sql, *args)


@pytest.fixture
def full_disk(monkeypatch):
    connect = sqlite3.connect
    monkeypatch.setattr(store_module.sqlite3, "connect",
                        lambda *a, **k: connect(*a, factory=FullDisk, **k))
    yield FullDisk
    FullDisk.full = False


def test_a_full_disk_at_start_plays_on_and_saving_resumes_with_room(tmp_path, example4, full_disk):
    play(open_store(tmp_path), example4, Place((0, 0), 1))
    full_disk.full = True
    store = open_store(tmp_path)
    assert store.notices == ["Saving is off: database or disk is full. Your moves are kept and "
                             "saved when there is room."]
    assert not aside(tmp_path), "a full disk is no reason to set a database aside"
    taken = store.resume(store.open_games()[0].id)
    saved = taken.game
    session = Session.resume(saved.puzzle, saved.moves, saved.kind)
    session.journal = taken.journal
    assert session.board.digit((0, 0)) == 1, "the game in progress is read"
    assert session.apply(Place((1, 1), 1)).message is None, "told once already"
    full_disk.full = False
    assert session.apply(Place((2, 2), 1)).message == "Saving is back on: every move so far is saved."
    assert saved_session(tmp_path).board.view() == session.board.view()


def test_a_disk_that_fills_in_play_keeps_the_moves_until_there_is_room(tmp_path, example4, full_disk):
    session = play(open_store(tmp_path), example4, Place((0, 0), 1))
    full_disk.full = True
    assert session.apply(Place((1, 1), 1)).message.startswith("Saving is off: database or disk is full")
    assert session.apply(Place((2, 2), 1)).message is None
    assert saved_session(tmp_path).board.digit((1, 1)) == 0
    full_disk.full = False
    assert "back on" in session.keep_time()
    assert saved_session(tmp_path).board.view() == session.board.view()


def test_a_second_kaldoku_takes_the_game_over_and_the_first_writes_no_more(tmp_path, example4):
    first = play(open_store(tmp_path), example4, Place((0, 0), 1))
    other = open_store(tmp_path)
    taken = other.resume(other.open_games()[0].id)
    saved = taken.game
    second = Session.resume(saved.puzzle, saved.moves, saved.kind)
    second.journal = taken.journal
    second.apply(Place((1, 1), 1))
    second.apply(Place((2, 2), 1))
    # The first, idle meanwhile (a lid closed over SSH), wakes: its clock save and its
    # moves are refused, and it is told once.
    notice = first.keep_time()
    assert notice.startswith("This game is being played in another kaldoku now")
    update = first.apply(Place((3, 3), 4))
    assert update.message == notice and first.board.digit((3, 3)) == 0, "refused"
    assert first.keep_time() is None
    kept = saved_session(tmp_path)
    assert kept.board.view() == second.board.view()
    assert kept.board.digit((3, 3)) == 0


def write_games(directory, tag, count):
    store = open_store(directory)
    puzzle = read_keen(EXAMPLE_ID).with_solution(EXAMPLE_SOLUTION)
    journal, _ = store.new_game(puzzle, GameKind(4))
    for i in range(count):
        assert journal.append({"move": "check", "writer": tag, "i": i}, float(i)) is None


def test_two_processes_writing_at_once_never_corrupt_anything(tmp_path):
    open_store(tmp_path).close()
    context = multiprocessing.get_context("fork")
    writers = [context.Process(target=write_games, args=(tmp_path, tag, 200)) for tag in "ab"]
    for writer in writers:
        writer.start()
    for writer in writers:
        writer.join()
        assert writer.exitcode == 0
    assert open_store(tmp_path).notices == []
    assert sql(tmp_path, "PRAGMA integrity_check") == [("ok",)]
    for game_id, in sql(tmp_path, "SELECT id FROM games"):
        moves = [json.loads(m) for m, in sql(tmp_path,
            "SELECT move FROM moves WHERE game = ? ORDER BY seq", game_id)]
        assert [m["i"] for m in moves] == list(range(200)) and len({m["writer"] for m in moves}) == 1


def test_a_game_that_cannot_be_resumed_is_kept_aside_and_not_counted(tmp_path, example4):
    store = open_store(tmp_path)
    play(store, example4, Place((0, 0), 1))
    sql_write(tmp_path, lambda c: c.execute("UPDATE games SET elapsed = 'NaN'"))
    found = open_store(tmp_path).open_games()
    with pytest.raises(GameDamaged, match="not a time") as damage:
        store.resume(found[0].id)
    store.set_game_aside(found[0].id, str(damage.value))
    assert list(open_store(tmp_path).open_games()) == [] and open_store(tmp_path).records() == []


def test_records_are_queries_over_the_games(tmp_path, example4):
    store = open_store(tmp_path)
    times = iter([100.0, 50.0, 70.0])

    def won(*help_moves):
        session = play(store, example4, *help_moves)
        session.clock.before = next(times)
        for r, row in enumerate(EXAMPLE_SOLUTION):
            for c, digit in enumerate(row):
                session.apply(Place((r, c), digit))
        assert session.outcome == "won"

    won()
    won()
    won(Place((0, 0), 1), Place((0, 0), 2), Place((0, 0), 1))
    helped = play(store, example4)
    helped.apply(Check())
    helped.clock.before = 10.0
    for r, row in enumerate(EXAMPLE_SOLUTION):
        for c, digit in enumerate(row):
            helped.apply(Place((r, c), digit))
    play(store, example4, Place((0, 0), 1)).leave()
    play(store, example4).leave()  # never touched: not counted
    play(store, example4, Place((0, 0), 1))  # in progress: not counted
    record = store.record(GameKind(4))
    assert (record.played, record.won, record.unaided) == (5, 4, 3)
    assert record.best == 50.0 and record.median == 70.0


def test_the_0_1_0_data_directory_is_carried_over(tmp_path):
    home = tmp_path / "home"
    shutil.copytree(OLD_HOME, home)
    old = json.loads((OLD_HOME / "game.json").read_text())["game"]
    old_board = board_from_dict(old["board"])
    store = open_store(home)
    notices = import_legacy(store)
    assert notices == ["Your game from kaldoku 0.1.0 was carried over."]
    saved = store.resume(store.open_games()[0].id).game
    session = Session.resume(saved.puzzle, saved.moves, saved.kind, elapsed=saved.elapsed)
    assert session.board.view() == old_board.view()
    assert saved.elapsed == old["elapsed"] == 24.2
    assert session.help == {"checks": 1, "hints": 0, "reveals": 0}
    # The undo and redo history came too: each step back and forth matches 0.1.0's board.
    while old_board.undo():
        assert session.apply(Undo()).board
        assert session.board.view() == old_board.view()
    while old_board.redo():
        assert session.apply(Redo()).board
        assert session.board.view() == old_board.view()
    record = store.record(GameKind(3))
    assert (record.played, record.won, record.unaided, record.best) == (1, 1, 1, 7.0)
    assert store.settings()["shade_peers"] is True
    # 0.1.0 kept two of each of its 40 kinds: those still offered are carried over.
    assert sum(store.bank_counts().values()) == 2 * len(STARTING_KINDS)
    names = sorted(p.name for p in home.iterdir())
    assert {"game.json.imported", "stats.json.imported", "settings.json.imported",
            "bank.json.imported"} <= set(names), "renamed, never deleted"
    assert import_legacy(open_store(home)) == [], "once"


def test_a_0_1_0_game_of_a_kind_no_longer_offered_keeps_its_kind(tmp_path):
    home = tmp_path / "home"
    shutil.copytree(OLD_HOME, home)
    data = json.loads((OLD_HOME / "game.json").read_text())
    data["game"]["board"]["puzzle"]["difficulty"] = "extreme"
    (home / "game.json").write_text(json.dumps(data))
    store = open_store(home)
    import_legacy(store)
    kind = GameKind(4, "all", "extreme")
    assert kind.offered and store.resume(store.open_games()[0].id).game.kind == kind


@pytest.mark.parametrize("name, content, words", [
    ("game.json", '{"format":"kaldoku-game","version":1,"game":{"board":%s,"elapsed":1e999}}', "not a time"),
    ("game.json", '{"format":"kaldoku-game","version":1,"game":{"board":%s,"elapsed":NaN}}', "not a time"),
    ("game.json", '{"format":"kaldoku-game","version":1,"game":{"board":%s,"help":{"checks":1e999}}}',
     "not a count"),
    ("game.json", '{"format":"kaldoku-game","version":1,"game":{"board":%s,"elapsed":-5}}', "not a time"),
    ("game.json", "[" * 100000, "corrupt"),
    ("settings.json", "[" * 100000, "corrupt"),
    ("stats.json", "[" * 100000, "corrupt"),
    ("stats.json", '{"format":"kaldoku-stats","version":1,"stats":{"kinds":{"3/all/any":'
                   '{"finished":-1,"won":0,"unaided":0,"best":null}}}}', "not counts"),
    ("bank.json", "[" * 100000, "corrupt"),
])
def test_hostile_values_in_0_1_0_files_set_the_file_aside(tmp_path, name, content, words):
    home = tmp_path / "home"
    shutil.copytree(OLD_HOME, home)
    board = json.dumps(json.loads((OLD_HOME / "game.json").read_text())["game"]["board"])
    (home / name).write_text(content.replace("%s", board) if "%s" in content else content)
    store = open_store(home)
    notices = import_legacy(store)
    told = [n for n in notices if name in n]
    assert len(told) == 1 and words in told[0], notices
    assert (home / f"{name}.unusable").exists()
    others = {"game.json", "stats.json", "settings.json", "bank.json"} - {name}
    assert all((home / f"{other}.imported").exists() for other in others), "the rest come over"


def test_a_symlinked_database_is_refused_and_never_followed(tmp_path):
    target = tmp_path / "precious"
    target.write_text("the player's own file")
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    (home / DB_FILE).symlink_to(target)
    with pytest.raises(UnsafeDirectory, match="symbolic link"):
        open_store(home)
    assert target.read_text() == "the player's own file"


def test_a_directory_anyone_can_write_in_is_refused(tmp_path):
    home = tmp_path / "open"
    home.mkdir()
    home.chmod(0o777)
    with pytest.raises(UnsafeDirectory, match="anyone"):
        open_store(home)


def test_files_that_are_not_ours_are_left_alone(tmp_path, example4):
    mine = tmp_path / ".notes.tmp"
    mine.write_text("the player's")
    os.utime(mine, (0, 0))
    (tmp_path / "game.json.bak").write_text("x")
    play(open_store(tmp_path), example4, Place((0, 0), 1))
    assert mine.read_text() == "the player's" and (tmp_path / "game.json.bak").exists()


def kaldoku_in_tmux(home, *args):
    return Terminal([KALDOKU, *args], 80, 24, env={"KALDOKU_HOME": str(home), "TERM": "xterm-256color"})


def test_kill_9_during_play_then_the_next_kaldoku_resumes(tmp_path):
    home = tmp_path / "home"
    first = kaldoku_in_tmux(home, KEEN_4)
    try:
        first.wait_for_text("2÷")
        first.press(*MOVES)
        first.wait_for_text(MOVES_ON_SCREEN)
        assert wait_for(lambda: moves_saved(home)), saved_board(home)
        os.kill(first.pane_pid(), signal.SIGKILL)
        assert wait_for(first.dead)
    finally:
        first.close()
    assert wait_for(lambda: not kaldoku_running(home))
    second = kaldoku_in_tmux(home)
    try:
        screen = second.wait_for_text(MOVES_ON_SCREEN)
        assert "2÷" in screen and "unusable" not in screen
        second.press("u")  # the history survived too: undo takes back the note
        assert wait_for(lambda: [1, 1, [3]] not in saved_board(home)["notes"])
        second.press("q")
        assert wait_for(second.dead)
    finally:
        second.close()
    assert not aside(home)


KILLS = 4
"""kill -9 trials in the suite, each at a random moment in a burst of moves (more were run
by hand: see the closing note)."""


@pytest.mark.parametrize("trial", range(KILLS))
def test_kill_9_at_a_random_moment_loses_at_most_the_move_being_made(tmp_path, trial):
    rng = random.Random(trial)
    home = tmp_path / "home"
    keys = "1l2l3l4j1h2h3h4j" * 2
    terminal = kaldoku_in_tmux(home, KEEN_4)
    try:
        terminal.wait_for_text("2÷")
        cut = rng.randrange(4, len(keys))
        terminal.press(*keys[:cut])
        time.sleep(rng.uniform(0.0, 0.3))
        os.kill(terminal.pane_pid(), signal.SIGKILL)
        assert wait_for(terminal.dead)
    finally:
        terminal.close()
    store = open_store(home)
    assert sql(home, "PRAGMA integrity_check") == [("ok",)] and store.notices == []
    saved = store.resume(store.open_games()[0].id).game
    session = Session.resume(saved.puzzle, saved.moves, saved.kind)
    # What was kept is the board after some first moves of the burst, in order.
    digits = [d for row in session.board.grid for d in row if d]
    assert len(saved.moves) <= cut and len(digits) == len(saved.moves)


def test_a_ghost_kaldoku_never_overwrites_the_game_played_elsewhere(tmp_path):
    home = tmp_path / "home"
    ghost = kaldoku_in_tmux(home, KEEN_4)
    try:
        ghost.wait_for_text("2÷")
        player = kaldoku_in_tmux(home)
        try:
            player.wait_for_text("Resumed")
            player.press(*MOVES)
            player.wait_for_text(MOVES_ON_SCREEN)
            # The digits show before the keys after them have been played: wait for the save.
            assert wait_for(lambda: moves_saved(home)), saved_board(home)
            player.press("q")
            assert wait_for(player.dead)
        finally:
            player.close()
        ghost.press("4")  # the ghost wakes: its move is taken back, and it is told
        ghost.wait_for_text("This game is being played in another kaldoku now")
        ghost.press("l", "3", "n")  # notes mode shows once the keys before it are played
        screen = ghost.wait_for_text("NOTES ON")
        first_row = next(line for line in screen.splitlines() if line.lstrip().startswith("1 ┃"))
        assert "   3   " not in first_row, "and it takes no more moves"
        ghost.press("q")
        assert wait_for(ghost.dead)
    finally:
        ghost.close()
    assert moves_saved(home), saved_board(home)
    assert saved_board(home)["digits"][0][:2] == [1, 2]


def test_the_move_that_finds_the_game_taken_is_taken_back(tmp_path, example4):
    first = play(open_store(tmp_path), example4, Place((0, 0), 1))
    other = open_store(tmp_path)
    other.resume(other.open_games()[0].id)
    update = first.apply(Place((1, 1), 1))
    assert update.board and update.message.startswith("This game is being played in another")
    assert first.board.digit((1, 1)) == 0 and first.board.digit((0, 0)) == 1
    assert first.apply(Undo()).message == update.message
    assert saved_session(tmp_path).board.digit((1, 1)) == 0


def test_notes_on_a_filled_cell_in_a_0_1_0_save_set_it_aside(tmp_path):
    home = tmp_path / "home"
    shutil.copytree(OLD_HOME, home)
    saved = json.loads((OLD_HOME / "game.json").read_text())
    board = saved["game"]["board"]
    assert board["digits"][2][2] == 1
    board["notes"].append([2, 2, [3]])
    (home / "game.json").write_text(json.dumps(saved))
    notices = import_legacy(open_store(home))
    assert any("game.json" in n and "a digit and notes" in n for n in notices), notices
    assert (home / "game.json.unusable").exists()
