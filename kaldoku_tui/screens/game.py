"""The game screen: title with the clock, the board, a status line and the keys line.

It shows a Session and turns keys into its moves; the rules live in the session.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import TYPE_CHECKING, Callable, Iterator, NamedTuple

from rich.text import Text
from textual import work
from textual.app import ComposeResult, SystemCommand
from textual.binding import Binding
from textual.screen import Screen
from textual.theme import Theme
from textual.widgets import Static

from kaldoku_tui.bank import make_puzzle
from kaldoku_tui.engine.generator import Stopped
from kaldoku_tui.engine.board import Board
from kaldoku_tui.engine.hints import HintSearch, cage_facts, hint_within
from kaldoku_tui.engine.kinds import GameKind
from kaldoku_tui.engine.puzzle import Puzzle, PuzzleError
from kaldoku_tui.screens.dialogs import ConfirmDialog, NewGameDialog
from kaldoku_tui.screens.help import HelpScreen
from kaldoku_tui.screens.inspector import InspectorScreen
from kaldoku_tui.screens.settings import SettingsScreen
from kaldoku_tui.screens.win import WinScreen, sharing
from kaldoku_tui.session.game import Move, Session, Update, clock_text
from kaldoku_tui.session.settings import Settings
from kaldoku_tui.terminal import in_ascii, shown
from kaldoku_tui.widgets.grid import KenKenGrid, status_lines
from kaldoku_tui.widgets.keys import KeyBar
from kaldoku_tui.widgets.title import TitleBar

if TYPE_CHECKING:
    from kaldoku_tui.app import KaldokuApp

TIP = "?: every key   o: settings (highlight row, column and cage)"
"""The status line as a game starts, unless there is news to tell."""

SLOW_HINT = 0.3
"""Seconds a hint may take before the status line says one is being looked for."""

CURSOR_KEY = "cursor"
"""The settings table's key of the cursor of the game in progress."""

SAVE_EVERY = 10.0
"""Seconds of play between saves of the clock when the board does not change."""


class Making(NamedTuple):
    """A new puzzle being made: its kind and when it was asked for (time.monotonic)."""

    kind: GameKind
    since: float


