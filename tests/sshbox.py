"""Real terminals for end-to-end tests and the terminal benchmark: a throwaway OpenSSH
server and tmux.

`SSHServer` runs /usr/sbin/sshd as a non-daemon child on a free 127.0.0.1 port with a fresh
host key and one authorized test key, all in a temporary directory. `Terminal` is a detached
tmux session of a fixed size on a private tmux socket: type keys, read the screen. The rest
plays a known puzzle and reads what kaldoku saved.
"""

from __future__ import annotations

import os
import shlex
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

SSHD = "/usr/sbin/sshd"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(predicate, timeout: float = 60.0, interval: float = 0.1):
    """Poll `predicate` until it returns something true; that value, or None on timeout."""
    end = time.monotonic() + timeout
    while True:
        value = predicate()
        if value or time.monotonic() > end:
            return value
        time.sleep(interval)


class SSHServer:
    """sshd on 127.0.0.1:port accepting `key` for the current user."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.port = free_port()
        self.key = directory / "client_key"
        self.user = os.environ.get("USER") or __import__("pwd").getpwuid(os.getuid()).pw_name
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        d = self.directory
        for name in ("host_key", "client_key"):
            subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(d / name)],
                           check=True, stdout=subprocess.DEVNULL)
        shutil.copy(d / "client_key.pub", d / "authorized_keys")
        (d / "sshd_config").write_text(
            f"Port {self.port}\nListenAddress 127.0.0.1\nHostKey {d / 'host_key'}\n"
            f"AuthorizedKeysFile {d / 'authorized_keys'}\nPidFile {d / 'sshd.pid'}\n"
            "StrictModes no\nPermitRootLogin prohibit-password\nPubkeyAuthentication yes\n"
            "PasswordAuthentication no\nKbdInteractiveAuthentication no\nUsePAM yes\n"
            "AcceptEnv LANG LC_*\nPrintMotd no\nPrintLastLog no\nLogLevel ERROR\n"
        )
        # sshd refuses to start without its privilege separation directory.
        os.makedirs("/run/sshd", mode=0o755, exist_ok=True)
        self.process = subprocess.Popen(
            [SSHD, "-D", "-e", "-f", str(d / "sshd_config")],
            stdout=subprocess.DEVNULL, stderr=open(d / "sshd.log", "wb"),
        )
        if not wait_for(self.accepting):
            self.stop()
            raise RuntimeError(f"sshd did not start: {(d / 'sshd.log').read_text()}")

    def accepting(self) -> bool:
        if self.process.poll() is not None:
            raise RuntimeError(f"sshd exited: {(self.directory / 'sshd.log').read_text()}")
        try:
            socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
            return True
        except OSError:
            return False

    def command(self, remote: str, tty: bool = True) -> list[str]:
        """The ssh command line that runs `remote` on this server."""
        return [
            "ssh", *(["-t"] if tty else []), "-p", str(self.port), "-i", str(self.key),
            "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
            "-o", "LogLevel=ERROR", "-o", "BatchMode=yes", "-o", "IdentitiesOnly=yes",
            f"{self.user}@127.0.0.1", remote,
        ]

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


class Terminal:
    """A detached tmux session of width×height running `argv`, on a private socket."""

    def __init__(self, argv: list[str], width: int = 80, height: int = 24,
                 env: dict[str, str] | None = None) -> None:
        assert shutil.which("tmux"), "tmux is needed to be the player's terminal (.ci/run installs it)"
        self.socket = f"kaldoku-test-{os.getpid()}-{time.monotonic_ns()}"
        environment = {**os.environ, **(env or {})}
        # Keep the pane, and what it shows, after the program ends: set before it starts.
        self.tmux("new-session", "-d", "-x", str(width), "-y", str(height),
                  "-s", "t", "sleep 60", env=environment)
        self.tmux("set-option", "-t", "t", "remain-on-exit", "on")
        # exec: the pane's process is the program itself, for signals and kill -9.
        self.tmux("respawn-pane", "-k", "-t", "t", "exec " + shlex.join(argv), env=environment)

    def tmux(self, *args: str, env: dict[str, str] | None = None) -> str:
        return subprocess.run(["tmux", "-L", self.socket, *args], check=True, env=env,
                              capture_output=True, text=True).stdout

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", "t")

    def wait_for_text(self, text: str, timeout: float = 60.0) -> str:
        """The screen once it shows `text`; AssertionError with the screen otherwise."""
        found = wait_for(lambda: text in (screen := self.screen()) and screen, timeout)
        assert found, f"{text!r} never appeared on the screen:\n{self.screen()}"
        return found

    def press(self, *keys: str) -> None:
        """Send tmux key names (Up, Enter, C-z) or literal characters, one at a time."""
        for key in keys:
            self.tmux("send-keys", "-t", "t", key)

    def paste(self, data: bytes, bracketed: bool = False) -> None:
        """Send `data` as one paste: unbracketed, the program reads it as typed keys."""
        subprocess.run(["tmux", "-L", self.socket, "load-buffer", "-b", "p", "-"], input=data, check=True)
        self.tmux("paste-buffer", "-d", "-r", "-b", "p", "-t", "t", *(["-p"] if bracketed else []))

    def pane_pid(self) -> int:
        return int(self.tmux("display-message", "-p", "-t", "t", "#{pane_pid}").strip())

    def dead(self) -> bool:
        return self.tmux("display-message", "-p", "-t", "t", "#{pane_dead}").strip() == "1"

    def close(self) -> None:
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True)


KALDOKU = str(Path(sys.executable).with_name("kaldoku"))
KEEN_4 = "4:aa_a__a__a_a__a_a,d2m12s1a5s1m4d2a5"
MOVES = ("1", "l", "2", "j", "n", "3", "n")
"""r1c1 = 1, r1c2 = 2, a pencil note 3 in r2c2, notes mode off again."""
MOVES_ON_SCREEN = "   1   │   2   ┃"
"""The first row of KEEN_4 after MOVES, at 80×24."""


def usage(pid: int) -> tuple[float, int]:
    """CPU seconds (user and system) and resident memory in KB of process `pid` (Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    status = Path(f"/proc/{pid}/status").read_text()
    return cpu, int(status.split("VmRSS:")[1].split()[0])


def settled(pid: int, window: float = 0.5, timeout: float = 30.0) -> float | None:
    """The CPU seconds process `pid` has used, once it used under a tenth of a core over
    `window` seconds; None if it has not settled within `timeout` seconds."""
    readings = [(time.monotonic(), usage(pid)[0])]

    def quiet() -> tuple[float] | None:
        now, cpu = time.monotonic(), usage(pid)[0]
        readings.append((now, cpu))
        before = [c for t, c in readings if t <= now - window]
        return (cpu,) if before and cpu - before[-1] < 0.1 * window else None

    found = wait_for(quiet, timeout=timeout)
    return found[0] if found else None


def saved_board(home: Path) -> dict | None:
    """The digits and notes of the game in progress in data directory `home`, if any,
    as {"digits": rows, "notes": [[row, column, [notes]], ...]}."""
    from conftest import saved_session

    session = saved_session(home)
    if session is None:
        return None
    view = session.board.view()
    return {"digits": [list(row) for row in view.grid],
            "notes": [[r, c, sorted(notes)] for (r, c), notes in sorted(view.marks.items())]}


def moves_saved(home: Path) -> bool:
    board = saved_board(home)
    return board is not None and board["digits"][0][:2] == [1, 2] and [1, 1, [3]] in board["notes"]


def aside(home: Path) -> list[str]:
    """The files the store set aside in data directory `home` (NAME.unusable, or
    kaldoku.db.unusable-STAMP), by name."""
    return sorted(p.name for p in home.iterdir() if ".unusable" in p.name)


def kaldoku_running(home: Path) -> bool:
    """Whether the kaldoku process that last played in data directory `home` still runs
    (the games record their owner as host:pid:token)."""
    import sqlite3

    with sqlite3.connect(home / "kaldoku.db") as db:
        row = db.execute("SELECT owner FROM games ORDER BY touched DESC, id DESC").fetchone()
    if not row or not row[0]:
        return False
    pid = int(row[0].split(":")[1])
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
