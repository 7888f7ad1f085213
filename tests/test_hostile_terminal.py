"""Hostile bytes from the terminal: no byte a player (or a program in their terminal)
sends may end the game. The reading layer is fuzzed here; the installed `kaldoku` gets
the real bytes on a pseudo-terminal (tmux) too. And the other way: nothing from a file
or an argument reaches the terminal with its control characters, or at any length."""

from __future__ import annotations

import contextlib
import io
import json
import random
import re
import sys
import unicodedata
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from textual import events
from textual._xterm_parser import XTermParser

from kaldoku_tui.cli import ERROR_LIMIT, main
from kaldoku_tui.engine.kinds import GameKind
from kaldoku_tui.engine.puzzle import Puzzle
from kaldoku_tui.terminal import shown
from kaldoku_tui.terminal_input import TerminalInput

from conftest import EXAMPLE_ID, EXAMPLE_SOLUTION, game_app
from strategies import examples

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
STEERING = {
    "OSC title, BEL": b"\x1b]0;xq\x07",
    "OSC 11 colour reply": b"\x1b]11;rgb:0000/0000/0000\x07",
    "DCS version reply": b"\x1bP>|xterm(367)q\x1b\\",
    "APC": b"\x1b_Gq=1;nq\x1b\\",
    "CSI ending in q": b"\x1b[2 q",
    "huge mouse click": b"\x1b[<0;99999;99999M",
}
"""Bytes that Textual turned into keys (q quit, n or g opened the new-game dialog) or
into a click that took the keyboard off the board."""
SILENT = STEERING | {
    "OSC title, ST": b"\x1b]0;xq\x1b\\",
    "PM": b"\x1b^privacy q\x1b\\",
    "SOS": b"\x1bXq\x1b\\",
    "CSI > q (version query)": b"\x1b[>0q",
    "CSI ? q": b"\x1b[?1;2q",
    "C1 OSC, C1 ST": "\x9d0;xq\x9c".encode(),
    "C1 CSI ending in q": "\x9b2 q".encode(),
    "OSC of 100,000 q": b"\x1b]0;" + b"q" * 100_000 + b"\x07",
    "CSI of 1,000 digits": b"\x1b[" + b"1" * 1000 + b"q",
    "mouse click right of the window": b"\x1b[<0;81;5M",
}
"""Bytes that must give no key at all, however the reads cut them."""
HOSTILE = CRASHES | HANG | STEERING


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


@settings(max_examples=examples(500), deadline=None)
@given(st.lists(pieces, max_size=12), st.data())
@example([*HOSTILE.values()], None)
def test_textual_parser_never_fails_on_any_bytes(stream, data):
    """The parser needs no rescue (it would be replaced), and no size report gets through."""
    raw = b"".join(stream)
    cut = sorted(data.draw(st.sets(st.integers(0, len(raw)), max_size=6))) if data else []
    clock = Clock()
    terminal = TerminalInput(clock=clock)
    parser = terminal.parser
    with mock.patch("textual._parser.get_time", clock):
        messages = []
        for start, end in zip([0, *cut], [*cut, len(raw)]):
            messages += read(terminal, clock, raw[start:end])
    assert terminal.parser is parser, "the parser raised"
    assert not any(isinstance(m, events.Resize) for m in messages)


@settings(max_examples=examples(500), deadline=None)
@given(st.lists(pieces, max_size=12).map(b"".join).filter(lambda raw: b"\x1b[200~" not in raw),
       st.sampled_from(["3", "q", "j"]))
@example(b"".join(HOSTILE.values()), "3")
def test_a_key_typed_after_any_bytes_arrives(garbage, key):
    clock = Clock()
    terminal = TerminalInput(clock=clock)
    with mock.patch("textual._parser.get_time", clock):
        read(terminal, clock, garbage)
        assert keys(read(terminal, clock, key.encode()))[-1:] == [key]


@pytest.mark.parametrize("name", CRASHES)
def test_bytes_that_crashed_textual_give_no_key_or_a_replacement(name):
    clock = Clock()
    terminal = TerminalInput(clock=clock)
    with mock.patch("textual._parser.get_time", clock):
        found = keys(read(terminal, clock, CRASHES[name] + b"3"))
    assert found[-1] == "3"
    assert set(found[:-1]) <= {"replacement_character", "left_parenthesis"}


