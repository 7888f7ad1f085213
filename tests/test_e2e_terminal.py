"""The installed `kaldoku` on a real pseudo-terminal (tmux) at 80×24: the screen a
player sees, read back from the terminal."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import EXAMPLE_ID, saved_session

KALDOKU = Path(sys.executable).parent / "kaldoku"



class Terminal:
    """A tmux server of its own running one command in an 80×24 window."""

    def __init__(self, socket: str) -> None:
        assert shutil.which("tmux"), "tmux is needed to be the player's terminal (.ci/run installs it)"
        assert KALDOKU.exists(), f"the kaldoku command is not installed beside {sys.executable}"
        self.socket = socket

    def tmux(self, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True)

    def start(self, command: list[str], env: dict[str, str]) -> None:
        settings = [f"{key}={value}" for key, value in env.items()]
        started = self.tmux("-f", "/dev/null", "new-session", "-d", "-x", "80", "-y", "24",
                            "env", *settings, *command)
        assert started.returncode == 0, started.stderr

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", "0").stdout

    def keys(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", "0", *keys)

    def wait_for(self, check, timeout: float = 60.0) -> str:
        """Poll the screen until `check(screen)` holds; fail with the screen if it never does."""
        deadline = time.monotonic() + timeout
        while True:
            screen = self.screen()
            if check(screen):
                return screen
            if time.monotonic() > deadline:
                state = "running" if self.running() else "ended"
                pytest.fail(f"the screen never showed what was expected (the session has {state}):\n{screen}")
            time.sleep(0.05)

    def running(self) -> bool:
        return self.tmux("has-session").returncode == 0

    def stop(self) -> None:
        self.tmux("kill-server")


@pytest.fixture
def terminal():
    # A socket of its own each time: a server killed by the test before may still be ending.
    term = Terminal(f"kaldoku-e2e-{os.getpid()}-{time.monotonic_ns()}")
    yield term
    term.stop()


def test_play_a_keen_id_on_a_real_terminal(terminal, tmp_path):
    env = {"TERM": "xterm-256color", "KALDOKU_HOME": str(tmp_path), "LANG": "C.UTF-8"}
    # A script keeps kaldoku's exit status once it has quit (a traceback makes it 1).
    script = tmp_path / "play.sh"
    script.write_text(f'"{KALDOKU}" "{EXAMPLE_ID}"; echo $? >"{tmp_path}/status"\n')
    terminal.start(["sh", str(script)], env)
    screen = terminal.wait_for(lambda s: "┏" in s and "┛" in s)
    assert "12×" in screen and "2÷" in screen  # cage labels of the top row
    assert "╋" in screen or "╂" in screen or "┿" in screen  # junctions inside the board
    assert "━" in screen and "┃" in screen and "│" in screen  # heavy walls, light lines

    terminal.keys("l", "j", "3", "Right", "2")
    two_digits = re.compile(r"[│┃] {3}3 {3}[│┃] {3}2 {3}[│┃]")
    screen = terminal.wait_for(lambda s: two_digits.search(s) is not None)
    row = next(line for line in screen.splitlines() if two_digits.search(line))
    assert row.split()[0] == "2", "the row's number on the ruler"
    assert row.strip()[1:].strip().startswith("┃") and row.strip().endswith("┃")

    terminal.keys("q")
    deadline = time.monotonic() + 60
    while terminal.running() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not terminal.running()
    assert (tmp_path / "status").read_text().strip() == "0"
    saved = saved_session(tmp_path)
    assert saved.board.grid[1][1:3] == (3, 2)


def wait_until_quit(terminal) -> None:
    deadline = time.monotonic() + 10
    while terminal.running() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not terminal.running()


def test_keys_sent_at_once_are_all_kept_on_a_real_terminal(terminal, tmp_path):
    """`1 → 2 → 3 q` in one write to the terminal (a paste): quit comes after the digits."""
    env = {"TERM": "xterm-256color", "KALDOKU_HOME": str(tmp_path), "LANG": "C.UTF-8"}
    terminal.start([str(KALDOKU), EXAMPLE_ID], env)
    terminal.wait_for(lambda s: "┏" in s and "┛" in s)
    terminal.keys("1", "Right", "2", "Right", "3", "q")
    wait_until_quit(terminal)
    terminal.start([str(KALDOKU)], env)
    row = re.compile(r"[│┃] {3}1 {3}[│┃] {3}2 {3}[│┃] {3}3 {3}[│┃]")
    terminal.wait_for(lambda s: row.search(s) is not None)
    terminal.keys("q")
    wait_until_quit(terminal)
