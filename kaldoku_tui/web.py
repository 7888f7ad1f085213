"""`kaldoku web`: the game in a browser tab, served by textual-serve.

Each tab is its own `kaldoku` process (Textual's web driver behind a websocket), playing
from the same store as the terminal: a reload resumes the game, and two tabs behave as
two terminals do. textual-serve does the work; what is ours is the guard around it:

- The address carries a random token (as Jupyter's does): the page and the websocket
  are refused without it, so another user of the machine cannot open your games.
- The page loads nothing from outside this machine: textual-serve's page asks an outside
  font service for Roboto Mono, ours uses the copy textual-serve bundles.
- What a browser sends is checked before it reaches a process: bad messages are dropped,
  window sizes are bounded, and the number of tabs is capped (each is a process).
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import logging
import re
import secrets
import shlex
import signal
import socket
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp_jinja2
import jinja2
from aiohttp import WSMsgType, web
from textual_serve.app_service import AppService
from textual_serve.server import Server

ASSETS = Path(__file__).parent / "assets"
PAGE = "web.html"
"""textual-serve's page, with the font served from here and the websocket's address
carrying the token."""

WEB_DRIVER = "kaldoku_tui.terminal_input:WebInputDriver"
"""Textual's web driver with our reading of the keyboard (see terminal_input.py)."""

QUIT_GRACE = 5.0
"""Seconds a tab's game has to quit once its page has gone."""
MAX_TABS = 16
"""Tabs served at once unless told otherwise; each is a process of some 45 MB."""
MAX_COLUMNS, MAX_ROWS = 500, 200
"""The largest window a browser may ask for: Textual lays out every cell of it."""
MAX_MESSAGE = 64 * 1024
"""The largest message a tab may send (keys, a paste)."""

NOTE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>kaldoku</title></head>
<body style="font-family: monospace; background: #0c181f; color: #eee; padding: 2em">
<p>{}</p></body></html>
"""
REFUSED = NOTE.format("This kaldoku needs its whole address, token included, as "
                      "<code>kaldoku web</code> printed it when it started.")
FULL = NOTE.format("{tabs} kaldoku tabs are open already: close one, then reload this page.")


@dataclass(frozen=True)
class WebConfig:
    """What `kaldoku web` serves, and where."""

    host: str = "127.0.0.1"
    port: int = 8000
    """0 picks a free port (the address printed names it)."""
    game_args: tuple[str, ...] = ()
    """The arguments of each tab's `kaldoku` (where the games are kept)."""
    token: str = field(default_factory=lambda: secrets.token_urlsafe(24))
    max_tabs: int = MAX_TABS


def tab_command(game_args: tuple[str, ...]) -> str:
    """The shell command that runs one tab's game: this Python's `kaldoku`, in place of
    the shell (so that the process textual-serve knows is the game's)."""
    return "exec " + shlex.join([sys.executable, "-m", "kaldoku_tui", *game_args])


def is_loopback(host: str) -> bool:
    """Whether `host` names this machine only (no other machine can connect)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def address(host: str, port: int, token: str) -> str:
    """The address to open: a wildcard host is named by this machine's name."""
    if host in ("0.0.0.0", "::", ""):
        host = socket.gethostname()
    elif ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{port}/?token={token}"


def bounded(value: Any, default: int, largest: int) -> int:
    """A window dimension from a browser: a whole number from 1 to `largest`."""
    try:
        number = int(value)
    except (TypeError, ValueError, OverflowError):
        return default
    return max(1, min(number, largest))


def envelope(text: str) -> list | None:
    """A message from the page's script (a JSON list), or None for anything else."""
    try:
        message = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return message if isinstance(message, list) and message else None


class Tab(AppService):
    """One tab's app process, reading its keys as our terminal driver does; when it ends,
    however it ends, the page is told."""

    def _build_environment(self, width: int = 80, height: int = 24) -> dict[str, str]:
        environment = super()._build_environment(width, height)
        environment["TEXTUAL_DRIVER"] = WEB_DRIVER
        return environment

    async def run(self) -> None:
        await super().run()
        await self.remote_close()  # a game that could not start leaves no blank page behind

    async def quit_and_wait(self) -> None:
        """Ask the game to quit, and wait until its process has ended."""
        await super().stop()
        if self._process is not None:
            await self._process.wait()

    async def stop(self) -> None:
        """Ask the game to quit (it saves as it goes); end its process if it is still
        there QUIT_GRACE seconds later, so that no tab outlives its page."""
        stopping = asyncio.ensure_future(self.quit_and_wait())
        try:
            await asyncio.wait_for(asyncio.shield(stopping), QUIT_GRACE)
        except asyncio.TimeoutError:
            if self._process is not None and self._process.returncode is None:
                self._process.kill()
            await stopping


