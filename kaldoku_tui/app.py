"""The Textual app: the game screen, the bank of ready puzzles, and `run` for `kaldoku`."""

from __future__ import annotations

import gc
import time
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Sequence

from textual import events, work
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.filter import LineFilter, Monochrome, NoColor
from textual.screen import Screen
from textual.theme import ThemeProvider
from textual.worker import get_current_worker

from kaldoku_tui.bank import STARTING_KINDS, Bank, make_puzzle
from kaldoku_tui.config import AppConfig
from kaldoku_tui.engine.codes import share_code
from kaldoku_tui.engine.daily import daily_kind, daily_puzzle, utc_day
from kaldoku_tui.engine.kinds import DEFAULT_KIND, GameKind
from kaldoku_tui.engine.puzzle import Puzzle, PuzzleError
from kaldoku_tui.screens.game import GameScreen
from kaldoku_tui.services import Services, take_over
from kaldoku_tui.session.game import Session
from kaldoku_tui.session.settings import Settings
from kaldoku_tui.session.store import RACE_DAILY, Store, StoreError
from kaldoku_tui.terminal import shown
from kaldoku_tui.terminal_input import INPUT_DRIVER
from kaldoku_tui.widgets.grid import GRID_CSS
from kaldoku_tui.widgets.maker import PuzzleMaker

if TYPE_CHECKING:
    from kaldoku_tui.screens.win import WinScreen

APP_CSS = Path(__file__).parent / "assets" / "app.tcss"

BANK_DELAY = 1.0
"""Seconds after start (or after the player's last key) before the bank fills: a
generating thread holds the GIL often enough to slow the first screen down by half."""
COLLECT_DELAY = 0.5
"""Seconds after start before garbage collection is back on: the first screen is whole by
then, and the first collection, which goes through every object the start made (30-60 ms
on a busy machine), does not hold it up."""
RACE_EVERY = 1.0
"""Seconds between two writes of a racer's progress (and reads of the others')."""
RACE_NEWS_HOLD = 4.0
"""Seconds news of the game stays on the status line before the race line replaces it."""
TYPING_LULL = 2.0
"""Seconds without a key before the bank makes puzzles again."""


NO_COLOUR = NoColor()


