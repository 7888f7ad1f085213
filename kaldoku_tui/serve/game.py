"""A player's game in its own process on a pseudo-terminal, under resource limits.

The server never runs a shell: it runs `kaldoku` (through jailed.py) with arguments it chose,
an environment it built (TERM from the client, LANG when it looks like a locale name, no
other variable of the client or of the server) and the window size on the pty.
"""

from __future__ import annotations

import asyncio
import fcntl
import os
import pty
import re
import resource
import signal
import struct
import subprocess
import sys
import termios
from collections.abc import Callable
from dataclasses import dataclass

MAX_COLUMNS, MAX_ROWS = 1000, 500
"""A window larger than this is taken as this large: a client's numbers are not trusted."""
LOCALE = re.compile(r"[A-Za-z]{1,8}(_[A-Za-z]{1,8})?(\.[A-Za-z0-9-]{1,16})?(@[A-Za-z0-9]{1,16})?")
TERM_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]{0,63}")
READ_CHUNK = 16384
INPUT_LIMIT = 65536
"""Bytes of input kept for a game that is not reading. Not SSH flow control: asyncssh
grants a whole new window each time reading resumes, whatever it holds already, so a
client that never stops typing would grow its buffer without end."""
RESIZE_DELAY = 0.05
"""Seconds window changes are gathered for before the last one is applied."""
BOARDS_VARIABLE = "KALDOKU_BOARDS"
"""Where a guest's lobby reads the server's leaderboards: the server's store (a guest's own
games are in a scratch store of its own)."""


@dataclass(frozen=True)
class Jail:
    """The resource limits of a game process."""

    memory: int = 1 << 30
    """Bytes of address space (RLIMIT_AS)."""
    cpu_seconds: int = 3600
    """CPU time of the whole session (RLIMIT_CPU): the game is stopped past it."""
    open_files: int = 64
    """File descriptors (RLIMIT_NOFILE)."""

    def apply(self) -> None:
        """Set the limits on this process (the game's, between fork and exec)."""
        resource.setrlimit(resource.RLIMIT_AS, (self.memory, self.memory))
        resource.setrlimit(resource.RLIMIT_CPU, (self.cpu_seconds, self.cpu_seconds + 5))
        resource.setrlimit(resource.RLIMIT_NOFILE, (self.open_files, self.open_files))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def window(columns: int, rows: int) -> tuple[int, int]:
    """`columns`×`rows` as a pty can take them: at least 1×1, at most MAX_COLUMNS×MAX_ROWS
    (a client may send 0, or 2**32 - 1 for a "negative" size)."""
    return min(max(columns, 1), MAX_COLUMNS), min(max(rows, 1), MAX_ROWS)


def game_environment(term: str, lang: str | None) -> dict[str, str]:
    """The whole environment of a game: the client's TERM and LANG when they are plain
    names, nothing else from the client or the server."""
    return {
        "TERM": term if TERM_NAME.fullmatch(term or "") else "xterm-256color",
        "LANG": lang if lang and LOCALE.fullmatch(lang) else "C.UTF-8",
        "PYTHONUTF8": "1",
        "PATH": os.defpath,
        "HOME": "/nonexistent",
    }