class WebServer(Server):
    """textual-serve's server, behind the token, with the page's font served locally."""

    def __init__(self, config: WebConfig) -> None:
        super().__init__(tab_command(config.game_args), host=config.host, port=config.port,
                         title="kaldoku")
        self.config = config
        self.tabs: dict[Tab, web.WebSocketResponse] = {}
        """The tabs being served: each one's app process and websocket."""

    def full(self) -> bool:
        """Whether as many tabs as allowed are open already."""
        return len(self.tabs) >= self.config.max_tabs

    def allowed(self, token: str | None) -> bool:
        """Whether `token` is this server's (compared in constant time)."""
        return token is not None and secrets.compare_digest(token.encode(), self.config.token.encode())

    async def _make_app(self) -> web.Application:
        app = web.Application()
        aiohttp_jinja2.setup(app, loader=jinja2.FileSystemLoader(ASSETS), autoescape=True)
        app.add_routes([
            web.get("/", self.handle_index),
            web.get("/ws/{token}", self.handle_websocket),
            web.get("/download/{key}", self.handle_download),
            web.static("/static", self.statics_path, show_index=False),
        ])
        app.on_shutdown.append(self.on_shutdown)
        return app

    async def handle_index(self, request: web.Request) -> web.StreamResponse:
        """The page of the game, or the refusal without the token."""
        if not self.allowed(request.query.get("token")):
            return web.Response(status=403, text=REFUSED, content_type="text/html")
        if self.full():
            return web.Response(status=503, text=FULL.format(tabs=self.config.max_tabs),
                                content_type="text/html")
        context = {
            "font_size": bounded(request.query.get("fontsize"), 16, 64),
            "app_websocket_url": f"ws://{request.host}/ws/{self.config.token}",
        }
        response = aiohttp_jinja2.render_template(PAGE, request, context)
        response.headers["Cache-Control"] = "no-store"
        response.headers["Referrer-Policy"] = "no-referrer"
        return response

    async def handle_download(self, request: web.Request) -> web.StreamResponse:
        """A file the game delivers (its key is random and single-use)."""
        try:
            await self.download_manager.get_download_metadata(request.match_info["key"])
        except KeyError:
            raise web.HTTPNotFound() from None
        return await super().handle_download(request)

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        """One tab: its own app process, for as long as its websocket is open."""
        if not self.allowed(request.match_info["token"]):
            raise web.HTTPForbidden(text="kaldoku: this address needs the token.")
        if self.full():
            raise web.HTTPServiceUnavailable(text=f"kaldoku: {self.config.max_tabs} tabs are open already.")
        websocket = web.WebSocketResponse(heartbeat=15, max_msg_size=MAX_MESSAGE)
        width = bounded(request.query.get("width"), 80, MAX_COLUMNS)
        height = bounded(request.query.get("height"), 24, MAX_ROWS)
        await websocket.prepare(request)

        async def close() -> None:
            await websocket.close()

        tab = Tab(self.command, write_bytes=websocket.send_bytes, write_str=websocket.send_str,
                  close=close, download_manager=self.download_manager)
        self.tabs[tab] = websocket
        try:
            await tab.start(width, height)
            await self._process_messages(websocket, tab)
        except asyncio.CancelledError:
            await websocket.close()
        finally:
            await tab.stop()
            del self.tabs[tab]
        return websocket

    async def _process_messages(self, websocket: web.WebSocketResponse, tab: AppService) -> None:
        """Pass the page's keys, mouse and window size to the tab's app; anything else
        a browser sends is dropped."""
        async for message in websocket:
            if message.type != WSMsgType.TEXT:
                continue
            match envelope(message.data):
                case ["stdin", str(data)]:
                    await tab.send_bytes(re.sub("[\ud800-\udfff]", "\ufffd", data).encode())
                case ["resize", {"width": width, "height": height}]:
                    await tab.set_terminal_size(bounded(width, 80, MAX_COLUMNS),
                                                bounded(height, 24, MAX_ROWS))
                case ["ping", str(data)]:
                    await websocket.send_json(["pong", data[:100]])
                case ["blur"]:
                    await tab.blur()
                case ["focus"]:
                    await tab.focus()

    async def on_shutdown(self, app: web.Application) -> None:
        """Close every tab: each app saves its game and ends."""
        for websocket in list(self.tabs.values()):
            await websocket.close()

    async def run(self) -> None:
        """Serve until SIGINT or SIGTERM; print the address once listening."""
        runner = web.AppRunner(await self._make_app(), access_log=None, handle_signals=False)
        await runner.setup()
        try:
            await web.TCPSite(runner, self.host, self.port).start()
            port = runner.addresses[0][1]
            if not is_loopback(self.host):
                print(f"kaldoku web: warning: listening on {self.host}, not only on this machine: "
                      "anyone who can reach it and has the address can play your games, "
                      "and the connection is not encrypted.", file=sys.stderr, flush=True)
            print(f"kaldoku web: open {address(self.host, port, self.config.token)}", flush=True)
            print("Press Ctrl+C to stop (the games are saved).", flush=True)
            stop = asyncio.Event()
            loop = asyncio.get_running_loop()
            for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
                loop.add_signal_handler(signum, stop.set)
            await stop.wait()
        finally:
            await runner.cleanup()


def serve(config: WebConfig) -> None:
    """Run `kaldoku web` until stopped. OSError when it cannot listen."""
    logging.basicConfig(level=logging.WARNING, format="kaldoku web: %(message)s")
    asyncio.run(WebServer(config).run())