class KaldokuApp(App, inherit_bindings=False):
    """KenKen in the terminal."""

    # Textual's own bindings less their priority: a priority key acts as it arrives,
    # before the keys typed ahead of it have reached their bindings.
    BINDINGS = [
        Binding("ctrl+q", "quit", "Quit", show=False,
                tooltip="Quit the app and return to the command prompt."),
        Binding("ctrl+c", "help_quit", show=False, system=True),
        Binding(App.COMMAND_PALETTE_BINDING, "command_palette", "palette", show=False,
                key_display=App.COMMAND_PALETTE_DISPLAY, tooltip="Open the command palette"),
    ]

    CSS_PATH = [GRID_CSS, APP_CSS]
    TITLE = "kaldoku"

    def __init__(
        self,
        session: Session,
        services: Services,
        *,
        theme: str = "textual-dark",
        notice: str | None = None,
        terminal_input: bool = False,
        race: str | None = None,
    ) -> None:
        # kaldoku's own input driver reads a real terminal; otherwise Textual's choice
        # (TEXTUAL_DRIVER: textual-serve's web driver, a test's headless one).
        super().__init__(driver_class=INPUT_DRIVER if terminal_input else None)
        settings = services.settings
        self.theme = settings.theme if settings.theme in self.available_themes else theme
        self.services = services
        self.set_class(services.ascii, "-ascii")
        # On a terminal of 16 colours (headless tests and the browser draw in full colour).
        self.set_class(terminal_input and self.console.color_system == "standard"
                       and not self.no_color, "-sixteen")
        self.bank_kinds: list[GameKind] = list(STARTING_KINDS)
        """The kinds of game the bank keeps ready: every size, and each kind played."""
        self.last_key = 0.0
        """When the player last pressed a key (by time.monotonic): the bank waits for a lull."""
        self.bank_wanted = False
        """Whether the bank's worker should look again once it has done (a kind was added,
        or the player's typing stopped it)."""
        self.game = GameScreen(session, services, notice=notice)
        self.race = race
        """The race this game is in (its short name), None when it is in none."""
        self.race_session = session
        """The race's game: a game begun after it is in no race."""
        self.race_said: str | None = None
        """The race line last put on the status line (replaced by the next)."""
        self.news: tuple[str, float] = ("", 0.0)
        """The status line's last news and since when (time.monotonic): it stays
        RACE_NEWS_HOLD seconds before the race line replaces it."""

    def get_line_filters(self) -> Sequence[LineFilter]:
        # NO_COLOR means no colour at all: Textual's Monochrome filter still sends greys
        # (48;5;234), its NoColor the terminal's own colours, with bold, reverse and underline.
        return [NO_COLOUR if isinstance(f, Monochrome) else f for f in super().get_line_filters()]

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key):
            self.last_key = time.monotonic()
        await super().on_event(event)

    def action_command_palette(self) -> None:
        from kaldoku_tui.screens.dialogs import Palette  # not needed for the first board

        if not Palette.is_open(self):
            self.push_screen(Palette(ascii=self.services.ascii, id="--command-palette"))

    def search_themes(self) -> None:
        from kaldoku_tui.screens.dialogs import Palette  # not needed for the first board

        self.push_screen(Palette(ascii=self.services.ascii, providers=[ThemeProvider],
                                 placeholder="Search for themes…"))

    def start_daily(self, day: date | None = None) -> None:
        """Play the daily puzzle of `day` (today, UTC, when None), made in a worker."""
        day = day or utc_day()
        self.game.show_status(f"Making the daily puzzle of {day}, {daily_kind(day).describe()}…")
        self.make_daily(day)

    @work(thread=True, exclusive=True, group="generate", exit_on_error=False)
    def make_daily(self, day: date) -> None:
        puzzle = daily_puzzle(day)
        if not get_current_worker().is_cancelled:
            self.call_from_thread(self.game.begin, daily_kind(day), puzzle)

    def get_default_screen(self) -> Screen:
        return self.game

    def on_mount(self) -> None:
        self.set_timer(COLLECT_DELAY, gc.enable)  # off while `kaldoku` starts (cli.play)
        self.set_timer(BANK_DELAY, self.fill_bank)
        if self.race is not None:
            self.set_interval(RACE_EVERY, self.race_tick)

    def race_tick(self) -> None:
        if self.game.session is self.race_session:
            self.keep_race(self.race_session)

    @work(thread=True, exclusive=True, group="race")
    def keep_race(self, session: Session) -> None:
        """Write this racer's progress and show the others' (a thread: the store may be
        another machine). A store out of reach skips a beat: the next second tries again."""
        from kaldoku_tui.session.race import keep_progress, standing

        try:
            race = keep_progress(self.services.store, self.race or "", session)
        except StoreError:
            return
        if race is not None:
            line = standing(race, session.puzzle.size ** 2)
            self.call_from_thread(self.show_race, line)

    def leave_race(self) -> None:
        """Write this racer's last progress as the game ends: a win a second old counts."""
        from kaldoku_tui.session.race import filled, race_time

        if self.race is not None:
            try:
                self.services.store.race_progress(self.race, filled(self.race_session),
                                                  race_time(self.race_session))
            except StoreError:
                pass  # the store is out of reach: the rejoined game writes it

    def show_race(self, line: str) -> None:
        """Put the race line on the status line, unless it says news of the game that
        came less than RACE_NEWS_HOLD seconds ago."""
        game = self.game
        if not game.is_attached:
            return
        message, now = game.message, time.monotonic()
        if not (game.status.passing or message in ("", self.race_said)):
            if message != self.news[0]:
                self.news = (message, now)
            if now - self.news[1] < RACE_NEWS_HOLD:
                return
        game.show_status(line, passing=True)
        self.race_said = game.message

    def on_puzzle_maker_kind_chosen(self, message: PuzzleMaker.KindChosen) -> None:
        self.refill_bank(message.kind)

    def refill_bank(self, kind: GameKind) -> None:
        """Keep puzzles of `kind` ready from now on, and top the bank up."""
        if kind not in self.bank_kinds:
            self.bank_kinds.insert(0, kind)
        self.bank_wanted = True
        if not any(worker.group == "bank" and worker.is_running for worker in self.workers):
            self.fill_bank()

    def typing(self) -> bool:
        """Whether the player is at the keys (the bank then makes way)."""
        return time.monotonic() - self.last_key < TYPING_LULL

    @work(thread=True, group="bank", exit_on_error=False)
    def fill_bank(self) -> None:
        """Top the bank up, pausing while the player types. The thread keeps the game's
        priority: one niced below it holds the GIL while the system runs others, and on
        a busy machine the game then waits for it (a test's ending waited 160 s)."""
        worker = get_current_worker()

        def ended() -> bool:
            # Not only cancelled: a fill begun by a timer while the app closes is never
            # cancelled, and closing waits for this thread.
            return worker.is_cancelled or not self.is_running

        self.bank_wanted = True
        while self.bank_wanted and not ended():
            self.bank_wanted = False
            while self.typing() and not ended():
                time.sleep(BANK_DELAY / 4)
            self.services.bank.fill(list(self.bank_kinds), make_puzzle, stop=lambda: ended() or self.typing())
            self.bank_wanted = self.bank_wanted or self.typing()

    @work(thread=True, group="pdf", exit_on_error=False)
    def deliver_pdf(self, puzzle: Puzzle) -> None:
        """Offer `puzzle` as a printable PDF, its answer on the next page, for the browser
        to download (`kaldoku web`; at a terminal, `kaldoku print --pdf` writes one)."""
        from io import BytesIO

        from kaldoku_tui.printing import sheet, write_booklet

        pdf = BytesIO()
        write_booklet([sheet(puzzle, "kaldoku")], pdf)
        pdf.seek(0)
        self.call_from_thread(self.deliver_binary, pdf, save_filename=f"kaldoku-{share_code(puzzle)}.pdf",
                              mime_type="application/pdf")

    def on_win_screen_pdf_wanted(self, message: WinScreen.PdfWanted) -> None:
        self.deliver_pdf(message.puzzle)

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        # No "Screenshot": a player on a shared server must not write files there.
        # No "Keys": the help screen lists every key, in ASCII when asked.
        # No "Maximize": it hides the title, the status and the keys lines.
        for command in super().get_system_commands(screen):
            if command.title not in ("Screenshot", "Keys", "Maximize", "Minimize"):
                yield command
        game = self.game
        if screen is game:
            grid = game.grid
            yield SystemCommand("Undo", "Take back the last move", grid.action_undo)
            yield SystemCommand("Redo", "Make the move taken back again", grid.action_redo)
            yield SystemCommand("Notes mode", "On or off: digits then toggle pencil notes",
                                lambda: grid.action_notes_mode(not grid.notes_mode))
            yield SystemCommand("Fill notes", "Note what each empty cell's row, column and cage allow",
                                grid.action_fill)
            yield SystemCommand("More", "The next page of a long message", game.action_more)
            yield SystemCommand("New game", "Choose size, operators and difficulty", game.action_new_game)
            yield SystemCommand("Restart", "Restart this puzzle from an empty board", game.action_restart)
            yield SystemCommand("Hint", "Where to look; again for why; a third time makes the step",
                                game.action_hint)
            yield SystemCommand("Cage inspector", "What still fits the cursor's cage",
                                game.action_inspect)
            yield SystemCommand("Check so far", "Mark the digits that differ from the solution",
                                game.action_check)
            yield SystemCommand("Reveal the solution", "Give up and show the solution", game.action_reveal)
            yield SystemCommand("Pause", "Hide the board and stop the clock", game.action_pause)
            yield SystemCommand("Unfinished games", "Resume a game left for another (G)",
                                game.action_games)
            yield SystemCommand("Daily archive", "Past days' daily puzzles, which you solved (D)",
                                game.action_archive)
            yield SystemCommand("Statistics", "Games won and best times, per kind of game",
                                game.action_records)
            yield SystemCommand("Share code", "The code that names this puzzle: kaldoku CODE plays it",
                                lambda: game.show_status(f"Share code: {share_code(game.session.puzzle)}"))
            if self.is_web:
                yield SystemCommand("Download PDF", "This puzzle to print, its answer on page 2",
                                    lambda: self.deliver_pdf(game.session.puzzle))
            yield SystemCommand("Settings", "Notes clean-up, shading", game.action_settings)
            yield SystemCommand("Help", "Every key of the game", game.action_help)


