"""A private PostgreSQL server for the tests and benchmarks: Debian's PostgreSQL 15 binaries,
a cluster in a temporary directory, reached through a Unix socket in that directory (or, for
the benchmark of loopback, 127.0.0.1 on a free port), fsync on, gone when stopped.

PostgreSQL refuses to run as root: as root the cluster belongs to the `postgres` user and
its commands run through `runuser`. Each test gets its own database, made from a template
in a few milliseconds (`fresh_url`).
"""

from __future__ import annotations

import atexit
import itertools
import json
import os
import pwd
import shutil
import socket
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import pytest

BIN = Path(os.environ.get("KALDOKU_PG_BIN", "/usr/lib/postgresql/15/bin"))
"""Where Debian's PostgreSQL 15 keeps its server programs."""
USER = "kaldoku"
"""The cluster's superuser, trusted on the socket (no password)."""
PORT = 5432
"""The socket's number when there is no TCP: the socket is private, so no clash."""
WATCHDOG = """
import json, shutil, subprocess, sys
sys.stdin.buffer.read()
subprocess.run(json.loads(sys.argv[1]), capture_output=True)
shutil.rmtree(sys.argv[2], ignore_errors=True)
"""
"""The watchdog's program: wait for the end of its stdin, then stop the server."""


def missing() -> str | None:
    """Why no server can be started here, or None."""
    for program in ("initdb", "pg_ctl", "postgres"):
        if not (BIN / program).exists():
            return (f"PostgreSQL 15 is not installed ({BIN / program} is missing; "
                    "apt-get install postgresql)")
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            return "running as root and there is no `postgres` user to run PostgreSQL as"
    return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class PgServer:
    """A running private server; `url(name)` reaches database `name` on it."""

    directory: Path
    port: int = PORT
    tcp: bool = False
    names: itertools.count = field(default_factory=itertools.count)
    watchdog: subprocess.Popen | None = None

    @property
    def data(self) -> Path:
        return self.directory / "data"

    @property
    def sockets(self) -> Path:
        return self.directory / "run"

    def url(self, name: str = "postgres") -> str:
        if self.tcp:
            return f"postgresql://{USER}@127.0.0.1:{self.port}/{name}"
        return f"postgresql://{USER}@/{name}?host={self.sockets}&port={self.port}"

    def run(self, *command: str) -> None:
        """Run a PostgreSQL program as the user that owns the cluster."""
        as_owner = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        done = subprocess.run([*as_owner, *command], capture_output=True, text=True, timeout=60)
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(command)} failed:\n{done.stdout}{done.stderr}")

    def start(self) -> None:
        self.sockets.mkdir(mode=0o700)
        if os.geteuid() == 0:
            postgres = pwd.getpwnam("postgres")
            for path in (self.directory, self.sockets):
                os.chown(path, postgres.pw_uid, postgres.pw_gid)
        # --no-sync: the cluster is thrown away; the server itself runs with fsync on.
        self.run(str(BIN / "initdb"), "-D", str(self.data), "-A", "trust", "-U", USER,
                 "--no-sync", "-E", "UTF8", "--locale=C")
        self.up()
        self.run(str(BIN / "createdb"), "-h", str(self.sockets), "-p", str(self.port), "-U", USER,
                 USER)
        self.watch()
        atexit.register(self.stop)

    def watch(self) -> None:
        """A watchdog that stops the server and removes its directory once this process
        is gone, however it ends (kill -9 and timeouts included): it waits on a pipe only
        this process writes to, which closes with it."""
        as_owner = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        stop = [*as_owner, str(BIN / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop"]
        self.watchdog = subprocess.Popen(
            [sys.executable, "-c", WATCHDOG, json.dumps(stop), str(self.directory)],
            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True)

    def up(self) -> None:
        """Start the server on its cluster and wait until it takes connections."""
        listen = "127.0.0.1" if self.tcp else "''"
        options = (f"-k {self.sockets} -p {self.port} -c listen_addresses={listen} "
                   "-c fsync=on -c synchronous_commit=on -c max_connections=120 "
                   "-c shared_buffers=32MB")
        self.run(str(BIN / "pg_ctl"), "-D", str(self.data), "-l", str(self.directory / "log"),
                 "-o", options, "-w", "-t", "30", "start")

    def down(self) -> None:
        """Stop the server as an administrator would (its cluster stays, to start again)."""
        self.run(str(BIN / "pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "stop")

    def stop(self) -> None:
        """Stop the server (once) and remove its directory."""
        if self.data.exists() and (self.data / "postmaster.pid").exists():
            try:
                self.run(str(BIN / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop")
            except RuntimeError:
                pass  # already gone: the directory still goes
        shutil.rmtree(self.directory, ignore_errors=True)
        if self.watchdog is not None:
            self.watchdog.stdin.close()
            self.watchdog.wait(30)
            self.watchdog = None

    def log(self) -> str:
        path = self.directory / "log"
        return path.read_text(errors="replace") if path.exists() else ""

    def fresh_url(self) -> str:
        """A new empty schema of its own in database `kaldoku`, for one test: the URL that
        works in it (a schema costs a millisecond where a new database costs 100-1,300)."""
        import psycopg

        name = f"t{os.getpid()}_{next(self.names)}"
        with psycopg.connect(self.url(USER), autocommit=True) as conn:
            conn.execute(f'CREATE SCHEMA "{name}"')
        joiner = "&" if "?" in self.url(USER) else "?"
        return f"{self.url(USER)}{joiner}options=-csearch_path%3D{name}"


def start_server(tcp: bool = False) -> PgServer:
    """A private server, started (in a few seconds); stop it with `.stop()`."""
    reason = missing()
    if reason:
        raise RuntimeError(reason)
    server = PgServer(Path(tempfile.mkdtemp(prefix="kaldoku-pg-")),
                      port=free_port() if tcp else PORT, tcp=tcp)
    try:
        server.start()
    except BaseException:
        print(server.log())
        server.stop()
        raise
    return server


@pytest.fixture(scope="session")
def pg_server():
    """The tests' private PostgreSQL server, started once for the session."""
    reason = missing()
    if reason:
        pytest.skip(reason)
    server = start_server()
    yield server
    server.stop()


@pytest.fixture
def pg_url(pg_server: PgServer) -> str:
    """The URL of a new empty database of this test's own."""
    return pg_server.fresh_url()


@pytest.fixture
def postgresql_location(pg_url: str) -> str:
    """Where the contract suite's PostgreSQL store is (see STORES in conftest.py)."""
    return pg_url
