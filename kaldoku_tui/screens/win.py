"""The win screen: the time, how much help was used, the player's record, the puzzle's
share code, a daily puzzle's result line to share, and a replay of the game."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Label

from kaldoku_tui.engine.codes import share_code
from kaldoku_tui.engine.daily import daily_of, result_line, utc_day
from kaldoku_tui.engine.puzzle import Puzzle, PuzzleError
from kaldoku_tui.session.game import MoveError, Session, clock_text
from kaldoku_tui.session.store import Store, StoreError
from kaldoku_tui.terminal import in_ascii


def sharing(session: Session, store: Store) -> dict[str, Any]:
    """What the win screen shows of a won `session` besides its record: the share code,
    the result line of a daily puzzle (with the streak when the day counts for one),
    and the game's id in `store` to replay it (None when it was not kept)."""
    day = daily_of(session.puzzle)
    result = None
    if day is not None:
        counted = day in store.daily_days()
        result = result_line(day, clock_text(session.elapsed), sum(session.help.values()),
                             store.streaks(utc_day()).current if counted else None)
    return {"puzzle": session.puzzle, "code": share_code(session.puzzle), "result": result,
            "game_id": getattr(session.journal, "game_id", None)}


def won(session: Session, store: Store, ascii: bool = False) -> WinScreen:
    """The win screen of `session`, just won: its time, the help used, the record of its
    kind of game (when statistics are kept) and what there is to share; practice
    shows only its time and help, as it counts nowhere."""
    if session.practice:
        summary = f"{session.title} in {clock_text(round(session.elapsed, 1))}"
        return WinScreen(in_ascii(summary) if ascii else summary,
                         f"Help used: {session.help_summary()}",
                         "Practice: counted nowhere (no record, streak or leaderboard).",
                         ascii=ascii, puzzle=session.puzzle)
    record = store.record(session.kind)
    seconds = round(session.elapsed, 1)  # as the store keeps it, so the two times agree
    best = f", best without help {clock_text(record.best)}" if record.best is not None else ""
    news = ("New best time! " if not session.aided and record.best is not None
            and record.best >= seconds else "")
    line = f"{news}Won {record.won} of {record.played} played{best}." if store.saving else None
    kind = session.kind.describe()
    summary = f"{in_ascii(kind) if ascii else kind} in {clock_text(seconds)}"
    return WinScreen(summary, f"Help used: {session.help_summary()}", line, store=store,
                     ascii=ascii, **sharing(session, store))


class WinScreen(ModalScreen[str | None]):
    """Shown when the board is solved. Dismisses with "new", "quit" or None (look at the board)."""

    BINDINGS = [
        Binding("g,enter,y", "choose('new')", "New game"),
        Binding("escape,n", "choose(None)", "Back to the board"),
        Binding("q", "choose('quit')", "Quit"),
        Binding("r", "replay", "Replay"),
        Binding("c", "copy", "Copy the result line (a daily) or the share code"),
        Binding("d", "pdf", "Download the puzzle as a PDF (in a browser)"),
    ]

    def __init__(self, summary: str, help_used: str, record: str | None = None, *,
                 store: Store | None = None, ascii: bool = False, puzzle: Puzzle | None = None,
                 code: str | None = None, result: str | None = None,
                 game_id: int | None = None) -> None:
        super().__init__()
        self.store = store
        """Where the game is kept, to replay it."""
        self.ascii = ascii
        self.puzzle = puzzle
        """The puzzle solved, to download as a PDF (in a browser)."""
        self.summary = summary
        self.help_used = help_used
        self.record = record
        """This kind of game's record in the player's statistics, if they are kept."""
        self.code = code
        self.result = result
        """A daily puzzle's line to share (no spoiler), or None."""
        self.game_id = game_id
        """The game in the app's store, to replay; None offers no replay."""

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="win"):
            yield Label("Solved!", classes="question")
            yield Label(self.summary, id="win-time")
            yield Label(self.help_used, id="win-help")
            if self.record:
                yield Label(self.record, id="win-record")
            if self.result:
                yield Label(self.text(self.result), id="win-result", markup=False)
            if self.code:
                yield Label(f"Share code: {self.code}", id="win-code", markup=False)
            keys = ["g / Enter: new game", "n / Esc: board"]
            keys += ["r: replay"] if self.game_id is not None else []
            keys += ["c: copy"] if self.shared else []
            keys += ["d: PDF"] if self.app.is_web else []
            yield Label("  ".join(keys + ["q: quit"]), classes="keys")

    @property
    def shared(self) -> str | None:
        """What `c` copies: the daily result line, else the share code."""
        return self.result or self.code

    def text(self, text: str) -> str:
        return in_ascii(text) if self.ascii else text

    def action_choose(self, choice: str | None) -> None:
        self.dismiss(choice)

    def action_copy(self) -> None:
        """Copy what there is to share to the clipboard (OSC 52: most terminals, over SSH too)."""
        if self.shared:
            self.app.copy_to_clipboard(self.shared)
            self.notify("Copied to the clipboard (if the terminal lets programs set it).")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # A PDF to download only in a browser: at a terminal it would land in ~/Downloads.
        return self.app.is_web if action == "pdf" else True

    class PdfWanted(Message):
        """The player asks for `puzzle` as a PDF, for the browser to download."""

        def __init__(self, puzzle: Puzzle) -> None:
            super().__init__()
            self.puzzle = puzzle

    def action_pdf(self) -> None:
        if self.puzzle is not None:
            self.post_message(self.PdfWanted(self.puzzle))
        self.notify("Making the PDF: the browser downloads it.")

    def action_replay(self) -> None:
        """Watch the game again; closing the replay comes back here."""
        from kaldoku_tui.screens.replay import ReplayScreen, replay_frames

        if self.game_id is None or self.store is None:
            return
        try:
            saved = self.store.game(self.game_id)
            if saved is not None:
                self.app.push_screen(ReplayScreen(saved, replay_frames(saved), ascii=self.ascii))
        except (MoveError, PuzzleError, ValueError, StoreError) as error:
            self.notify(f"This game cannot be replayed: {error}", severity="warning")
