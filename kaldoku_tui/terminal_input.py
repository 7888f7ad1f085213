"""The player's keyboard, read so that no byte from the terminal can end the game.

Textual 8.2 reads the terminal with a strict UTF-8 decoder and a parser that trusts the
numbers in escape sequences; what goes wrong there kills the app (its input thread
panics). Typed or pasted bytes reach it unchanged, so each of these is a crash:
a byte that is not UTF-8 (0xff, 0x9b, a Latin-1 "é"); a key code beyond Unicode
(ESC [ 99999999999999999999 u, ESC [ 999999999999 ; 1 H); a window size report of
0×0 followed by a mouse report. A report of a huge window size (ESC [ 48 ; 99999 ;
99999 ; 1 ; 1 t) makes Textual lay out a screen of ten billion cells.

Here: bad bytes become U+FFFD, key codes that name no character are ignored, size
reports in the input are dropped (the size comes from the kernel, through SIGWINCH),
and should the parser still fail, a fresh one reads the next bytes.
"""

from __future__ import annotations

import codecs
import os
import selectors
import sys
from typing import Callable, Iterable

from textual import events
from textual._xterm_parser import XTermParser
from textual.driver import Driver
from textual.keys import Keys
from textual.message import Message
from textual.messages import InBandWindowResize


class TerminalParser(XTermParser):
    """Textual's parser of terminal input, without its crashes on out-of-range numbers."""

    def _sequence_to_key_events(self, sequence: str, alt: bool = False) -> Iterable[events.Key]:
        try:
            return list(super()._sequence_to_key_events(sequence, alt))
        except (ValueError, OverflowError):
            # A key code that is no character: chr() refuses it.
            return [events.Key(Keys.Ignore, sequence)]

    @property
    def mouse_pixels(self) -> bool:
        """Mouse reports are in cells: pixel reports are only asked for once the terminal
        has sent a size report, and those are dropped (so no division by a size of 0)."""
        return False

    @mouse_pixels.setter
    def mouse_pixels(self, value: bool) -> None:
        """The parser turns pixels on when it reads a size report: ignored, see above."""


DROPPED = (events.Resize, InBandWindowResize)
"""Messages the input never carries here: the window's size comes from the kernel."""


class TerminalInput:
    """Bytes from the terminal to Textual's messages (keys, mouse, paste, focus), whatever
    the bytes: never an exception."""

    def __init__(self) -> None:
        self.decode = codecs.getincrementaldecoder("utf-8")(errors="replace").decode
        self.parser = TerminalParser()

    def feed(self, data: bytes) -> list[Message]:
        """The messages `data` completes (a sequence may wait for the next bytes)."""
        text = self.decode(data)
        return self.messages(self.parser.feed, text) if text else []

    def tick(self) -> list[Message]:
        """The messages due by now: an Esc key once the escape delay has passed."""
        return self.messages(self.parser.tick)

    def messages(self, parse: Callable[..., Iterable[Message]], *args: str) -> list[Message]:
        found = []
        try:
            for message in parse(*args):
                if not isinstance(message, DROPPED):
                    found.append(message)
        except Exception:
            # Textual's parser failed on something not foreseen above; its state is lost
            # with it, so a fresh parser reads what comes next: the game goes on.
            self.parser = TerminalParser()
        return found


if sys.platform != "win32":
    from textual.drivers.linux_driver import LinuxDriver

    class TerminalDriver(LinuxDriver):
        """Textual's driver for Linux and macOS, reading the keyboard through TerminalInput."""

        def run_input_thread(self) -> None:
            # Textual's own loop, with TerminalInput in place of its decoder and parser.
            selector = selectors.SelectSelector()
            selector.register(self.fileno, selectors.EVENT_READ)
            terminal = TerminalInput()

            def read_ready(ready: list) -> None:
                if ready:
                    data = os.read(self.fileno, 4096)
                    for message in terminal.feed(data):
                        self.process_message(message)
                for message in terminal.tick():
                    self.process_message(message)

            try:
                while not self.exit_event.is_set():
                    read_ready(selector.select(0.1))
            finally:
                selector.close()

    INPUT_DRIVER: type[Driver] | None = TerminalDriver
else:
    INPUT_DRIVER = None
    """Windows: Textual's own driver (it reads console events, not these bytes)."""


from textual.drivers._byte_stream import ByteStream  # noqa: E402  (the web's packets)
from textual.drivers.web_driver import WebDriver  # noqa: E402


class WebInputDriver(WebDriver):
    """Textual's driver for a browser tab (textual-serve), reading the keyboard through
    TerminalInput: the page's keys and pastes reach it as they were typed, so the bytes
    that end Textual's own input thread would leave a tab that no longer hears its
    keys, nor the server's quit when the tab closes."""

    def run_input_thread(self) -> None:
        # Textual's own loop, with TerminalInput in place of its decoder and parser.
        terminal = TerminalInput()
        packets = ByteStream()
        try:
            for data in self._input_reader:
                for kind, payload in packets.feed(data) if data else ():
                    if kind == "D":
                        for message in terminal.feed(payload):
                            self.process_message(message)
                    else:
                        self._on_meta(kind, payload)  # the server's: size, focus, quit, files
                for message in terminal.tick():
                    self.process_message(message)
        except Exception:  # "exit" ends the input here, as in Textual's loop
            pass
        finally:
            self._input_reader.close()
