"""The player's keyboard, read so that no byte from the terminal can end or steer the game.

Textual 8.2 reads the terminal with a strict UTF-8 decoder and a parser that trusts the
numbers in escape sequences; what goes wrong there kills the app (its input thread
panics). Typed or pasted bytes reach it unchanged, so each of these is a crash:
a byte that is not UTF-8 (0xff, 0x9b, a Latin-1 "é"); a key code beyond Unicode
(ESC [ 99999999999999999999 u, ESC [ 999999999999 ; 1 H); a window size report of
0×0 followed by a mouse report. A report of a huge window size (ESC [ 48 ; 99999 ;
99999 ; 1 ; 1 t) makes Textual lay out a screen of ten billion cells.

Textual's parser also does not know where a sequence it has no name for ends: it reads
on, then hands the sequence back as keys. The payload of an OSC, DCS, APC or PM string
(`ESC ] 0 ; x q BEL`, the colour a terminal reports, `ESC ] 11 ; rgb:0000/...`) and a CSI
sequence ending in `q` became keys: `q` quit the game, `n` opened a dialog. And it
parses every byte in Python, one at a time (15 µs a byte), and sends every key on: 300 KB
of unbracketed bytes kept the game busy for two minutes, `q` waiting behind them.

Here the bytes are cut into sequences by their ECMA-48 grammar (regular expressions, so
the cost of a byte is C's): strings are skipped whatever they hold, up to their end (or a
second of quiet); a CSI sequence ends at its final byte and becomes a key, a mouse report
or a paste only when Textual has a name for it, and is dropped otherwise; Textual's tables
name the keys. Bad bytes become U+FFFD, key codes that name no character are ignored, size
reports are dropped (the size comes from the kernel, through SIGWINCH), mouse reports
outside the window are dropped and mouse moves sent one a read, and a paste keeps its first
PASTE_LIMIT characters. At most BURST messages go to the app at once and RATE a second
after that; the rest are dropped as they arrive, unread, so nothing queues behind a flood
and a key typed after it arrives at once.
"""

from __future__ import annotations

import codecs
import os
import re
import selectors
import sys
import time
from typing import Callable, Iterable

from textual import constants, events, messages
from textual._xterm_parser import XTermParser
from textual.driver import Driver
from textual.keys import Keys
from textual.message import Message

RATE = 100
"""Messages (keys, clicks, pastes) a second the app is sent once BURST is spent: above
any typing or key repeat, and a small fraction of the app's time if all are moves."""
BURST = 200
"""Messages the app may be sent at once."""
PASTE_LIMIT = 16_384
"""Characters kept of one paste (a Keen game ID or share code is a few hundred)."""
LONGEST_SEQUENCE = 64
"""Characters after ESC [ a sequence may have; a longer one is skipped to its end."""
QUIET = 1.0
"""Seconds without input after which a string still open is over: a terminal sends its
strings whole, so a key after an unfinished one (ESC ] NUL, or Alt+P, which is ESC P)
is a key again. Longer than any pause inside a reply or a paste that a slow link makes."""
READ_SIZE = 65_536
"""Bytes read from the terminal at a time."""

C1 = {chr(code): "\x1b" + chr(code - 0x40) for code in range(0x80, 0xA0)}
"""8-bit controls (U+0080..U+009F, sent UTF-8 encoded) written as ESC and a character."""
ESCAPE_SEQUENCE = re.compile(
    r"\x1b(?:"
    r"(?P<string>[\]P_^X])"  # OSC, DCS, APC, PM, SOS: a string, up to ST or BEL
    r"|\[(?P<csi>[0-?]{0,%d}[ -/]{0,4}[@-~])"  % LONGEST_SEQUENCE +
    r"|(?P<long>\[[0-?]{%d})" % LONGEST_SEQUENCE +
    r"|(?P<ss3>O[ -~])"
    r"|(?P<alt>[^\[\]P_^XO\x1b])"
    r")",
    re.S,
)
"""A whole escape sequence (or the start of a string or of an over-long CSI sequence)."""
UNFINISHED = re.compile(r"\x1b(?:\[[0-?]{0,%d}[ -/]{0,4}|O)?\Z" % (LONGEST_SEQUENCE - 1))
"""The start of an escape sequence whose end has not arrived yet."""
STRING_END = re.compile(r"[\x07\x18\x1a\x9c]|\x1b\\?")
"""What ends a string: BEL, ST (ESC \\ or U+009C), CAN, SUB, or ESC starting a sequence."""
LONG_END = re.compile(r"[@-~]|(?=\x1b)")
"""The end of an over-long CSI sequence: its final byte, or ESC starting another."""
PASTE_START, PASTE_END = "\x1b[200~", "\x1b[201~"
FRAMING = (PASTE_START, "\x1b[M")
"""Sequences read even over the budget: what follows them is not keys (a paste, the three
bytes of an X10 mouse report), as what follows a string is not."""
DIGITS = tuple("0123456789")
SGR_MOUSE = re.compile(r"\x1b\[<(\d+);(\d+);(\d+)[Mm]")
CURSOR_POSITION = re.compile(r"\x1b\[(\d+);(\d+)R")
SYNCHRONIZED_OUTPUT = re.compile(r"\x1b\[\?2026;[1-4]\$y")


