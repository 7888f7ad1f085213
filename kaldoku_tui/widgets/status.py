"""The status line under the board: the notes mode and the last message, in pages of the
lines it has ('m' shows the next page), so a long message never moves the board."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from kaldoku_tui.layout import status_lines
from kaldoku_tui.terminal import in_ascii, shown
from kaldoku_tui.widgets.grid import KenKenGrid

MORE = " (m: again 9/9)"
"""The longest note at the end of a page, kept room for."""


class StatusLine(Static):
    """The notes mode of `grid` and a message, in the lines the board leaves; repainted
    only when the page on show changes (a repaint of the status lines is a kilobyte on
    the wire)."""

    def __init__(self, message: str, grid: KenKenGrid, *, ascii: bool = False) -> None:
        super().__init__(id="status", markup=False)
        self.grid = grid
        self.ascii = ascii
        self.message = message
        self.passing = False
        """Whether the message is one that goes with the next change of the board (the
        tip, "Settings saved.")."""
        self.pages: list[Text | str] = [message]
        """The status line's text, in pages of the lines it has."""
        self.page = 0
        """The page of it on show."""
        self.shown_page: Text | str | None = None
        """The page on the screen now."""

    @property
    def room(self) -> int:
        """Lines the status line has: as many as the board leaves at this terminal's size
        (the title and the keys lines take one each)."""
        grid, size = self.grid, self.screen.size
        return status_lines(grid.view.size, grid.label_width, size.width, size.height - 2)

    def say(self, message: str | None = None, passing: bool = False) -> None:
        """Show the notes mode and `message` (or keep the last one); a `passing` message
        goes with the next change of the board."""
        if message is not None:
            self.passing = passing
            message = in_ascii(message) if self.ascii else message
        self.show(self.grid.notes_mode, self.room, message)

    def after_move(self, message: str | None, board_changed: bool) -> None:
        """Say what a move said; a move that changed the board and said nothing ends a
        passing message."""
        if message is not None:
            self.say(message)
        elif board_changed and self.passing:
            self.say("")

    def show(self, notes: bool, room: int, message: str | None = None) -> None:
        """Show the notes mode and `message` (or keep the last one) in `room` lines."""
        if message is not None:
            self.message = message
            self.page = 0
        self.set_class(notes, "-notes")
        if self.styles.height is None or self.styles.height.value != room:
            self.styles.height = room
        mode = " NOTES ON " if notes else " notes off "
        bar = "|" if self.ascii else "│"
        # A message may hold a path or a file's text: controls are shown, never obeyed.
        self.pages = self.paged(f"{mode}{bar} {shown(self.message)}", room)
        self.page %= len(self.pages)
        self.show_page()

    def show_page(self) -> None:
        page = self.pages[self.page]
        if page != self.shown_page:
            self.shown_page = page
            self.update(page, layout=False)

    def paged(self, text: str, room: int) -> list[Text | str]:
        """`text` in pages of `room` lines of the screen's width; each page of a text
        that needs more than one ends saying how to see the next."""
        width = self.screen.size.width
        console = self.app.console
        if not width or len(Text(text).wrap(console, width)) <= room:
            return [text]
        lines = Text(text).wrap(console, max(1, width - len(MORE)))
        pages = [lines[i : i + room] for i in range(0, len(lines), room)]
        result: list[Text | str] = []
        for i, page in enumerate(pages, 1):
            page[-1].rstrip()
            page[-1].append(f" (m: {'more' if i < len(pages) else 'again'} {i}/{len(pages)})",
                            "bold")
            result.append(Text("\n").join(page))
        return result

    @property
    def paging(self) -> bool:
        """Whether the message has more than one page."""
        return len(self.pages) > 1

    def more(self) -> None:
        """Show the next page (the first after the last)."""
        self.page = (self.page + 1) % len(self.pages)
        self.show_page()
