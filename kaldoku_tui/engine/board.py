"""The player's board: digits and notes on one puzzle, with unlimited undo and redo.

Every change (a digit, a note, filling notes, a restart, a reveal) is recorded as one
Change: the cells it touched, each with its digit and notes before and after. Undo puts
the "before" back, redo the "after"; a new change forgets what could be redone.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping

from kaldoku_tui.engine.fillings import CageTooLarge, fillings
from kaldoku_tui.engine.puzzle import Cell, Grid, Puzzle, PuzzleError

Notes = frozenset[int]
NO_NOTES: Notes = frozenset()

CellState = tuple[int, Notes]
"""What a player has written in one cell: its digit (0 for none) and its notes."""


@dataclass(frozen=True)
class Edit:
    """One cell's state before and after a change."""

    cell: Cell
    before: CellState
    after: CellState


Change = tuple[Edit, ...]


@dataclass(frozen=True)
class BoardView:
    """A board as it stands, read-only: what a screen is given to draw."""

    puzzle: Puzzle
    grid: Grid
    """The placed digits, 0 for a blank."""
    marks: Mapping[Cell, Notes]
    """The pencil notes of the cells that have any."""

    @property
    def size(self) -> int:
        return self.puzzle.size

    def digit(self, cell: Cell) -> int:
        return self.grid[cell[0]][cell[1]]

    def notes(self, cell: Cell) -> Notes:
        return self.marks.get(cell, NO_NOTES)