def test_when_the_parser_fails_a_fresh_one_reads_on():
    """Textual's own parser raises on these; the reader starts afresh and the game goes on."""
    clock = Clock()
    terminal = TerminalInput(clock=clock)
    with mock.patch("textual._parser.get_time", clock):
        for name, data in CRASHES.items():
            if not data.startswith(b"\x1b"):
                continue  # the decoder's crashes, not the parser's
            with pytest.raises((ValueError, OverflowError, ZeroDivisionError)):
                list(XTermParser().feed(data.decode()))
            terminal.parser = XTermParser()
            read(terminal, clock, data)
            assert keys(read(terminal, clock, b"3")) == ["3"], name


@pytest.mark.parametrize("name", SILENT)
def test_strings_unknown_sequences_and_clicks_outside_give_no_key(name):
    """Textual read an OSC, DCS, APC or PM payload, and a CSI sequence ending in q, as
    keys: pasting ESC ] 0 ; x q BEL quit the game."""
    for cut in (None, 1, 3):  # whole, a byte a read, three bytes a read
        clock = Clock()
        terminal = TerminalInput(size=lambda: (80, 24), clock=clock)
        data = SILENT[name] + b"3"
        pieces = [data] if cut is None else [data[i:i + cut] for i in range(0, len(data), cut)]
        found = []
        for piece in pieces:
            found += terminal.feed(piece)
            found += terminal.tick()
        clock.now += 1.0
        found += terminal.tick()
        assert keys(found) == ["3"] and len(found) == 1, (name, cut, found)


def test_a_click_inside_the_window_and_keys_around_sequences_still_arrive():
    clock = Clock()
    terminal = TerminalInput(size=lambda: (80, 24), clock=clock)
    found = read(terminal, clock, b"\x1b[<0;80;24M\x1b[<0;80;24m")
    assert [type(m) for m in found] == [events.MouseDown, events.MouseUp]
    assert keys(read(terminal, clock, b"1\x1b[A2\x1bOB3\x1b[1;5C\x1b]0;q\x075\x1b")) == [
        "1", "up", "2", "down", "3", "ctrl+right", "5", "escape"]
    assert keys(read(terminal, clock, b"\x1bx\x1b\x1b")) == ["alt+x", "escape", "escape"]
    pasted = read(terminal, clock, b"\x1b[200~kg1-abc\x1b[201~")
    assert [m.text for m in pasted] == ["kg1-abc"]


def test_a_string_arriving_slowly_gives_no_key_and_one_never_ended_is_over_after_quiet():
    from kaldoku_tui.terminal_input import QUIET

    clock = Clock()
    terminal = TerminalInput(clock=clock)
    found = []
    for piece in (b"\x1b]0;", b"x", b"q", b"\x07", b"3"):  # a read every half QUIET
        found += terminal.feed(piece)
        clock.now += QUIET / 2
        found += terminal.tick()
    assert keys(found) == ["3"]
    # A string never ended is over once nothing has come for QUIET seconds.
    assert keys(read(terminal, clock, b"\x1b]0;x") + read(terminal, clock, b"5")) == ["5"]
    # ESC P alone (Alt+P) too: a pause of 0.1 s, as a slow link makes, is not enough.
    assert keys(terminal.feed(b"\x1bP")) == []
    clock.now += 0.1
    assert keys(terminal.tick() + terminal.feed(b"0;q")) == []
    clock.now += QUIET
    assert keys(terminal.tick() + terminal.feed(b"4")) == ["4"]


def test_mouse_moves_are_sent_one_a_read_and_clicks_keep_their_place():
    clock = Clock()
    terminal = TerminalInput(size=lambda: (80, 24), clock=clock)
    moves = b"".join(b"\x1b[<35;%d;5M" % x for x in range(1, 81))
    found = read(terminal, clock, moves + b"\x1b[<0;7;5M" + moves + b"\x1b[<0;7;5m")
    assert [(type(m).__name__, m.x) for m in found] == [
        ("MouseMove", 79), ("MouseDown", 6), ("MouseMove", 79), ("MouseUp", 6)]


