"""What the command line is given: puzzle arguments (a file, standard input, a Keen game
ID or a share code), read the same way by the game and by the puzzle commands."""

from __future__ import annotations

import json
import os
import sys
from typing import IO, AnyStr, Iterator

from kaldoku_tui.engine.puzzle import Puzzle, PuzzleError


class UsageError(Exception):
    """Bad input from the command line; the message is shown as one line."""


def read_puzzle_arg(arg: str | None) -> list[Puzzle]:
    """The puzzles named by a PUZZLE argument: a file, `-`/None for stdin, a Keen ID or
    a share code.

    At most MAX_TEXT bytes are read, so an oversized file is refused at once."""
    from kaldoku_tui.engine.codes import is_code, read_code
    from kaldoku_tui.engine.formats import KEEN_ID, KEEN_SEED, MAX_TEXT, read_puzzle_bytes, read_puzzles

    if arg is None or arg == "-":
        # Bytes, so that bad UTF-8 is our one-line error; text when stdin has no bytes (a StringIO).
        stdin = getattr(sys.stdin, "buffer", sys.stdin)
        data, source = stdin.read(MAX_TEXT + 1), "standard input"
    elif os.path.exists(arg):
        try:
            with open(arg, "rb") as f:
                data = f.read(MAX_TEXT + 1)
        except OSError as exc:
            raise UsageError(f"cannot read {arg}: {exc.strerror or exc}") from None
        source = arg
    elif is_code(arg):
        return [read_code(arg)]
    elif KEEN_ID.fullmatch(arg.strip()) or KEEN_SEED.fullmatch(arg.strip()):
        data, source = arg, None  # a seed, too, so that the reader says what to give instead
    else:
        raise UsageError(f"no such file, and not a Keen game ID: {arg}")
    try:
        puzzles = read_puzzles(data) if isinstance(data, str) else read_puzzle_bytes(data)
    except PuzzleError as exc:
        raise UsageError(f"{source}: {exc}" if source else str(exc)) from None
    if not puzzles:
        raise UsageError(f"{source}: no puzzle found")
    return puzzles



def stream_puzzle_arg(arg: str | None) -> Iterator[Puzzle]:
    """The puzzles named by a PUZZLE argument (see `read_puzzle_arg`), one at a time, so
    that a stream of any length is read: JSON Lines, share codes and Keen IDs one a line
    (mixed as they come), the size limit MAX_TEXT on each line. Input of another form
    (one JSON object over many lines, an array, a typed layout) is read whole, as before."""
    if arg is not None and arg != "-" and not os.path.exists(arg):
        yield from read_puzzle_arg(arg)  # a share code or a Keen ID, or a one-line error
        return
    if arg is None or arg == "-":
        yield from _stream_lines(getattr(sys.stdin, "buffer", sys.stdin), "standard input")
        return
    try:
        stream = open(arg, "rb")
    except OSError as exc:
        raise UsageError(f"cannot read {arg}: {exc.strerror or exc}") from None
    with stream:
        yield from _stream_lines(stream, arg)


def _stream_lines(stream: IO[AnyStr], source: str) -> Iterator[Puzzle]:
    from kaldoku_tui.engine.formats import MAX_TEXT, read_puzzle_bytes, read_puzzles

    lines = _numbered_lines(stream, source)
    head: list[AnyStr] = []  # the raw lines read before the form is known
    # `number` and `text` name the first line with text after the loop: B007 misses that use.
    for number, raw, text in lines:  # noqa: B007
        head.append(raw)
        if text:
            break
    else:
        raise UsageError(f"{source}: no puzzle found")
    if not _one_a_line(text):
        # Not a puzzle a line: the whole input within MAX_TEXT, as read_puzzle_arg reads it.
        data = head[0][:0].join(head)
        data += stream.read(max(0, MAX_TEXT + 1 - len(data)))
        try:
            puzzles = read_puzzles(data) if isinstance(data, str) else read_puzzle_bytes(data)
        except PuzzleError as exc:
            raise UsageError(f"{source}: {exc}") from None
        if not puzzles:
            raise UsageError(f"{source}: no puzzle found")
        yield from puzzles
        return
    yield _line_puzzle(text, source, number)
    for number, _, text in lines:
        if text:
            yield _line_puzzle(text, source, number)


def _numbered_lines(stream: IO[AnyStr], source: str) -> Iterator[tuple[int, AnyStr, str]]:
    """Each line of `stream` with its number and its text stripped; a one-line error for a
    line over MAX_TEXT bytes or one that is not UTF-8."""
    from kaldoku_tui.engine.formats import MAX_TEXT

    number = offset = 0
    while raw := stream.readline(MAX_TEXT + 1):
        number += 1
        if len(raw) > MAX_TEXT:
            where = f"line {number}: " if number > 1 else ""  # the first line: read as a whole text
            raise UsageError(f"{source}: {where}too large to read: more than {MAX_TEXT:,} bytes")
        try:
            text = raw if isinstance(raw, str) else raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise UsageError(f"{source}: not UTF-8 text: byte 0x{raw[exc.start]:02x} "
                             f"at offset {offset + exc.start}") from None
        offset += len(raw)
        yield number, raw, text.strip().lstrip("\ufeff")  # the byte-order mark some editors write


def _one_a_line(text: str) -> bool:
    """Whether a line holds one puzzle whole: a share code, a Keen game ID or a JSON object."""
    from kaldoku_tui.engine.codes import is_code
    from kaldoku_tui.engine.formats import KEEN_ID

    if is_code(text) or KEEN_ID.fullmatch(text):
        return True
    try:
        return text.startswith("{") and isinstance(json.loads(text), dict)
    except (ValueError, RecursionError):
        return False


def _line_puzzle(text: str, source: str, number: int) -> Puzzle:
    """The puzzle on line `number` of a stream of puzzles a line; UsageError saying where and why."""
    from kaldoku_tui.engine.codes import is_code, read_code
    from kaldoku_tui.engine.formats import KEEN_ID, KEEN_SEED, puzzle_from_dict, read_keen

    try:
        if is_code(text):
            return read_code(text)
        if KEEN_ID.fullmatch(text):
            return read_keen(text)
        if KEEN_SEED.fullmatch(text):
            raise PuzzleError(f"{text!r} is a Keen random seed; give its game ID instead")
        if not text.startswith("{"):
            shown = text if len(text) <= 40 else text[:37] + "..."
            raise PuzzleError(f"neither JSON, a share code nor a Keen game ID: {shown!r}")
        try:
            value = json.loads(text)
        except json.JSONDecodeError as exc:
            raise PuzzleError(f"bad JSON: {exc.msg} (column {exc.colno})") from None
        except ValueError:  # an integer of thousands of digits
            raise PuzzleError("bad JSON: a number too long to read") from None
        except RecursionError:
            raise PuzzleError("bad JSON: nested too deeply") from None
        return puzzle_from_dict(value)
    except PuzzleError as exc:
        raise UsageError(f"{source}: line {number}: {exc}") from None
