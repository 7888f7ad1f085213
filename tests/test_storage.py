"""Saving never loses a game: bad files are set aside, writes are atomic, failures are told once."""

import json
import multiprocessing
import os
import signal

import pytest

from kaldoku_tui.storage import GAME_FILE, Store, data_dir
from sshbox import (KALDOKU, KEEN_4, MOVES, MOVES_ON_SCREEN, Terminal, kaldoku_running,
                    moves_saved, saved_board, wait_for)

GAME = {"puzzle": {"size": 3}, "digits": [[1, 0, 0], [0, 0, 0], [0, 0, 0]], "elapsed": 12.5}


def set_aside_files(directory):
    return sorted(p.name for p in directory.iterdir() if ".corrupt-" in p.name)


def test_round_trip_and_clear(tmp_path):
    store = Store(tmp_path / "home")
    assert store.load_game() == (None, None)
    assert store.save_game(GAME) is None
    assert Store(tmp_path / "home").load_game()[0] == GAME
    store.clear_game()
    assert store.load_game() == (None, None)
    store.clear_game()


def test_stats_round_trip(tmp_path):
    store = Store(tmp_path)
    assert store.load_stats() == (None, None)
    store.save_stats({"won": 3})
    assert store.load_stats() == ({"won": 3}, None)


def test_file_names_its_format_and_version(tmp_path):
    Store(tmp_path).save_game(GAME)
    data = json.loads((tmp_path / GAME_FILE).read_text())
    assert data["format"] == "kaldoku-game" and data["version"] == 1 and data["game"] == GAME


@pytest.mark.parametrize("content, why", [
    (b'{"format": "kaldoku-game", "version": 1, "game": {"puzzle": {"si', "corrupt or truncated"),
    (b"\x00\x00\x00\x00", "corrupt or truncated"),
    (b"", "empty"),
    (b"\xff\xfe garbage", "corrupt or truncated"),
    (b"[1, 2, 3]", "not a kaldoku-game file"),
    (b'{"format": "something-else", "version": 1, "game": {}}', "not a kaldoku-game file"),
    (b'{"format": "kaldoku-game", "game": {}}', "no format version"),
    (b'{"format": "kaldoku-game", "version": 1, "game": [1]}', "no game in it"),
    (b'{"format": "kaldoku-game", "version": 7, "game": {}}', "newer kaldoku"),
])
def test_bad_save_is_set_aside_and_a_new_game_can_be_saved(tmp_path, content, why):
    (tmp_path / GAME_FILE).write_bytes(content)
    store = Store(tmp_path)
    game, notice = store.load_game()
    assert game is None
    assert why in notice and "\n" not in notice
    kept = set_aside_files(tmp_path)
    assert len(kept) == 1 and kept[0] in notice
    assert (tmp_path / kept[0]).read_bytes() == content
    assert store.save_game(GAME) is None
    assert Store(tmp_path).load_game() == (GAME, None)
    assert set_aside_files(tmp_path) == kept


def test_unreadable_save_is_set_aside(tmp_path):
    # A directory where the file should be: unreadable even for root.
    (tmp_path / GAME_FILE).mkdir()
    game, notice = Store(tmp_path).load_game()
    assert game is None and "unreadable" in notice
    assert len(set_aside_files(tmp_path)) == 1


def test_two_bad_saves_in_one_second_are_both_kept(tmp_path):
    for content in (b"{", b"}"):
        (tmp_path / GAME_FILE).write_bytes(content)
        Store(tmp_path).load_game()
    assert len(set_aside_files(tmp_path)) == 2


def test_game_content_rejected_by_the_app_is_set_aside(tmp_path):
    store = Store(tmp_path)
    store.save_game({"nonsense": True})
    notice = store.set_aside_game("not a board")
    assert "not a board" in notice
    assert store.load_game()[0] is None and len(set_aside_files(tmp_path)) == 1


def test_unwritable_directory_plays_on_and_tells_once(tmp_path):
    # A directory below a regular file cannot be created, even by root.
    (tmp_path / "file").write_text("")
    store = Store(tmp_path / "file" / "kaldoku")
    assert store.load_game() == (None, None)
    notice = store.save_game(GAME)
    assert notice.startswith("Saving is off") and "\n" not in notice
    assert not store.saving
    assert store.save_game(GAME) is None and store.save_stats({"won": 1}) is None
    store.clear_game()


