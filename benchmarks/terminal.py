"""Startup time and bytes on the wire of `kaldoku` on a pseudo-terminal at 80×24.

    python -m benchmarks.terminal [--runs 5] [--keys 12] [--no-ssh]

Runs the installed `kaldoku` with a 9×9 puzzle and, in the same run, a bare Textual
app (header, one line of text, footer), each on its own pseudo-terminal read through
the pyte terminal emulator. Prints one table:

- startup: seconds from launch to a complete first screen (median of --runs, the bare
  app, kaldoku with a new 9×9 and kaldoku resuming from a full database taking turns,
  at 256 colours), and kaldoku's ratios to the bare app; all start from compiled
  modules, as installed packages do;
- bytes written for one cursor move, one digit entered and one cleared (medians of
  --keys samples), at truecolor (COLORTERM=truecolor), 256 colours
  (TERM=xterm-256color), 16 colours (TERM=xterm) and in ASCII mode at 256 colours:
  on a local pty, the same through `ssh -t` to a throwaway sshd on 127.0.0.1 (the
  bytes the terminal gets), and what the SSH connection carried for them (encrypted,
  with SSH's framing: what a slow link has to move).

Over SSH each terminal's TERM and COLORTERM are set on the remote side as they are
locally; ssh itself forwards TERM only, so a truecolor terminal gets 256 colours over
SSH unless COLORTERM is sent (SendEnv) or forced with `kaldoku --colors truecolor`.

Targets: startup <= 1.25x the bare app; a cursor move <= 100 B; a digit <= 300 B at 256
colours (TERM=xterm-256color, COLORTERM unset).

The game's clock repaints the header every second; each key is sent just after a
tick has been written and its bytes are read until the terminal has been quiet for
QUIET seconds, well before the next tick.

SSH needs OpenSSH's server (/usr/sbin/sshd) and client; without the server, or with
--no-ssh, the SSH columns are left out with a note.
"""

from __future__ import annotations

import argparse
import os
import select
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

import pyte

from benchmarks.store import full_database

COLUMNS, LINES = 80, 24
QUIET = 0.15
"""Seconds without output after which a key's repaint is taken as finished."""
TIMEOUT = 20.0

BARE_APP = """
from textual.app import App
from textual.widgets import Footer, Header, Static

class Bare(App):
    BINDINGS = [("q", "quit", "Quit")]

    def compose(self):
        yield Header(show_clock=False)
        yield Static("bare textual app")
        yield Footer()

Bare().run()
"""

Ready = Callable[[list[str]], bool]
"""Whether a screen (its lines of text) is the complete first screen."""


def kaldoku_ready(lines: list[str]) -> bool:
    """The whole 9×9 board (down to its bottom wall, Unicode or ASCII), the header's
    clock and the footer are on the screen."""
    text = "\n".join(lines)
    bottom = ("┗" in text and "┛" in text) or any(set(line.strip()) == {"+", "="} for line in lines)
    return bottom and "0:0" in lines[0] and "Quit" in lines[-1]


def bare_ready(lines: list[str]) -> bool:
    return "bare textual app" in "\n".join(lines) and "Quit" in lines[-1]