class Board:
    """The digits and pencil notes a player has written on `puzzle`."""

    def __init__(self, puzzle: Puzzle, *, auto_clean_notes: bool = True) -> None:
        self.puzzle = puzzle
        self.auto_clean_notes = auto_clean_notes
        """Whether placing a digit removes it from the notes of its row and column."""
        n = puzzle.size
        self._digits = [[0] * n for _ in range(n)]
        self._notes: dict[Cell, Notes] = {}
        self._undo: list[Change] = []
        self._redo: list[Change] = []

    # Reading the board.

    @property
    def size(self) -> int:
        return self.puzzle.size

    @property
    def grid(self) -> Grid:
        """The placed digits, 0 for a blank."""
        return tuple(tuple(row) for row in self._digits)

    def digit(self, cell: Cell) -> int:
        """The digit in `cell`, 0 when blank."""
        return self._digits[cell[0]][cell[1]]

    def notes(self, cell: Cell) -> Notes:
        """The pencil notes in `cell`."""
        return self._notes.get(cell, NO_NOTES)

    def last_change(self) -> Change:
        """The change undo would take back (empty when there is none)."""
        return self._undo[-1] if self._undo else ()

    @property
    def can_undo(self) -> bool:
        return bool(self._undo)

    @property
    def can_redo(self) -> bool:
        return bool(self._redo)

    def peers(self, cell: Cell) -> list[Cell]:
        """The other cells of `cell`'s row and column."""
        r, c = cell
        n = self.size
        return [(r, k) for k in range(n) if k != c] + [(k, c) for k in range(n) if k != r]

    def possible(self, cell: Cell) -> Notes:
        """The digits not yet placed in `cell`'s row or column."""
        placed = {self.digit(peer) for peer in self.peers(cell)}
        return frozenset(range(1, self.size + 1)) - placed

    # Changing the board. Each returns whether anything changed.

    def place(self, cell: Cell, digit: int) -> bool:
        """Write `digit` in `cell` (dropping the cell's notes), and with auto-clean
        remove it from the notes of the cell's row and column."""
        self._check(cell, digit)
        states = {cell: (digit, NO_NOTES)}
        if self.auto_clean_notes:
            for peer in self.peers(cell):
                if digit in self.notes(peer):
                    states[peer] = (self.digit(peer), self.notes(peer) - {digit})
        return self._apply(states)

    def clear(self, cell: Cell) -> bool:
        """Erase the digit and the notes in `cell`."""
        self._check(cell)
        return self._apply({cell: (0, NO_NOTES)})

    def toggle_note(self, cell: Cell, digit: int) -> bool:
        """Add or remove the pencil note `digit` in `cell`; a filled cell takes no notes."""
        self._check(cell, digit)
        if self.digit(cell):
            return False
        return self._apply({cell: (0, self.notes(cell) ^ {digit})})

    def allowed(self) -> dict[Cell, Notes]:
        """For every empty cell, the digits its row and column leave that some filling
        of its cage, agreeing with the digits placed and the rows and columns, puts there
        (a cage too large to list its fillings: what the row and column leave)."""
        result: dict[Cell, Notes] = {}
        for cage in self.puzzle.cages:
            options = [frozenset({d}) if (d := self.digit(cell)) else self.possible(cell)
                       for cell in cage.cells]
            try:
                table = fillings(self.size, cage)
            except CageTooLarge:
                # Too many fillings to list: the rows and columns alone narrow its cells.
                table = ()
                seen = [set(digits) for digits in options]
            else:
                seen = [set() for _ in cage.cells]
            for filling in table:
                if all(d in digits for d, digits in zip(filling, options)):
                    for digits, d in zip(seen, filling):
                        digits.add(d)
            for cell, digits in zip(cage.cells, seen):
                if not self.digit(cell):
                    result[cell] = frozenset(digits)
        return result

    def fill_notes(self) -> bool:
        """Note in every empty cell the digits its row, column and cage allow. A cell
        with notes only loses those no longer allowed: what the player crossed off
        stays off."""
        return self._apply({
            cell: (0, (self.notes(cell) & digits) if self.notes(cell) else digits)
            for cell, digits in self.allowed().items()
        })

    def change(self, states: Mapping[Cell, CellState]) -> bool:
        """Give each of these cells its (digit, notes), all as one change: one undo."""
        for cell, (digit, notes) in states.items():
            self._check(cell, digit or None)
            for d in notes:
                self._check(cell, d)
        return self._apply(states)

    def restart(self) -> bool:
        """Erase every digit and note."""
        return self._apply({cell: (0, NO_NOTES) for cell in self.puzzle.cells})

    def reveal(self) -> bool:
        """Fill in the puzzle's stored solution."""
        solution = self.puzzle.solution
        if solution is None:
            raise PuzzleError("this puzzle has no stored solution to reveal")
        return self._apply({(r, c): (solution[r][c], NO_NOTES) for r, c in self.puzzle.cells})

    def undo(self) -> bool:
        """Take back the last change."""
        if not self._undo:
            return False
        change = self._undo.pop()
        self._write((edit.cell, edit.before) for edit in change)
        self._redo.append(change)
        return True

    def redo(self) -> bool:
        """Make again the last change undone."""
        if not self._redo:
            return False
        change = self._redo.pop()
        self._write((edit.cell, edit.after) for edit in change)
        self._undo.append(change)
        return True

    def _check(self, cell: Cell, digit: int | None = None) -> None:
        r, c = cell
        n = self.size
        if not (0 <= r < n and 0 <= c < n):
            raise ValueError(f"cell {cell} is off the {n}×{n} board")
        if digit is not None and not 1 <= digit <= n:
            raise ValueError(f"digit {digit} is not in 1..{n}")

    def _state(self, cell: Cell) -> CellState:
        return (self.digit(cell), self.notes(cell))

    def _apply(self, states: Mapping[Cell, CellState]) -> bool:
        """Record and make the change that gives these cells these states."""
        change = tuple(
            Edit(cell, self._state(cell), state)
            for cell, state in states.items()
            if self._state(cell) != state
        )
        if not change:
            return False
        self._write((edit.cell, edit.after) for edit in change)
        self._undo.append(change)
        self._redo.clear()
        return True

    def _write(self, states: Iterable[tuple[Cell, CellState]]) -> None:
        for (r, c), (digit, notes) in states:
            self._digits[r][c] = digit
            if notes:
                self._notes[(r, c)] = notes
            else:
                self._notes.pop((r, c), None)

    def view(self) -> BoardView:
        """The board as it stands now, unchanged by later moves."""
        return BoardView(self.puzzle, self.grid, dict(self._notes))

    def copy(self) -> Board:
        """The same digits and notes on a board of its own, without the history: to read
        in another thread while this one changes."""
        board = Board(self.puzzle, auto_clean_notes=self.auto_clean_notes)
        board._digits = [list(row) for row in self._digits]
        board._notes = dict(self._notes)
        return board
