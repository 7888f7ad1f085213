"""Hostile bytes from the terminal: no byte a player (or a program in their terminal)
sends may end the game. The reading layer is fuzzed here; the installed `kaldoku` gets
the real bytes on a pseudo-terminal (tmux) too."""

from __future__ import annotations

import re
import shutil
import sys
from unittest import mock

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from textual import events
from textual._xterm_parser import XTermParser

from kaldoku_tui.terminal_input import TerminalInput

from conftest import EXAMPLE_ID, EXAMPLE_SOLUTION

CRASHES = {
    "C1 CSI byte": b"\x9b",
    "0xff": b"\xff",
    "broken UTF-8": b"\xc3\x28",
    "Latin-1 é": "é".encode("latin-1"),
    "huge cursor report": b"\x1b[999999999999;1H",
    "huge key code": b"\x1b[99999999999999999999u",
    "key code past Unicode": b"\x1b[1114112u",
    "zero window size, then a click": b"\x1b[48;0;0;0;0t\x1b[<0;5;5M",
}
"""Bytes that ended kaldoku with a traceback under Textual 8.2's own reading."""
HANG = {"huge window size": b"\x1b[48;99999;99999;1;1t"}
"""Bytes that made Textual lay out a screen of 10^10 cells (minutes and gigabytes)."""
HOSTILE = CRASHES | HANG


class Clock:
    """Textual's parser's clock, moved by hand: the escape delay passes when told."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def keys(messages) -> list[str]:
    return [m.key for m in messages if isinstance(m, events.Key)]


def read(terminal: TerminalInput, clock: Clock, data: bytes) -> list:
    """The messages `data` gives once the escape delay has passed."""
    messages = terminal.feed(data)
    clock.now += 1.0
    return messages + terminal.tick()


# Pieces of terminal input: any bytes, escape sequences with any numbers and ends, the
# bytes that crashed. A bracketed paste start is left out: it holds keys until its end.
csi = st.builds(
    lambda intro, params, end: b"\x1b" + intro + params.encode() + bytes([end]),
    st.sampled_from([b"[", b"[<", b"[?", b"[>", b"O", b"]"]),
    st.from_regex(r"[0-9;:]{0,30}", fullmatch=True),
    st.integers(0x20, 0x7E),
).filter(lambda seq: b"[200~" not in seq)
pieces = st.one_of(st.binary(max_size=12), csi, st.sampled_from(list(HOSTILE.values())))


@settings(max_examples=600, deadline=None)
@given(st.lists(pieces, max_size=12), st.data())
@example([*HOSTILE.values()], None)
def test_textual_parser_never_fails_on_any_bytes(stream, data):
    """The parser needs no rescue (it would be replaced), and no size report gets through."""
    raw = b"".join(stream)
    cut = sorted(data.draw(st.sets(st.integers(0, len(raw)), max_size=6))) if data else []
    terminal, clock = TerminalInput(), Clock()
    parser = terminal.parser
    with mock.patch("textual._parser.get_time", clock):
        messages = []
        for start, end in zip([0, *cut], [*cut, len(raw)]):
            messages += read(terminal, clock, raw[start:end])
    assert terminal.parser is parser, "the parser raised"
    assert not any(isinstance(m, events.Resize) for m in messages)


@settings(max_examples=600, deadline=None)
@given(st.lists(pieces, max_size=12).map(b"".join).filter(lambda raw: b"\x1b[200~" not in raw),
       st.sampled_from(["3", "q", "j"]))
@example(b"".join(HOSTILE.values()), "3")
def test_a_key_typed_after_any_bytes_arrives(garbage, key):
    terminal, clock = TerminalInput(), Clock()
    with mock.patch("textual._parser.get_time", clock):
        read(terminal, clock, garbage)
        assert keys(read(terminal, clock, key.encode()))[-1:] == [key]


@pytest.mark.parametrize("name", CRASHES)
def test_bytes_that_crashed_textual_give_no_key_or_a_replacement(name):
    terminal, clock = TerminalInput(), Clock()
    with mock.patch("textual._parser.get_time", clock):
        found = keys(read(terminal, clock, CRASHES[name] + b"3"))
    assert found[-1] == "3"
    assert set(found[:-1]) <= {"replacement_character", "left_parenthesis"}


def test_when_the_parser_fails_a_fresh_one_reads_on():
    """Textual's own parser raises on these; the reader starts afresh and the game goes on."""
    terminal, clock = TerminalInput(), Clock()
    with mock.patch("textual._parser.get_time", clock):
        for name, data in CRASHES.items():
            if not data.startswith(b"\x1b"):
                continue  # the decoder's crashes, not the parser's
            with pytest.raises((ValueError, OverflowError, ZeroDivisionError)):
                list(XTermParser().feed(data.decode()))
            terminal.parser = XTermParser()
            read(terminal, clock, data)
            assert keys(read(terminal, clock, b"3")) == ["3"], name


def test_utf8_split_across_reads_is_one_character():
    terminal = TerminalInput()
    assert terminal.feed("é".encode()[:1]) == []
    assert [m.character for m in terminal.feed("é".encode()[1:])] == ["é"]


def board_digits(screen: str) -> list[list[str]]:
    """The digits of each row of a board on the screen ('' for an empty cell)."""
    rows = re.findall(r"^ *\d [┃|](.*)[┃|] *$", screen, re.M)
    return [[cell.strip() for cell in re.split(r"[┃│|]", row)] for row in rows]


@pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux (.ci/run installs it)")
def test_the_game_survives_every_hostile_input_on_a_real_terminal(tmp_path):
    """Each hostile input, then a digit in the next cell: every digit shows, and q still
    ends the game normally."""
    from sshbox import KALDOKU, Terminal, wait_for

    env = {"TERM": "xterm-256color", "LANG": "C.UTF-8", "KALDOKU_HOME": str(tmp_path)}
    terminal = Terminal([KALDOKU, EXAMPLE_ID], env=env)
    try:
        terminal.wait_for_text("┛")
        for i, (name, data) in enumerate(HOSTILE.items()):
            row, col = divmod(i, 4)
            terminal.tmux("send-keys", "-t", "t", "-H", *(f"{b:02x}" for b in data))
            terminal.press(str(EXAMPLE_SOLUTION[row][col]), "l" if col < 3 else "j")
            if col == 3:
                terminal.press("h", "h", "h")
            assert wait_for(lambda: len(board_digits(terminal.screen())) == 4 and
                            board_digits(terminal.screen())[row][col] == str(EXAMPLE_SOLUTION[row][col]),
                            timeout=10), f"after {name}:\n{terminal.screen()}"
        assert not terminal.dead()
        terminal.press("q")
        assert wait_for(terminal.dead, timeout=10), terminal.screen()
        status = terminal.tmux("display-message", "-p", "-t", "t", "#{pane_dead_status}").strip()
        assert status == "0", terminal.screen()
    finally:
        terminal.close()
