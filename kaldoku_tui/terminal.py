"""What the player's terminal can show: colour depth and whether box drawing is safe.

Textual picks its colour depth from TERM and COLORTERM (through Rich) when its App is
created; COLORTERM is seldom forwarded over SSH, so `--colors` forces a depth.
`--colors none` means NO_COLOR: Textual then greys every colour but keeps bold,
reverse and underline, which is what marks the game's states without colour.
(Rich's own "no colour system" would drop those attributes too.)
"""

from __future__ import annotations

import io
import os
import sys
import unicodedata
from typing import MutableMapping, TextIO


# --colors choices -> Rich's colour system names, as TEXTUAL_COLOR_SYSTEM takes them.
FORCED_SYSTEMS = {"truecolor": "truecolor", "256": "256", "16": "standard"}
DEPTH_NAMES = {"truecolor": "truecolor", "256": "256", "standard": "16", None: "none"}
BOX_SAMPLE = "┼╋━┃×÷"
"""Characters the Unicode board needs; a terminal that cannot encode them gets ASCII."""

_TO_ASCII = str.maketrans(
    {"−": "-", "×": "x", "÷": "/", "…": "...", "—": "-", "·": "-"}
)


def in_ascii(text: str) -> str:
    """`text` with × ÷ − · written x / - - (the engine speaks Unicode; ASCII mode shows this)."""
    return text.translate(_TO_ASCII)


def shown(text: str, limit: int | None = None) -> str:
    """`text` safe to print: characters a terminal would act on or cannot encode (controls,
    escape, format and bidi marks, line separators, lone surrogates) written as \\x1b,
    \\u202e...; cut to `limit` characters, ending in …, when longer."""
    safe = "".join(_visible(ch) for ch in text[:limit])  # escaping only lengthens
    if limit is not None and (len(text) > limit or len(safe) > limit):
        return safe[: limit - 1] + "…"
    return safe


def shown_json(text: str) -> str:
    """JSON text safe to print, with the same value: the characters `shown` writes out
    (inside strings: JSON's own line breaks are left) written as JSON's \\u escapes."""
    import json

    return "".join(json.dumps(ch)[1:-1] if ch != "\n" and _acted_on(ch) else ch for ch in text)


def _acted_on(ch: str) -> bool:
    """Whether a terminal would act on `ch` or cannot encode it, rather than print it."""
    return unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Zl", "Zp")


def _visible(ch: str) -> str:
    if not _acted_on(ch):
        return ch
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def detected_system(environ: MutableMapping[str, str] = os.environ) -> str | None:
    """The colour system Textual would choose for this environment without NO_COLOR:
    'truecolor', '256', 'standard' (16 colours) or None (TERM=dumb)."""
    from rich.console import Console

    env = {k: v for k, v in environ.items() if k != "NO_COLOR"}
    return Console(file=io.StringIO(), force_terminal=True, _environ=env).color_system


def color_depth(choice: str = "auto", environ: MutableMapping[str, str] = os.environ) -> str:
    """The depth the game will show for `--colors choice`: truecolor, 256, 16 or none."""
    if choice == "none" or "NO_COLOR" in environ:
        return "none"
    if choice in FORCED_SYSTEMS:
        return choice
    forced = environ.get("TEXTUAL_COLOR_SYSTEM", "auto")
    if forced in DEPTH_NAMES and forced != "auto":
        return DEPTH_NAMES[forced]
    return DEPTH_NAMES[detected_system(environ)]


def apply_colors(choice: str, environ: MutableMapping[str, str] = os.environ) -> None:
    """Make the next Textual App use the colours of `--colors choice` (auto changes nothing).

    Call before the App is created."""
    if choice == "none":
        environ["NO_COLOR"] = "1"
    elif choice in FORCED_SYSTEMS:
        environ["TEXTUAL_COLOR_SYSTEM"] = FORCED_SYSTEMS[choice]
        # textual.constants reads the variable once, on import.
        constants = sys.modules.get("textual.constants")
        if constants is not None:
            setattr(constants, "COLOR_SYSTEM", FORCED_SYSTEMS[choice])  # noqa: B010 (a module typed without it)


