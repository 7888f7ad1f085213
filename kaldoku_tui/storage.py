"""Where kaldoku keeps the game in progress, the statistics, the settings and the ready
puzzles, and how it writes them.

Every file is written atomically (a temporary file in the same directory, fsync, rename,
fsync of the directory), so a crash, a dropped SSH connection or kill -9 at any moment
leaves either the old save or the new one, never half of one. A save that cannot be
read is set aside (renamed, never deleted) and the player is told in one line.

Two kaldoku processes of one user share the files: the last writer wins. The first
process holds a lock on `kaldoku.lock` for its lifetime; a second one is told that
another game is running (the kernel drops the lock when a process dies, even by kill -9).
"""

from __future__ import annotations

import json
import os
import socket
import tempfile
import time
from pathlib import Path

try:
    import fcntl
except ImportError:  # Windows: no advisory locks; last writer still wins.
    fcntl = None

GAME_FILE, STATS_FILE, BANK_FILE, LOCK_FILE = "game.json", "stats.json", "bank.json", "kaldoku.lock"
SETTINGS_FILE = "settings.json"
GAME_FORMAT, STATS_FORMAT, BANK_FORMAT = "kaldoku-game", "kaldoku-stats", "kaldoku-bank"
SETTINGS_FORMAT = "kaldoku-settings"
VERSION = 1
STALE_TEMP_SECONDS = 3600
HELD_LOCKS: dict[tuple[int, str], int] = {}
"""Lock file descriptors held, by (process id, directory): one lock per process."""


def data_dir(override: str | os.PathLike | None = None) -> Path:
    """The directory of kaldoku's files: `override` (--data-dir), else KALDOKU_HOME,
    else the platform's user data directory."""
    chosen = override or os.environ.get("KALDOKU_HOME")
    if chosen:
        return Path(chosen).expanduser()
    from platformdirs import user_data_dir

    return Path(user_data_dir("kaldoku", appauthor=False))


class BadSave(Exception):
    """A save file that cannot be used; the message says why, in a few words."""


