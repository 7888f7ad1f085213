"""A game in progress, without a screen: the board, its moves, the clock, the help used,
the hint being given, and how the game ended.

Every change is a Move (session/moves.py), applied by `Session.apply`, which returns an
Update saying what the screen should show; a game resumed or replayed from its journal
runs through the same function. Moves that count are written to the session's Journal as they
are made, so a game can be resumed (and later replayed) from its moves. The rules:

- no move changes the board after a win or a reveal;
- restart clears the board and never the clock; undo and redo never touch the clock;
- the clock runs only while the board is visible and playable (not paused, not covered
  by a dialog, not too small for the terminal); a hidden board takes no moves;
- a game counts as played when it is won, revealed, or left after a move.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping, Protocol

from kaldoku_tui.engine.board import Board
from kaldoku_tui.engine.check import is_solved, mistakes
from kaldoku_tui.engine.daily import daily_of
from kaldoku_tui.engine.kinds import GameKind
from kaldoku_tui.engine.puzzle import Cell, Puzzle, PuzzleError
from kaldoku_tui.session.moves import (AskHint, BoardMove, Check, DigitMove, Fill, Hint, Move,
                                       MoveError, Note, Pause, Redo, Restart, Resume, Reveal,
                                       Step, Undo, read_move)
from kaldoku_tui.session.moves import states_from_list as states_from_list  # snapshot.py's
from kaldoku_tui.session.moves import states_to_list as states_to_list  # legacy.py's
from kaldoku_tui.session.settings import Settings

if TYPE_CHECKING:
    from kaldoku_tui.engine.hints import Hint as FoundHint

HELP = ("checks", "hints", "reveals")
"""The kinds of help a game counts; any of them makes a win aided."""

OUTCOMES = ("won", "revealed", "left")


OFF_WHEN_OVER = frozenset({"pause", "check", "reveal", "hint"})
"""The game keys' actions that do nothing once the game has ended."""
OFF_WHEN_PAUSED = frozenset({"check", "reveal", "restart", "hint", "inspect"})
"""The game keys' actions that do nothing while the game is paused."""


