"""A hint looked for in a worker, on a copy of the board, while the game goes on."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import work
from textual.message import Message
from textual.widget import Widget

from kaldoku_tui.engine.board import Board

if TYPE_CHECKING:
    from kaldoku_tui.engine.hints import HintSearch

SLOW_HINT = 0.3
"""Seconds a hint may take before the screen is told it is slow (to say one is being
looked for)."""


class HintFinder(Widget):
    """Looks for hints; tells the screen with a Found message, and a Slow one first when
    the search takes a while. Shows nothing itself."""

    DEFAULT_CSS = "HintFinder { display: none; }"

    class Found(Message):
        """The search on board `version` is over: a hint, or why there is none."""

        def __init__(self, search: HintSearch, version: int) -> None:
            super().__init__()
            self.search = search
            self.version = version

    class Slow(Message):
        """A search has taken SLOW_HINT seconds so far."""

    def find(self, board: Board, version: int) -> None:
        """Look for a hint on `board`, a copy of the board at `version`."""
        self.set_timer(SLOW_HINT, lambda: self.post_message(self.Slow()))
        self.search(board, version)

    @work(thread=True, group="hint", exit_on_error=False)
    def search(self, board: Board, version: int) -> None:
        from kaldoku_tui.engine.hints import hint_within  # the solver and grader: at the first hint

        found = self.Found(hint_within(board), version)
        self.app.call_from_thread(self.post_message, found)
