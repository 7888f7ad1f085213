"""`kaldoku serve` against the real OpenSSH client on loopback: play, refusals, guests, two
keys, kill -9 and resume, and hostile clients while others keep playing.

Each test connects from its own loopback address (ssh -b 127.0.0.N), as different people
would, so the per-address caps and rates of one test do not touch another.
"""

from __future__ import annotations

import asyncio
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import asyncssh
import pytest
from sshbox import Terminal, free_port, wait_for

if not shutil.which("ssh") or not shutil.which("tmux"):
    pytest.fail("the OpenSSH client and tmux are needed (.ci/run installs them)")


class Server:
    """`kaldoku serve` on 127.0.0.1:port with data directory `data`, started as a process."""

    def __init__(self, data: Path, port: int | None = None, *options: str) -> None:
        self.data, self.port, self.options = data, port or free_port(), options
        self.out, self.err = data.parent / f"{data.name}.out", data.parent / f"{data.name}.log"
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        with open(self.out, "w") as out, open(self.err, "a") as err:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "kaldoku_tui", "serve", "--port", str(self.port),
                 "--data-dir", str(self.data), "--size", "4", *self.options], stdout=out, stderr=err)
        started = wait_for(lambda: "listening on" in self.out.read_text() or self.process.poll() is not None)
        assert started and self.process.poll() is None, self.err.read_text()

    def log(self) -> list[str]:
        return self.err.read_text().splitlines()

    def game_pids(self) -> list[int]:
        """The game processes the server runs now."""
        found = subprocess.run(["pgrep", "-P", str(self.process.pid)], capture_output=True, text=True,
                               check=False)
        return [int(pid) for pid in found.stdout.split()]

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(10)
        print(f"{self.data.name}'s log:\n{self.err.read_text()[-4000:]}")  # shown if the test failed


@pytest.fixture(scope="module")
def keys(tmp_path_factory) -> dict[str, Path]:
    """Two players' keys, "a" and "b", and the SHA256 fingerprints of each as "a.fp", "b.fp"."""
    directory = tmp_path_factory.mktemp("keys")
    found: dict = {}
    for name in ("a", "b"):
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(directory / name)],
                       check=True)
        found[name] = directory / name
        listed = subprocess.run(["ssh-keygen", "-lf", str(directory / f"{name}.pub")],
                                capture_output=True, text=True, check=True).stdout
        found[f"{name}.fp"] = listed.split()[1]
    return found


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    directory = tmp_path_factory.mktemp("serve")
    server = Server(directory / "data", None, "--idle-timeout", "60", "--no-lobby")
    server.start()
    yield server
    server.stop()


@pytest.fixture
def terminals():
    opened = []

    def open_terminal(argv, width=80, height=24):
        terminal = Terminal(argv, width, height)
        opened.append(terminal)
        return terminal

    yield open_terminal
    for terminal in opened:
        terminal.close()


def ssh(server: Server, key: Path | None, source: str, *options: str, tty: bool = True,
        command: str | None = None) -> list[str]:
    """The OpenSSH command line of a player with `key` (a guest when None) from `source`."""
    auth = (["-i", str(key), "-o", "BatchMode=yes", "-o", "IdentitiesOnly=yes"] if key else
            ["-o", "PubkeyAuthentication=no", "-o", "PreferredAuthentications=keyboard-interactive"])
    return ["ssh", "-tt" if tty else "-T", "-F", "/dev/null", "-p", str(server.port), "-b", source,
            *options, "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
            "-o", "LogLevel=ERROR", *auth, "player@127.0.0.1", *([command] if command else [])]


def saved_puzzle_and_board(server: Server, fingerprint: str):
    """The puzzle and digits of the game in progress of the key with `fingerprint`, or None."""
    from kaldoku_tui.session import Session
    from kaldoku_tui.session.store import open_store

    with open_store(server.data, f"key:{fingerprint}") as store:
        games = store.open_games()
        saved = store.game(games[0].id) if games else None
    if saved is None:
        return None
    session = Session.resume(saved.puzzle, saved.moves, saved.kind, elapsed=saved.elapsed, now=lambda: 0.0)
    return session.puzzle, [list(row) for row in session.board.view().grid]