class Store:
    """The saved game and statistics of one data directory."""

    def __init__(self, directory: str | os.PathLike) -> None:
        self.directory = Path(directory)
        self.saving = True
        """False after a write failed; the game plays on without saving."""

    def load_game(self) -> tuple[dict | None, str | None]:
        """The saved game (None if there is none or it was set aside) and a one-line
        notice for the player (a save set aside, another kaldoku running), or None."""
        notices = [self.claim()]
        game, notice = self.load(GAME_FILE, GAME_FORMAT, "game")
        notices.append(notice)
        self.remove_stale_temps()
        return game, " ".join(n for n in notices if n) or None

    def save_game(self, game: dict) -> str | None:
        """Save the game in progress. Returns a one-line notice the first time saving
        fails (saving is then off, the game plays on), else None."""
        return self.save(GAME_FILE, GAME_FORMAT, "game", game)

    def clear_game(self) -> None:
        """Forget the game in progress (it was won or given up)."""
        try:
            os.remove(self.directory / GAME_FILE)
        except OSError:
            pass  # Nothing to forget, or a read-only directory: the next save says so.

    def set_aside_game(self, why: str) -> str:
        """Set aside a save whose content the game could not use; returns the notice."""
        return self.set_aside(GAME_FILE, why)

    def load_stats(self) -> tuple[dict | None, str | None]:
        """The saved statistics (or None) and a one-line notice if the file was set aside."""
        return self.load(STATS_FILE, STATS_FORMAT, "stats")

    def save_stats(self, stats: dict) -> str | None:
        """Save the statistics; the notice as for save_game."""
        return self.save(STATS_FILE, STATS_FORMAT, "stats", stats)

    def load_settings(self) -> tuple[dict | None, str | None]:
        """The saved settings (or None) and a one-line notice if the file was set aside."""
        return self.load(SETTINGS_FILE, SETTINGS_FORMAT, "settings")

    def save_settings(self, settings: dict) -> str | None:
        """Save the settings; the notice as for save_game."""
        return self.save(SETTINGS_FILE, SETTINGS_FORMAT, "settings", settings)

    def load_bank(self) -> tuple[dict | None, str | None]:
        """The saved ready puzzles (or None) and a one-line notice if the file was set aside."""
        return self.load(BANK_FILE, BANK_FORMAT, "bank")

    def save_bank(self, bank: dict) -> None:
        """Save the ready puzzles; a failure is let pass (they are only a head start) and
        leaves the game's own saving and its notice alone."""
        try:
            self.write(BANK_FILE, BANK_FORMAT, "bank", bank)
        except OSError:
            pass

    def claim(self) -> str | None:
        """Lock the directory for this process; a notice if another kaldoku holds it."""
        if fcntl is None:
            return None
        key = self.lock_key()
        if key in HELD_LOCKS:
            return None
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.directory / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o600)
        except OSError:
            return None  # save() reports an unusable directory, once.
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = os.pread(fd, 200, 0).decode("utf-8", "replace").strip() or "unknown"
            os.close(fd)
            return (f"Another kaldoku is running ({holder}); "
                    "the one that moves last keeps the save.")
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"pid {os.getpid()} on {socket.gethostname()}".encode(), 0)
        HELD_LOCKS[key] = fd
        return None

    def release(self) -> None:
        """Drop this process's lock (the kernel also drops it when the process ends)."""
        fd = HELD_LOCKS.pop(self.lock_key(), None)
        if fd is not None:
            os.close(fd)

    def lock_key(self) -> tuple[int, str]:
        # By process id too: a forked child does not hold its parent's lock.
        return os.getpid(), os.path.abspath(self.directory)

    def load(self, name: str, fmt: str, key: str) -> tuple[dict | None, str | None]:
        path = self.directory / name
        try:
            return read_envelope(path, fmt, key), None
        except (FileNotFoundError, NotADirectoryError):
            return None, None
        except BadSave as exc:
            return None, self.set_aside(name, str(exc))

    def save(self, name: str, fmt: str, key: str, content: dict) -> str | None:
        try:
            self.write(name, fmt, key, content)
        except OSError as exc:
            if not self.saving:
                return None
            self.saving = False
            why = getattr(exc, "strerror", None) or str(exc)
            return f"Saving is off: cannot write to {self.directory} ({why})."
        self.saving = True
        return None

    def write(self, name: str, fmt: str, key: str, content: dict) -> None:
        text = json.dumps({"format": fmt, "version": VERSION, key: content}, separators=(",", ":"))
        self.directory.mkdir(parents=True, exist_ok=True)
        write_atomically(self.directory / name, text)

    def set_aside(self, name: str, why: str) -> str:
        path = self.directory / name
        stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
        aside = path.with_name(f"{name}.corrupt-{stamp}")
        n = 1
        while aside.exists():
            n += 1
            aside = path.with_name(f"{name}.corrupt-{stamp}-{n}")
        try:
            os.replace(path, aside)
        except OSError as exc:
            return f"The saved {name} is unusable ({why}) and could not be moved aside: {exc.strerror}."
        return f"The saved {name} was unusable ({why}); kept as {aside.name}, starting afresh."

    def remove_stale_temps(self) -> None:
        """Remove temporary files left by a process killed in the middle of a write."""
        cutoff = time.time() - STALE_TEMP_SECONDS
        try:
            for temp in self.directory.glob(".*.tmp"):
                if temp.stat().st_mtime < cutoff:
                    temp.unlink()
        except OSError:
            pass


def read_envelope(path: Path, fmt: str, key: str) -> dict:
    """The content of a save file, or BadSave saying what is wrong with it."""
    try:
        raw = path.read_bytes()
    except (FileNotFoundError, NotADirectoryError):
        raise
    except OSError as exc:
        raise BadSave(f"unreadable: {exc.strerror}") from None
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise BadSave("corrupt or truncated" if raw.strip() else "empty") from None
    if not isinstance(data, dict) or data.get("format") != fmt:
        raise BadSave(f"not a {fmt} file")
    version = data.get("version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise BadSave("no format version")
    if version > VERSION:
        raise BadSave(f"saved by a newer kaldoku, format version {version}")
    content = data.get(key)
    if not isinstance(content, dict):
        raise BadSave(f"no {key} in it")
    return content


def write_atomically(path: Path, text: str) -> None:
    """Replace `path` with `text` so that readers see the old file or the new one, whole."""
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temp, path)
    except BaseException:
        try:
            os.unlink(temp)
        except OSError:
            pass
        raise
    sync_directory(path.parent)


def sync_directory(directory: Path) -> None:
    """Make a rename in `directory` durable (a no-op where directories cannot be opened)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