def test_a_flood_of_bytes_is_cut_to_the_budget_and_the_next_key_comes_at_once():
    """300 KB of unbracketed bytes were 300,000 keys, parsed at 15 µs a byte (4.6 s) and
    then played one by one for 110 s, with q waiting behind them."""
    import time
    import tracemalloc

    from kaldoku_tui.terminal_input import BURST, PASTE_LIMIT

    clock = Clock()
    terminal = TerminalInput(clock=clock)
    flood = bytes(b"123456789abcdefhjkl "[i % 20] for i in range(300_000))
    sequences = b"\x1b[A\x1b[<35;5;5M\x1b[2 q" * 50_000  # 1 MB of keys, mouse moves, unknowns
    start = time.process_time()
    found = [m for i in range(0, len(flood), 4096) for m in terminal.feed(flood[i:i + 4096])]
    later = [m for i in range(0, len(sequences), 65536) for m in terminal.feed(sequences[i:i + 65536])]
    cpu = time.process_time() - start
    tracemalloc.start()
    paste = [m for i in range(0, 3_000_000, 65536)
             for m in terminal.feed((b"\x1b[200~" if i == 0 else b"") + b"x" * 65536)]
    paste += terminal.feed(b"\x1b[201~")
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert len(found) == BURST and cpu < 2.0, (len(found), cpu)
    assert peak < 1_000_000, peak  # the paste's 3 MB are not kept
    assert later == paste == [] and terminal.paste is None  # over the budget: dropped
    clock.now += 1.0
    assert keys(read(terminal, clock, b"q")) == ["q"]
    pasted = read(terminal, clock, b"\x1b[200~" + b"y" * (PASTE_LIMIT + 10) + b"\x1b[201~")
    assert [len(m.text) for m in pasted] == [PASTE_LIMIT]


def test_utf8_split_across_reads_is_one_character():
    terminal = TerminalInput()
    assert terminal.feed("é".encode()[:1]) == []
    assert [m.character for m in terminal.feed("é".encode()[1:])] == ["é"]


def keeping_status(argv: list[str], status: Path) -> list[str]:
    """`argv` run by a shell that writes its exit status to `status` when it ends (tmux's
    own pane status is not always known by the time the pane is dead)."""
    return ["sh", "-c", f'"$@"; echo $? >"{status}"', "sh", *argv]


def ended(status: Path) -> str | None:
    """The exit status written by `keeping_status`, once there."""
    return status.exists() and status.read_text().strip() or None


def board_digits(screen: str) -> list[list[str]]:
    """The digits of each row of a board on the screen ('' for an empty cell)."""
    rows = re.findall(r"^ *\d [┃|](.*)[┃|] *$", screen, re.M)
    return [[cell.strip() for cell in re.split(r"[┃│|]", row)] for row in rows]


def test_the_game_survives_every_hostile_input_on_a_real_terminal(tmp_path):
    """Each hostile input, then a digit in the next cell: every digit shows, and q still
    ends the game normally."""
    from sshbox import KALDOKU, Terminal, wait_for

    env = {"TERM": "xterm-256color", "LANG": "C.UTF-8", "KALDOKU_HOME": str(tmp_path)}
    status = tmp_path / "status"
    terminal = Terminal(keeping_status([KALDOKU, EXAMPLE_ID], status), env=env)
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
                            timeout=60), f"after {name}:\n{terminal.screen()}"
        assert not ended(status)
        terminal.press("q")
        assert wait_for(lambda: ended(status), timeout=60) == "0", terminal.screen()
    finally:
        terminal.close()


FLOOD = bytes(random.Random(13).choice(b"123456789hjklu ") for _ in range(300_000))
"""300 KB of typing: digits and moves (no key that opens a dialog, where q cancels)."""


def test_a_flood_of_unbracketed_bytes_costs_little_and_q_then_quits_at_once(tmp_path):
    """300 KB pasted without brackets took 110 s of a whole core (300,000 moves, 52 → 220
    MB) with q waiting behind them. Figures are loose here; benchmarks/hostile.py has them."""
    import time

    from sshbox import KALDOKU, Terminal, settled, usage, wait_for

    env = {"TERM": "xterm-256color", "LANG": "C.UTF-8", "KALDOKU_HOME": str(tmp_path)}
    terminal = Terminal([KALDOKU, EXAMPLE_ID], env=env)
    try:
        terminal.wait_for_text("┛")
        pid = terminal.pane_pid()
        cpu_before, rss_before = usage(pid)
        terminal.paste(FLOOD)
        cpu_after = settled(pid)
        assert cpu_after is not None, "still busy 30 s after the flood"
        assert cpu_after - cpu_before < 10.0
        assert usage(pid)[1] - rss_before < 60_000  # KB
        start = time.monotonic()
        terminal.press("q")
        assert wait_for(terminal.dead, timeout=10), terminal.screen()
        assert time.monotonic() - start < 5.0
    finally:
        terminal.close()


