"""A past game played again on the board, move by move, at the player's pace.

The boards come from the game's journal, its moves made by `Session.apply` as in play, so a replay
shows exactly what the player saw: space pauses and plays, the arrows step, + and -
change the speed.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Static

from kaldoku_tui.engine.board import BoardView
from kaldoku_tui.engine.puzzle import Cell
from kaldoku_tui.session.game import Session, clock_text
from kaldoku_tui.session.moves import CellMove, read_move
from kaldoku_tui.session.store import SavedGame
from kaldoku_tui.terminal import in_ascii, shown
from kaldoku_tui.widgets.grid import GRID_CSS, KenKenGrid

SPEEDS = (0.5, 1.0, 2.0, 4.0, 8.0, 16.0)
"""Moves a second the replay can play at; it starts at STARTING_SPEED."""
STARTING_SPEED = 2


@dataclass(frozen=True)
class Frame:
    """The board after one move of a replay, with the move in words and its cell."""

    view: BoardView
    words: str
    cell: Cell | None = None


def replay_frames(saved: SavedGame) -> list[Frame]:
    """The empty board and the board after each of the game's moves. Raises MoveError
    (or PuzzleError) for moves that do not fit the puzzle."""
    session = Session(saved.puzzle, saved.kind, now=lambda: 0.0)
    frames = [Frame(session.board.view(), "the empty board")]
    for record in saved.moves:
        move = read_move(record)
        session.apply(move, replaying=True)
        cell = move.cell if isinstance(move, CellMove) else None
        frames.append(Frame(session.board.view(), move.words(), cell))
    return frames


class ReplayScreen(Screen):
    """The moves of a game, shown one after another on the board."""

    DEFAULT_CSS = """
    ReplayScreen #replay-title, ReplayScreen #replay-status {
        height: 1;
        background: $panel;
    }
    ReplayScreen #replay-title {
        text-style: bold;
    }
    """

    BINDINGS = [
        Binding("space,p", "play_pause", "Play/pause"),
        Binding("right,l", "step(1)", "Step on"),
        Binding("left,h", "step(-1)", "Step back"),
        Binding("plus,equals_sign", "speed(1)", "Faster"),
        Binding("minus", "speed(-1)", "Slower"),
        Binding("home", "jump(0)", "First", show=False),
        Binding("end", "jump(-1)", "Last", show=False),
        Binding("escape,q", "close", "Close"),
    ]

    def __init__(self, saved: SavedGame, frames: list[Frame], *, ascii: bool = False) -> None:
        super().__init__()
        self.ascii = ascii
        self.saved = saved
        self.frames = frames
        self.at = 0
        """The frame shown: 0 is the empty board, i the board after move i."""
        self.speed = STARTING_SPEED
        """An index into SPEEDS."""
        self.timer: Timer | None = None
        """Runs while the replay plays."""

    def text(self, text: str) -> str:
        return in_ascii(text) if self.ascii else text

    def compose(self) -> ComposeResult:
        outcome = f", {shown(str(self.saved.outcome), 40)}" if self.saved.outcome else ""
        yield Static(self.text(f"Replay of game {self.saved.id}: {self.saved.kind.describe()}"
                               f"{outcome} in {clock_text(self.saved.elapsed)}"),
                     id="replay-title", markup=False)
        grid = KenKenGrid(self.frames[0].view, ascii=self.ascii, id="replay-grid")
        grid.can_focus = False  # the arrows step the replay
        yield grid
        yield Static(id="replay-status", markup=False)
        yield Static("space: play/pause  <- ->: step  + -: speed  q / Esc: close",
                     classes="keys", markup=False)

    def on_mount(self) -> None:
        self.show()
        self.play()

    @property
    def playing(self) -> bool:
        return self.timer is not None

    def show(self) -> None:
        frame = self.frames[self.at]
        grid = self.query_one(KenKenGrid)
        grid.view = frame.view
        if frame.cell is not None:
            grid.cursor = frame.cell
        state = f"{'playing' if self.playing else 'paused'}, {SPEEDS[self.speed]:g} moves/s"
        self.query_one("#replay-status", Static).update(self.text(
            f"Move {self.at} of {len(self.frames) - 1}: {frame.words} · {state}"))

    def play(self) -> None:
        self.stop()
        if self.at < len(self.frames) - 1:
            self.timer = self.set_interval(1 / SPEEDS[self.speed], self.advance)

    def stop(self) -> None:
        if self.timer is not None:
            self.timer.stop()
            self.timer = None

    def advance(self) -> None:
        self.at += 1
        if self.at >= len(self.frames) - 1:
            self.at = len(self.frames) - 1
            self.stop()
        self.show()

    def action_play_pause(self) -> None:
        if self.playing:
            self.stop()
        else:
            if self.at >= len(self.frames) - 1:
                self.at = 0  # at the end, play starts over
            self.play()
        self.show()

    def action_step(self, delta: int) -> None:
        self.stop()
        self.at = max(0, min(len(self.frames) - 1, self.at + delta))
        self.show()

    def action_jump(self, where: int) -> None:
        self.action_step(len(self.frames) if where < 0 else -len(self.frames))

    def action_speed(self, delta: int) -> None:
        self.speed = max(0, min(len(SPEEDS) - 1, self.speed + delta))
        if self.playing:
            self.play()
        self.show()

    def action_close(self) -> None:
        self.stop()
        if len(self.app.screen_stack) > 1:
            self.dismiss()
        else:
            self.app.exit()


class ReplayApp(App):
    """`kaldoku replay ID`: one replay, and nothing else."""

    CSS_PATH = [GRID_CSS, Path(__file__).parent.parent / "assets" / "app.tcss"]
    TITLE = "kaldoku replay"

    def __init__(self, saved: SavedGame, frames: list[Frame], *, ascii: bool = False) -> None:
        super().__init__()
        self.ascii = ascii
        self.set_class(ascii, "-ascii")
        self.saved = saved
        self.frames = frames

    def get_default_screen(self) -> Screen:
        return ReplayScreen(self.saved, self.frames, ascii=self.ascii)
