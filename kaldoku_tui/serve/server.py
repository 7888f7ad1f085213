"""`kaldoku serve`: the game for anyone who runs `ssh -p PORT host`, one process per session.

Who a player is: the fingerprint of the public key that authenticated, proven by its
signature (a key merely offered proves nothing), or a guest with a store of its own that
is deleted when the connection closes. What a client may do: open one session with a
terminal, type and resize. Commands, subsystems, forwarding of ports, agents and X11 are
refused; environment variables other than TERM and LANG are ignored.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import logging
import os
import shutil
import signal
import stat
import tempfile
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import asyncssh

from kaldoku_tui.serve.game import BOARDS_VARIABLE, GameProcess, Jail, game_environment
from kaldoku_tui.serve.gate import Gate, Limits

log = logging.getLogger("kaldoku.serve")
HOST_KEY = "ssh_host_ed25519_key"
LOGIN_TIMEOUT = 20
"""Seconds a connection has to authenticate, and then to open its session."""
NO_COMMANDS = "kaldoku: this server runs no commands; `ssh -t -p PORT HOST` opens the game"
NO_TERMINAL = "kaldoku: the game needs a terminal; connect with `ssh -t`"


class ServeError(Exception):
    """The server cannot start (its data directory or host key); the message says why."""


@dataclass(frozen=True)
class ServeConfig:
    """Everything `kaldoku serve` is told."""

    data_dir: Path
    """The host key, the players' games (unless `store` says elsewhere), guests' scratch."""
    host: str = "127.0.0.1"
    port: int = 2222
    store: str | None = None
    """A store URL (postgresql://...) shared by several servers; None: in `data_dir`."""
    guests: bool = True
    idle_timeout: float = 900.0
    limits: Limits = field(default_factory=Limits)
    jail: Jail = field(default_factory=Jail)
    new_game: tuple[str, ...] = ()
    """`kaldoku` options of a new game (the lobby's, or the first one without a lobby)."""
    lobby: bool = True
    """Open on the lobby; off: straight into the game in progress, or a new one."""


def host_key(directory: Path) -> asyncssh.SSHKey:
    """The server's host key, made on first start and kept 0600 in `directory`."""
    path = directory / HOST_KEY
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        mode = path.lstat().st_mode
        if not stat.S_ISREG(mode) or mode & 0o077:
            raise ServeError(f"{path} must be a plain file only its owner can read (chmod 600)") from None
        try:
            return asyncssh.read_private_key(path)
        except (OSError, asyncssh.KeyImportError) as error:
            raise ServeError(f"cannot read the host key {path}: {error}") from None
    key = asyncssh.generate_private_key("ssh-ed25519")
    with os.fdopen(fd, "wb") as file:
        file.write(key.export_private_key())
    return key


@dataclass(frozen=True)
class Player:
    """Who is playing a session: `id` as the store knows them (key:SHA256:… or guest:UUID),
    and for a guest the scratch directory of their store."""

    id: str
    scratch: Path | None = None


class Arcade:
    """The running server: its settings, the gate, the connections open now."""

    def __init__(self, config: ServeConfig) -> None:
        self.config = config
        self.gate = Gate(config.limits)
        self.connections: set[Connection] = set()
        self.guests = config.data_dir / "guests"

    def player(self, key: str | None) -> Player:
        """The player of a key's fingerprint `key`, or a new guest (None) with a store of
        their own, gone when they leave."""
        if key is not None:
            return Player(f"key:{key}")
        name = str(uuid.uuid4())
        return Player(f"guest:{name}", Path(tempfile.mkdtemp(prefix=f"{name}-", dir=self.guests)))

    def location(self, player: Player) -> str | Path:
        """Where `player`'s games are: a guest's scratch store, else the server's store."""
        return player.scratch or self.config.store or self.config.data_dir

    def game_arguments(self, player: Player) -> list[str]:
        """What the session process runs for `player` (jailed.py): the lobby, or `kaldoku`
        with their game in progress, else a new one of the server's kind. The store's URL
        goes in the environment (GameSession.start), where ps does not show it."""
        location = self.location(player)
        who = ["--player", player.id, *(() if isinstance(location, str) else ("--data-dir", str(location)))]
        if self.config.lobby:
            return ["lobby", *who, "--", *self.config.new_game]
        resume = player.scratch is None and has_game_in_progress(location, player.id)
        return ["game", *(() if resume else self.config.new_game), *who]


def has_game_in_progress(location: str | Path, player: str) -> bool:
    """Whether `player` has a game to resume in the store at `location`."""
    from kaldoku_tui.session.store import open_store

    with open_store(location, player) as store:
        return bool(store.open_games())


def fingerprint(key_blob: bytes) -> str:
    """OpenSSH's SHA256 fingerprint of a public key in SSH wire format."""
    return "SHA256:" + base64.b64encode(hashlib.sha256(key_blob).digest()).decode().rstrip("=")


class Connection(asyncssh.SSHServer):
    """One client's SSH connection: admitted or refused, authenticated, one game session."""

    def __init__(self, arcade: Arcade) -> None:
        self.arcade = arcade
        self.loop = asyncio.get_running_loop()
        self.began = time.monotonic()
        self.address = "?"
        self.admitted = False
        self.verified_key: str | None = None
        """The fingerprint of the key whose signature over this session was verified."""
        self.wants_guest = False
        self.player: Player | None = None
        self.counted_key: str | None = None
        self.session: GameSession | None = None
        self.ending = "left before signing in"

    def connection_made(self, conn: asyncssh.SSHServerConnection) -> None:
        self.conn = conn
        self.address = (conn.get_extra_info("peername") or ("?",))[0]
        refusal = self.arcade.gate.admit(self.address, self.loop.time())
        if refusal:
            self.ending = f"refused: {refusal}"
            self.loop.call_soon(conn.disconnect, asyncssh.DISC_TOO_MANY_CONNECTIONS, refusal)
            return
        self.admitted = True
        self.arcade.connections.add(self)
        # The key asyncssh hands to validate_public_key may be one merely offered (no
        # signature yet) or one whose signature then fails: the identity is taken only here,
        # where the signature over this session has been verified (CVE-2024-45337 class).
        check = conn.validate_public_key

        async def verified(username: str, key_data: bytes, msg: bytes, signature: bytes) -> bool:
            valid = await check(username, key_data, msg, signature)
            if valid and msg:
                self.verified_key = fingerprint(key_data)
            return valid

        conn.validate_public_key = verified  # type: ignore[method-assign]

    def connection_lost(self, exc: Exception | None) -> None:
        if self.session is not None and self.session.game is not None:
            self.session.game.hang_up()
        if self.admitted:
            self.arcade.gate.leave(self.address, self.counted_key)
            self.arcade.connections.discard(self)
        if self.player is not None and self.player.scratch is not None:
            self.loop.create_task(self._forget_guest(self.player.scratch))
        dropped = self.session.game.dropped if self.session and self.session.game else 0
        if dropped:
            self.ending += f"; {dropped} bytes of input dropped (the game was not reading)"
        seconds = time.monotonic() - self.began
        who = self.player.id if self.player else "-"
        stamp = datetime.now(UTC).isoformat(timespec="seconds")
        log.info("%s %s %s %.0fs %s", stamp, self.address, who, seconds, self.ending)

    async def _forget_guest(self, scratch: Path) -> None:
        """Delete a guest's store once their game has let go of it."""
        game = self.session.game if self.session else None
        if game is not None:
            await game.exited.wait()
        shutil.rmtree(scratch, ignore_errors=True)

    def begin_auth(self, username: str) -> bool:
        return True  # even guests go through keyboard-interactive, so keys are tried first

    def public_key_auth_supported(self) -> bool:
        return True

    def validate_public_key(self, username: str, key: asyncssh.SSHKey) -> bool:
        return True  # any key may be a player: the signature proves it is theirs

    def kbdint_auth_supported(self) -> bool:
        return self.arcade.config.guests

    def get_kbdint_challenge(self, username: str, lang: str, submethods: str) -> bool:
        self.wants_guest = self.arcade.config.guests
        return self.wants_guest

    def auth_completed(self) -> None:
        if self.verified_key is not None:
            key = self.verified_key
        elif self.wants_guest:
            key = None
        else:  # no other way in is offered
            self.ending = "refused: signed in without a verified key"
            self.conn.disconnect(asyncssh.DISC_NO_MORE_AUTH_METHODS_AVAILABLE, "not signed in")
            return
        player_id = f"key:{key}" if key else None
        if player_id is not None:
            refusal = self.arcade.gate.admit_key(player_id)
            if refusal:
                self.ending = f"refused: {refusal}"
                self.player = Player(player_id)
                self.conn.disconnect(asyncssh.DISC_TOO_MANY_CONNECTIONS, refusal)
                return
            self.counted_key = player_id
        self.player = self.arcade.player(key)
        self.ending = "left before a session"
        self.loop.call_later(LOGIN_TIMEOUT, self.session_check)

    def session_check(self) -> None:
        """Close a signed-in connection that has not started a game (a held connection)."""
        if self.session is None or self.session.game is None and self.ending == "left before a session":
            self.ending = "no session opened"
            self.conn.disconnect(asyncssh.DISC_BY_APPLICATION, "no session opened")

    def connection_requested(self, dest_host: str, dest_port: int, orig_host: str, orig_port: int) -> bool:
        raise asyncssh.ChannelOpenError(asyncssh.OPEN_ADMINISTRATIVELY_PROHIBITED,
                                        "kaldoku forwards no connections")

    def unix_connection_requested(self, dest_path: str) -> bool:
        raise asyncssh.ChannelOpenError(asyncssh.OPEN_ADMINISTRATIVELY_PROHIBITED,
                                        "kaldoku forwards no connections")

    def session_requested(self) -> GameSession | bool:
        if self.session is not None or self.player is None:
            return False  # one game per connection
        self.session = GameSession(self)
        return self.session

    def idle_check(self) -> None:
        """End the session if the player typed nothing for the idle timeout."""
        session = self.session
        if session is None or session.game is None or session.game.gone:
            return
        quiet = self.loop.time() - session.last_input
        timeout = self.arcade.config.idle_timeout
        if quiet >= timeout:
            self.ending = "idle timeout"
            session.goodbye = f"\r\n\nkaldoku: nothing typed for {timeout:.0f} s; your game is saved. Goodbye.\r\n"
            session.game.hang_up()
        else:
            self.loop.call_later(timeout - quiet + 0.05, self.idle_check)


CLOSE_GRACE = 5.0
"""Seconds a client has to leave after its game ended before the server closes the connection."""


class GameSession(asyncssh.SSHServerSession):
    """The session channel: a terminal asked for, then the player's game on it."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection
        self.term: str | None = None
        self.size = (80, 24)
        self.refusal: str | None = None
        self.game: GameProcess | None = None
        self.last_input = 0.0
        self.goodbye = ""
        """Said once the game has ended: written before, the game's last screen would hide it."""

    def connection_made(self, chan: asyncssh.SSHServerChannel) -> None:
        self.chan = chan

    def pty_requested(self, term_type: str, term_size: tuple[int, int, int, int],
                      term_modes: Mapping[int, int]) -> bool:
        self.term, self.size = term_type, (term_size[0], term_size[1])
        return True

    def shell_requested(self) -> bool:
        return True

    def exec_requested(self, command: str) -> bool:
        self.refusal = NO_COMMANDS.replace("PORT", str(self.connection.arcade.config.port))
        return True  # accepted only to say so on stderr: a refused exec shows no reason

    def subsystem_requested(self, subsystem: str) -> bool:
        return False

    def session_started(self) -> None:
        refusal = self.refusal or (NO_TERMINAL if self.term is None else None)
        if refusal:
            self.connection.ending = "refused: " + ("a command" if self.refusal else "no terminal")
            self.chan.write_stderr((refusal + "\r\n").encode())
            self.chan.exit(1)
            return
        self.connection.loop.create_task(self.start())

    async def start(self) -> None:
        arcade, player = self.connection.arcade, self.connection.player
        assert player is not None  # sessions are given only after sign-in
        args = await asyncio.to_thread(arcade.game_arguments, player)
        if self.chan.is_closing():
            return
        env = game_environment(self.term or "", self.chan.get_environment().get("LANG"))
        location = arcade.location(player)
        if isinstance(location, str):
            env["KALDOKU_STORE"] = location  # not on the command line, where ps shows it
        if player.scratch is not None:  # a guest's lobby shows the server's leaderboards
            env[BOARDS_VARIABLE] = str(arcade.config.store or arcade.config.data_dir)
        try:
            self.game = GameProcess(args, env, self.size, arcade.config.jail, output=self.send,
                                    ended=self.ended)
        except OSError as error:  # out of ptys, processes or memory
            self.connection.ending = f"no game: {error.strerror or error}"
            self.chan.write_stderr(b"kaldoku: the server cannot start a game now; try again later\r\n")
            self.chan.exit(1)
            return
        self.connection.ending = "client left"
        self.last_input = self.connection.loop.time()
        self.connection.loop.call_later(arcade.config.idle_timeout, self.connection.idle_check)

    def send(self, data: bytes) -> None:
        """What the game shows, to the client while it is there."""
        if not self.chan.is_closing():
            self.chan.write(data)

    def data_received(self, data: bytes, datatype: int | None) -> None:
        if self.game is not None:
            self.last_input = self.connection.loop.time()
            self.game.write(data)

    def terminal_size_changed(self, width: int, height: int, pixwidth: int, pixheight: int) -> None:
        self.size = (width, height)
        if self.game is not None:
            self.game.resize(width, height)

    def pause_writing(self) -> None:
        if self.game is not None:
            self.game.pause_output()

    def resume_writing(self) -> None:
        if self.game is not None:
            self.game.resume_output()

    def eof_received(self) -> bool:
        if self.game is not None:
            self.game.hang_up()
        return False

    def break_received(self, msec: int) -> bool:
        return False

    def signal_received(self, signal: str) -> None:
        pass  # the client does not signal the game

    def ended(self, status: int) -> None:
        if self.connection.ending == "client left":
            self.connection.ending = "quit" if status == 0 else f"game ended with status {status}"
        if not self.chan.is_closing():
            if self.goodbye:
                self.chan.write(self.goodbye.encode())
            self.chan.exit(status)
        # The client leaves once the channel closes; closing the connection at once could
        # overtake the game's last bytes and the goodbye (the client drops what is in flight).
        self.connection.loop.call_later(CLOSE_GRACE, self.connection.conn.close)

    def connection_lost(self, exc: Exception | None) -> None:
        if self.game is not None:
            self.game.hang_up()


async def serve(config: ServeConfig, ready: asyncio.Event | None = None) -> None:
    """Run the server until SIGTERM or SIGINT; then hang up every game (each saves)."""
    directory = config.data_dir
    try:
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        if directory.stat().st_mode & 0o022:
            raise ServeError(f"{directory} is writable by other users: chmod go-w it")
        key = host_key(directory)
        shutil.rmtree(directory / "guests", ignore_errors=True)  # a guest's games outlive no server
        (directory / "guests").mkdir(mode=0o700)
    except OSError as error:
        raise ServeError(f"cannot use {directory}: {error.strerror or error}") from None
    arcade = Arcade(config)
    listener = await asyncssh.create_server(
        lambda: Connection(arcade), config.host, config.port, server_host_keys=[key],
        encoding=None, line_editor=False, allow_pty=True, agent_forwarding=False,
        x11_forwarding=False, allow_scp=False, sftp_factory=None, login_timeout=LOGIN_TIMEOUT,
        keepalive_interval=60, keepalive_count_max=3,
        server_version="kaldoku")
    port = listener.sockets[0].getsockname()[1]
    print(f"kaldoku serve: listening on {config.host}:{port}; host key {key.get_fingerprint('sha256')}",
          flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for number in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(number, stop.set)
    if ready is not None:
        ready.set()
    await stop.wait()
    listener.close()
    games = []
    for connection in list(arcade.connections):
        connection.ending = "server stopped"
        if connection.session is not None and connection.session.game is not None:
            games.append(connection.session.game)
            connection.session.game.hang_up()
    if games:  # each saves and leaves on SIGHUP; killed after 5 s otherwise
        await asyncio.wait([asyncio.create_task(game.exited.wait()) for game in games], timeout=6)
    for connection in list(arcade.connections):
        connection.conn.close()
    await listener.wait_closed()
