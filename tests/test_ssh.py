"""End to end over a real OpenSSH session: play, drop the connection, log in again, resume."""

import os
import shlex
import shutil
import signal
import tempfile
from pathlib import Path

import pytest

from kaldoku_tui import __version__

from kaldoku_tui.session.game import TAKEN
from sshbox import (KALDOKU, KEEN_4, MOVES, MOVES_ON_SCREEN, SSHD, SSHServer, Terminal, aside,
                    kaldoku_running, saved_board, moves_saved, wait_for)

if not os.path.exists(SSHD) and not os.environ.get("CI"):
    pytest.skip(f"OpenSSH server not installed here ({SSHD}); .ci/run installs it",
                allow_module_level=True)


@pytest.fixture(scope="module")
def server():
    if not shutil.which("tmux"):
        pytest.fail("tmux is needed to be the player's terminal (.ci/run installs it)")
    with tempfile.TemporaryDirectory(prefix="kaldoku-sshd-") as keys:
        server = SSHServer(Path(keys))
        server.start()
        yield server
        server.stop()


@pytest.fixture
def terminals():
    opened = []

    def open_terminal(argv):
        terminal = Terminal(argv, 80, 24)
        opened.append(terminal)
        return terminal

    yield open_terminal
    for terminal in opened:
        terminal.close()


def remote(home, *args):
    return (f"env KALDOKU_HOME={shlex.quote(str(home))} TERM=xterm-256color "
            + shlex.join([KALDOKU, *args]))


def test_kaldoku_runs_over_ssh(server, terminals, tmp_path):
    # The sleep keeps the pane alive: tmux keeps only part of a dead pane's screen.
    terminal = terminals(server.command(remote(tmp_path, "--version") + "; sleep 30"))
    assert f"kaldoku {__version__}" in terminal.wait_for_text("kaldoku ")


def test_dropped_connection_then_a_second_login_resumes(server, terminals, tmp_path):
    home = tmp_path / "home"
    first = terminals(server.command(remote(home, KEEN_4)))
    screen = first.wait_for_text("2÷")
    assert "12×" in screen and "┏" in screen
    first.press(*MOVES)
    first.wait_for_text(MOVES_ON_SCREEN)
    # The last key may still be on its way when the digits show: wait for it too.
    assert wait_for(lambda: "notes off │" in first.screen()), "notes mode is off again"
    assert wait_for(lambda: moves_saved(home)), "the moves reached the save"
    os.kill(first.pane_pid(), signal.SIGKILL)  # the connection drops without a goodbye
    assert wait_for(first.dead)
    # sshd hangs up the session: the remote kaldoku ends and lets go of its lock.
    assert wait_for(lambda: not kaldoku_running(home)), "kaldoku outlived its session"

    second = terminals(server.command(remote(home)))
    screen = second.wait_for_text(MOVES_ON_SCREEN)
    assert "2÷" in screen and "12×" in screen
    assert TAKEN[:40] not in screen and "unusable" not in screen
    second.press("u")  # the undo history came back too
    assert wait_for(lambda: [1, 1, [3]] not in saved_board(home)["notes"])
    second.press("q")
    assert wait_for(second.dead)
    assert not aside(home)
