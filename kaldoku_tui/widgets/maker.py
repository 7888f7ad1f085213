"""A new puzzle made in a worker while the game goes on: how long it has taken so far,
given up when no longer wanted."""

from __future__ import annotations

import time
from typing import NamedTuple

from textual import work
from textual.message import Message
from textual.widget import Widget

from kaldoku_tui.bank import Bank, make_puzzle
from kaldoku_tui.engine.errors import Stopped
from kaldoku_tui.engine.kinds import GameKind
from kaldoku_tui.engine.puzzle import Puzzle, PuzzleError


class Making(NamedTuple):
    """A new puzzle being made: its kind and when it was asked for (time.monotonic)."""

    kind: GameKind
    since: float


class PuzzleMaker(Widget):
    """Takes a puzzle from the bank, or makes one at a time (a new request replaces the
    last) and tells the screen with a Made or a Failed message. Shows nothing itself."""

    DEFAULT_CSS = "PuzzleMaker { display: none; }"

    class KindChosen(Message):
        """The player asked for a new game of `kind`: the bank should keep it ready."""

        def __init__(self, kind: GameKind) -> None:
            super().__init__()
            self.kind = kind

    class Made(Message):
        """The puzzle asked for is made."""

        def __init__(self, kind: GameKind, puzzle: Puzzle) -> None:
            super().__init__()
            self.kind = kind
            self.puzzle = puzzle

    class Failed(Message):
        """The puzzle asked for cannot be made; `why` says why."""

        def __init__(self, why: str) -> None:
            super().__init__()
            self.why = why

    def __init__(self, bank: Bank) -> None:
        super().__init__()
        self.bank = bank
        """Ready puzzles, taken first."""
        self.making: Making | None = None
        """The puzzle being made, if one is."""

    def start(self, kind: GameKind) -> Puzzle | None:
        """A puzzle of `kind` from the bank at once; else None, and one is made (Made).
        Either way the bank is told the kind is wanted (KindChosen)."""
        self.post_message(self.KindChosen(kind))
        puzzle = self.bank.take(kind)
        if puzzle is not None:
            self.making = None
            return puzzle
        self.making = Making(kind, time.monotonic())
        self.make(self.making)
        return None

    def stop(self) -> None:
        self.making = None

    def progress(self) -> str | None:
        """How long the puzzle being made has taken so far, in words; None when none is."""
        if self.making is None:
            return None
        kind, since = self.making
        seconds = int(time.monotonic() - since)
        return (f"Making a {kind.describe()} puzzle… {seconds} s  (Esc: stop; this game goes on "
                "meanwhile)")

    @work(thread=True, group="generate", exit_on_error=False)
    def make(self, making: Making) -> None:
        """Make a puzzle of `making`'s kind; given up as soon as it is no longer wanted."""
        try:
            puzzle = make_puzzle(making.kind, stop=lambda: self.making is not making)
        except Stopped:
            return
        except PuzzleError as error:
            self.app.call_from_thread(self.made, making, None, f"Cannot make that puzzle: {error}")
            return
        self.app.call_from_thread(self.made, making, puzzle, "")

    def made(self, making: Making, puzzle: Puzzle | None, why: str) -> None:
        if self.making is not making:
            return  # Stopped, or another asked for since.
        self.making = None
        self.post_message(self.Made(making.kind, puzzle) if puzzle is not None else self.Failed(why))
