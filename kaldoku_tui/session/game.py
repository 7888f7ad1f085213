"""A game in progress, without a screen: the board, its moves, the clock, the help used,
the hint being given, and how the game ended.

Every change is a Move, applied by `Session.apply`, which returns an Update saying what
the screen should show. Moves that count are written to the session's Journal as they
are made, so a game can be resumed (and later replayed) from its moves. The rules:

- no move changes the board after a win or a reveal;
- restart clears the board and never the clock; undo and redo never touch the clock;
- the clock runs only while the board is visible and playable (not paused, not covered
  by a dialog, not too small for the terminal); a hidden board takes no moves;
- a game counts as played when it is won, revealed, or left after a move.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping, Protocol

from kaldoku_tui.engine.board import Board, CellState
from kaldoku_tui.engine.check import is_solved, mistakes
from kaldoku_tui.engine.hints import STAGES, Hint
from kaldoku_tui.engine.kinds import GameKind
from kaldoku_tui.engine.puzzle import Cell, Puzzle, PuzzleError

BOARD_MOVES = ("place", "clear", "note", "fill", "restart", "reveal", "step", "change")
"""Moves that write cells; the journal keeps the cells' states after them. A change is
one carried over from an older kaldoku's undo history, whose kind it did not keep."""
MOVES = (*BOARD_MOVES, "undo", "redo", "check", "hint", "pause", "resume")

HELP = ("checks", "hints", "reveals")
"""The kinds of help a game counts; any of them makes a win aided."""

OUTCOMES = ("won", "revealed", "left")


def clock_text(seconds: float) -> str:
    """Time played as m:ss, or h:mm:ss from an hour on."""
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02}:{secs:02}" if hours else f"{minutes}:{secs:02}"


class MoveError(ValueError):
    """A move that cannot be read (from a damaged journal); the message says why."""


@dataclass(frozen=True)
class Move:
    """One thing a player does to a game, as data.

    `cell` and `digit` are for place, clear and note; `states` are the cells a step
    (a hint's third press) writes, each with its digit and notes.
    """

    kind: str
    cell: Cell | None = None
    digit: int | None = None
    states: tuple[tuple[Cell, CellState], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"move": self.kind}
        if self.cell is not None:
            data["cell"] = list(self.cell)
        if self.digit is not None:
            data["digit"] = self.digit
        if self.states:
            data["states"] = states_to_list(self.states)
        return data


def place(cell: Cell, digit: int) -> Move:
    return Move("place", cell, digit)


def note(cell: Cell, digit: int) -> Move:
    return Move("note", cell, digit)


def clear(cell: Cell) -> Move:
    return Move("clear", cell)


def states_to_list(states: Iterable[tuple[Cell, CellState]]) -> list[list[Any]]:
    """Cell states as JSON-able rows: [row, column, digit, [notes]]."""
    return [[r, c, digit, sorted(notes)] for (r, c), (digit, notes) in states]


def states_from_list(rows: Any) -> tuple[tuple[Cell, CellState], ...]:
    """The states `states_to_list` wrote; MoveError for anything else."""
    if not isinstance(rows, list):
        raise MoveError("cell states must be a list")
    states = []
    for row in rows:
        if not (isinstance(row, list) and len(row) == 4 and isinstance(row[3], list)):
            raise MoveError("a cell state must be [row, column, digit, notes]")
        r, c, digit, notes = row
        if not all(whole(v) for v in (r, c, digit, *notes)):
            raise MoveError("a cell state holds something other than small whole numbers")
        if digit and notes:
            raise MoveError("a cell state holds a digit and notes")
        states.append(((r, c), (digit, frozenset(notes))))
    return tuple(states)


def whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 99


@dataclass(frozen=True)
class Update:
    """What a move changed, for the screen to show."""

    board: bool = False
    """The digits or notes changed."""
    message: str | None = None
    """A line for the status bar, or None to keep the last one."""
    ended: str | None = None
    """The outcome the game reached by this move (won or revealed), if it did."""
    search: Board | None = None
    """A copy of the board to look for a hint on (slow: in a worker), then to hand to
    `Session.hint_found` with `version`."""
    version: int = 0


class Journal(Protocol):
    """Where a session writes its moves as they are made (the store, or nothing)."""

    taken: bool
    """Another kaldoku has taken the game over: this session may make no more moves."""

    def append(self, record: Mapping[str, Any], elapsed: float) -> str | None:
        """Keep one move; a one-line notice when saving stops or resumes, else None."""

    def touch(self, elapsed: float) -> str | None:
        """Keep the time played so far; a notice as for append."""

    def end(self, outcome: str, elapsed: float, help_used: Mapping[str, int]) -> str | None:
        """The game ended so; a notice as for append."""


