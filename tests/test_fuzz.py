"""Thousands of random keys into the headless app at random terminal sizes.

Every key of every binding (board, game, dialogs, help, win, the app's own), digits and
junk arrive in bursts, as a paste or a slow SSH link delivers them: each burst is queued
at once and the app catches up. Nothing may raise or hang, and after every burst the
board keeps its invariants: digits in 0..N, notes within 1..N and only in empty cells,
the screen and the grid on the same board, the save equal to the board; undo all reaches
the empty board and redo comes back.

Quitting is counted instead of done (app.exit is replaced while the keys fly), so q and
ctrl+q stay in the stream; ctrl+p opens dialogs.Palette, whose commands the keys reach too.
The long run (`-m long`) plays 5 sessions of 1000 keys (every other one in ASCII mode):
5000 keys; the default run plays the first two sessions for 300 keys each.
"""

from __future__ import annotations

import asyncio
import random

import pytest
from textual import events
from textual.app import App

from kaldoku_tui.app import KaldokuApp
from kaldoku_tui.engine.kinds import GameKind
from kaldoku_tui.engine.board import Board
from kaldoku_tui.engine.generator import generate
from kaldoku_tui.engine.puzzle import MAX_SIZE, MIN_SIZE
from kaldoku_tui.screens.dialogs import ConfirmDialog, NewGameDialog, Palette
from kaldoku_tui.screens.game import GameScreen
from kaldoku_tui.screens.help import HelpScreen
from kaldoku_tui.screens.win import WinScreen
from kaldoku_tui.widgets.grid import KenKenGrid
from kaldoku_tui.session.legacy import board_from_dict, board_to_dict

from conftest import game_app, saved_session, workers_done


def binding_keys(*owners) -> list[str]:
    return sorted({key.strip() for owner in owners for b in owner.BINDINGS for key in b.key.split(",")})


BOUND = binding_keys(KenKenGrid, GameScreen, NewGameDialog, ConfirmDialog, HelpScreen, WinScreen, App)
JUNK = ["a", "z", "x", "A", "exclamation_mark", "home", "end", "pageup", "pagedown", "f5",
        "ctrl+a", "ctrl+s", "ctrl+p", "tab", "shift+tab", "escape", "enter"]
MOVES = ["up", "down", "left", "right"]
# Movement and digits dominate, as in play; every other key still comes up often.
KEYS = MOVES * 6 + [str(d) for d in range(10)] * 3 + BOUND + JUNK
CHARS = {"space": " ", "exclamation_mark": "!", "question_mark": "?", "enter": "\r",
         "tab": "\t", "escape": "\x1b", "backspace": "\x7f"}

SESSIONS = 5
BURSTS = 20
QUICK_SESSIONS = 2
QUICK_BURSTS = 6
BURST = 50
BURST_TIMEOUT = 15.0
"""Seconds a burst may take, generous: about 1 s each on a machine with both cores busy."""
SIZES = [(80, 24), (120, 40), (40, 12), (20, 8), (10, 4), (200, 60), (60, 30), (1, 1)]


@pytest.fixture(scope="module")
def puzzles():
    """One puzzle of each size; new games in the fuzz take these instead of generating."""
    return {n: generate(n, seed=n) for n in range(MIN_SIZE, MAX_SIZE + 1)}


def send(app: App, keys: list[str]) -> None:
    """Queue the key events of `keys` all at once, as a terminal delivers a burst."""
    for key in keys:
        char = CHARS.get(key, key if len(key) == 1 else None)
        app.post_message(events.Key(key, char))


def check_board(app: KaldokuApp, store_dir) -> None:
    game = app.game
    board = game.session.board
    n = board.size
    assert game.grid.view == board.view(), "the grid shows the session's board"
    for cell in board.puzzle.cells:
        digit, notes = board.digit(cell), board.notes(cell)
        assert 0 <= digit <= n
        assert notes <= frozenset(range(1, n + 1))
        assert not (digit and notes), f"{cell} has a digit and notes"
    r, c = game.grid.cursor
    assert 0 <= r < n and 0 <= c < n
    if not game.session.over:
        saved = saved_session(store_dir)
        assert saved is not None and saved.board.grid == board.grid, "a game played is saved"
        assert saved.board.view() == board.view()


def check_history(board: Board) -> None:
    """Undo all gives the empty board; as many redos give this board back."""
    copy = board_from_dict(board_to_dict(board))
    now = [(cell, board.digit(cell), board.notes(cell)) for cell in board.puzzle.cells]
    undone = 0
    while copy.undo():
        undone += 1
    assert all(copy.digit(c) == 0 and not copy.notes(c) for c in copy.puzzle.cells)
    for _ in range(undone):
        assert copy.redo()
    assert [(cell, copy.digit(cell), copy.notes(cell)) for cell in copy.puzzle.cells] == now


@pytest.mark.parametrize("session, bursts", [
    *[pytest.param(session, QUICK_BURSTS, id=f"quick{session}") for session in range(QUICK_SESSIONS)],
    *[pytest.param(session, BURSTS, id=str(session), marks=pytest.mark.long) for session in range(SESSIONS)],
])
async def test_random_keys_never_break_the_game(session, bursts, puzzles, tmp_path, monkeypatch):
    rng = random.Random(session)
    monkeypatch.setattr("kaldoku_tui.widgets.maker.make_puzzle",
                        lambda kind, *args, **kwargs: puzzles[kind.size])
    size = rng.randrange(MIN_SIZE, MAX_SIZE + 1)
    app = game_app(puzzles[size], tmp_path, kind=GameKind(size), ascii=session % 2 == 1)
    quits = []
    sent: list[str] = []

    async def play(pilot) -> None:
        for _ in range(bursts):
            await pilot.resize_terminal(*rng.choice(SIZES))
            keys = rng.choices(KEYS, k=BURST)
            sent.extend(keys)
            send(app, keys)
            await pilot.pause()
            await workers_done(app)
            await pilot.pause()
            check_board(app, tmp_path)
        check_history(app.game.session.board)

    async with app.run_test(size=rng.choice(SIZES)) as pilot:
        real_exit, app.exit = app.exit, lambda *args, **kwargs: quits.append(args)
        try:
            await asyncio.wait_for(play(pilot), bursts * BURST_TIMEOUT)
        except TimeoutError:
            pytest.fail(f"no answer after these keys (screen {app.screen!r}): {sent[-2 * BURST:]}")
        app.exit = real_exit
        for _ in range(5):
            if app.screen is app.game:
                break
            await pilot.press("escape")
        assert app.screen is app.game, f"escape does not leave {app.screen!r}"
        await pilot.press("q")
    assert app.return_code == 0
    print(f"session {session}: {len(sent)} keys, {len(quits)} quits asked")


@pytest.mark.parametrize("keys, screens", [
    ("ctrl+p pageup", [GameScreen, Palette]),
    ("ctrl+p pagedown", [GameScreen, Palette]),
    ("ctrl+p | n e w | enter enter", [GameScreen, NewGameDialog]),
    # Typing with the Esc that closes the palette (keys act in the order typed).
    ("ctrl+p | n escape e w", [GameScreen]),
])
async def test_palette_survives_bursts(keys, screens, example):
    """A page key before the command list is laid out, a second Enter before the first
    has closed the palette, typing after Esc has closed it: each crashes Textual 8.2's
    own palette. Bursts are split at | where the app catches up."""
    app = game_app(example)
    async with app.run_test(size=(80, 24)) as pilot:
        for burst in keys.split("|"):
            send(app, burst.split())
            await pilot.pause()
        await pilot.pause()
        assert [type(screen) for screen in app.screen_stack] == screens
