"""The game's clock as the game screen keeps it: fair (it runs only while the board can be
seen), shown in the title bar, and written to the store now and then with where the
cursor is."""

from __future__ import annotations

from textual.screen import ModalScreen, Screen

from kaldoku_tui.engine.puzzle import Cell
from kaldoku_tui.services import Services
from kaldoku_tui.session.game import Session, clock_text

SAVE_EVERY = 10.0
"""Seconds of play between saves of the clock when the board does not change."""


def board_covered(screen: Screen) -> bool:
    """Whether `screen`'s board is out of sight, so its clock stops: a full screen above
    it covers it; a dialog (the cage inspector, settings, statistics, help, the palette)
    leaves it in view around itself."""
    stack = screen.app.screen_stack
    above = stack[stack.index(screen) + 1:] if screen in stack else []
    return any(not isinstance(other, ModalScreen) for other in above)


class GameClock:
    """The time played of the session on show: its words in the title, and when it is
    written with where the cursor is (every SAVE_EVERY seconds of play; a move writes
    the time too)."""

    def __init__(self, session: Session, services: Services) -> None:
        self.services = services
        self.cursor: Cell = (0, 0)
        """Where the grid's cursor is (known here after the grid is gone, as the app ends)."""
        self.follow(session)

    def follow(self, session: Session) -> None:
        """Keep the time of `session` from now on (a new game, or one resumed)."""
        self.session = session
        self.saved_at = session.elapsed

    @property
    def time(self) -> str:
        """The time as the title shows it: '4:10', '4:10 (paused)', nothing with the
        clock turned off in the settings."""
        session = self.session
        paused = " (paused)" if session.paused and not session.over else ""
        clock = clock_text(session.elapsed) if self.services.settings.show_clock else ""
        return (clock + paused).strip()

    def keep_due(self) -> str | None:
        """Write the time played and the cursor if SAVE_EVERY seconds of play went by
        since they last were (see keep)."""
        return self.keep() if self.session.elapsed - self.saved_at >= SAVE_EVERY else None

    def cursor_moved(self, cell: Cell) -> None:
        self.cursor = cell

    def keep(self) -> str | None:
        """Write the time played, and where the cursor is: a notice if saving stopped or
        came back."""
        self.saved_at = self.session.elapsed
        return self.services.keep(self.session, self.cursor)