class NoJournal:
    """A journal that keeps nothing (a game played without saving, or a replay)."""

    taken = False

    def append(self, record: Mapping[str, Any], elapsed: float) -> str | None:
        return None

    def touch(self, elapsed: float) -> str | None:
        return None

    def end(self, outcome: str, elapsed: float, help_used: Mapping[str, int]) -> str | None:
        return None


class Clock:
    """Seconds played, from a time source that tests can drive by hand."""

    def __init__(self, elapsed: float = 0.0, now: Callable[[], float] = time.monotonic) -> None:
        self.now = now
        self.before = elapsed
        """Seconds played before the clock last started."""
        self.started: float | None = None

    @property
    def running(self) -> bool:
        return self.started is not None

    @property
    def elapsed(self) -> float:
        running = self.now() - self.started if self.started is not None else 0.0
        return self.before + running

    def run(self, on: bool) -> None:
        """Start or stop the clock (either is a no-op when it already is so)."""
        if on and self.started is None:
            self.started = self.now()
        elif not on and self.started is not None:
            self.before = self.elapsed
            self.started = None


@dataclass
class HintState:
    """The hint being given: found for board `version`, pressed `stage` times so far,
    or being looked for while `waiting` presses wait for it."""

    version: int
    hint: Hint | None = None
    stage: int = 0
    waiting: int = 0