# What reaches the terminal.

ESCAPES = "\x1b]0;PWNED\x07\x1b[2J"
"""Renamed the terminal's window and cleared the screen when printed raw."""
HUGE = "9" * 4400
"""More digits than Python reads (4,300): int() fails with a message as long."""


def printable(text: str) -> bool:
    """Whether a terminal would only print `text`: no control, format or separator
    characters, no lone surrogates."""
    return not any(unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Zl", "Zp") for ch in text)


def test_shown_makes_controls_visible_and_cuts_long_values():
    assert shown(ESCAPES) == "\\x1b]0;PWNED\\x07\\x1b[2J"
    assert shown("a\nb\u202ec\ud800") == "a\\x0ab\\u202ec\\ud800"
    assert shown("6×6 · +−×÷ · hard…") == "6×6 · +−×÷ · hard…"
    assert shown(HUGE, 10) == "9" * 9 + "…"
    assert shown("\x1b" * 5, 6) == "\\x1b\\…"
    assert shown("short", 10) == "short"


def error_of(*argv: str) -> tuple[int, str]:
    """The exit status and what `kaldoku argv` writes on stderr."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        status = main(list(argv))
    return status, err.getvalue()


def assert_one_clean_line(status: int, err: str) -> None:
    assert status == 2, err
    assert err.startswith("kaldoku: error: ") and err.endswith("\n")
    line = err[:-1]
    assert printable(line), line
    assert len(line) <= len("kaldoku: error: ") + ERROR_LIMIT


@pytest.mark.parametrize("argv", [
    ["check", "no-such-file" + ESCAPES],
    ["check", "no-such\nfile\r\u202e"],
    ["--ops", "all\n" + ESCAPES],
    ["--difficulty", ESCAPES],
    ["check", "x", ESCAPES],  # argparse quotes unrecognised arguments as they came
    ["--size", HUGE],
    ["--seed", HUGE],
    ["generate", "--size", "4", "--count", HUGE],
    ["check", HUGE + ":aa_a"],
    ["check", "4:" + HUGE],
])
def test_hostile_arguments_give_one_clean_error_line(argv):
    assert_one_clean_line(*error_of(*argv))


def test_a_number_too_long_to_read_says_so():
    status, err = error_of("--size", HUGE)
    assert err == "kaldoku: error: argument --size: size is far too large (4400 digits)\n"
    status, err = error_of("--seed", "x" + HUGE)
    assert "seed must be a whole number" in err and len(err) < 400


def test_a_puzzle_file_with_escapes_in_its_text_gives_a_clean_error(tmp_path, example):
    data = {"size": 4, "cages": [{"cells": [[0, 0]], "op": ESCAPES, "target": 1}],
            ESCAPES: ESCAPES}
    path = tmp_path / "p.json"
    path.write_text(json.dumps(data))
    assert_one_clean_line(*error_of("check", str(path)))


@settings(max_examples=examples(200), deadline=None)
@given(st.text(max_size=60) | st.sampled_from([ESCAPES, HUGE]))
def test_no_argument_reaches_the_terminal_raw(text):
    for argv in (["check", "/no/such/dir/" + text], ["check", "x", "y" + text],
                 ["generate", "--count", text + "x", "--size", "4"], ["--difficulty", text + "x"]):
        assert_one_clean_line(*error_of(*argv))


def test_an_unknown_level_in_a_puzzle_file_is_never_shown_nor_counted(example):
    for level in (ESCAPES, "x" * 5000, "fiendish"):
        kind = GameKind.of(Puzzle(4, example.cages, example.solution, {"difficulty": level}))
        assert kind.describe() == "4×4 · +−×÷" and kind.key == "4/all/any"
        assert not kind.offered  # the bank still refuses such a puzzle
    assert GameKind(4, "all", "hard").describe() == "4×4 · +−×÷ · hard"


def test_a_printed_sheet_shows_no_escapes_from_a_puzzle_file(tmp_path, example):
    path = tmp_path / "p.json"
    path.write_text(json.dumps({"size": 4, "solution": [list(row) for row in example.solution],
                                "cages": [{"cells": [list(c) for c in cage.cells], "op": cage.op,
                                           "target": cage.target} for cage in example.cages],
                                "difficulty": ESCAPES}))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["print", str(path)]) == 0
    assert printable(out.getvalue().replace("\n", "").replace("\f", ""))
    assert out.getvalue().startswith("Puzzle 1 · 4×4 easy · ")  # its level found, not claimed


async def test_the_title_shows_no_escapes_from_a_puzzle_file(example):
    puzzle = Puzzle(4, example.cages, example.solution, {"difficulty": ESCAPES, "ops": ESCAPES})
    app = game_app(puzzle)
    async with app.run_test(size=(80, 24)):
        title = app.game.title_bar.text
        assert title.startswith("kaldoku — 4×4 · +−×÷ · 0:0"), title


# Quitting while a worker is stuck in the engine.

STUCK_APP = """
import sys, time
from pathlib import Path
from textual import work
from textual.app import App
from kaldoku_tui.terminal import leave_promptly, run_until_quit

marks = Path(sys.argv[1])

class Stuck(App):
    BINDINGS = [("q", "quit")]

    def on_mount(self):
        self.search()

    @work(thread=True)
    def search(self):
        (marks / "working").touch()
        time.sleep(300)  # an engine call nothing can interrupt

app = Stuck()
run_until_quit(app)
(marks / "saved").touch()
sys.exit(leave_promptly(7))
"""


def test_quitting_ends_the_process_while_a_worker_is_stuck(tmp_path):
    """Textual's asyncio.run waited for the worker: the process outlived `q` by minutes."""
    from sshbox import Terminal, wait_for

    script = tmp_path / "stuck.py"
    script.write_text(STUCK_APP)
    status = tmp_path / "status"
    terminal = Terminal(keeping_status([sys.executable, str(script), str(tmp_path)], status))
    try:
        assert wait_for((tmp_path / "working").exists), terminal.screen()
        terminal.press("q")
        assert wait_for(lambda: ended(status), timeout=60) == "7", "still running with its worker"
        assert (tmp_path / "saved").exists(), "what comes after the app (saving) ran"
    finally:
        terminal.close()


# Text from a puzzle or an argument, on its way out.

SNEAKY = "\u009b2J\u202eevil\u009d0;PWNED\x07\ud800"
"""C1 controls (CSI, OSC), a right-to-left override, BEL and a lone surrogate."""


def test_export_writes_no_control_from_a_puzzle_title_and_keeps_its_value(tmp_path, example, capsys):
    from kaldoku_tui.session.store import open_store

    puzzle = Puzzle(4, example.cages, example.solution, {"title": SNEAKY, "name": SNEAKY * 2})
    store = open_store(tmp_path)
    store.new_game(puzzle, GameKind.of(puzzle))
    store.close()
    for form in ("json", "keen", "text", "code"):
        assert main(["export", "--data-dir", str(tmp_path), "--format", form]) == 0
        out = capsys.readouterr().out
        assert printable(out.replace("\n", "")), (form, out)
        if form == "json":
            data = json.loads(out)
            assert (data["title"], data["name"]) == (SNEAKY, SNEAKY * 2)


def test_a_data_dir_with_escapes_is_shown_not_obeyed_in_the_status_line(tmp_path):
    """Saving is off: cannot make /…/ESC]0;PWNED BEL…: the terminal's title was set."""
    from sshbox import KALDOKU, Terminal

    (tmp_path / "file").touch()
    data_dir = str(tmp_path / "file" / ("\x1b]0;PWNED\x07\u202eX\u009b"))
    terminal = Terminal([KALDOKU, "--data-dir", data_dir, EXAMPLE_ID],
                        env={"TERM": "xterm-256color", "LANG": "C.UTF-8"})
    try:
        screen = terminal.wait_for_text("┛")
        screen = terminal.wait_for_text("Saving is off")
        assert "\\x1b]0;PWNED\\x07\\u202eX" in screen.replace("\n", ""), screen
        assert terminal.tmux("display-message", "-p", "-t", "t", "#{pane_title}").strip() != "PWNED"
    finally:
        terminal.close()
