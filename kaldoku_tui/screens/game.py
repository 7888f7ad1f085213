"""The game screen: header with the timer, the board, a status line and the footer.

It owns the game around the board: the clock, the help counted, saving after every
change, the win, and the new-game, restart, check and reveal actions.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Callable

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Static
from textual.worker import get_current_worker

from kaldoku_tui.bank import make_puzzle
from kaldoku_tui.engine.board import Board
from kaldoku_tui.engine.check import is_solved, mistakes
from kaldoku_tui.engine.hints import STAGES, Hint, cage_facts, hint
from kaldoku_tui.engine.kinds import GameKind
from kaldoku_tui.engine.puzzle import Puzzle, PuzzleError
from kaldoku_tui.screens.dialogs import ConfirmDialog, NewGameDialog
from kaldoku_tui.screens.help import HelpScreen
from kaldoku_tui.screens.inspector import InspectorScreen
from kaldoku_tui.screens.records import RecordsScreen
from kaldoku_tui.screens.settings import SettingsScreen
from kaldoku_tui.screens.win import WinScreen
from kaldoku_tui.settings import Settings
from kaldoku_tui.stats import record_of, records, with_game
from kaldoku_tui.terminal import in_ascii
from kaldoku_tui.widgets.grid import KenKenGrid, layouts
from kaldoku_tui.widgets.keys import KeyBar
from kaldoku_tui.widgets.title import TitleBar

if TYPE_CHECKING:
    from kaldoku_tui.app import KaldokuApp

TIP = "?: every key   o: settings (highlight row, column and cage)"
"""The status line as a game starts, unless there is news to tell."""

SLOW_HINT = 0.3
"""Seconds a hint may take before the status line says one is being looked for."""

SAVE_EVERY = 10.0
"""Seconds of play between saves of the clock when the board does not change."""

NO_HELP = {"checks": 0, "reveals": 0, "hints": 0}


def clock_text(seconds: float) -> str:
    """Elapsed time as m:ss, or h:mm:ss from an hour on."""
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02}:{secs:02}" if hours else f"{minutes}:{secs:02}"


def help_summary(help_used: dict[str, int]) -> str:
    """The help used, in words: 'no help', '2 checks, 1 reveal'."""
    words = [
        f"{n} {what if n == 1 else what + 's'}"
        for what, n in (("check", help_used["checks"]), ("hint", help_used["hints"]),
                        ("reveal", help_used["reveals"]))
        if n
    ]
    return ", ".join(words) or "no help"


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
        Binding("c", "check", "Check",
                tooltip="check so far: mark the digits that differ from the solution (help)"),
        Binding("v", "reveal", "Reveal", show=False,
                tooltip="reveal the solution: give up (asks first)"),
        Binding("p", "pause", "Pause", show=False,
                tooltip="pause: hide the board, stop the clock; again to go on"),
        Binding("s", "records", "Stats", show=False,
                tooltip="statistics: games won and best times, per kind of game"),
        Binding("o", "settings", "Settings", show=False,
                tooltip="settings: clearing notes when a digit is placed, shading the cursor's row, "
                "column and cage, lighting their numbers"),
        Binding("question_mark,f1", "help", "Help", tooltip="this help"),
        Binding("q", "quit", "Quit", tooltip="quit (the game is saved)"),
    ]

    def __init__(
        self,
        board: Board,
        kind: GameKind,
        *,
        elapsed: float = 0.0,
        help_used: dict[str, int] | None = None,
        notice: str | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__()
        self.clock = clock
        """Seconds from any fixed start: the game's timer (tests stop it). Kept here, not
        read from the app, so the game can still be saved once the app has ended."""
        self.board = board
        self.kind = kind
        self.elapsed_before = elapsed
        """Seconds played before the clock last started."""
        self.started: float | None = None
        """When the clock last started (by self.clock), None while it is stopped."""
        self.help_used = dict(NO_HELP, **(help_used or {}))
        self.finished = False
        """Won or revealed: the board no longer counts or saves."""
        self.message = notice or TIP
        self.saved_at = elapsed
        self.hint: Hint | None = None
        """The hint being given for the board as it stands, None before the first press."""
        self.hint_stage = 0
        """How many presses of the hint key it has had (0 to 2; the third makes the step)."""
        self.hint_presses = 0
        """Presses of the hint key waiting for the hint being looked for (in a worker: it
        can take seconds on a puzzle with large cages); none while no search runs."""
        self.hint_search = 0
        """Counts the board changes that drop a search: one begun before has its answer
        dropped."""

    # Building and the clock.

    def compose(self) -> ComposeResult:
        yield TitleBar(self.app.title, ascii=self.app.ascii)
        yield KenKenGrid(self.board, ascii=self.app.ascii, id="grid")
        yield Static(id="status", markup=False)
        yield KeyBar(ascii=self.app.ascii)

    @property
    def grid(self) -> KenKenGrid:
        return self.query_one(KenKenGrid)

    @property
    def title_bar(self) -> TitleBar:
        return self.query_one(TitleBar)

    @property
    def paused(self) -> bool:
        return not self.grid.show_board

    def on_mount(self) -> None:
        self.apply_settings()
        self.watch(self.grid, "notes_mode", lambda _: self.show_status(), init=False)
        self.set_interval(1.0, self.tick)
        self.start_clock()
        self.show_status()
        self.grid.focus()

    def elapsed(self) -> float:
        """Seconds played on this puzzle."""
        running = self.clock() - self.started if self.started is not None else 0.0
        return self.elapsed_before + running

    def start_clock(self) -> None:
        if self.started is None and not self.finished:
            self.started = self.clock()
        self.show_time()

    def stop_clock(self) -> None:
        self.elapsed_before = self.elapsed()
        self.started = None
        self.show_time()

    def tick(self) -> None:
        if self.started is None:
            return
        self.show_time()
        if self.elapsed() - self.saved_at >= SAVE_EVERY:
            self.save()

    def show_time(self) -> None:
        state = " (paused)" if self.started is None and not self.finished else ""
        self.title_bar.show(self.text(self.kind.describe()), f"{clock_text(self.elapsed())}{state}")

    def text(self, text: str) -> str:
        """`text` as this terminal shows it (ASCII mode or not)."""
        return in_ascii(text) if self.app.ascii else text

    def show_status(self, message: str | None = None) -> None:
        """Show the notes mode and `message` (or keep the last one) on the status line."""
        if message is not None:
            self.message = self.text(message)
        notes = " NOTES ON " if self.grid.notes_mode else " notes off "
        bar = "|" if self.app.ascii else "│"
        status = self.query_one("#status", Static)
        status.set_class(self.grid.notes_mode, "-notes")
        room = self.status_room()
        status.styles.max_height = room
        text, height = self.fit_status(f"{notes}{bar} {self.message}", room)
        # A layout repaints the whole screen: only for a status line that grows or shrinks.
        status.update(text, layout=height != status.size.height)

    def fit_status(self, text: str, room: int) -> tuple[Text | str, int]:
        """`text` cut to `room` lines of the screen's width, ending in … when cut, and
        the lines it takes."""
        width = self.size.width
        lines = Text(text).wrap(self.app.console, width) if width else []
        if len(lines) <= room:
            return text, max(1, len(lines))
        mark = "..." if self.app.ascii else "…"
        last = lines[room - 1]
        last.rstrip()
        last.truncate(width - len(mark))
        last.append(mark)
        return Text("\n").join(lines[:room]), room

    def status_room(self) -> int:
        """Lines the status line may take: a long hint wraps, and the board gives up rows
        for it (smaller cells, no rulers) only while it still fits."""
        grid = self.grid
        status = self.query_one("#status", Static)
        rows = grid.size.height + status.outer_size.height
        smallest = layouts(grid.board.size, grid.label_width)[-1]
        return max(1, rows - smallest.height) if smallest.width <= grid.size.width else 1

    def on_resize(self) -> None:
        self.show_status()

    # Saving.

    def game_dict(self) -> dict[str, Any]:
        return {"board": self.board.to_dict(), "elapsed": round(self.elapsed(), 1),
                "help": dict(self.help_used)}

    def save(self) -> None:
        """Save the game in progress (not one that is over)."""
        store = self.app.store
        if store is None or self.finished:
            return
        self.saved_at = self.elapsed()
        notice = store.save_game(self.game_dict())
        if notice:
            self.show_status(notice)

    def end_game(self) -> None:
        """The game is over (won or given up): stop the clock and forget the save."""
        self.finished = True
        self.stop_clock()
        if self.app.store is not None:
            self.app.store.clear_game()

    # The board.

    def on_ken_ken_grid_board_changed(self, message: KenKenGrid.BoardChanged) -> None:
        self.forget_hint()
        if self.finished:
            return
        self.grid.marked = frozenset()
        if is_solved(self.board.puzzle, self.board.grid):
            self.win()
        else:
            self.save()

    def win(self) -> None:
        self.end_game()
        self.show_status(f"Solved in {clock_text(self.elapsed())}. g: new game")
        record = self.count_game(won=True)
        summary = f"{self.text(self.kind.describe())} in {clock_text(self.elapsed())}"
        self.app.push_screen(WinScreen(summary, f"Help used: {help_summary(self.help_used)}", record),
                             self.after_win)

    def count_game(self, won: bool) -> str | None:
        """Count the game just finished in the player's statistics; what they now say
        of this kind of game, in a line (None when nothing is saved). A stats file set
        aside or not written is told on the status line (callers say their word first)."""
        store = self.app.store
        if store is None:
            return None
        stats, notice = store.load_stats()
        before = record_of(stats, self.kind)
        stats = with_game(stats, self.kind, won, self.elapsed(), helped=any(self.help_used.values()))
        notice = store.save_stats(stats) or notice
        if notice:
            self.show_status(notice)
        after = record_of(stats, self.kind)
        best = f", best without help {clock_text(after.best)}" if after.best is not None else ""
        news = "New best time! " if after.best != before.best else ""
        return f"{news}Won {after.won} of {after.finished} played{best}."

    def after_win(self, choice: str | None) -> None:
        if choice == "new":
            self.action_new_game()
        elif choice == "quit":
            self.app.exit()

    # Actions.

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if self.paused and action in ("check", "reveal", "restart", "hint", "inspect"):
            return None
        if self.finished and action in ("check", "reveal", "pause", "hint"):
            return None
        return True

    def action_new_game(self) -> None:
        self.app.push_screen(NewGameDialog(self.kind), self.start_kind)

    def start_kind(self, kind: GameKind | None) -> None:
        """Begin a game of `kind`: at once from the bank, else after generating one."""
        if kind is None:
            return
        puzzle = self.app.bank.take(kind)
        if puzzle is not None:
            self.begin(kind, puzzle)
        else:
            self.show_status(f"Generating a {self.text(kind.describe())} puzzle…")
            self.generate(kind)
        self.app.refill_bank(kind)

    @work(thread=True, exclusive=True, group="generate", exit_on_error=False)
    def generate(self, kind: GameKind) -> None:
        try:
            puzzle = make_puzzle(kind)
        except PuzzleError as error:
            self.app.call_from_thread(self.show_status, f"Cannot make that puzzle: {error}")
            return
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self.begin, kind, puzzle)

    def begin(self, kind: GameKind, puzzle: Puzzle) -> None:
        """Play `puzzle` from a clean board and a clock at zero."""
        self.board = Board(puzzle)
        self.kind = kind
        self.finished = False
        self.help_used = dict(NO_HELP)
        self.elapsed_before, self.started, self.saved_at = 0.0, None, 0.0
        grid = self.grid
        grid.show_board = True
        grid.set_board(self.board)
        self.apply_settings()
        grid.focus()
        self.forget_hint()
        self.start_clock()
        self.save()
        self.show_status(f"New {self.text(kind.describe())} puzzle.")
        self.refresh_bindings()

    def action_restart(self) -> None:
        self.app.push_screen(ConfirmDialog("Restart this puzzle from an empty board?"),
                             self.restart)

    def restart(self, yes: bool | None) -> None:
        if not yes:
            return
        self.board.restart()
        self.finished = False
        self.elapsed_before, self.started, self.saved_at = 0.0, None, 0.0
        self.grid.marked = frozenset()
        self.grid.refresh_board()
        self.forget_hint()
        self.start_clock()
        self.save()
        self.show_status("Restarted (u undoes it).")
        self.refresh_bindings()

    def action_hint(self) -> None:
        """Give the next press of the hint for this board; the last one makes its step.
        The hint is looked for in a worker; presses made meanwhile count once it comes."""
        if self.hint is not None:
            self.next_hint_stage()
            return
        self.hint_presses += 1
        if self.hint_presses == 1:
            self.set_timer(SLOW_HINT, self.tell_searching)
            self.find_hint(self.board.copy(), self.hint_search)

    def tell_searching(self) -> None:
        if self.hint_presses:
            self.show_status("Looking for a hint…")

    @work(thread=True, group="hint", exit_on_error=False)
    def find_hint(self, board: Board, search: int) -> None:
        self.app.call_from_thread(self.hint_found, hint(board), search)

    def hint_found(self, found: Hint | None, search: int) -> None:
        if search != self.hint_search:
            return  # the board changed since: a new press will look again
        presses, self.hint_presses = self.hint_presses, 0
        if found is None:
            self.show_status("No hint: no step the hints know follows from this board.")
            return
        self.hint = found
        for _ in range(presses):
            if self.hint is found:
                self.next_hint_stage()

    def next_hint_stage(self) -> None:
        """One press of the hint key, the hint for the board being known."""
        self.hint_stage += 1
        if self.hint_stage == 2:
            self.help_used["hints"] += 1
            self.save()
        found = self.hint
        if self.hint_stage == STAGES:
            self.forget_hint()
            self.board.change(found.changes)
            self.grid.board_changed()
            self.show_status(f"{found.text(STAGES)} (u undoes it)")
            return
        self.grid.hinted = found.highlight(self.hint_stage)
        more = "t: why" if self.hint_stage == 1 else "t: make it"
        self.show_status(f"Hint {self.hint_stage}/{STAGES}: {found.text(self.hint_stage)} ({more})")

    def forget_hint(self) -> None:
        """The board changed: the next hint starts afresh, and what this one showed goes."""
        if self.hint_stage or self.hint_presses:
            self.show_status("")
        self.hint, self.hint_stage, self.hint_presses = None, 0, 0
        self.hint_search += 1
        self.grid.hinted = frozenset()

    def action_inspect(self) -> None:
        facts = cage_facts(self.board, self.grid.cursor)
        self.app.push_screen(InspectorScreen(facts, ascii=self.app.ascii))

    def action_check(self) -> None:
        wrong = mistakes(self.board.puzzle, self.board.grid)
        self.help_used["checks"] += 1
        self.grid.marked = frozenset(wrong)
        if wrong:
            self.show_status(f"{len(wrong)} digit{'s' if len(wrong) > 1 else ''} "
                             "differ from the solution (marked).")
        else:
            self.show_status("No mistakes so far.")
        self.save()

    def action_reveal(self) -> None:
        self.app.push_screen(ConfirmDialog("Give up and reveal the solution?"), self.reveal)

    def reveal(self, yes: bool | None) -> None:
        if not yes:
            return
        self.board.reveal()
        self.help_used["reveals"] += 1
        self.grid.marked = frozenset()
        self.grid.refresh_board()
        self.end_game()
        self.show_status("Solution revealed. g: new game")
        self.count_game(won=False)
        self.refresh_bindings()

    def action_pause(self) -> None:
        grid = self.grid
        grid.show_board = not grid.show_board
        if grid.show_board:
            self.start_clock()
            self.show_status("")
        else:
            self.stop_clock()
            self.save()
            self.show_status("Paused: the board is hidden. p to go on.")
        self.refresh_bindings()

    def action_records(self) -> None:
        store = self.app.store
        stats, notice = store.load_stats() if store is not None else (None, None)
        if notice:
            self.show_status(notice)
        rows = [("Kind of game", "Won", "Played", "Best without help")] + [
            (self.text(kind.describe()), str(record.won), str(record.finished),
             clock_text(record.best) if record.best is not None else "-")
            for kind, record in records(stats)
        ]
        if len(rows) == 1:
            table = "No game finished yet." if store is not None else "Statistics are not kept."
        else:
            widths = [max(len(row[i]) for row in rows) for i in range(4)]
            table = "\n".join(f"{k:<{widths[0]}}  {w:>{widths[1]}}  {p:>{widths[2]}}  {b}"
                              for k, w, p, b in rows)
        self.app.push_screen(RecordsScreen(table))

    def action_settings(self) -> None:
        self.app.push_screen(SettingsScreen(self.app.settings), self.change_settings)

    def change_settings(self, settings: Settings | None) -> None:
        if settings is None or settings == self.app.settings:
            return
        self.app.settings = settings
        self.apply_settings()
        store = self.app.store
        notice = store.save_settings(settings.to_dict()) if store is not None else None
        self.show_status(notice or "Settings saved.")

    def apply_settings(self) -> None:
        """Play by the app's settings (they win over what a saved board says)."""
        settings = self.app.settings
        self.board.auto_clean_notes = settings.auto_clean_notes
        self.grid.highlight_peers = settings.shade_peers
        self.grid.light_numbers = settings.light_numbers

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen(self.app.key_sections()))

    def action_quit(self) -> None:
        self.app.exit()