class GameProcess:
    """A session process (jailed.py ARGS) on a pty of its own; bytes pumped by the caller's loop.

    `output(data)` gets what the game writes; `ended(status)` is called once when it is gone.
    Output is read only while `reading` is on: the caller turns it off when its client
    does not keep up, and the game then waits on its own terminal (its memory, not ours).
    Input that the pty cannot take at once waits in `pending` (see INPUT_LIMIT)."""

    def __init__(self, args: list[str], env: dict[str, str], size: tuple[int, int], jail: Jail,
                 output: Callable[[bytes], None], ended: Callable[[int], None]) -> None:
        self.loop = asyncio.get_running_loop()
        self.output, self.ended = output, ended
        self.master, slave = pty.openpty()
        self.set_size(*size)
        os.set_blocking(self.master, False)

        limits = (str(jail.memory), str(jail.cpu_seconds), str(jail.open_files))
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "kaldoku_tui.serve.jailed", *limits, "--", *args],
                stdin=slave, stdout=slave, stderr=slave, env=env, cwd="/", start_new_session=True,
                close_fds=True)
        finally:
            os.close(slave)
        self.pending = b""
        self.blocked = False
        self.dropped = 0
        """Bytes of input dropped past INPUT_LIMIT."""
        self.reading = False
        self.gone = False
        self.resize_to: tuple[int, int] | None = None
        self.exited = asyncio.Event()
        """Set once the game process has ended and been reaped."""
        self.resume_output()

    def set_size(self, columns: int, rows: int) -> None:
        columns, rows = window(columns, rows)
        fcntl.ioctl(self.master, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))

    def resize(self, columns: int, rows: int) -> None:
        """Follow a window change; a burst of them is applied once, the last one."""
        if self.resize_to is None:
            self.loop.call_later(RESIZE_DELAY, self._apply_resize)
        self.resize_to = (columns, rows)

    def _apply_resize(self) -> None:
        size, self.resize_to = self.resize_to, None
        if size is not None and not self.gone:
            self.set_size(*size)

    def pause_output(self) -> None:
        if self.reading:
            self.loop.remove_reader(self.master)
            self.reading = False

    def resume_output(self) -> None:
        if not self.reading and not self.gone:
            self.loop.add_reader(self.master, self._read)
            self.reading = True

    def _read(self) -> None:
        try:
            data = os.read(self.master, READ_CHUNK)
        except BlockingIOError:
            return
        except OSError:  # EIO: the game and everything it started closed the terminal
            data = b""
        if data:
            self.output(data)
        else:
            self._finish()

    def write(self, data: bytes) -> None:
        """Type `data` into the game, in order. What the pty cannot take now waits, up to
        INPUT_LIMIT bytes; past that, input is dropped (counted in `dropped`): only a client
        typing far ahead of a game that does not read gets there."""
        if self.gone:
            return
        room = INPUT_LIMIT - len(self.pending)
        if len(data) > room:
            self.dropped += len(data) - room
            data = data[:room]
        self.pending += data
        if not self.blocked:
            self._flush()

    def _flush(self) -> None:
        try:
            sent = os.write(self.master, self.pending)
        except BlockingIOError:
            sent = 0
        except OSError:  # the game is gone: nobody reads this input any more
            sent = len(self.pending)
        self.pending = self.pending[sent:]
        blocked = bool(self.pending)
        if blocked != self.blocked:
            self.blocked = blocked
            if blocked:
                self.loop.add_writer(self.master, self._flush)
            else:
                self.loop.remove_writer(self.master)

    def hang_up(self) -> None:
        """End the game as a closed terminal does (it saves and leaves), killed if it lingers."""
        if self.process.returncode is None and not self.gone:
            _signal_group(self.process.pid, signal.SIGHUP)
            self.resume_output()  # to see the terminal close, whether or not the client reads
            self.loop.call_later(5, self._kill_if_running)

    def _kill_if_running(self) -> None:
        if self.process.returncode is None:  # not reaped: the pid is still the game's
            _signal_group(self.process.pid, signal.SIGKILL)

    def _finish(self) -> None:
        if self.gone:
            return
        self.gone = True
        self.pause_output()
        if self.blocked:
            self.loop.remove_writer(self.master)
        os.close(self.master)
        self.loop.create_task(self._reap())

    async def _reap(self) -> None:
        status = await asyncio.to_thread(self._wait)
        self.exited.set()
        self.ended(status if status >= 0 else 128 - status)

    def _wait(self) -> int:
        """The game's exit status; killed when it lingers after its terminal closed."""
        try:
            return self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            _signal_group(self.process.pid, signal.SIGKILL)
            return self.process.wait()


def _signal_group(pid: int, number: int) -> None:
    try:
        os.killpg(pid, number)
    except ProcessLookupError:
        pass
