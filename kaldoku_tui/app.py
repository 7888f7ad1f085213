"""The Textual app: the game screen, the bank of ready puzzles, and `run` for `kaldoku`."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Callable, Iterable

from textual import work
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.screen import Screen
from textual.theme import ThemeProvider
from textual.worker import get_current_worker

from kaldoku_tui.bank import STARTING_KINDS, Bank, make_puzzle
from kaldoku_tui.engine.kinds import DEFAULT_KIND, GameKind
from kaldoku_tui.engine.board import Board
from kaldoku_tui.engine.generator import generate
from kaldoku_tui.engine.puzzle import Puzzle, PuzzleError
from kaldoku_tui.screens.dialogs import Palette
from kaldoku_tui.screens.game import NO_HELP, GameScreen
from kaldoku_tui.screens.help import grid_bindings
from kaldoku_tui.settings import Settings
from kaldoku_tui.storage import Store
from kaldoku_tui.widgets.grid import GRID_CSS

APP_CSS = Path(__file__).parent / "assets" / "app.tcss"

BANK_DELAY = 1.0
"""Seconds after start before the bank fills: a generating thread holds the GIL often
enough to slow the first screen down by half."""


class KaldokuApp(App):
    """KenKen in the terminal."""

    CSS_PATH = [GRID_CSS, APP_CSS]
    TITLE = "kaldoku"

    def __init__(
        self,
        board: Board,
        kind: GameKind | None = None,
        *,
        store: Store | None = None,
        bank: Bank | None = None,
        ascii: bool = False,
        settings: Settings = Settings(),
        theme: str = "textual-dark",
        elapsed: float = 0.0,
        help_used: dict[str, int] | None = None,
        notice: str | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__()
        self.theme = theme
        self.ascii = ascii
        self.set_class(ascii, "-ascii")
        self.store = store
        """Where the game is saved; None plays without saving."""
        self.settings = settings
        self.bank = bank if bank is not None else Bank()
        self.bank_kinds: list[GameKind] = list(STARTING_KINDS)
        """The kinds of game the bank keeps ready: every size, and each kind played."""
        self.game = GameScreen(
            board,
            kind or GameKind.of(board.puzzle),
            elapsed=elapsed,
            help_used=help_used,
            notice=notice,
            clock=clock,
        )

    def action_command_palette(self) -> None:
        if not Palette.is_open(self):
            self.push_screen(Palette(id="--command-palette"))

    def search_themes(self) -> None:
        self.push_screen(Palette(providers=[ThemeProvider], placeholder="Search for themes…"))

    def get_default_screen(self) -> Screen:
        return self.game

    def on_mount(self) -> None:
        self.set_timer(BANK_DELAY, self.fill_bank)

    def refill_bank(self, kind: GameKind) -> None:
        """Keep puzzles of `kind` ready from now on, and top the bank up."""
        if kind not in self.bank_kinds:
            self.bank_kinds.insert(0, kind)
        self.fill_bank()

    @work(thread=True, exclusive=True, group="bank", exit_on_error=False)
    def fill_bank(self) -> None:
        worker = get_current_worker()
        notice = self.bank.restore()
        if notice:
            self.call_from_thread(self.game.show_status, notice)
        self.bank.fill(list(self.bank_kinds), make_puzzle, stop=lambda: worker.is_cancelled)

    def key_sections(self) -> list[tuple[str, list[Binding]]]:
        """Every key of the game, in sections, for the help screen."""
        anywhere = [
            *(b for b in self.BINDINGS if isinstance(b, Binding)),
            Binding(self.COMMAND_PALETTE_BINDING, "command_palette", "Commands"),
        ]
        return [
            ("On the board", grid_bindings()),
            ("Game", list(GameScreen.BINDINGS)),
            ("Anywhere", anywhere),
        ]

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        # No "Screenshot": a player on a shared server must not write files there.
        # No "Keys": the help screen lists every key, in ASCII when asked.
        for command in super().get_system_commands(screen):
            if command.title not in ("Screenshot", "Keys"):
                yield command
        game = self.game
        if screen is game:
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
            yield SystemCommand("Statistics", "Games won and best times, per kind of game",
                                game.action_records)
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


def build_app(args: argparse.Namespace) -> KaldokuApp:
    """The app for `kaldoku`'s arguments: the saved game, or the one they ask for.
    Bad arguments raise UsageError or PuzzleError before any screen opens."""
    from kaldoku_tui.cli import UsageError, read_puzzle_arg
    from kaldoku_tui.storage import data_dir
    from kaldoku_tui.terminal import apply_colors, use_ascii

    store = Store(data_dir(args.data_dir))
    chosen = args.size is not None or args.seed is not None or args.ops or args.difficulty
    kind = GameKind(args.size or DEFAULT_KIND.size, args.ops or "all", args.difficulty)
    saved: dict = {}
    notice = None
    if args.puzzle is not None:
        if chosen:
            raise UsageError("give a PUZZLE or --size/--seed/--ops/--difficulty, not both")
        puzzle = ensure_solution(read_puzzle_arg(args.puzzle)[0])
        board, kind = Board(puzzle), GameKind.of(puzzle)
        notice = store.claim()
    elif chosen:
        if kind.level and sys.stderr.isatty():
            print(f"Generating a {kind.describe()} puzzle…", file=sys.stderr, flush=True)
        board = Board(generate(kind.size, seed=args.seed, ops=kind.ops, level=kind.level))
        notice = store.claim()
    else:
        game, notice = store.load_game()
        board = None
        if game is not None:
            try:
                board = Board.from_dict(game["board"])
                help_used = game.get("help", {})
                saved = {
                    "elapsed": float(game.get("elapsed", 0.0)),
                    "help_used": {key: int(help_used[key]) for key in NO_HELP if key in help_used},
                }
                kind = GameKind.of(board.puzzle)
            except (PuzzleError, KeyError, TypeError, ValueError) as error:
                notice = store.set_aside_game(str(error))
                saved = {}
                board = None
        if board is None:
            board = Board(generate(kind.size, ops=kind.ops))

    settings, settings_notice = store.load_settings()
    apply_colors(args.colors)
    return KaldokuApp(board, kind, store=store, bank=Bank(store=store), ascii=use_ascii(args.ascii),
                      settings=Settings.from_dict(settings),
                      notice=" ".join(filter(None, (notice, settings_notice))) or None, **saved)


def run(args: argparse.Namespace) -> int:
    """Play `kaldoku`; returns the exit status. The game is saved on the way out."""
    from kaldoku_tui.terminal import exit_on_signals

    app = build_app(args)
    store = app.store
    exit_on_signals(app)
    app.run()
    if store is not None and not app.game.finished:
        store.save_game(app.game.game_dict())
    return app.return_code or 0