class PtyApp:
    """A command running on a pseudo-terminal of COLUMNS×LINES, its output read into pyte."""

    def __init__(self, command: Sequence[str], env: dict[str, str]) -> None:
        import fcntl
        import struct
        import termios

        self.master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", LINES, COLUMNS, 0, 0))
        self.screen = pyte.Screen(COLUMNS, LINES)
        self.stream = pyte.ByteStream(self.screen)
        self.started = time.perf_counter()
        self.total = 0
        """Bytes read from the app so far."""
        self.process = subprocess.Popen(
            list(command), stdin=slave, stdout=slave, stderr=slave, env=env, start_new_session=True
        )
        os.close(slave)

    def read(self, timeout: float) -> bytes:
        """What the app writes within `timeout` seconds (b"" if nothing)."""
        ready, _, _ = select.select([self.master], [], [], timeout)
        if not ready:
            return b""
        try:
            data = os.read(self.master, 65536)
        except OSError:
            return b""
        self.stream.feed(data)
        self.total += len(data)
        return data

    def read_until_quiet(self, quiet: float = QUIET) -> int:
        """Read until `quiet` seconds pass without output; the number of bytes read."""
        total = 0
        while data := self.read(quiet):
            total += len(data)
        return total

    def wait_for(self, ready: Ready) -> float:
        """Seconds from launch until the screen is `ready`."""
        deadline = time.perf_counter() + TIMEOUT
        while not ready(self.screen.display):
            if time.perf_counter() > deadline:
                raise SystemExit("no complete screen:\n" + "\n".join(self.screen.display))
            self.read(0.01)
        return time.perf_counter() - self.started

    def send(self, keys: str) -> None:
        os.write(self.master, keys.encode())

    def close(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.close(self.master)


def startup_time(command: Sequence[str], env: dict[str, str], ready: Ready) -> float:
    """Seconds from launch to the first complete screen of one run."""
    app = PtyApp(command, env)
    try:
        return app.wait_for(ready)
    finally:
        app.close()


def startup_bytes(command: Sequence[str], env: dict[str, str], ready: Ready) -> tuple[int, int]:
    """Bytes the terminal got up to the first complete screen, and in all until the app
    goes quiet (for kaldoku: once its column bands are laid over the board)."""
    app = PtyApp(command, env)
    try:
        app.wait_for(ready)
        first = app.total
        app.read_until_quiet(0.8)
        return first, app.total
    finally:
        app.close()


def compile_like_installed() -> None:
    """Compile kaldoku's modules as pip does when it installs a package, as Textual's
    were: an editable kaldoku run with PYTHONDONTWRITEBYTECODE set would otherwise compile
    its sources at every start (about 0.1 s), which the bare app never does."""
    import compileall

    import kaldoku_tui

    compileall.compile_dir(Path(kaldoku_tui.__file__).parent, quiet=1)


def bytes_read(pid: int) -> int | None:
    """All bytes process `pid` has read so far (files, pipes, sockets), or None if the
    kernel will not say."""
    try:
        with open(f"/proc/{pid}/io") as io:
            return next(int(line.split()[1]) for line in io if line.startswith("rchar:"))
    except (OSError, StopIteration, ValueError):
        return None


@dataclass
class KeyBytes:
    """Bytes per key: those the terminal got, and those its process read for them
    (for an ssh client: the encrypted stream plus the key itself)."""

    shown: dict[str, list[int]]
    read: dict[str, list[int]]
    ticks: list[int]
    """Bytes the terminal got for a tick of the game's clock, with no key pressed."""


def key_bytes(
    command: Sequence[str], env: dict[str, str], ready: Ready, keys: Sequence[str], count: int
) -> KeyBytes:
    """Bytes after each of `keys`, sent in turn `count` times, each just after a tick
    of the clock; by key."""
    app = PtyApp(command, env)
    found = KeyBytes({key: [] for key in keys}, {key: [] for key in keys}, [])
    pid = app.process.pid
    try:
        app.wait_for(ready)
        app.read_until_quiet(0.5)
        for _ in range(count):
            tick = b""
            while not tick:  # the next tick
                tick = app.read(2.0)
            found.ticks.append(len(tick) + app.read_until_quiet(0.05))
            for key in keys:
                before = bytes_read(pid)
                app.send(key)
                found.shown[key].append(app.read_until_quiet())
                after = bytes_read(pid)
                if before is not None and after is not None:
                    found.read[key].append(after - before - len(key.encode()))
    finally:
        app.close()
    return found


@dataclass
class Row:
    what: str
    local: str
    ssh: str = ""
    wire: str = ""
    target: str = ""


@dataclass(frozen=True)
class Setup:
    """A terminal kaldoku may find itself in."""

    name: str
    env: dict[str, str]
    args: tuple[str, ...] = ()


SETUPS = [
    Setup("truecolor", {"TERM": "xterm-256color", "COLORTERM": "truecolor"}),
    Setup("256 colours", {"TERM": "xterm-256color"}),
    Setup("16 colours", {"TERM": "xterm"}),
    Setup("ASCII", {"TERM": "xterm-256color"}, ("--ascii",)),
]
KEYS = {"cursor move": ("l", "h"), "digit entered": ("5",), "digit cleared": ("0",)}
TARGETS = {("256 colours", "cursor move"): "<= 100 B", ("256 colours", "digit entered"): "<= 300 B"}


def game_environment(home: str, setup: Setup | None = None) -> dict[str, str]:
    """The environment of a local kaldoku: 256 colours as over SSH (TERM=xterm-256color,
    no COLORTERM) unless `setup` says otherwise."""
    env = {k: v for k, v in os.environ.items() if k not in ("COLORTERM", "NO_COLOR", "TEXTUAL_COLOR_SYSTEM")}
    env.update(TERM="xterm-256color", KALDOKU_HOME=home, LANG="C.UTF-8")
    if setup is not None:
        env.update(setup.env)
    return env


def remote_command(server, home: str, setup: Setup, game: Sequence[str]) -> list[str]:
    """`ssh -t` running `game` on `server` in `setup`'s terminal, with data in `home`."""
    settings = {"TERM": "xterm-256color", "KALDOKU_HOME": home, "LANG": "C.UTF-8", **setup.env}
    assignments = " ".join(f"{name}={shlex.quote(value)}" for name, value in settings.items())
    return server.command(f"env -u COLORTERM {assignments} {shlex.join([*game, *setup.args])}")


def puzzle_file(directory: str) -> str:
    """A 9×9 puzzle, with its solution, written where `kaldoku FILE` reads it."""
    from kaldoku_tui.engine.formats import to_json_line
    from kaldoku_tui.engine.generator import generate

    path = Path(directory) / "nine.json"
    path.write_text(to_json_line(generate(9, seed=2024)) + "\n")
    return str(path)


def median_bytes(samples: dict[str, list[int]], keys: Sequence[str]) -> str:
    values = [value for key in keys for value in samples[key]]
    return f"{statistics.median(values):.0f} B" if values else "-"


def ssh_server(directory: Path, wanted: bool):
    """A started SSHServer in `directory`, or None (with a note on stderr) when SSH is
    not wanted or not installed."""
    from tests.sshbox import SSHD, SSHServer

    if not wanted:
        return None
    if not os.path.exists(SSHD) or not shutil.which("ssh"):
        print(f"OpenSSH server ({SSHD}) or client not installed: no SSH columns "
              "(apt-get install openssh-server openssh-client, or pass --no-ssh)", file=sys.stderr)
        return None
    server = SSHServer(directory)
    server.start()
    return server


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="startups of each app (default 5)")
    parser.add_argument("--keys", type=int, default=12, help="samples of each key (default 12)")
    parser.add_argument("--no-ssh", action="store_true", help="measure on local ptys only")
    args = parser.parse_args(argv)

    kaldoku = Path(sys.executable).parent / "kaldoku"
    local: dict[str, KeyBytes] = {}
    remote: dict[str, KeyBytes] = {}
    keys = [key for group in KEYS.values() for key in group]
    compile_like_installed()
    with tempfile.TemporaryDirectory() as home:
        env = game_environment(home)
        game = [str(kaldoku), puzzle_file(home)]
        bare = [sys.executable, "-c", BARE_APP]
        full = os.path.join(home, "full")
        full_database(Path(full))
        game_times, bare_times, full_times = [], [], []
        for _ in range(args.runs):  # the three in turn, so that a busy spell slows each alike
            bare_times.append(startup_time(bare, env, bare_ready))
            game_times.append(startup_time(game, env, kaldoku_ready))
            (Path(home) / "game.json").unlink(missing_ok=True)
            full_times.append(startup_time([str(kaldoku)], game_environment(full), kaldoku_ready))
        bare_bytes = startup_bytes(bare, env, bare_ready)
        game_bytes = startup_bytes(game, env, kaldoku_ready)
        (Path(home) / "game.json").unlink(missing_ok=True)
        for n, setup in enumerate(SETUPS):
            data = os.path.join(home, f"local-{n}")
            local[setup.name] = key_bytes([*game, *setup.args], game_environment(data, setup),
                                          kaldoku_ready, keys, args.keys)
        keys_dir = Path(home) / "ssh"
        keys_dir.mkdir()
        server = ssh_server(keys_dir, not args.no_ssh)
        try:
            for n, setup in enumerate(SETUPS if server else ()):
                command = remote_command(server, os.path.join(home, f"remote-{n}"), setup, game)
                remote[setup.name] = key_bytes(command, game_environment(home, setup),
                                               kaldoku_ready, keys, args.keys)
        finally:
            if server is not None:
                server.stop()

    game_s, bare_s = statistics.median(game_times), statistics.median(bare_times)
    rows = [
        Row("startup, bare Textual app", f"{bare_s:.3f} s"),
        Row("startup, kaldoku 9×9", f"{game_s:.3f} s"),
        Row("startup ratio", f"{game_s / bare_s:.2f}×", target="<= 1.25×"),
        Row("startup, resuming from a full database", f"{statistics.median(full_times):.3f} s"),
        Row("startup ratio, full database", f"{statistics.median(full_times) / bare_s:.2f}×",
            target="<= 1.25×"),
        Row("bytes to the first screen, bare", f"{bare_bytes[0] / 1000:.1f} KB"),
        Row("bytes to the first screen, kaldoku", f"{game_bytes[0] / 1000:.1f} KB"),
        Row("bytes until quiet, bare", f"{bare_bytes[1] / 1000:.1f} KB"),
        Row("bytes until quiet, kaldoku", f"{game_bytes[1] / 1000:.1f} KB"),
    ]
    for setup in SETUPS:
        for what, group in KEYS.items():
            over_ssh = remote.get(setup.name)
            rows.append(Row(
                f"{what}, {setup.name}",
                median_bytes(local[setup.name].shown, group),
                median_bytes(over_ssh.shown, group) if over_ssh else "",
                median_bytes(over_ssh.read, group) if over_ssh else "",
                TARGETS.get((setup.name, what), ""),
            ))
        over_ssh = remote.get(setup.name)
        rows.append(Row(
            f"clock tick, {setup.name}",
            median_bytes({"": local[setup.name].ticks}, [""]),
            median_bytes({"": over_ssh.ticks}, [""]) if over_ssh else "",
        ))
    print(f"kaldoku on a pty at {COLUMNS}×{LINES}: startup at 256 colours (TERM=xterm-256color, "
          f"COLORTERM unset), medians of {args.runs} startups and {args.keys} samples a key; "
          "ssh wire: the encrypted bytes the ssh client read")
    width = max(len(row.what) for row in rows)
    print(f"{'measure':<{width}}  {'local':>9}  {'over ssh':>9}  {'ssh wire':>9}  target")
    for row in rows:
        print(f"{row.what:<{width}}  {row.local:>9}  {row.ssh:>9}  {row.wire:>9}  {row.target}")
    print("startups (s): kaldoku", " ".join(f"{t:.3f}" for t in game_times),
          "| bare", " ".join(f"{t:.3f}" for t in bare_times))


if __name__ == "__main__":
    main()