def clock_text(seconds: float) -> str:
    """Time played as m:ss, or h:mm:ss from an hour on."""
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02}:{secs:02}" if hours else f"{minutes}:{secs:02}"


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
    hint: FoundHint | None = None
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
        self.practice = False
        """A daily puzzle played again once its day's game ended: kept and counted nowhere."""
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
        self.show_mistakes = False
        """Whether each change marks the digits that differ from the solution (help: the
        first change so made is logged as a check)."""
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
    def title(self) -> str:
        """What game this is, for its title: "Daily 2026-11-26 · 6×6 · +−×÷ · hard"."""
        day = daily_of(self.puzzle)
        if day is None:
            return self.kind.describe()
        return f"Daily {day}{' (practice)' if self.practice else ''} · {self.kind.describe()}"

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

    def apply(self, move: Move, *, replaying: bool = False) -> Update:
        """Make `move` if the rules allow it; what changed.

        `replaying` is for a move read from the journal (a game resumed or replayed): its
        board moves write the states the journal kept, a move the game cannot take raises
        MoveError, and a pause ends at the next move (going on in a later kaldoku writes
        no resume)."""
        if replaying:
            if self.over:
                raise MoveError("a move after the game ended")
            self.paused = self.paused and isinstance(move, Resume)
        if isinstance(move, Resume) or (isinstance(move, Pause) and self.paused):
            return self.resume_play()
        refused = None if replaying else self.refusal(move)
        if refused is not None:
            self.passing = True
            return Update(message=refused)
        if isinstance(move, Pause):
            self.paused = True
            self.update_clock()
            return Update(message=self.log(move) or "Paused: the board is hidden. p to go on.")
        if isinstance(move, Check):
            return self.check(move)
        if isinstance(move, Hint):
            self.help["hints"] += 1
            return Update(message=self.log(move))
        if isinstance(move, AskHint):
            return self.press_hint()
        return self.change(move)

    def replay(self, record: Mapping[str, Any]) -> None:
        """Make again a move read from the journal (nothing is logged by a session
        without a journal); MoveError for a record that is no move of this game."""
        self.apply(read_move(record), replaying=True)

    def play_by(self, settings: Settings) -> None:
        """Follow the rules `settings` choose: notes cleared by a digit, mistakes shown."""
        self.board.auto_clean_notes = settings.auto_clean_notes
        self.show_mistakes = settings.show_mistakes

    def action_off(self, action: str) -> bool:
        """Whether the game's key of `action` (a screen's name for it) does nothing now:
        the game's end turns off pausing, checking, revealing and hints; a pause turns
        off checking, revealing, restarting, hints and the cage inspector. Pressed, such
        a key says why (see refusal)."""
        return (self.over and action in OFF_WHEN_OVER
                or self.paused and action in OFF_WHEN_PAUSED)

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
        if isinstance(move, DigitMove) and not 1 <= move.digit <= self.puzzle.size:
            n = self.puzzle.size
            return f"A {n}×{n} board takes the digits 1 to {n}."
        if isinstance(move, Note) and self.board.digit(move.cell):
            return "That cell holds a digit: clear it (0) before noting."
        return None

    def change(self, move: Move) -> Update:
        board = self.board
        if isinstance(move, Undo):
            changed = board.undo()
        elif isinstance(move, Redo):
            changed = board.redo()
        elif isinstance(move, BoardMove):
            try:
                changed = move.make(board)
            except ValueError as error:
                raise MoveError(f"a {move.name} move off the board: {error}") from None
            if changed and not move.states:
                move = replace(move, states=tuple((edit.cell, edit.after)
                                                  for edit in board.last_change()))
        else:
            raise MoveError(f"{move.name} is not a move of the board")
        if not changed:
            self.passing = type(move) in NO_CHANGE
            return Update(message=NO_CHANGE.get(type(move)))
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
            self.board.redo() if isinstance(move, Undo) else self.board.undo()
            return Update(True, notice)
        if isinstance(move, Reveal):
            self.help["reveals"] += 1
            return Update(True, self.finish("revealed") or notice or SAID[Reveal],
                          ended="revealed")
        grid = self.board.grid
        if is_solved(self.puzzle, grid):
            return Update(True, self.finish("won") or notice, ended="won")
        if self.show_mistakes:
            if not self.help["checks"]:
                self.help["checks"] += 1
                notice = self.log(Check()) or notice
            self.marked = frozenset(mistakes(self.puzzle, grid))
        self.passing = True
        if all(all(row) for row in grid):
            return Update(True, notice or FULL_BUT_WRONG)
        self.passing = type(move) in SAID
        return Update(True, notice or SAID.get(type(move), stale))

    def check(self, move: Check) -> Update:
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
        return Update(message=self.log(Resume()) or "")

    # Hints.

    def press_hint(self) -> Update:
        """One press of the hint key: where to look, then why, then the step made."""
        from kaldoku_tui.engine.hints import STAGES  # with the solver: loaded at the first hint

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
            notice = self.apply(Hint()).message
        if state.stage < STAGES:
            more = "t: why" if state.stage == 1 else "t: make it"
            return Update(message=notice or f"Hint {state.stage}/{STAGES}: "
                          f"{found.text(state.stage)} ({more})")
        update = self.change(Step(states=tuple(found.changes.items())))
        return Update(update.board, update.message or f"{found.text(STAGES)} (u undoes it)",
                      update.ended)

    def hint_found(self, found: FoundHint | None, version: int, why: str | None = None) -> Update:
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
        if isinstance(self.journal, NoJournal):
            return None  # no record to make: a resumed game replays its moves unjournaled
        return self.journal.append(move.to_dict(), self.elapsed)


TAKEN = "This game is being played in another kaldoku now: g for a new game, q to quit."

FULL_BUT_WRONG = ("Every cell is filled, but not all is right: look for the marked cages and "
                  "repeated digits, or c to check.")
"""Said when the last empty cell is filled and the puzzle is not solved."""

NO_CHANGE: dict[type[Move], str] = {
    Undo: "Nothing to undo.",
    Redo: "Nothing to redo.",
    Fill: "Every empty cell's notes are filled already.",
}
"""What is said when a move changes nothing."""

SAID: dict[type[Move], str] = {
    Restart: "Restarted (u undoes it).",
    Reveal: "Solution revealed. g: new game",
}
"""What is said after a move that changes the whole board."""