def ensure_solution(puzzle: Puzzle) -> Puzzle:
    """The puzzle with a stored solution (solving it if needed), for check and reveal."""
    if puzzle.solution is not None:
        return puzzle
    from kaldoku_tui.engine.solver import solve

    found = solve(puzzle, limit=1)
    if not found:
        raise PuzzleError("this puzzle has no solution")
    return puzzle.with_solution(found[0])


def build_app(config: AppConfig) -> KaldokuApp:
    """The app `config` asks for: the game in progress, or the one it names. A bad
    config raises UsageError or PuzzleError before any screen opens.

    A game asked for by the config is a new game; the one in progress stays, to be
    resumed later. With none asked for, the game last played is resumed, taking it over
    from another kaldoku that has it open (that one stops saving it)."""
    from kaldoku_tui.arguments import UsageError, read_puzzle_arg
    from kaldoku_tui.engine.generator import generate  # only when no game is resumed
    from kaldoku_tui.session.legacy import import_legacy
    from kaldoku_tui.session.store import StoreError, open_store, player_id, store_location

    if config.puzzle is not None and config.chosen:
        raise UsageError("give a PUZZLE or --size/--seed/--ops/--difficulty, not both")
    kind = GameKind(config.size or DEFAULT_KIND.size, config.ops or "all", config.difficulty)
    puzzle = None
    if config.daily is not None:
        puzzle, kind = daily_puzzle(config.daily), daily_kind(config.daily)
    elif config.puzzle is not None:
        puzzle = ensure_solution(read_puzzle_arg(config.puzzle)[0])
        kind = GameKind.of(puzzle)
    try:
        store = open_store(store_location(config.store, config.data_dir), player_id(config.player))
        race = store.race(config.race) if config.race is not None else None
    except StoreError as error:
        raise UsageError(str(error)) from None
    if config.race is not None:
        if race is None or race.me is None or not race.started:
            raise UsageError(f"no race {shown(config.race, 20)} under way with you in it")
        puzzle = ensure_solution(read_puzzle_arg(race.code)[0])
        kind = GameKind.of(puzzle)
        today = utc_day()
        if race.kind == RACE_DAILY and share_code(puzzle) == share_code(daily_puzzle(today)):
            puzzle, kind = daily_puzzle(today), daily_kind(today)  # counted as today's daily
    notices: list[str | None] = [*store.notices, *import_legacy(store)]
    services = Services(store, Bank(store), Settings.from_dict(store.settings()), config.ascii)

    def new(puzzle: Puzzle, kind: GameKind) -> Session:
        session, notice = services.new_session(puzzle, kind)
        notices.append(notice)
        return session

    session = None
    if race is not None and puzzle is not None:
        session = resume(store, services.now, services.settings, notices, puzzle=puzzle) or new(puzzle, kind)
    elif config.game is not None:
        session, notice = services.take_over(config.game)
        if session is None:
            store.close()
            raise UsageError(f"no unfinished game {config.game} (kaldoku games lists them)"
                             + (f": {notice}" if notice else ""))
        notices.append(notice)
    elif config.daily is not None:
        session = (resume(store, services.now, services.settings, notices, config.daily)
                   or new(daily_puzzle(config.daily), kind))
    elif puzzle is not None:
        session = new(puzzle, kind)
    elif config.chosen:
        puzzle = generate(kind.size, seed=config.seed, ops=kind.ops, level=kind.level)
        session = new(puzzle, kind)
    else:
        session = resume(store, services.now, services.settings, notices)
    if session is None:
        session = new(services.bank.take(DEFAULT_KIND) or generate(DEFAULT_KIND.size), DEFAULT_KIND)
    return KaldokuApp(session, services, notice=" ".join(filter(None, notices)) or None,
                      terminal_input=config.terminal_input, race=race.name if race else None)