def log_line(server: Server, *words: str) -> str | None:
    """The server's log line holding all `words`, once written."""
    return wait_for(lambda: next((line for line in server.log() if all(w in line for w in words)), None))


def test_host_key_is_private_and_its_fingerprint_printed(server):
    key = server.data / "ssh_host_ed25519_key"
    assert key.stat().st_mode & 0o777 == 0o600
    listed = subprocess.run(["ssh-keygen", "-lf", str(key)], capture_output=True, text=True, check=True)
    assert f"host key {listed.stdout.split()[1]}" in server.out.read_text()


def test_every_request_but_a_terminal_session_is_refused(server, keys):
    def run(*options, command=None, env=None):
        done = subprocess.run(ssh(server, keys["b"], "127.0.0.3", *options, tty=False, command=command),
                              capture_output=True, check=False,
                              text=True, timeout=20, stdin=subprocess.DEVNULL, env={**os.environ, **(env or {})})
        return done.returncode, done.stderr

    status, said = run(command="ls")
    assert status == 1 and "runs no commands" in said
    status, said = run("-s", command="sftp")
    assert status != 0 and "subsystem request failed" in said
    status, said = run()
    assert status == 1 and "needs a terminal" in said
    status, said = run("-N", "-R", "0:127.0.0.1:22", "-o", "ExitOnForwardFailure=yes")
    assert status == 255 and "forwarding failed" in said
    port = free_port()
    forward = subprocess.Popen(ssh(server, keys["b"], "127.0.0.3", "-N", "-L", f"{port}:127.0.0.1:22",
                                   "-o", "LogLevel=INFO", tty=False), stderr=subprocess.PIPE, text=True)
    try:
        assert wait_for(lambda: _connects(port)), "the client listens on the forwarded port"
        with socket.create_connection(("127.0.0.1", port)) as s:
            s.settimeout(10)
            assert s.recv(100) == b"", "the server opened no channel to port 22"
    finally:
        forward.terminate()
        try:
            said = forward.communicate(timeout=10)[1]
        except subprocess.TimeoutExpired:  # a busy machine: the client may linger over its goodbye
            forward.kill()
            said = forward.communicate()[1]
        assert "administratively prohibited: kaldoku forwards no connections" in said
    status, said = run("-o", "LogLevel=INFO", "-o", "ForwardX11=yes", "-o", "ForwardAgent=yes",
                       "-o", "SetEnv=KALDOKU_HOME=/tmp",
                       command="ls", env={"DISPLAY": "127.0.0.1:0"})
    assert status == 1 and "X11 forwarding request failed" in said