def notice_in_another_process(directory):
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    child = context.Process(target=lambda: queue.put(Store(directory).load_game()[1]))
    child.start()
    notice = queue.get(timeout=30)
    child.join()
    return notice


def test_second_process_is_told_until_the_first_lets_go(tmp_path):
    first = Store(tmp_path)
    assert first.load_game() == (None, None)
    assert Store(tmp_path).load_game() == (None, None), "one process never warns itself"
    notice = notice_in_another_process(tmp_path)
    assert "Another kaldoku is running" in notice and f"pid {os.getpid()}" in notice
    first.release()
    assert notice_in_another_process(tmp_path) is None


def test_lock_of_a_killed_process_is_gone(tmp_path):
    context = multiprocessing.get_context("fork")
    ready = context.Event()

    def hold():
        Store(tmp_path).load_game()
        ready.set()
        signal.pause()

    holder = context.Process(target=hold)
    holder.start()
    assert ready.wait(30)
    assert "Another kaldoku" in Store(tmp_path).load_game()[1]
    os.kill(holder.pid, signal.SIGKILL)
    holder.join()
    assert Store(tmp_path).load_game() == (None, None)
    Store(tmp_path).release()


def write_many(directory, tag, count):
    store = Store(directory)
    for i in range(count):
        store.save_game({"writer": tag, "move": i, "padding": "x" * 20000})


def test_two_writers_never_corrupt_the_save(tmp_path):
    context = multiprocessing.get_context("fork")
    writers = [context.Process(target=write_many, args=(tmp_path, tag, 150)) for tag in "ab"]
    for writer in writers:
        writer.start()
    reads = 0
    while any(w.is_alive() for w in writers):
        game, notice = Store(tmp_path).load_game()
        assert notice is None
        if game is not None:
            assert game["writer"] in "ab" and len(game["padding"]) == 20000
            reads += 1
    for writer in writers:
        writer.join()
        assert writer.exitcode == 0
    game, notice = Store(tmp_path).load_game()
    assert notice is None and game["move"] == 149
    assert not set_aside_files(tmp_path)
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_data_dir_precedence(tmp_path, monkeypatch):
    monkeypatch.setenv("KALDOKU_HOME", str(tmp_path / "env"))
    assert data_dir(tmp_path / "opt") == tmp_path / "opt"
    assert data_dir() == tmp_path / "env"
    monkeypatch.delenv("KALDOKU_HOME")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert data_dir() == tmp_path / "xdg" / "kaldoku"


def test_failed_write_keeps_the_old_save_whole(tmp_path, monkeypatch):
    store = Store(tmp_path)
    store.save_game(GAME)

    def disk_full(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", disk_full)
    assert "No space left on device" in store.save_game({"other": 1})
    monkeypatch.undo()
    assert Store(tmp_path).load_game()[0] == GAME
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    assert store.save_game({"other": 1}) is None and store.saving


def test_stale_temp_files_of_a_killed_writer_are_removed(tmp_path):
    stale, fresh = tmp_path / ".game.json.old.tmp", tmp_path / ".game.json.new.tmp"
    stale.write_text("{half")
    fresh.write_text("{half")
    os.utime(stale, (0, 0))
    Store(tmp_path).load_game()
    assert not stale.exists() and fresh.exists()


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
    assert not kaldoku_running(home), "the lock of a killed process is free"
    second = kaldoku_in_tmux(home)
    try:
        screen = second.wait_for_text(MOVES_ON_SCREEN)
        assert "2÷" in screen and "Another kaldoku" not in screen and "unusable" not in screen
        second.press("u")  # the history survived too: undo takes back the note
        assert wait_for(lambda: [1, 1, [3]] not in saved_board(home)["notes"])
        second.press("q")
        assert wait_for(second.dead)
    finally:
        second.close()
    assert not set_aside_files(home)


def test_kill_9_in_a_burst_of_moves_leaves_a_save_that_loads(tmp_path):
    home = tmp_path / "home"
    terminal = kaldoku_in_tmux(home, KEEN_4)
    try:
        terminal.wait_for_text("2÷")
        terminal.press(*"1l2l3l4j1h2h3h4j" * 3)
        os.kill(terminal.pane_pid(), signal.SIGKILL)
        assert wait_for(terminal.dead)
    finally:
        terminal.close()
    store = Store(home)
    game, notice = store.load_game()
    store.release()
    assert notice is None and not set_aside_files(home)
    assert game is None or len(game["board"]["digits"]) == 4
