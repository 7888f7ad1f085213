"""The game screen: title with the clock, the board, a status line and the keys line.

It shows a Session and turns keys into its moves; the rules live in the session.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import date

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.theme import Theme

from kaldoku_tui.engine.kinds import GameKind
from kaldoku_tui.engine.puzzle import Puzzle
from kaldoku_tui.screens.clock import GameClock, board_covered
from kaldoku_tui.screens.navigation import (archive_screen, begun_daily, daily_result_screen,
                                            records_screen, unfinished_screen)
from kaldoku_tui.services import Services
from kaldoku_tui.session.game import Session, Update, clock_text
from kaldoku_tui.session.moves import AskHint, CageNotes, Check, Move, Pause, Restart, Reveal
from kaldoku_tui.session.settings import Settings
from kaldoku_tui.widgets.grid import KenKenGrid
from kaldoku_tui.widgets.hints import HintFinder
from kaldoku_tui.widgets.keys import KeyBar
from kaldoku_tui.widgets.maker import PuzzleMaker
from kaldoku_tui.widgets.status import StatusLine
from kaldoku_tui.widgets.title import TitleBar

# The screens this one opens are imported as they open: the first board waits for none.

TIP = "?: every key   o: settings (highlight row, column and cage)"
"""The status line as a game starts, unless there is news to tell."""


GAME_KEYS: list[BindingType] = [
    Binding("g", "new_game", "New", tooltip="new game: choose size, operators and difficulty"),
    Binding("G", "games", "Games", show=False,
            tooltip="unfinished games: resume one (a game left for a new one stays there)"),
    Binding("D", "archive", "Dailies", show=False,
            tooltip="daily archive: every past day's daily puzzle, which you solved, one to play"),
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
    Binding("escape", "stop_making", "Stop", tooltip="stop making the new puzzle"),
    Binding("m", "more", "More", show=False,
            tooltip="more: the next page of a long message on the status line"),
    Binding("question_mark,f1", "help", "Help", tooltip="this help"),
    Binding("q", "quit", "Quit", tooltip="quit (the game is saved)"),
]
"""The game screen's keys (the board's are the grid's); their tooltips are the help
screen's and the key bar's words."""


PLAY_BINDINGS = [
    binding for binding in (*KenKenGrid.BINDINGS, *GAME_KEYS)
    if isinstance(binding, Binding)
    and binding.action.partition("(")[0] not in ("new_game", "pause", "records", "settings",
                                                 "stop_making", "more", "help", "quit")
]
"""The bindings of moves, which a pause or the game's end turns off: pressed then, they say why."""
PLAY_KEYS = frozenset(key.strip() for binding in PLAY_BINDINGS for key in binding.key.split(","))
PLAY_ACTIONS = frozenset(binding.action for binding in PLAY_BINDINGS)


