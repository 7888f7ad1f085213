"""End to end over a real OpenSSH session: play, drop the connection, log in again, resume."""

import os
import shlex
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

from sshbox import SSHD, SSHServer, Terminal

KALDOKU = str(Path(sys.executable).with_name("kaldoku"))

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
    assert "kaldoku 0.1.0" in terminal.wait_for_text("kaldoku ")