def locale_charset(environ: MutableMapping[str, str] = os.environ) -> str | None:
    """The character set the locale variables name ('UTF-8', 'ISO-8859-1', 'C'), or None
    when no locale is set."""
    lang = environ.get("LC_ALL") or environ.get("LC_CTYPE") or environ.get("LANG")
    if (
        lang == "C.UTF-8"
        and not environ.get("LC_ALL")
        and environ.get("LANG", "C") in ("C", "POSIX")
    ):
        # Python's locale coercion (PEP 538) rewrites LC_CTYPE=C to C.UTF-8 for itself;
        # the terminal was still promised plain C.
        lang = environ.get("LANG")
    if not lang:
        return None
    if lang in ("C", "POSIX"):
        return "C"
    _, dot, rest = lang.partition(".")
    return rest.partition("@")[0] if dot else None


def can_draw_boxes(
    environ: MutableMapping[str, str] = os.environ, stream: TextIO | None = None
) -> bool:
    """Whether the terminal can show box drawing, × and ÷: its locale is UTF-8 (or
    unset, as in many containers reached over SSH) and `stream` can encode them."""
    charset = locale_charset(environ)
    if charset is not None and charset.replace("-", "").lower() != "utf8":
        return False
    stream = sys.__stdout__ if stream is None else stream
    encoding = getattr(stream, "encoding", None)
    if not encoding:
        return True
    try:
        BOX_SAMPLE.encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return False
    return True


def use_ascii(forced: bool, environ: MutableMapping[str, str] = os.environ) -> bool:
    """ASCII mode: asked for with --ascii, or needed because the terminal cannot draw boxes."""
    return forced or not can_draw_boxes(environ)


def exit_on_signals(app, grace: float = 3.0) -> None:
    """End `app` cleanly on SIGHUP (the terminal or SSH connection is gone) and SIGTERM,
    with exit status 128 + signal; if it has not ended `grace` seconds later (a dead
    terminal can block the shutdown), end the process. Call from the main thread."""
    import asyncio
    import signal
    import threading

    def handle(signum: int, frame: object) -> None:
        status = 128 + signum
        if signum == signal.SIGHUP:
            write_nowhere_if_hung_up()
        watchdog = threading.Timer(grace, os._exit, (status,))
        watchdog.daemon = True
        watchdog.start()
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            raise SystemExit(status) from None  # the app is not running (yet)
        loop.call_soon_threadsafe(lambda: app.exit(return_code=status))

    for signum in (signal.SIGHUP, signal.SIGTERM):
        signal.signal(signum, handle)


def write_nowhere_if_hung_up(fds: tuple[int, ...] = (1, 2)) -> bool:
    """If the terminal on `fds` has hung up, point them at /dev/null and say so: a write
    to a hung-up terminal fails in Textual's writer thread, which then ends, and the
    app's shutdown waits for it forever. A terminal that is still there is left alone."""
    import errno
    import termios

    try:
        termios.tcgetattr(fds[0])
    except termios.error as error:
        if error.args[0] != errno.EIO:  # not a terminal at all: a pipe, a file
            return False
    else:
        return False
    nowhere = os.open(os.devnull, os.O_WRONLY)
    for fd in fds:
        os.dup2(nowhere, fd)
    os.close(nowhere)
    return True


def run_until_quit(app) -> None:
    """Run `app` until it exits, without waiting for its thread workers: asyncio.run
    waits for every thread of its loop, so a worker stuck in a long engine call (a hint
    search, a puzzle that cannot be made) kept the process alive after `q`."""
    import asyncio

    loop = asyncio.new_event_loop()
    try:
        app.run(loop=loop)
    finally:
        loop.close()  # lets the workers' threads go without waiting for them


def leave_promptly(status: int, grace: float = 0.25) -> int:
    """`status`, once other threads have ended; if one is still at work `grace` seconds
    on (nothing can interrupt a worker in the engine, and Python would wait for it at
    exit), end the process now with `status`. Call last, once the game is saved."""
    import threading
    import time

    deadline = time.monotonic() + grace
    main = threading.main_thread()
    for thread in threading.enumerate():
        if thread is not main and not thread.daemon:
            thread.join(max(0.0, deadline - time.monotonic()))
            if thread.is_alive():
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(status)
    return status
