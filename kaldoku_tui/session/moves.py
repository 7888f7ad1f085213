"""The moves of a game, as typed data: what a player does, and what the journal keeps.

A move is one small frozen dataclass. Moves that write cells (BoardMove) know how to
make themselves on a board; once made they carry `states`, the cells they wrote as
they are after it, which is what the journal keeps and what replaying the move writes.
`Move.to_dict` and `read_move` are the journal's JSON: {"move": "place", "cell": [r, c],
"digit": d, "states": [[r, c, digit, [notes]], ...]}; saves of every kaldoku since the
journal began read back the same.

The moves that add no field to their base are plain subclasses of it: they are frozen,
compared and shown by its methods, and a dataclass decorator would only make those
methods again (about half a millisecond a class when kaldoku starts).
"""

from __future__ import annotations

from collections.abc import Mapping  # isinstance on typing's Mapping is several times slower
from dataclasses import dataclass, field
from typing import Any, ClassVar, Iterable

from kaldoku_tui.engine.board import Board, CellState, Notes
from kaldoku_tui.engine.puzzle import Cell, cell_name

States = tuple[tuple[Cell, CellState], ...]


class MoveError(ValueError):
    """A move that cannot be read (from a damaged journal); the message says why."""


@dataclass(frozen=True)
class Move:
    """One thing a player does to a game."""

    name: ClassVar[str]
    """Its name in the journal."""
    said: ClassVar[str] = ""
    """The move in a few words, for a replay."""

    def words(self) -> str:
        return self.said or self.name

    def to_dict(self) -> dict[str, Any]:
        """The move as the journal keeps it."""
        return {"move": self.name}


@dataclass(frozen=True)
class BoardMove(Move):
    """A move that writes cells."""

    states: States = field(default=(), kw_only=True)
    """The cells the move wrote, each as it is after it; empty until it is made."""

    def make(self, board: Board) -> bool:
        """Make the move on `board` (writing its states, once it has them); whether
        anything changed. Raises ValueError for states that do not fit the board."""
        return board.change(dict(self.states)) if self.states else self.play(board)

    def play(self, board: Board) -> bool:
        """Make the move on `board` for the first time."""
        return board.change(dict(self.states))

    def to_dict(self) -> dict[str, Any]:
        # In the order kaldoku has always written them: move, cell, digit, states.
        data = {**super().to_dict(), **self.details()}
        if self.states:
            data["states"] = states_to_list(self.states)
        return data

    def details(self) -> dict[str, Any]:
        """What the journal keeps of the move besides its name and states."""
        return {}


@dataclass(frozen=True)
class CellMove(BoardMove):
    """A move on the cursor's cell."""

    cell: Cell

    def details(self) -> dict[str, Any]:
        return {"cell": list(self.cell)}

    @classmethod
    def read(cls, record: Mapping[str, Any], states: States) -> CellMove:
        return cls(read_cell(record), states=states)


@dataclass(frozen=True)
class DigitMove(CellMove):
    """A digit typed in a cell."""

    digit: int

    def details(self) -> dict[str, Any]:
        return {**super().details(), "digit": self.digit}

    @classmethod
    def read(cls, record: Mapping[str, Any], states: States) -> DigitMove:
        cell, digit = read_cell(record), record.get("digit")
        if not isinstance(digit, int) or not whole(digit):
            raise MoveError(f"a {cls.name} move without its digit")
        return cls(cell, digit, states=states)


class Place(DigitMove):
    name = "place"

    def words(self) -> str:
        return f"{self.digit} in {cell_name(self.cell)}"

    def play(self, board: Board) -> bool:
        return board.place(self.cell, self.digit)


class Note(DigitMove):
    """A pencil note put in or taken out."""

    name = "note"

    def words(self) -> str:
        return f"note {self.digit} in {cell_name(self.cell)}"

    def play(self, board: Board) -> bool:
        return board.toggle_note(self.cell, self.digit)


class Clear(CellMove):
    name = "clear"

    def words(self) -> str:
        return f"clear {cell_name(self.cell)}"

    def play(self, board: Board) -> bool:
        return board.clear(self.cell)


class Fill(BoardMove):
    """Note in every empty cell the digits its row, column and cage allow."""

    name, said = "fill", "fill every cell's notes"

    def play(self, board: Board) -> bool:
        return board.fill_notes()


class Restart(BoardMove):
    name = "restart"

    def play(self, board: Board) -> bool:
        return board.restart()


class Reveal(BoardMove):
    """Give up: the solution fills the board."""

    name, said = "reveal", "reveal the solution"

    def play(self, board: Board) -> bool:
        return board.reveal()


class Step(BoardMove):
    """A hint's step, made by its third press."""

    name, said = "step", "a hint's step"


class CageNotes(BoardMove):
    """The cage inspector's combinations written as the cage's notes."""

    name, said = "cage notes", "the cage inspector's notes"

    @classmethod
    def writing(cls, notes: Mapping[Cell, Notes]) -> CageNotes:
        """The move that writes `notes` in their cells (each cell's digit cleared)."""
        return cls(states=tuple((cell, (0, cell_notes)) for cell, cell_notes in notes.items()))


class Change(BoardMove):
    """A change carried over from an older kaldoku's undo history, whose kind it did
    not keep."""

    name, said = "change", "a change"


class Undo(Move):
    name = "undo"


class Redo(Move):
    name = "redo"


class Check(Move):
    """Mark the digits that differ from the solution (help)."""

    name, said = "check", "check so far"


class Hint(Move):
    """A hint read as far as why (help): what the journal keeps of the hint key."""

    name, said = "hint", "a hint"


class Pause(Move):
    """Hide the board and stop the clock (again: go on)."""

    name = "pause"


class Resume(Move):
    name = "resume"


class AskHint(Move):
    """One press of the hint key: where to look, then why, then the step made. Not in
    the journal: a Hint or a Step is, when the presses come to one."""

    name = "ask hint"


JOURNAL_MOVES: dict[str, type[Move]] = {
    kind.name: kind for kind in (Place, Note, Clear, Fill, Restart, Reveal, Step, CageNotes, Change,
                                 Undo, Redo, Check, Hint, Pause, Resume)
}
"""The moves the journal keeps, by name."""


def read_move(record: Any) -> Move:
    """The move a journal record holds; MoveError for anything else."""
    name = record.get("move") if isinstance(record, Mapping) else None
    if not isinstance(name, str) or name not in JOURNAL_MOVES:
        raise MoveError(f"not a move: {str(record)[:60]}")
    kind = JOURNAL_MOVES[name]
    if not issubclass(kind, BoardMove):
        return kind()
    states = states_from_list(record.get("states"))
    if not states:
        raise MoveError(f"a {kind.name} move without the cells it wrote")
    if issubclass(kind, CellMove):
        return kind.read(record, states)
    return kind(states=states)


def read_cell(record: Mapping[str, Any]) -> Cell:
    cell = record.get("cell")
    if not (isinstance(cell, list) and len(cell) == 2 and all(whole(i) for i in cell)):
        raise MoveError(f"a {record.get('move')} move without its cell")
    return (cell[0], cell[1])


def states_to_list(states: Iterable[tuple[Cell, CellState]]) -> list[list[Any]]:
    """Cell states as JSON-able rows: [row, column, digit, [notes]]."""
    return [[r, c, digit, sorted(notes)] for (r, c), (digit, notes) in states]


def states_from_list(rows: Any) -> States:
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