def resume(store: Store, now: Callable[[], float], settings: Settings,
           notices: list[str | None], daily: date | None = None,
           puzzle: Puzzle | None = None) -> Session | None:
    """The game last played (of the daily puzzle of `daily`, or of `puzzle`, if given),
    taken over by this process; None when there is none. Games that cannot be resumed
    are set aside with a notice."""
    said = len(store.notices)
    games = store.open_games()
    notices.extend(store.notices[said:])  # why none could be read, if so
    for found in games:
        if daily is not None and found.daily != daily:
            continue
        if puzzle is not None and not same_puzzle(store, found.id, puzzle):
            continue
        session, notice = take_over(store, found.id, now, settings.auto_clean_notes)
        notices.append(notice)
        if session is not None:
            return session
    return None


def same_puzzle(store: Store, game_id: int, puzzle: Puzzle) -> bool:
    """Whether game `game_id` plays `puzzle` (a race's: its share code is the same)."""
    try:
        saved = store.game(game_id, from_snapshot=True)
    except StoreError:
        return False
    return saved is not None and share_code(saved.puzzle) == share_code(puzzle)


def run(config: AppConfig) -> int:
    """Play the game `config` asks for; returns the exit status. The time played is saved
    on the way out."""
    from kaldoku_tui.terminal import exit_on_signals, leave_promptly, run_until_quit

    app = build_app(config)
    exit_on_signals(app)
    try:
        run_until_quit(app)
    finally:
        app.game.session.keep_time()
        app.leave_race()
        app.services.store.close()
    return leave_promptly(app.return_code or 0)
