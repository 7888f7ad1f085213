"""What the command line is given: puzzle arguments (a file, standard input, a Keen game
ID or a share code), read the same way by the game and by the puzzle commands."""

from __future__ import annotations

import os
import sys

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
