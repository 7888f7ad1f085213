"""The data directory and the database file in it: where they are, whether kaldoku may
write there, and setting a damaged file aside (renamed, never deleted)."""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

from kaldoku_tui.session.store.base import UnsafeDirectory

DB_FILE = "kaldoku.db"


def data_dir(override: str | os.PathLike | None = None) -> Path:
    """The directory of kaldoku's data: `override` (--data-dir), else KALDOKU_HOME, else
    the platform's user data directory."""
    chosen = override or os.environ.get("KALDOKU_HOME")
    if chosen:
        return Path(chosen).expanduser()
    from platformdirs import user_data_dir

    return Path(user_data_dir("kaldoku", appauthor=False))


def check_directory(directory: Path) -> None:
    """Refuse a data directory another user could write in, sticky or not (UnsafeDirectory):
    they could put a database or a link there for kaldoku to read."""
    try:
        info = directory.stat()
    except OSError:
        return  # Not there (or not reachable): making it says why, and play goes on.
    if not stat.S_ISDIR(info.st_mode):
        raise UnsafeDirectory(f"{directory} is not a directory")
    if hasattr(os, "getuid") and info.st_uid != os.getuid():
        raise UnsafeDirectory(f"{directory} belongs to another user; choose --data-dir")
    if info.st_mode & (stat.S_IWOTH | stat.S_IWGRP):
        who = "anyone" if info.st_mode & stat.S_IWOTH else "its group"
        raise UnsafeDirectory(f"{directory} can be written by {who}; make it private "
                              f"(chmod 700) or choose --data-dir")


def check_file(path: Path) -> None:
    """Refuse a database that is a symbolic link (UnsafeDirectory)."""
    if path.is_symlink():
        raise UnsafeDirectory(f"{path} is a symbolic link; kaldoku does not follow links "
                              "it did not make (remove it or choose --data-dir)")


def set_aside(path: Path, reason: str) -> str:
    """Rename the database `path` (and its WAL files) out of the way; the notice."""
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    aside = path.with_name(f"{path.name}.unusable-{stamp}")
    n = 1
    while aside.exists():
        n += 1
        aside = path.with_name(f"{path.name}.unusable-{stamp}-{n}")
    try:
        for suffix in ("", "-wal", "-shm"):
            source = Path(f"{path}{suffix}")
            if source.exists() and not source.is_symlink():
                os.replace(source, f"{aside}{suffix}")
    except OSError as error:
        return f"The saved games ({reason}) could not be moved aside: {error.strerror}."
    return f"The saved games were unusable ({reason}); kept as {aside.name}, starting afresh."