def _connects(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return True
    except OSError:
        return False


def test_the_game_sees_only_term_and_lang_and_its_limits(server, keys, terminals):
    terminal = terminals(ssh(server, keys["b"], "127.0.0.4", "-o", "SetEnv=LANG=C.UTF-8 KALDOKU_HOME=/tmp "
                             "LD_PRELOAD=/x.so"))
    terminal.wait_for_text("4×4")
    pid = wait_for(server.game_pids)[0]
    environ = dict(item.split("=", 1) for item in
                   Path(f"/proc/{pid}/environ").read_bytes().decode().split("\0") if item)
    assert environ["TERM"] == "tmux-256color" or environ["TERM"].startswith(("screen", "tmux"))
    assert environ["LANG"] == "C.UTF-8"
    assert "KALDOKU_HOME" not in environ and "LD_PRELOAD" not in environ
    limits = Path(f"/proc/{pid}/limits").read_text()
    assert re.search(r"Max address space\s+1073741824", limits)
    assert re.search(r"Max open files\s+64", limits)
    terminal.press("q")


def test_a_guest_plays_and_its_game_is_gone_after_it_leaves(server, terminals):
    terminal = terminals(ssh(server, None, "127.0.0.5"))
    terminal.wait_for_text("4×4")
    guests = server.data / "guests"
    assert wait_for(lambda: list(guests.glob("*/kaldoku.db")))
    terminal.press("1")
    os.kill(terminal.pane_pid(), signal.SIGKILL)  # a dropped connection
    assert log_line(server, "127.0.0.5", "guest:", "client left")
    assert wait_for(lambda: not list(guests.iterdir())), "the guest's store was deleted"


def test_two_keys_never_see_each_others_games(server, keys, terminals):
    a = terminals(ssh(server, keys["a"], "127.0.0.6"))
    a.wait_for_text("4×4")
    a.press("right", "3")
    assert wait_for(lambda: (saved := saved_puzzle_and_board(server, keys["a.fp"])) and saved[1][0][1] == 3)
    b = terminals(ssh(server, keys["b"], "127.0.0.6"))
    b.wait_for_text("4×4")
    board_b = wait_for(lambda: saved_puzzle_and_board(server, keys["b.fp"]))
    assert board_b[1][0][1] == 0 and saved_puzzle_and_board(server, keys["a.fp"])[1][0][1] == 3
    a.press("q")
    b.press("q")


ROW_1_2_3 = re.compile(r"1 ┃   1   [│┃]   2   [│┃]   3   ")


def name_later(terminal: Terminal) -> None:
    """Put off choosing a display name: Esc on the lobby's question, until it has gone
    (a key typed while the question is still opening goes elsewhere)."""
    terminal.wait_for_text("Your name on the leaderboards")
    gone = wait_for(lambda: terminal.press("Escape") or "Your name on the" not in terminal.screen(),
                    interval=1.0)
    assert gone, terminal.screen()


def test_kill_9_of_the_server_then_every_echoed_move_resumes(tmp_path, keys, terminals):
    """Through the lobby: a new game, moves, kill -9 of the server, the game resumed."""
    server = Server(tmp_path / "data")
    server.start()
    try:
        terminal = terminals(ssh(server, keys["a"], "127.0.0.7"))
        name_later(terminal)
        terminal.press("Enter")  # a new 4×4
        terminal.wait_for_text("kaldoku — 4×4")
        terminal.press("1", "l", "2", "l", "3")
        echoed = wait_for(lambda: ROW_1_2_3.search(screen := terminal.screen()) and screen)
        assert echoed, terminal.screen()
        lobby = wait_for(server.game_pids)[0]
        game = int(subprocess.run(["pgrep", "-P", str(lobby)], capture_output=True, text=True,
                                  check=True).stdout.split()[0])
        os.kill(server.process.pid, signal.SIGKILL)
        server.process.wait()
        for pid in (lobby, game):
            assert wait_for(lambda pid=pid: not Path(f"/proc/{pid}").exists() or
                            Path(f"/proc/{pid}/stat").read_text().split()[2] == "Z"), "the session ended too"
        assert wait_for(terminal.dead)
        server.start()
        again = terminals(ssh(server, keys["a"], "127.0.0.7"))
        name_later(again)
        again.wait_for_text("Resume 4×4")
        again.press("Enter")
        resumed = wait_for(lambda: ROW_1_2_3.search(screen := again.screen()) and screen)
        assert resumed, again.screen()
        assert echoed.splitlines()[2] == resumed.splitlines()[2], "the same puzzle"
        again.press("q")
        again.wait_for_text("Resume 4×4")  # back in the lobby
        again.press("q")
        assert log_line(server, "127.0.0.7", "quit")
    finally:
        server.stop()


def _rss_kb(pid: int) -> int:
    return int(re.search(r"VmRSS:\s+(\d+)", Path(f"/proc/{pid}/status").read_text()).group(1))


def test_hostile_clients_while_another_player_plays(server, keys, terminals):
    player = terminals(ssh(server, keys["b"], "127.0.0.8"))
    player.wait_for_text("4×4")
    rss_before = _rss_kb(server.process.pid)

    # Garbage before the SSH banner, with and without line ends: the connection is dropped.
    for garbage in (os.urandom(20000), b"GET / HTTP/1.0\r\n" * 1000):
        with socket.create_connection(("127.0.0.1", server.port), source_address=("127.0.0.9", 0)) as s:
            s.settimeout(10)
            try:
                s.sendall(garbage)
                while s.recv(65536):
                    pass
            except (ConnectionResetError, BrokenPipeError):
                pass

    # Endless input without reading any output: what the server holds for it is bounded
    # (its output waits in the game's pty; its input past 64 KiB unread is dropped).
    reader_never = subprocess.Popen(ssh(server, keys["a"], "127.0.0.10"), stdin=subprocess.PIPE,
                                    stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    _flood_input(reader_never.stdin, seconds=3)

    # Huge, zero and "negative" window sizes, and thousands of resizes.
    asyncio.run(_resize_storm(server.port, keys["a"]))

    # A flood of connections from one address: past its cap the rest are turned away.
    flood = []
    for _ in range(60):
        s = socket.socket()
        s.bind(("127.0.0.11", 0))
        s.settimeout(5)
        s.connect(("127.0.0.1", server.port))
        flood.append(s)
    refused = wait_for(lambda: sum(1 for line in server.log() if "127.0.0.11" in line and "refused" in line)
                       >= 50)
    assert refused, "connections past the per-address cap are refused"

    player.press("2")
    assert wait_for(lambda: "   2   " in player.screen()), "the other player is still served"
    assert _rss_kb(server.process.pid) - rss_before < 30_000, "the server's memory stayed bounded"
    for s in flood:
        s.close()
    reader_never.kill()
    player.press("q")
    assert log_line(server, "127.0.0.9", "left before signing in")
    assert log_line(server, "127.0.0.10", "bytes of input dropped (the game was not reading)")


def _flood_input(pipe, seconds: float) -> None:
    """Write digits to `pipe` for `seconds`, or until it blocks for good."""
    end = time.monotonic() + seconds

    def write() -> None:
        try:
            while time.monotonic() < end:
                pipe.write(b"1234" * 1024)
                pipe.flush()
        except (BrokenPipeError, ValueError):
            pass

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    writer.join(seconds + 1)  # a writer still blocked then is held by flow control


async def _resize_storm(port: int, key: Path) -> None:
    """Open a session with an absurd window, then change it 3,000 times; it must survive."""
    async with asyncssh.connect("127.0.0.1", port, username="storm", client_keys=[str(key)],
                                known_hosts=None, local_addr=("127.0.0.12", 0)) as conn:
        process = await conn.create_process(term_type="xterm", term_size=(2**32 - 1, 2**32 - 1),
                                            encoding=None)
        await asyncio.wait_for(process.stdout.read(1), 20)  # the game started
        for i in range(3000):
            process.change_terminal_size(*((0, 0), (2**31, 1), (1, 2**32 - 1), (80, 24))[i % 4])
        process.change_terminal_size(80, 24)
        seen = b""
        while b"4\xc3\x974" not in seen:  # 4×4: the game redraws at 80×24 and still runs
            seen = seen[-100:] + await asyncio.wait_for(process.stdout.read(65536), 20)
        process.stdin.write(b"q")
        await asyncio.wait_for(process.wait(), 20)


def test_idle_sessions_end_a_key_has_its_cap_and_guests_can_be_refused(tmp_path, keys, terminals):
    server = Server(tmp_path / "data", None, "--idle-timeout", "3", "--per-key", "1", "--no-guests",
                    "--no-lobby")
    server.start()
    try:
        guest = subprocess.run(ssh(server, None, "127.0.0.13", tty=False), capture_output=True, text=True,
                               timeout=20, stdin=subprocess.DEVNULL, check=False)
        assert guest.returncode == 255 and "Permission denied (publickey)" in guest.stderr
        # The sleep keeps the pane, and the goodbye on it, after the connection closes.
        first = terminals(["sh", "-c", shlex.join(ssh(server, keys["a"], "127.0.0.13")) + "; sleep 30"])
        first.wait_for_text("4×4")
        second = subprocess.run(ssh(server, keys["a"], "127.0.0.13", tty=False), capture_output=True,
                                text=True, timeout=20, stdin=subprocess.DEVNULL, check=False)
        assert second.returncode == 255 and "you have 1 sessions open already" in second.stderr
        first.wait_for_text("nothing typed for 3 s; your game is saved")
        assert log_line(server, "127.0.0.13", "idle timeout")
    finally:
        server.stop()


def test_an_offered_key_whose_signature_fails_is_not_the_player(server, keys):
    """A client names player a's key with a bad signature, then signs in another way:
    it is a guest, never player a (the CVE-2024-45337 class of mistake)."""

    async def impostor() -> None:
        victim = asyncssh.load_keypairs([str(keys["a"])])[0]
        victim.sign = lambda data: b"\0\0\0\x0bssh-ed25519\0\0\0\x40" + bytes(64)
        async with asyncssh.connect("127.0.0.1", server.port, username="a", client_keys=[victim],
                                    known_hosts=None, password="unused", local_addr=("127.0.0.14", 0),
                                    preferred_auth="publickey,keyboard-interactive") as conn:
            process = await conn.create_process(term_type="xterm", term_size=(80, 24), encoding=None)
            await asyncio.wait_for(process.stdout.read(1), 20)
            process.stdin.write(b"q")
            await asyncio.wait_for(process.wait(), 20)

    asyncio.run(impostor())
    line = log_line(server, "127.0.0.14")
    assert "guest:" in line and keys["a.fp"] not in line


def test_the_lobby_a_4x4_won_the_leaderboard_and_names_kept_unique(tmp_path, keys, terminals):
    server = Server(tmp_path / "data")
    server.start()
    try:
        a = terminals(ssh(server, keys["a"], "127.0.0.15"))
        a.wait_for_text("Your name on the leaderboards")
        a.press("A", "n", "n", "Enter")
        a.wait_for_text("You: Ann")
        a.press("Enter")  # the first choice: a new 4×4
        a.wait_for_text("kaldoku — 4×4")
        puzzle, _ = wait_for(lambda: saved_puzzle_and_board(server, keys["a.fp"]))
        for row in puzzle.solution:
            for c, digit in enumerate(row):
                a.press(str(digit), *(["l"] if c < 3 else []))
            a.press("j", "h", "h", "h")
        a.wait_for_text("Solved!")
        a.press("q")
        screen = a.wait_for_text("Fastest 4×4")
        assert re.search(r"Fastest 4×4[^\n]*\n[^\n]*1\. Ann ", screen), screen
        assert not any("BEGIN" in line or "ssh-ed25519 AAAA" in line for line in server.log())

        b = terminals(ssh(server, keys["b"], "127.0.0.15"))
        b.wait_for_text("Your name on the leaderboards")
        b.press("a", "N", "n", "Enter")
        b.wait_for_text("aNn is another player's name")
        b.press("2", "Enter")
        b.wait_for_text("You: aNn2")
        b.press("q")
        a.press("q")
        assert log_line(server, "127.0.0.15", f"key:{keys['a.fp']}", "quit")
    finally:
        server.stop()


def test_the_gate_caps_connections_and_rates_each_address():
    from kaldoku_tui.serve.gate import Gate, Limits

    gate = Gate(Limits(max_sessions=5, per_address=3, per_key=1, rate_burst=4, rate_per_second=1.0))
    assert [gate.admit("10.0.0.1", 0.0) for _ in range(3)] == [None] * 3
    assert gate.admit("10.0.0.1", 0.0) == "too many connections from your address"
    assert "try again in a few seconds" in gate.admit("10.0.0.1", 0.0)  # the burst is spent
    gate.leave("10.0.0.1", None)
    assert gate.admit("10.0.0.1", 0.5) is not None and gate.admit("10.0.0.1", 1.6) is None
    assert gate.admit("10.0.0.2", 2.0) is None and gate.admit("10.0.0.3", 2.0) is None
    assert gate.admit("10.0.0.4", 2.0) == "the server is full: try again later"
    assert gate.admit_key("key:SHA256:x") is None and "1 sessions open" in gate.admit_key("key:SHA256:x")
    gate.leave("10.0.0.2", "key:SHA256:x")
    assert gate.admit_key("key:SHA256:x") is None


def test_a_clients_window_and_environment_are_made_safe():
    from kaldoku_tui.serve.game import MAX_COLUMNS, MAX_ROWS, game_environment, window
    from kaldoku_tui.serve.lobby import name_problem

    assert window(0, 0) == (1, 1) and window(2**32 - 1, 2**31) == (MAX_COLUMNS, MAX_ROWS)
    assert game_environment("xterm-256color", "de_DE.UTF-8") == {
        "TERM": "xterm-256color", "LANG": "de_DE.UTF-8", "PYTHONUTF8": "1", "PATH": os.defpath,
        "HOME": "/nonexistent"}
    hostile = game_environment("xterm\x1b]0;owned\x07", "C; rm -rf /")
    assert hostile["TERM"] == "xterm-256color" and hostile["LANG"] == "C.UTF-8"
    assert name_problem("Ann") is None and name_problem("Zoë 99") is None
    assert name_problem("   ") and name_problem("x" * 21) and name_problem("a\x1b[31mb")
    assert name_problem("evil\u202eeman")


def test_two_servers_share_one_postgresql_store(tmp_path, keys, terminals, pg_url):
    """A player who drops from one server and reaches another resumes the same game."""
    one = Server(tmp_path / "one", None, "--no-lobby", "--store", pg_url)
    two = Server(tmp_path / "two", None, "--no-lobby", "--store", pg_url)
    one.start()
    two.start()
    try:
        first = terminals(ssh(one, keys["a"], "127.0.0.16"))
        first.wait_for_text("kaldoku — 4×4")
        first.press("1", "l", "2", "l", "3")
        echoed = wait_for(lambda: ROW_1_2_3.search(screen := first.screen()) and screen)
        assert echoed, first.screen()
        os.kill(first.pane_pid(), signal.SIGKILL)  # the connection drops
        assert log_line(one, "127.0.0.16", "client left")
        second = terminals(ssh(two, keys["a"], "127.0.0.16"))
        resumed = wait_for(lambda: ROW_1_2_3.search(screen := second.screen()) and screen)
        assert resumed, second.screen()
        assert echoed.splitlines()[2] == resumed.splitlines()[2], "the same puzzle"
        assert pg_url not in " ".join(Path(f"/proc/{pid}/cmdline").read_text() for pid in two.game_pids())
        second.press("q")
    finally:
        one.stop()
        two.stop()


RACE_NAME = re.compile(r"Race ([a-z0-9]{4}) \(4×4")


def test_two_keys_race_a_4x4_across_two_servers_of_one_postgresql_store(tmp_path, keys, terminals, pg_url):
    """Ann opens a race on one server, Bob joins it by name on the other; each sees the
    other's cells filled; Bob drops, comes back to the first server and rejoins his game;
    the lobby shows the results table."""
    from kaldoku_tui.engine.codes import read_code
    from kaldoku_tui.session.store import open_store

    one = Server(tmp_path / "one", None, "--store", pg_url)
    two = Server(tmp_path / "two", None, "--store", pg_url)
    one.start()
    two.start()
    try:
        ann = terminals(ssh(one, keys["a"], "127.0.0.17"), width=100, height=30)
        ann.wait_for_text("Your name on the leaderboards")
        ann.press("A", "n", "n", "Enter")
        ann.wait_for_text("You: Ann")
        ann.press("Down", "Down", "Enter")  # New 4×4, Daily, Race
        ann.wait_for_text("Open a race: 4×4")
        ann.press("Enter")
        opened = RACE_NAME.search(screen := ann.wait_for_text("s starts it"))
        assert opened, screen
        name = opened.group(1)

        bob = terminals(ssh(two, keys["b"], "127.0.0.17"), width=100, height=30)
        bob.wait_for_text("Your name on the leaderboards")
        bob.press("B", "o", "b", "Enter")
        bob.wait_for_text("You: Bob")
        bob.press("Down", "Down", "Enter")
        bob.wait_for_text("Open a race: 4×4")
        bob.press("Tab", *name, "Enter")
        bob.wait_for_text("Ann starts it")
        ann.wait_for_text("  Bob")
        ann.press("s")
        ann.wait_for_text("kaldoku — 4×4")
        bob.wait_for_text(f"Race {name}: Ann 0/16")

        with open_store(pg_url, f"key:{keys['a.fp']}") as store:
            solution = read_code(store.race(name).code).solution
        bob.press("1")
        ann.wait_for_text(f"Race {name}: Bob 1/16")
        os.kill(bob.pane_pid(), signal.SIGKILL)  # Bob's connection drops
        for row in solution:
            for c, digit in enumerate(row):
                ann.press(str(digit), *(["l"] if c < 3 else []))
            ann.press("j", "h", "h", "h")
        ann.wait_for_text("Solved!")

        def ann_done() -> bool:
            with open_store(pg_url, f"key:{keys['b.fp']}") as store:
                return any(r.name == "Ann" and r.finished for r in store.race(name).racers)

        ann.press("q")
        assert wait_for(ann_done, timeout=10), "Ann's win written as her game ends"
        ann.wait_for_text(f"Race {name} (under way):")

        back = terminals(ssh(one, keys["b"], "127.0.0.17"), width=100, height=30)
        back.wait_for_text(f"Rejoin race {name}")
        back.press("Enter")
        screen = back.wait_for_text("Ann done")
        assert re.search(r"\n +1 ┃ +1 ", screen), f"Bob's own game, with his 1:\n{screen}"
        for row in solution:
            for c, digit in enumerate(row):
                back.press(str(digit), *(["l"] if c < 3 else []))
            back.press("j", "h", "h", "h")
        back.wait_for_text("Solved!")
        back.press("q")
        table = back.wait_for_text(f"Race {name}:")
        assert re.search(r"1\. Ann .*\n.*2\. Bob .*\(you\)", table), table
        assert "Rejoin race" not in table
        back.press("q")
        ann.press("q")
    finally:
        one.stop()
        two.stop()


def test_a_guests_lobby_shows_the_servers_leaderboards_and_leaves_nothing_there(tmp_path, terminals):
    """A guest's games are in a scratch store of its own; its lobby's leaderboards are the
    server's, read and never written."""
    from conftest import EXAMPLE_ID, EXAMPLE_SOLUTION, sql

    from kaldoku_tui.engine.daily import daily_kind, utc_day
    from kaldoku_tui.engine.formats import read_keen
    from kaldoku_tui.engine.kinds import GameKind
    from kaldoku_tui.session.store import open_store

    data = tmp_path / "data"
    puzzle = read_keen(EXAMPLE_ID).with_solution(EXAMPLE_SOLUTION)
    no_help = {"checks": 0, "hints": 0, "reveals": 0}
    today = utc_day()
    with open_store(data, "key:SHA256:" + "A" * 43) as ann:
        ann.set_display_name("Ann")
        for kind, daily, seconds in ((daily_kind(today), today, 83.0), (GameKind(4), None, 61.0)):
            journal, _ = ann.new_game(puzzle, kind, daily)
            assert journal.end("won", seconds, no_help) is None
    server = Server(data)
    server.start()
    try:
        guest = terminals(ssh(server, None, "127.0.0.21"))
        screen = guest.wait_for_text("Fastest 4×4")
        assert re.search(r"Daily [^\n]*\n[^\n]*1\. Ann +1:23", screen), screen
        assert re.search(r"Fastest 4×4[^\n]*\n[^\n]*1\. Ann +1:01", screen), screen
        assert "nobody yet" not in screen and "You: a guest" in screen
        assert "Enter picks, q: leave" in flowing(screen), screen  # a guest keeps no name
        guest.press("Down", "Down", "Enter")  # the race room: races are kept under keys
        guest.wait_for_text("A guest cannot race")
        guest.press("Escape")
        guest.wait_for_text("Race: open or join")
        guest.press("Up", "Up", "Enter")  # a new 4×4, in the guest's own store
        guest.wait_for_text("kaldoku — 4×4")
        guest.press("1", "q")
        guest.wait_for_text("Fastest 4×4")
        guest.press("q")
        assert log_line(server, "127.0.0.21", "guest:", "quit")
        assert wait_for(lambda: not list((data / "guests").iterdir())), "the guest's store was deleted"
        assert sql(data, "SELECT count(*) FROM games WHERE player LIKE 'guest:%'") == [(0,)]
        assert sql(data, "SELECT count(*) FROM players WHERE id LIKE 'guest:%'") == [(0,)]
    finally:
        server.stop()


def flowing(screen: str) -> str:
    """The words of a screen in reading order, boxes and line ends as single spaces: text
    wrapped over lines reads whole."""
    return " ".join(re.sub("[│╭╮╰╯─▊▎▔▁]", " ", screen).split())


def test_the_lobbys_texts_fit_the_window(tmp_path, keys, terminals):
    """Name prompt, lobby and race room wrap their texts at 60×20, 80×24 and 120×40: none is cut."""
    server = Server(tmp_path / "data")
    server.start()
    try:
        for width, height in ((60, 20), (80, 24), (120, 40)):
            player = terminals(ssh(server, keys["a"], "127.0.0.22"), width, height)
            for phrase in ("Your name on the leaderboards (up to 20 characters; Esc: later):",
                           "Enter picks, n: your name, q: leave"):
                assert wait_for(lambda: phrase in flowing(player.screen()), 30), (phrase, player.screen())
            name_later(player)
            player.press("Down", "Down", "Enter")  # the race room
            phrase = "or type a race's name and Enter. Esc: back"
            assert wait_for(lambda: phrase in flowing(player.screen()), 30), (phrase, player.screen())
            player.press("Escape")
            player.wait_for_text("Race: open or join")
            player.press("q")
            assert wait_for(player.dead), player.screen()
    finally:
        server.stop()


def test_a_burst_of_keys_with_backspaces_is_typed_in_order(tmp_path, keys, terminals):
    """Keys sent at once (tmux send-keys, a fast typist): Backspace deletes what was typed
    before it, never the letters after it (Textual runs Input's bound keys late)."""
    server = Server(tmp_path / "data")
    server.start()
    try:
        player = terminals(ssh(server, keys["a"], "127.0.0.23"))
        player.wait_for_text("Esc: later")
        player.tmux("send-keys", "-t", "t", "A", "l", "i", "c", "x", "BSpace", "BSpace", "c", "e", "Enter")
        player.wait_for_text("You: Alice")
        player.press("Down", "Down", "Enter")  # the race room: its name field too
        player.wait_for_text("Open a race")
        player.tmux("send-keys", "-t", "t", "Tab", "n", "o", "p", "x", "BSpace", "BSpace", "p", "e", "Enter")
        player.wait_for_text("No race 'nope'")
        player.press("Escape")
        player.wait_for_text("Race: open or join")
        player.press("q")
    finally:
        server.stop()