class TerminalParser(XTermParser):
    """Textual's tables of keys and mouse reports, without its crashes on out-of-range numbers."""

    def _sequence_to_key_events(self, sequence: str, alt: bool = False) -> Iterable[events.Key]:
        try:
            return list(super()._sequence_to_key_events(sequence, alt))
        except (ValueError, OverflowError):
            # A key code that is no character: chr() refuses it.
            return [events.Key(Keys.Ignore, sequence)]


class Budget:
    """A token bucket: BURST messages at once, then RATE a second."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self.clock = clock
        self.tokens = float(BURST)
        self.when = clock()

    def take(self, wanted: int) -> int:
        """How many of `wanted` messages may go now (those are spent)."""
        now = self.clock()
        self.tokens = min(float(BURST), self.tokens + (now - self.when) * RATE)
        self.when = now
        granted = min(wanted, int(self.tokens))
        self.tokens -= granted
        return granted

    def spent(self) -> bool:
        """Whether no message may go now: what comes is dropped without being read."""
        return self.tokens < 1 and self.tokens + (self.clock() - self.when) * RATE < 1


class TerminalInput:
    """Bytes from the terminal to Textual's messages (keys, mouse, paste, focus), whatever
    the bytes: never an exception, and never more than the Budget allows."""

    def __init__(self, size: Callable[[], tuple[int, int] | None] = lambda: None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.decode = codecs.getincrementaldecoder("utf-8")(errors="replace").decode
        self.parser = TerminalParser()
        self.size = size
        """The window's (width, height), or None when unknown: mouse reports beyond it are dropped."""
        self.clock = clock
        self.budget = Budget(clock)
        self.pending = ""
        """The start of an escape sequence whose end has not arrived."""
        self.last_read = clock()
        self.skipping: re.Pattern[str] | None = None
        """While inside a string or an over-long sequence: what ends it."""
        self.move: str | None = None
        """The last mouse move of this read: moves are sent one a read, the rest are stale."""
        self.paste: list[str] | None = None
        """While inside a bracketed paste: what it holds so far (at most PASTE_LIMIT)."""
        self.pasted = 0

    def feed(self, data: bytes) -> list[Message]:
        """The messages `data` completes (a sequence may wait for the next bytes)."""
        text = self.decode(data)
        return self.messages(self.read, text) if text else []

    def tick(self) -> list[Message]:
        """The messages due by now: an Esc key once the escape delay has passed."""
        quiet = self.clock() - self.last_read
        if self.skipping is not None and quiet >= QUIET:
            self.skipping = None
        if not self.pending or quiet < constants.ESCAPE_DELAY:
            return []
        if self.paste is not None:
            self.add_to_paste(self.pending)  # not the paste's end after all: pasted text
            self.pending = ""
            return []
        lone, self.pending = self.pending == "\x1b", ""
        # An unfinished sequence that stopped coming is dropped; a lone ESC is the Esc key.
        return self.messages(lambda: [events.Key("escape", "\x1b")] if lone else [])

    def messages(self, parse: Callable[..., list[Message]], *args: str) -> list[Message]:
        try:
            return parse(*args)
        except Exception:
            # Textual's tables failed on something not foreseen; what they were reading
            # is lost, and fresh ones read what comes next: the game goes on.
            self.parser = TerminalParser()
            self.pending, self.skipping, self.paste = "", None, None
            return []

    def read(self, text: str) -> list[Message]:
        if any("\x80" <= ch <= "\x9f" for ch in text):
            text = "".join(C1.get(ch, ch) for ch in text)
        text, self.pending = self.pending + text, ""
        self.last_read = self.clock()
        found: list[Message] = []
        pos, end = 0, len(text)
        while pos < end:
            if self.skipping is not None:
                stop = self.skipping.search(text, pos)
                if stop is None:
                    break
                if stop[0] == "\x1b" and stop.end() == end:
                    self.pending = "\x1b"  # ESC \ cut by the read: the string may go on
                    break
                self.skipping = None
                pos = stop.start() if stop[0] == "\x1b" else stop.end()
                continue
            if self.paste is not None:
                pos = self.read_paste(text, pos, found)
                continue
            escape = text.find("\x1b", pos)
            if escape < 0:
                escape = end
            if escape > pos:
                self.keys(text, pos, escape, found)
            pos = escape
            if pos == end:
                break
            sequence = ESCAPE_SEQUENCE.match(text, pos)
            if sequence is None:
                if UNFINISHED.match(text, pos):
                    self.pending = text[pos:]
                    break
                self.send([events.Key("escape", "\x1b")], found)  # ESC before ESC or a control
                pos += 1
                continue
            pos = sequence.end()
            if self.budget.spent() and not (sequence["string"] or sequence["long"] or sequence[0] in FRAMING):
                continue  # over the budget: dropped unread
            if sequence["string"]:
                self.skipping = STRING_END
            elif sequence["long"]:
                self.skipping = LONG_END
            elif sequence["alt"] in DIGITS:
                # Alt+digit, not the macOS Option characters Textual's table makes of it (£ for 3).
                self.send(self.parser._sequence_to_key_events(sequence["alt"], alt=True), found)
            elif sequence["alt"]:
                self.send(self.parser._sequence_to_key_events(sequence[0])
                          or self.parser._sequence_to_key_events(sequence["alt"], alt=True), found)
            elif sequence[0] == "\x1b[M":
                pos += 3  # an X10 mouse report: three bytes of position, not keys
            elif (mouse := SGR_MOUSE.fullmatch(sequence[0])) and (int(mouse[1]) & 96) == 32:
                self.move = sequence[0]
            else:
                if self.move and mouse:
                    self.send_move(found)  # the pointer's place before the click
                self.send(self.control(sequence[0]), found)
        if self.move:
            self.send_move(found)
        return found

    def send_move(self, found: list[Message]) -> None:
        assert self.move is not None
        self.send(self.control(self.move), found)
        self.move = None

    def keys(self, text: str, start: int, stop: int, found: list[Message]) -> None:
        """The keys of plain characters: the last as many as the budget allows (a key typed
        after a flood comes last), the rest dropped unread."""
        for ch in text[stop - self.budget.take(stop - start):stop]:
            found.extend(key for key in self.parser._sequence_to_key_events(ch) if key.key != Keys.Ignore)

    def send(self, messages_: Iterable[Message], found: list[Message]) -> None:
        """`messages_` as one input: all go if the budget allows one message, else none."""
        batch = [m for m in messages_ if not (isinstance(m, events.Key) and m.key == Keys.Ignore)]
        if batch and self.budget.take(1):
            found.extend(batch)

    def control(self, sequence: str) -> list[Message]:
        """What a whole CSI or SS3 sequence means, if Textual has a name for it."""
        if sequence == PASTE_START:
            self.paste, self.pasted = [], 0
            return []
        if sequence == "\x1b[I":
            return [events.AppFocus()]
        if sequence == "\x1b[O":
            return [events.AppBlur()]
        if match := CURSOR_POSITION.fullmatch(sequence):
            row, column = map(int, match.groups())
            return [events.CursorPosition(column - 1, row - 1)]
        if match := SGR_MOUSE.fullmatch(sequence):
            size = self.size()
            x, y = int(match[2]), int(match[3])
            if size is not None and not (x <= size[0] and y <= size[1]):
                return []  # outside the window: no widget is there
            event = self.parser.parse_mouse_code(sequence)
            return [event] if event is not None else []
        if SYNCHRONIZED_OUTPUT.fullmatch(sequence):
            return [messages.TerminalSupportsSynchronizedOutput()]
        if sequence.endswith("t") or sequence.endswith("$y"):
            return []  # size and mode reports: the size comes from the kernel
        return list(self.parser._sequence_to_key_events(sequence))

    def read_paste(self, text: str, pos: int, found: list[Message]) -> int:
        """Take pasted text up to the paste's end (keeping PASTE_LIMIT characters); where
        the end marker may be cut by the read, its start waits for the next bytes."""
        end = text.find(PASTE_END, pos)
        stop = len(text) if end < 0 else end
        if end < 0:
            tail = text.rfind("\x1b", max(pos, stop - len(PASTE_END) + 1))
            if tail >= 0 and PASTE_END.startswith(text[tail:]):
                stop = tail
                self.pending = text[tail:]
        self.add_to_paste(text[pos:stop])
        if end < 0:
            return len(text)
        pasted = "".join(self.paste or []).replace("\x00", "")
        self.paste = None
        self.send([events.Paste(pasted)], found)
        return end + len(PASTE_END)

    def add_to_paste(self, text: str) -> None:
        """`text` added to the paste, up to PASTE_LIMIT characters in all; the rest dropped."""
        room = PASTE_LIMIT - self.pasted
        if self.paste is not None and room > 0:
            self.paste.append(text[:room])
            self.pasted += min(len(text), room)


if sys.platform != "win32":
    from textual.drivers.linux_driver import LinuxDriver

    class TerminalDriver(LinuxDriver):
        """Textual's driver for Linux and macOS, reading the keyboard through TerminalInput."""

        def run_input_thread(self) -> None:
            # Textual's own loop, with TerminalInput in place of its decoder and parser.
            selector = selectors.SelectSelector()
            selector.register(self.fileno, selectors.EVENT_READ)
            terminal = TerminalInput(size=self.window_size)

            def read_ready(ready: list) -> None:
                if ready:
                    data = os.read(self.fileno, READ_SIZE)
                    for message in terminal.feed(data):
                        self.process_message(message)
                for message in terminal.tick():
                    self.process_message(message)

            try:
                while not self.exit_event.is_set():
                    read_ready(selector.select(0.1))
            finally:
                selector.close()

        def window_size(self) -> tuple[int, int] | None:
            """The terminal's columns and lines, from the kernel; None when it cannot say."""
            try:
                return tuple(os.get_terminal_size(self.fileno))  # type: ignore[return-value]
            except OSError:
                return None

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
        terminal = TerminalInput(size=lambda: self._size)  # the page's, once it has said
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