class Session:
    """One game of KenKen being played."""

    def __init__(
        self,
        puzzle: Puzzle,
        kind: GameKind | None = None,
        *,
        journal: Journal | None = None,
        now: Callable[[], float] = time.monotonic,
        elapsed: float = 0.0,
        auto_clean_notes: bool = True,
    ) -> None:
        if puzzle.solution is None:
            raise PuzzleError("a game needs the puzzle's solution (for check and reveal)")
        self.puzzle = puzzle
        self.kind = kind or GameKind.of(puzzle)
        self.board = Board(puzzle, auto_clean_notes=auto_clean_notes)
        self.journal: Journal = journal or NoJournal()
        self.clock = Clock(elapsed, now)
        self.help = dict.fromkeys(HELP, 0)
        self.outcome: str | None = None
        """won, revealed or left; None while the game goes on."""
        self.moved = False
        """Whether the player has changed the board (a game left untouched does not count)."""
        self.paused = False
        self.covers: set[str] = set()
        """What hides the board besides a pause: a dialog, a terminal too small..."""
        self.marked: frozenset[Cell] = frozenset()
        """The digits the last check found wrong, until the board changes."""
        self.version = 0
        """Counts the board's changes: a hint found for an older board is dropped."""
        self.hint = HintState(0)
        self.passing = False
        """Whether the last thing said was about the board as it was (a check, a refusal,
        "nothing to undo"): it goes with the next change of the board."""
        self.update_clock()

    @classmethod
    def resume(
        cls,
        puzzle: Puzzle,
        records: Iterable[Mapping[str, Any]],
        kind: GameKind | None = None,
        *,
        journal: Journal | None = None,
        now: Callable[[], float] = time.monotonic,
        elapsed: float = 0.0,
        auto_clean_notes: bool = True,
    ) -> Session:
        """The game whose journal holds `records`, as it was after the last of them.
        Raises MoveError (or PuzzleError) for records that do not fit the puzzle."""
        session = cls(puzzle, kind, now=now, elapsed=elapsed, auto_clean_notes=auto_clean_notes)
        for record in records:
            session.replay(record)
        if session.outcome is not None:
            raise MoveError("the game ended already")
        session.journal = journal or NoJournal()
        session.paused = False
        session.update_clock()
        return session

    # What the screen reads.

    @property
    def elapsed(self) -> float:
        return self.clock.elapsed

    @property
    def over(self) -> bool:
        return self.outcome is not None

    @property
    def hidden(self) -> bool:
        """Whether the board is out of sight (paused or covered): it takes no moves."""
        return self.paused or bool(self.covers)

    @property
    def aided(self) -> bool:
        return any(self.help.values())

    def help_summary(self) -> str:
        """The help used, in words: 'no help', '2 checks, 1 reveal'."""
        words = [f"{n} {what[:-1] if n == 1 else what}" for what, n in self.help.items() if n]
        return ", ".join(words) or "no help"

    @property
    def hinted(self) -> frozenset[Cell]:
        """The cells the hint being given points at."""
        hint = self.hint
        return hint.hint.highlight(hint.stage) if hint.hint and hint.stage else frozenset()

    # Moves.

    def apply(self, move: Move) -> Update:
        """Make `move` if the rules allow it; what changed."""
        if move.kind == "resume" or (move.kind == "pause" and self.paused):
            return self.resume_play()
        refused = self.refusal(move)
        if refused is not None:
            self.passing = True
            return Update(message=refused)
        if move.kind == "pause":
            self.paused = True
            self.update_clock()
            return Update(message=self.log(move) or "Paused: the board is hidden. p to go on.")
        if move.kind == "check":
            return self.check(move)
        if move.kind == "hint":
            return self.press_hint()
        return self.change(move)

    def refusal(self, move: Move) -> str | None:
        """Why `move` cannot be made now, or None."""
        if self.over:
            return ("The puzzle is solved: g for a new game." if self.outcome == "won"
                    else "The game is over: g for a new game.")
        if self.journal.taken:
            return TAKEN
        if self.paused:
            return "Paused: p to go on."
        if self.covers:
            return "The board is hidden."
        if move.digit is not None and not 1 <= move.digit <= self.puzzle.size:
            n = self.puzzle.size
            return f"A {n}×{n} board takes the digits 1 to {n}."
        if move.kind == "note" and move.cell is not None and self.board.digit(move.cell):
            return "That cell holds a digit: clear it (0) before noting."
        return None

    def change(self, move: Move) -> Update:
        board = self.board
        kind = move.kind
        if kind == "undo":
            changed = board.undo()
        elif kind == "redo":
            changed = board.redo()
        else:
            changed = make(board, move)
            if changed:
                after = tuple((edit.cell, edit.after) for edit in board.last_change())
                move = Move(kind, move.cell, move.digit, after)
        if not changed:
            self.passing = kind in NO_CHANGE
            return Update(message=NO_CHANGE.get(kind))
        return self.board_changed(move)

    def board_changed(self, move: Move) -> Update:
        """After a change to the board: forget the hint and marks, log, see if it is won."""
        self.version += 1
        self.moved = True
        self.marked = frozenset()
        # What was said of the board before (a hint, a check, "nothing to undo") no longer
        # applies; other news (the store's) stays.
        stale = "" if self.hint.stage or self.hint.waiting or self.passing else None
        self.passing = False
        self.hint = HintState(self.version)
        notice = self.log(move)
        if self.journal.taken:
            # Found out by this move's write: take it back, the game is played elsewhere.
            self.board.redo() if move.kind == "undo" else self.board.undo()
            return Update(True, notice)
        message = {"restart": "Restarted (u undoes it).", "reveal": "Solution revealed. g: new game"}
        if move.kind == "reveal":
            self.help["reveals"] += 1
            return Update(True, self.finish("revealed") or notice or message["reveal"],
                          ended="revealed")
        if is_solved(self.puzzle, self.board.grid):
            return Update(True, self.finish("won") or notice, ended="won")
        self.passing = True
        if all(self.board.grid[r][c] for r, c in self.puzzle.cells):
            return Update(True, notice or FULL_BUT_WRONG)
        self.passing = move.kind in message
        return Update(True, notice or message.get(move.kind, stale))

    def check(self, move: Move) -> Update:
        self.help["checks"] += 1
        self.passing = True
        self.marked = frozenset(mistakes(self.puzzle, self.board.grid))
        notice = self.log(move)
        n = len(self.marked)
        found = (f"{n} digit{'s' if n > 1 else ''} differ{'' if n > 1 else 's'} from the solution "
                 "(marked)." if n else "No mistakes so far.")
        return Update(message=notice or found)

    def resume_play(self) -> Update:
        if not self.paused:
            return Update()
        self.paused = False
        self.update_clock()
        return Update(message=self.log(Move("resume")) or "")

    # Hints.

    def press_hint(self) -> Update:
        """One press of the hint key: where to look, then why, then the step made."""
        state = self.hint
        if state.hint is None:
            state.waiting += 1
            if state.waiting == 1:
                return Update(search=self.board.copy(), version=self.version)
            return Update()
        state.stage += 1
        found = state.hint
        notice = None
        if state.stage == 2:
            self.help["hints"] += 1
            notice = self.log(Move("hint"))
        if state.stage < STAGES:
            more = "t: why" if state.stage == 1 else "t: make it"
            return Update(message=notice or f"Hint {state.stage}/{STAGES}: "
                          f"{found.text(state.stage)} ({more})")
        update = self.change(Move("step", states=tuple(found.changes.items())))
        return Update(update.board, update.message or f"{found.text(STAGES)} (u undoes it)",
                      update.ended)

    def hint_found(self, found: Hint | None, version: int, why: str | None = None) -> Update:
        """The hint looked for on board `version` (or None, and `why` if the search gave
        up); the presses made meanwhile count now."""
        state = self.hint
        if version != self.version or state.hint is not None:
            return Update()  # The board changed since: the next press looks again.
        presses, state.waiting = state.waiting, 0
        if found is None:
            return Update(message=why or "No hint: no step the hints know follows from this board.")
        state.hint = found
        update = Update()
        for _ in range(presses):
            if self.hint is state and not self.over:
                update = self.press_hint()
        return update

    @property
    def hint_searching(self) -> bool:
        return self.hint.waiting > 0

    # The clock and what hides the board.

    def cover(self, reason: str, on: bool = True) -> None:
        """Hide the board for `reason` (a dialog, a small terminal), or show it again."""
        if on:
            self.covers.add(reason)
        else:
            self.covers.discard(reason)
        self.update_clock()

    def update_clock(self) -> None:
        self.clock.run(not self.over and not self.hidden)

    def keep_time(self) -> str | None:
        """Write the time played so far (now and then, and on the way out)."""
        if self.over:
            return None
        return self.journal.touch(self.elapsed)

    # Ending.

    def finish(self, outcome: str) -> str | None:
        self.outcome = outcome
        self.update_clock()
        return self.journal.end(outcome, self.elapsed, self.help)

    def leave(self) -> str | None:
        """The player leaves this game for another: it counts as played if they moved."""
        if self.over:
            return None
        if not self.moved:
            self.outcome = "left"
            self.update_clock()
            return self.journal.end("skipped", self.elapsed, self.help)
        return self.finish("left")

    # The journal.

    def log(self, move: Move) -> str | None:
        return self.journal.append(move.to_dict(), self.elapsed)

    def replay(self, record: Mapping[str, Any]) -> None:
        """Make again a move read from the journal (nothing is logged)."""
        if not isinstance(record, Mapping) or record.get("move") not in MOVES:
            raise MoveError(f"not a move: {str(record)[:60]}")
        kind = record["move"]
        if self.over:
            raise MoveError("a move after the game ended")
        if kind in BOARD_MOVES:
            states = states_from_list(record.get("states"))
            if not states:
                raise MoveError(f"a {kind} move without the cells it wrote")
            try:
                self.board.change(dict(states))
            except ValueError as error:
                raise MoveError(f"a {kind} move off the board: {error}") from None
            self.version += 1
            self.moved = True
            if kind == "reveal":
                self.help["reveals"] += 1
                self.outcome = "revealed"
            elif is_solved(self.puzzle, self.board.grid):
                self.outcome = "won"
        elif kind in ("undo", "redo"):
            getattr(self.board, kind)()
            self.version += 1
        elif kind == "check":
            self.help["checks"] += 1
        elif kind == "hint":
            self.help["hints"] += 1
        self.paused = kind == "pause"


TAKEN = "This game is being played in another kaldoku now: g for a new game, q to quit."

FULL_BUT_WRONG = ("Every cell is filled, but not all is right: look for the marked cages and "
                  "repeated digits, or c to check.")
"""Said when the last empty cell is filled and the puzzle is not solved."""

NO_CHANGE = {
    "undo": "Nothing to undo.",
    "redo": "Nothing to redo.",
    "fill": "Every empty cell's notes are filled already.",
}


def make(board: Board, move: Move) -> bool:
    """Make a board move on `board`; whether anything changed."""
    cell, digit = move.cell, move.digit
    if move.kind == "place" and cell is not None and digit is not None:
        return board.place(cell, digit)
    if move.kind == "note" and cell is not None and digit is not None:
        return board.toggle_note(cell, digit)
    if move.kind == "clear" and cell is not None:
        return board.clear(cell)
    if move.kind == "fill":
        return board.fill_notes()
    if move.kind == "restart":
        return board.restart()
    if move.kind == "reveal":
        return board.reveal()
    if move.kind in ("step", "change"):
        return board.change(dict(move.states))
    raise MoveError(f"{move.kind} is not a board move")