class GameScreen(Screen):
    """One game of KenKen at a time."""

    app: KaldokuApp

    BINDINGS = [
        Binding("g", "new_game", "New", tooltip="new game: choose size, operators and difficulty"),
        Binding("X", "restart", "Restart", show=False,
                tooltip="restart this puzzle from an empty board (asks first)"),
        Binding("t", "hint", "Hint",
                tooltip="hint: where to look; again: why; a third time: make the step "
                "(help from the second press)"),
        Binding("i", "inspect", "Cage",
                tooltip="cage inspector: what still fits the cursor's cage, the digits "
                "around it, its notes"),
        Binding("c", "play('check')", "Check",
                tooltip="check so far: mark the digits that differ from the solution (help)"),
        Binding("v", "reveal", "Reveal", show=False,
                tooltip="reveal the solution: give up (asks first)"),
        Binding("p", "play('pause')", "Pause", show=False,
                tooltip="pause: hide the board, stop the clock; again to go on"),
        Binding("s", "records", "Stats", show=False,
                tooltip="statistics: games won and best times, per kind of game"),
        Binding("o", "settings", "Settings", show=False,
                tooltip="settings: clearing notes when a digit is placed, shading the cursor's row, "
                "column and cage, lighting their numbers"),
        Binding("escape", "stop_making", "Stop", tooltip="stop making the new puzzle"),
        Binding("m", "more", "More", show=False,
                tooltip="more: the next page of a long message on the status line"),
        Binding("question_mark,f1", "help", "Help", tooltip="this help"),
        Binding("q", "quit", "Quit", tooltip="quit (the game is saved)"),
    ]

    def __init__(self, session: Session, *, notice: str | None = None) -> None:
        super().__init__()
        self.session = session
        self.message = notice or TIP
        self.passing = notice is None
        """Whether the status line says something of this screen's that goes with the
        next change of the board (the tip, "Settings saved.")."""
        self.pages: list[Text | str] = [self.message]
        """The status line's text, in pages of the lines it has."""
        self.page = 0
        """The page of it on show."""
        self.shown_page: Text | str | None = None
        """The page the status line shows now."""
        self.kept_cursor: dict | None = None
        """The cursor as last kept in the store."""
        self.cursor: tuple[int, int] = (0, 0)
        """Where the grid's cursor is (known here after the grid is gone, as the app ends)."""
        self.saved_at = session.elapsed
        self.making: Making | None = None
        """The new puzzle being made in a worker, if one is."""

    # Building.

    def compose(self) -> ComposeResult:
        yield TitleBar(self.app.title, ascii=self.app.ascii)
        yield KenKenGrid(self.session.board.view(), ascii=self.app.ascii, id="grid")
        yield Static(id="status", markup=False)
        yield KeyBar(ascii=self.app.ascii)

    @property
    def grid(self) -> KenKenGrid:
        return self.query_one(KenKenGrid)

    @property
    def title_bar(self) -> TitleBar:
        return self.query_one(TitleBar)

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, self.keep_theme)
        self.apply_settings()
        self.restore_cursor()
        self.watch(self.grid, "notes_mode", lambda _: self.show_status(), init=False)
        self.set_interval(1.0, self.tick)
        self.show_time()
        self.show_status()
        self.grid.focus()

    def text(self, text: str) -> str:
        """`text` as this terminal shows it (ASCII mode or not)."""
        return in_ascii(text) if self.app.ascii else text

    # Playing: moves go to the session, what changed comes back to be shown.

    def on_ken_ken_grid_intent(self, message: KenKenGrid.Intent) -> None:
        self.play(message.move.kind, message.move)

    def action_play(self, kind: str) -> None:
        self.after_typed(self.play, kind)

    def after_typed(self, callback: Callable[..., object], *args: object) -> None:
        """Run `callback` once the digits typed before this key are played (a paste, keys
        over a slow link): they come up from the grid as messages, so this waits a turn of
        the grid's queue, which sends them up, then one of this screen's, which plays them."""
        self.grid.call_later(self.call_later, callback, *args)

    def play(self, kind: str, move: Move | None = None) -> None:
        self.show(self.session.apply(move or Move(kind)))

    def show(self, update: Update) -> None:
        """Show what a move changed."""
        session, grid = self.session, self.grid
        if update.board:
            grid.view = session.board.view()
        grid.marked = session.marked
        grid.hinted = session.hinted
        grid.show_board = not session.paused
        if update.search is not None:
            self.set_timer(SLOW_HINT, self.tell_searching)
            self.find_hint(update.search, update.version)
        if update.message is not None:
            self.show_status(update.message)
        elif update.board and self.passing:
            self.show_status("")
        self.show_time()
        self.refresh_bindings()
        if update.ended == "won":
            self.win()

    def on_ken_ken_grid_fits(self, message: KenKenGrid.Fits) -> None:
        self.session.cover("small", not message.fits)
        self.show_time()

    def on_screen_suspend(self) -> None:
        self.session.cover("dialog")
        self.show_time()

    def on_screen_resume(self) -> None:
        self.session.cover("dialog", False)
        self.show_time()

    def tick(self) -> None:
        self.show_making()
        session = self.session
        if not session.clock.running:
            return
        self.show_time()
        if session.elapsed - self.saved_at >= SAVE_EVERY:
            self.keep_time()

    def keep_time(self) -> None:
        """Write the time played (a move writes it too), and where the cursor is."""
        self.saved_at = self.session.elapsed
        notice = self.session.keep_time()
        self.keep_cursor()
        if notice:
            self.show_status(notice)

    # The cursor: kept in the store's settings table with its game, to be where the
    # player left it when the game is resumed.

    def keep_cursor(self) -> None:
        game = getattr(self.session.journal, "game_id", None)
        spot = {"game": game, "cell": list(self.cursor)}
        if game is not None and not self.session.over and spot != self.kept_cursor:
            self.kept_cursor = spot
            self.app.store.save_settings({CURSOR_KEY: spot})

    def restore_cursor(self) -> None:
        spot = self.app.store.settings().get(CURSOR_KEY)
        game = getattr(self.session.journal, "game_id", None)
        if not isinstance(spot, dict) or game is None or spot.get("game") != game:
            return
        cell = spot.get("cell")
        if isinstance(cell, list) and len(cell) == 2 and all(type(i) is int for i in cell):
            self.grid.cursor = (cell[0], cell[1])
            self.kept_cursor = spot

    def on_ken_ken_grid_cursor_moved(self, message: KenKenGrid.CursorMoved) -> None:
        self.cursor = message.cell

    def on_unmount(self) -> None:
        # Unmount comes before the driver closes, and a driver stuck closing (a hung-up
        # terminal) can leave only the signal watchdog to end the process.
        self.session.keep_time()
        self.keep_cursor()

    # Hints: looked for in a worker, on a copy of the board.

    def tell_searching(self) -> None:
        if self.session.hint_searching:
            self.show_status("Looking for a hint…")

    @work(thread=True, group="hint", exit_on_error=False)
    def find_hint(self, board: Board, version: int) -> None:
        self.app.call_from_thread(self.hint_found, hint_within(board), version)

    def hint_found(self, search: HintSearch, version: int) -> None:
        self.show(self.session.hint_found(search.hint, version, search.gave_up))

    def action_hint(self) -> None:
        self.action_play("hint")

    # The title and status lines.

    def show_time(self) -> None:
        session = self.session
        state = " (paused)" if session.paused and not session.over else ""
        self.title_bar.show(self.text(session.kind.describe()),
                            f"{clock_text(session.elapsed)}{state}")

    def show_status(self, message: str | None = None, passing: bool = False) -> None:
        """Show the notes mode and `message` (or keep the last one) on the status line;
        a `passing` message goes with the next change of the board."""
        if message is not None:
            self.passing = passing
            self.message = self.text(message)
            self.page = 0
        notes = " NOTES ON " if self.grid.notes_mode else " notes off "
        bar = "|" if self.app.ascii else "│"
        status = self.query_one("#status", Static)
        status.set_class(self.grid.notes_mode, "-notes")
        room = self.status_room()
        if status.styles.height is None or status.styles.height.value != room:
            status.styles.height = room
        # A message may hold a path or a file's text: controls are shown, never obeyed.
        self.pages = self.status_pages(f"{notes}{bar} {shown(self.message)}", room)
        self.page %= len(self.pages)
        self.show_page()

    def show_page(self) -> None:
        """Put the status line's page on the screen, unless it is there already (a
        repaint of the status lines is a kilobyte on the wire)."""
        page = self.pages[self.page]
        if page != self.shown_page:
            self.shown_page = page
            self.query_one("#status", Static).update(page, layout=False)

    def status_pages(self, text: str, room: int) -> list[Text | str]:
        """`text` in pages of `room` lines of the screen's width; each page of a text
        that needs more than one ends saying how to see the next."""
        width = self.size.width
        console = self.app.console
        if not width or len(Text(text).wrap(console, width)) <= room:
            return [text]
        lines = Text(text).wrap(console, max(1, width - len(" (m: again 9/9)")))
        pages = [lines[i : i + room] for i in range(0, len(lines), room)]
        result: list[Text | str] = []
        for i, page in enumerate(pages, 1):
            page[-1].rstrip()
            page[-1].append(f" (m: {'more' if i < len(pages) else 'again'} {i}/{len(pages)})",
                            "bold")
            result.append(Text("\n").join(page))
        return result

    def action_more(self) -> None:
        self.page = (self.page + 1) % len(self.pages)
        self.show_page()

    def status_room(self) -> int:
        """Lines the status line has: as many as the board leaves at this terminal's size
        (the title and the keys lines take one each)."""
        grid = self.grid
        return status_lines(grid.view.size, grid.label_width, self.size.width, self.size.height - 2)

    def on_resize(self) -> None:
        self.show_status()

    # Ending a game.

    def win(self) -> None:
        session = self.session
        store = self.app.store
        record = store.record(session.kind)
        seconds = round(session.elapsed, 1)  # as the store keeps it, so the two times agree
        best = f", best without help {clock_text(record.best)}" if record.best is not None else ""
        news = ("New best time! " if not session.aided and record.best is not None
                and record.best >= seconds else "")
        line = f"{news}Won {record.won} of {record.played} played{best}." if store.saving else None
        summary = f"{self.text(session.kind.describe())} in {clock_text(seconds)}"
        self.show_status(f"Solved in {clock_text(seconds)}. g: new game")
        self.app.push_screen(WinScreen(summary, f"Help used: {session.help_summary()}", line,
                                       **sharing(session, store)), self.after_win)

    def after_win(self, choice: str | None) -> None:
        if choice == "new":
            self.action_new_game()
        elif choice == "quit":
            self.app.exit()

    # Actions.

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "stop_making":
            return self.making is not None  # hidden, not dimmed, while nothing is made
        session = self.session
        if action == "play" and parameters == ("pause",):
            return None if session.over else True
        if action == "more":
            return len(self.pages) > 1
        if session.paused and action in ("play", "reveal", "restart", "hint", "inspect"):
            return None
        if session.over and action in ("play", "reveal", "hint"):
            return None
        return True

    def action_new_game(self) -> None:
        self.app.push_screen(NewGameDialog(self.session.kind), self.start_kind)

    def start_kind(self, kind: GameKind | None) -> None:
        """Begin a game of `kind`: at once from the bank, else after generating one."""
        if kind is None:
            return
        puzzle = self.app.bank.take(kind)
        if puzzle is not None:
            self.making = None
            self.begin(kind, puzzle)
        else:
            self.making = Making(kind, time.monotonic())
            self.show_making()
            self.generate(self.making)
            self.refresh_bindings()
        self.app.refill_bank(kind)

    def show_making(self) -> None:
        """Say, once a second, how long the puzzle being made has taken so far."""
        if self.making is not None:
            kind, since = self.making
            seconds = int(time.monotonic() - since)
            self.show_status(f"Making a {kind.describe()} puzzle… {seconds} s  (Esc: stop; "
                             "this game goes on meanwhile)")

    @work(thread=True, group="generate", exit_on_error=False)
    def generate(self, making: Making) -> None:
        """Make a puzzle of `making`'s kind; given up as soon as it is no longer wanted."""
        try:
            puzzle = make_puzzle(making.kind, stop=lambda: self.making is not making)
        except Stopped:
            return
        except PuzzleError as error:
            self.app.call_from_thread(self.made, making, None, f"Cannot make that puzzle: {error}")
            return
        self.app.call_from_thread(self.made, making, puzzle, None)

    def made(self, making: Making, puzzle: Puzzle | None, error: str | None) -> None:
        if self.making is not making:
            return  # Stopped, or another asked for since.
        self.making = None
        self.refresh_bindings()
        if puzzle is None:
            self.show_status(error)
        else:
            self.begin(making.kind, puzzle)

    def action_stop_making(self) -> None:
        self.making = None
        self.refresh_bindings()
        self.show_status("Stopped making the new puzzle: this game goes on as it was.")

    def begin(self, kind: GameKind, puzzle: Puzzle) -> None:
        """Leave this game (it counts as played if it was) and play `puzzle`."""
        notices = [self.session.leave()]
        self.session, notice = self.app.new_session(puzzle, kind)
        notices.append(notice)
        self.saved_at = 0.0
        grid = self.grid
        # One frame for the new board, its status lines and title (no torn frame between).
        with self.app.batch_update():
            grid.view = self.session.board.view()
            self.apply_settings()
            grid.focus()
            self.show(Update(message=" ".join(filter(None, notices))
                             or f"New {kind.describe()} puzzle."))

    def action_restart(self) -> None:
        self.confirm("Restart this puzzle from an empty board?", "restart")

    def action_reveal(self) -> None:
        self.confirm("Give up and reveal the solution?", "reveal")

    def confirm(self, question: str, kind: str) -> None:
        """Make a move of `kind` if the player says yes to `question`."""
        def answered(yes: bool | None) -> None:
            # The dialog is gone: its answer comes before this screen hears it is back.
            self.session.cover("dialog", False)
            if yes:
                self.play(kind)

        self.app.push_screen(ConfirmDialog(question), answered)

    def action_inspect(self) -> None:
        self.after_typed(self.open_inspector)

    def open_inspector(self) -> None:
        facts = cage_facts(self.session.board, self.grid.cursor)
        self.app.push_screen(InspectorScreen(facts, ascii=self.app.ascii,
                                             cage=self.grid.cage_region(facts.cage)))

    def action_records(self) -> None:
        # Imported when first opened: its chart library costs 46 ms of every start.
        from kaldoku_tui.screens.records import RecordsScreen

        self.app.push_screen(RecordsScreen(self.app.store.records(), saving=self.app.store.saving))

    def action_settings(self) -> None:
        self.app.push_screen(SettingsScreen(self.app.settings), self.change_settings)

    def change_settings(self, settings: Settings | None) -> None:
        if settings is None or settings == self.app.settings:
            return
        self.app.settings = settings
        self.apply_settings()
        notice = self.app.store.save_settings(settings.to_dict())
        self.show_status(notice or "Settings saved.", passing=not notice)

    def keep_theme(self, theme: Theme) -> None:
        """Keep a theme picked in the palette for the next games."""
        self.change_settings(replace(self.app.settings, theme=theme.name))

    def commands(self) -> Iterator[SystemCommand]:
        """The board's actions for the command palette (the screen's own are in the app's)."""
        def notes() -> None:
            self.grid.notes_mode = not self.grid.notes_mode

        yield SystemCommand("Undo", "Take back the last move", lambda: self.play("undo"))
        yield SystemCommand("Redo", "Make the move taken back again", lambda: self.play("redo"))
        yield SystemCommand("Notes mode", "On or off: digits then toggle pencil notes", notes)
        yield SystemCommand("Fill notes", "Note what each empty cell's row, column and cage allow",
                            lambda: self.play("fill"))
        yield SystemCommand("More", "The next page of a long message", self.action_more)

    def apply_settings(self) -> None:
        """Play by the app's settings."""
        settings = self.app.settings
        self.session.board.auto_clean_notes = settings.auto_clean_notes
        self.grid.highlight_peers = settings.shade_peers
        self.grid.light_numbers = settings.light_numbers

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen(self.app.key_sections()))

    def action_quit(self) -> None:
        self.app.exit()
