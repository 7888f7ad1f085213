"""Startup time and bytes on the wire of `kaldoku` on a pseudo-terminal at 80×24.

    python -m benchmarks.terminal [--runs 5] [--keys 12]

Runs the installed `kaldoku` with a 9×9 puzzle and, in the same run, a bare Textual
app (header, one line of text, footer), each on its own pseudo-terminal read through
the pyte terminal emulator. Prints a table:

- startup: seconds from launch to a complete first screen (median of --runs, the two
  apps alternating), and kaldoku's ratio to the bare app;
- bytes written for one cursor move and for one digit entered (medians of --keys).

Targets: startup <= 1.25x the bare app; a cursor move <= 100 B; a digit <= 300 B at 256
colours (TERM=xterm-256color, COLORTERM unset).

The game's clock repaints the header every second; each key is sent just after a
tick has been written and its bytes are read until the terminal has been quiet for
QUIET seconds, well before the next tick.

To measure another configuration (truecolor, 16 colours, --ascii, over SSH), call
`startup_time` and `key_bytes` with its command and environment, and add a Row.
"""

from __future__ import annotations

import argparse
import os
import select
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

import pyte

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
    """The whole 9×9 board, the header's clock and the footer are on the screen."""
    text = "\n".join(lines)
    return "┗" in text and "┛" in text and "0:0" in lines[0] and "Quit" in lines[-1]


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


def key_bytes(
    command: Sequence[str], env: dict[str, str], ready: Ready, keys: Sequence[str], count: int
) -> dict[str, list[int]]:
    """Bytes written after each of `keys`, sent in turn `count` times, each just after
    a tick of the clock; by key."""
    app = PtyApp(command, env)
    found: dict[str, list[int]] = {key: [] for key in keys}
    try:
        app.wait_for(ready)
        app.read_until_quiet(0.5)
        for _ in range(count):
            while not app.read(2.0):  # the next tick
                pass
            app.read_until_quiet(0.05)
            for key in keys:
                app.send(key)
                found[key].append(app.read_until_quiet())
    finally:
        app.close()
    return found


@dataclass
class Row:
    what: str
    value: str
    target: str = ""


def game_environment(home: str) -> dict[str, str]:
    """256 colours, as over SSH: TERM=xterm-256color and no COLORTERM."""
    env = {k: v for k, v in os.environ.items() if k not in ("COLORTERM", "NO_COLOR", "TEXTUAL_COLOR_SYSTEM")}
    env.update(TERM="xterm-256color", KALDOKU_HOME=home, LANG="C.UTF-8")
    return env


def puzzle_file(directory: str) -> str:
    """A 9×9 puzzle, with its solution, written where `kaldoku FILE` reads it."""
    from kaldoku_tui.engine.formats import to_json_line
    from kaldoku_tui.engine.generator import generate

    path = Path(directory) / "nine.json"
    path.write_text(to_json_line(generate(9, seed=2024)) + "\n")
    return str(path)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="startups of each app (default 5)")
    parser.add_argument("--keys", type=int, default=12, help="samples of each key (default 12)")
    args = parser.parse_args(argv)

    kaldoku = Path(sys.executable).parent / "kaldoku"
    with tempfile.TemporaryDirectory() as home:
        env = game_environment(home)
        game = [str(kaldoku), puzzle_file(home)]
        bare = [sys.executable, "-c", BARE_APP]
        game_times, bare_times = [], []
        for _ in range(args.runs):
            bare_times.append(startup_time(bare, env, bare_ready))
            game_times.append(startup_time(game, env, kaldoku_ready))
            (Path(home) / "game.json").unlink(missing_ok=True)
        found = key_bytes(game, env, kaldoku_ready, ["l", "h", "5", "0"], args.keys)

    game_s, bare_s = statistics.median(game_times), statistics.median(bare_times)
    moves = found["l"] + found["h"]
    rows = [
        Row("startup, bare Textual app", f"{bare_s:.3f} s"),
        Row("startup, kaldoku 9×9", f"{game_s:.3f} s"),
        Row("startup ratio", f"{game_s / bare_s:.2f}×", "<= 1.25×"),
        Row("cursor move (l, h)", f"{statistics.median(moves):.0f} B", "<= 100 B"),
        Row("digit entered (5)", f"{statistics.median(found['5']):.0f} B", "<= 300 B"),
        Row("digit cleared (0)", f"{statistics.median(found['0']):.0f} B"),
    ]
    print(f"kaldoku on a pty at {COLUMNS}×{LINES}, TERM=xterm-256color, COLORTERM unset; "
          f"medians of {args.runs} startups and {args.keys} samples a key")
    width = max(len(row.what) for row in rows)
    print(f"{'measure':<{width}}  {'value':>9}  target")
    for row in rows:
        print(f"{row.what:<{width}}  {row.value:>9}  {row.target}")
    print("startups (s): kaldoku", " ".join(f"{t:.3f}" for t in game_times),
          "| bare", " ".join(f"{t:.3f}" for t in bare_times))


if __name__ == "__main__":
    main()