class GameScreen(Screen):
    """One game of KenKen at a time."""

    BINDINGS = GAME_KEYS

    def __init__(self, session: Session, services: Services, *, notice: str | None = None) -> None:
        super().__init__()
        self.session = session
        self.services = services
        self.grid = KenKenGrid(session.board.view(), ascii=services.ascii, play=self.play, id="grid")
        self.status = StatusLine(notice or TIP, self.grid, ascii=services.ascii)
        self.status.passing = notice is None
        self.maker = PuzzleMaker(services.bank)
        self.hints = HintFinder()
        self.clock = GameClock(session, services)

    # Building.

    def compose(self) -> ComposeResult:
        ascii = self.services.ascii
        yield TitleBar(self.app.title, ascii=ascii)
        yield self.grid
        yield self.status
        yield KeyBar(ascii=ascii)
        yield self.maker
        yield self.hints

    @property
    def title_bar(self) -> TitleBar:
        return self.query_one(TitleBar)

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, self.keep_theme)
        self.app.screen_change_signal.subscribe(self, self.screens_changed)
        self.apply_settings()
        self.grid.cursor = self.services.kept_cursor(self.session) or (0, 0)
        self.watch(self.grid, "notes_mode", lambda _: self.show_status(), init=False)
        self.watch(self.grid, "cursor", self.clock.cursor_moved, init=False)
        self.set_interval(1.0, self.tick)
        self.show_time()
        self.show_status()
        self.grid.focus()
        self.show_daily_result()

    def show_daily_result(self) -> None:
        """A daily played already shows how it went before its practice board."""
        result = daily_result_screen(self.session, self.services)
        if result is not None:
            self.app.push_screen(result, self.after_win)

    # Playing: every key makes its move at once, in the order typed (the grid's too);
    # what changed comes back to be shown.

    def action_check(self) -> None:
        self.play(Check())

    def action_pause(self) -> None:
        self.play(Pause())

    def play(self, move: Move) -> None:
        self.show(self.session.apply(move))

    def show(self, update: Update) -> None:
        """Show what a move changed."""
        session, grid = self.session, self.grid
        if update.board:
            grid.view = session.board.view()
        grid.marked = session.marked
        grid.hinted = session.hinted
        grid.show_board = not session.paused
        if update.search is not None:
            self.hints.find(update.search, update.version)
        self.status.after_move(update.message, update.board)
        self.show_time()
        self.refresh_bindings()
        if update.ended == "won":
            self.win()

    def on_key(self, event: events.Key) -> None:
        # Before the bindings (checked once the key reaches the app): a move's key that is
        # off says why, and goes no further (Tab would move the focus off the board).
        active = self.active_bindings.get(event.key)
        if event.key not in PLAY_KEYS or active is not None and active.enabled and (
                active.node in (self, self.grid) and active.binding.action in PLAY_ACTIONS):
            return
        why = self.session.refusal(Check())
        if why:
            self.show_status(why, passing=True)
            event.stop()

    def on_ken_ken_grid_fits(self, message: KenKenGrid.Fits) -> None:
        self.cover("small", not message.fits)

    def screens_changed(self, _screen: Screen) -> None:
        self.cover("screen", board_covered(self))

    def cover(self, reason: str, on: bool) -> None:
        """The board is hidden for `reason` (a dialog, a small terminal), or no longer."""
        self.session.cover(reason, on)
        self.show_time()

    def tick(self) -> None:
        making = self.maker.progress()
        if making:
            self.show_status(making)
        if not self.session.clock.running:
            return
        self.show_time()
        notice = self.clock.keep_due()
        if notice:
            self.show_status(notice)

    def on_unmount(self) -> None:
        # Unmount comes before the driver closes, and a driver stuck closing (a hung-up
        # terminal) can leave only the signal watchdog to end the process.
        self.clock.keep()

    # Hints: looked for in a worker, on a copy of the board.

    def on_hint_finder_slow(self) -> None:
        if self.session.hint_searching:
            self.show_status("Looking for a hint…")

    def on_hint_finder_found(self, message: HintFinder.Found) -> None:
        search = message.search
        self.show(self.session.hint_found(search.hint, message.version, search.gave_up))

    def action_hint(self) -> None:
        self.play(AskHint())

    # The title and status lines.

    def show_time(self) -> None:
        self.title_bar.show(self.session.title, self.clock.time)

    @property
    def message(self) -> str:
        """What the status line says."""
        return self.status.message

    def show_status(self, message: str | None = None, passing: bool = False) -> None:
        """Show the notes mode and `message` (or keep the last one) on the status line;
        a `passing` message goes with the next change of the board."""
        self.status.say(message, passing)

    def action_more(self) -> None:
        self.status.more()

    def on_resize(self) -> None:
        self.show_status()

    # Ending a game.

    def win(self) -> None:
        from kaldoku_tui.screens.win import won

        self.show_status(f"Solved in {clock_text(round(self.session.elapsed, 1))}. g: new game")
        self.app.push_screen(won(self.session, self.services.store, self.services.ascii),
                             self.after_win)

    def after_win(self, choice: str | None) -> None:
        if choice == "new":
            self.action_new_game()
        elif choice == "archive":
            self.action_archive()
        elif choice == "quit":
            self.app.exit()

    # Actions.

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "stop_making":
            return self.maker.making is not None  # hidden, not dimmed, while nothing is made
        if action == "more":
            return self.status.paging
        return None if self.session.action_off(action) else True

    def action_new_game(self) -> None:
        from kaldoku_tui.screens.dialogs import NewGameDialog

        self.app.push_screen(NewGameDialog(self.session.kind, ascii=self.services.ascii,
                                           leaving=leaving_words(self.session)), self.start_kind)

    def action_games(self) -> None:
        """The unfinished games, to resume one."""
        self.app.push_screen(unfinished_screen(self.session, self.services), self.resume_game)

    def action_archive(self) -> None:
        """The daily archive, to play a past day's daily puzzle."""
        self.app.push_screen(archive_screen(self.services), self.play_daily)

    def play_daily(self, day: date | None) -> None:
        """Play `day`'s daily puzzle: the unfinished game of it if there is one."""
        if day is None:
            return
        begun = begun_daily(self.services, day)
        if begun is not None:
            self.resume_game(begun)
        else:
            self.app.start_daily(day)  # type: ignore[attr-defined]

    def resume_game(self, game_id: int | None) -> None:
        if game_id is not None:
            self.play_session(*self.services.switch_to(self.session, game_id))

    def start_kind(self, kind: GameKind | None) -> None:
        """Begin a game of `kind`: at once from the bank, else after making one."""
        if kind is None:
            return
        puzzle = self.maker.start(kind)
        if puzzle is not None:
            self.begin(kind, puzzle)
        else:
            self.show_status(self.maker.progress())
            self.refresh_bindings()

    def on_puzzle_maker_made(self, message: PuzzleMaker.Made) -> None:
        self.refresh_bindings()
        self.begin(message.kind, message.puzzle)

    def on_puzzle_maker_failed(self, message: PuzzleMaker.Failed) -> None:
        self.refresh_bindings()
        self.show_status(message.why)

    def action_stop_making(self) -> None:
        self.maker.stop()
        self.refresh_bindings()
        self.show_status("Stopped making the new puzzle: this game goes on as it was.")

    def begin(self, kind: GameKind, puzzle: Puzzle) -> None:
        """Leave this game (it counts as played if it was) and play `puzzle`."""
        self.play_session(*self.services.next_game(self.session, puzzle, kind))

    def play_session(self, session: Session, news: str) -> None:
        """Play `session` from now on (a new game, or one resumed); say `news`."""
        self.session = session
        self.clock.follow(session)
        # One frame for the new board, its status lines and title (no torn frame between).
        with self.app.batch_update():
            self.grid.view = self.session.board.view()
            self.grid.cursor = self.services.kept_cursor(self.session) or (0, 0)
            self.apply_settings()
            self.grid.focus()
            self.show(Update(message=news))
        self.show_daily_result()

    def action_restart(self) -> None:
        self.confirm("Restart this puzzle from an empty board?", Restart())

    def action_reveal(self) -> None:
        self.confirm("Give up and reveal the solution?", Reveal())

    def confirm(self, question: str, move: Move) -> None:
        """Make `move` if the player says yes to `question`."""
        from kaldoku_tui.screens.dialogs import ConfirmDialog

        def answered(yes: bool | None) -> None:
            if yes:
                self.play(move)

        self.app.push_screen(ConfirmDialog(question), answered)

    def action_inspect(self) -> None:
        from kaldoku_tui.engine.hints import cage_facts
        from kaldoku_tui.screens.inspector import InspectorScreen

        facts = cage_facts(self.session.board, self.grid.cursor)

        def closed(apply: bool | None) -> None:
            self.session.cover("dialog", False)  # before this screen hears it is back
            if apply and facts.combo_notes:
                self.play(CageNotes.writing(facts.combo_notes))

        self.app.push_screen(InspectorScreen(facts, ascii=self.services.ascii,
                                             cage=self.grid.cage_region(facts.cage)), closed)

    def action_records(self) -> None:
        self.app.push_screen(records_screen(self.session, self.services))

    def action_settings(self) -> None:
        from kaldoku_tui.screens.settings import SettingsScreen

        self.app.push_screen(SettingsScreen(self.services.settings, ascii=self.services.ascii),
                             self.change_settings)

    def change_settings(self, settings: Settings | None) -> None:
        if settings is not None and settings != self.services.settings:
            notice = self.services.change_settings(settings)
            self.apply_settings()
            self.show_status(notice or "Settings saved.", passing=not notice)

    def keep_theme(self, theme: Theme) -> None:
        """Keep a theme picked in the palette for the next games."""
        self.change_settings(replace(self.services.settings, theme=theme.name))

    def apply_settings(self) -> None:
        """Play by the app's settings."""
        settings = self.services.settings
        self.session.play_by(settings)
        self.show_time()
        self.grid.look_by(settings)

    def action_help(self) -> None:
        from kaldoku_tui.screens.help import HelpScreen

        self.app.push_screen(HelpScreen(self.key_sections(), ascii=self.services.ascii))

    def key_sections(self) -> list[tuple[str, list[Binding]]]:
        """Every key of the game, in sections, for the help screen."""
        from kaldoku_tui.screens.help import key_sections

        return key_sections(self.session.board.size, self.BINDINGS, self.app.BINDINGS)

    def action_quit(self) -> None:
        self.app.exit()


def leaving_words(session: Session) -> str:
    """What a new game does to `session`, for the new-game dialog."""
    size = f"{session.board.size}×{session.board.size}"
    if session.over:
        return f"Your {size} is over: it stays in kaldoku history."
    if session.practice:
        return f"Your {size} practice is not kept."
    if not session.moved:
        return f"Your {size}, untouched, is dropped."
    return f"Your {size} in progress stays in the unfinished list (G: games)."
