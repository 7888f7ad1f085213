"""Hints in three presses, and what the cage inspector shows about one cage.

A hint first says where to look and which technique applies, then gives the whole
argument with its digits, then makes the step on the board. A mistake comes before
any deduction, since deductions from a wrong digit or a wrong note prove nonsense:
first that there is one, then where, then it is cleared.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Mapping

from kaldoku_tui.engine.board import NO_NOTES, Board, CellState, Notes
from kaldoku_tui.engine.check import mistakes
from kaldoku_tui.engine.fillings import TABLE_LIMIT, CageTooLarge, Filling, fillings, fillings_bound
from kaldoku_tui.engine.puzzle import Cage, Cell, cell_name
from kaldoku_tui.engine.steps import NUMBER_WORDS, Step, join
from kaldoku_tui.engine.techniques import next_step

STAGES = 3
"""Presses to a hint's end: where to look, why, and the step made."""

HINT_SECONDS = 5.0
"""How long `hint_within` looks for a hint before it says it found none in time."""

@dataclass(frozen=True)
class Hint:
    """One hint: what each press says and highlights, and the change the last press makes."""

    look: str
    """First press: the region to look at and the technique, or that there is a mistake."""
    reason: str
    """Second press: the argument with its digits, or where the mistake is."""
    done: str
    """After the third press: what changed."""
    region: frozenset[Cell]
    """Cells the first press highlights."""
    cells: frozenset[Cell]
    """Cells the second press highlights: those the argument uses and changes."""
    changes: Mapping[Cell, CellState] = field(default_factory=dict)
    """The third press: each cell's new digit and notes, made as one change."""
    step: Step | None = None
    """The deduction; None for a mistake."""

    def text(self, stage: int) -> str:
        """What press `stage` (1 to 3) says."""
        return (self.look, self.reason, self.done)[min(stage, STAGES) - 1]

    def highlight(self, stage: int) -> frozenset[Cell]:
        """The cells press `stage` shows."""
        return self.region if stage == 1 else self.cells


def hint(board: Board) -> Hint | None:
    """The hint for `board`: its first mistake, else its easiest deduction.

    Mistakes are judged against the puzzle's stored solution (none are looked for
    without one). None when no deduction follows from the board, or when a cage is too
    large for the deductions (`hint_within` says which).
    """
    try:
        return find_hint(board)
    except CageTooLarge:
        return None


def find_hint(board: Board) -> Hint | None:
    """The hint for `board`, as `hint` gives it; raises CageTooLarge when a cage is too
    large for the deductions."""
    mistake = first_mistake(board)
    if mistake is not None:
        return mistake
    notes = {cell: board.notes(cell) for cell in board.puzzle.cells if board.notes(cell)}
    step = next_step(board.puzzle, board.grid, notes)
    return None if step is None else step_hint(board, step)


@dataclass(frozen=True)
class HintSearch:
    """What a hint search with a time budget came to: a hint, nothing, or a search given up."""

    hint: Hint | None
    """The hint found; None when there is none or the search gave up."""
    gave_up: str | None = None
    """Why the search gave up, as the player reads it; None when it ran to its end."""


def hint_within(board: Board, seconds: float = HINT_SECONDS) -> HintSearch:
    """The hint for `board` (see `hint`), looked for `seconds` at most.

    A search that runs out of time is left to finish on its own in the background
    (every cage table is bounded, so it does finish) and its answer is dropped.
    """
    answer: list[HintSearch] = []

    def search() -> None:
        try:
            answer.append(HintSearch(find_hint(board)))
        except CageTooLarge as exc:
            answer.append(HintSearch(None, f"No hint: {exc}."))

    worker = threading.Thread(target=search, name="kaldoku-hint", daemon=True)
    worker.start()
    worker.join(seconds)
    if answer:
        return answer[0]
    return HintSearch(None, f"No hint found in {seconds:g} seconds on this board.")


def wrong_cells(board: Board) -> tuple[list[Cell], list[Cell]]:
    """The cells whose digit differs from the solution, and those whose notes leave it out,
    in reading order."""
    solution = board.puzzle.solution
    if solution is None:
        return [], []
    notes = [
        (r, c) for r, c in board.puzzle.cells
        if board.notes((r, c)) and solution[r][c] not in board.notes((r, c))
    ]
    return sorted(mistakes(board.puzzle, board.grid)), notes


def first_mistake(board: Board) -> Hint | None:
    """A hint that leads to the first wrong digit (or, without one, the first wrong notes)."""
    digits, notes = wrong_cells(board)
    if digits:
        cell = digits[0]
        name = cell_name(cell)
        return Hint(
            look=f"There is a mistake on the board: {how_many(len(digits), 'digit')} "
            f"{'is' if len(digits) == 1 else 'are'} wrong.",
            reason=f"The {board.digit(cell)} in {name} is wrong.",
            done=f"Cleared the wrong digit in {name}.",
            region=frozenset(),
            cells=frozenset({cell}),
            changes={cell: (0, NO_NOTES)},
        )
    if notes:
        cell = notes[0]
        name = cell_name(cell)
        return Hint(
            look=f"There is a mistake on the board: the notes of {how_many(len(notes), 'cell')} "
            "are wrong.",
            reason=f"The notes in {name} ({' '.join(map(str, sorted(board.notes(cell))))}) "
            "leave out its digit.",
            done=f"Cleared the wrong notes in {name}.",
            region=frozenset(),
            cells=frozenset({cell}),
            changes={cell: (0, NO_NOTES)},
        )
    return None


def how_many(n: int, what: str) -> str:
    """`one digit`, `three cells`, `12 cells`."""
    number = NUMBER_WORDS[n] if n < len(NUMBER_WORDS) else str(n)
    return f"{number} {what}" if n == 1 else f"{number} {what}s"


def step_hint(board: Board, step: Step) -> Hint:
    """The hint that teaches `step` and then makes it on `board`."""
    puzzle = board.puzzle
    n = puzzle.size
    region: set[Cell] = set()
    words = []
    for k in step.cages:
        cage = puzzle.cages[k]
        region.update(cage.cells)
        words.append(f"the {cage.label()} cage at {cell_name(cage.anchor)}")
    for r in step.rows:
        region.update((r, c) for c in range(n))
        words.append(f"row {r + 1}")
    for c in step.columns:
        region.update((r, c) for r in range(n))
        words.append(f"column {c + 1}")
    if not words:
        region.update(step.cells)
        words.append(join([cell_name(cell) for cell in sorted(step.cells)]))
    changed = set(step.sets) | set(step.removes)
    return Hint(
        look=f"Look at {join(words)}: {step.name}.",
        reason=f"{step.name}: {step.explanation}",
        done=f"Hint made: {step.summary}.",
        region=frozenset(region or changed),
        cells=frozenset(step.cells) | changed,
        changes=step_changes(board, step),
        step=step,
    )


def step_changes(board: Board, step: Step) -> dict[Cell, CellState]:
    """The board's cells after `step`: its digits placed and its notes crossed off.

    A blank cell without notes stands for every digit its row and column allow (as
    the solver read it), so a removal there writes those digits less the removed ones.
    Placed digits leave the notes of their row and column as placing by hand would.
    """
    notes: dict[Cell, Notes] = {}

    def current(cell: Cell) -> Notes:
        return notes.get(cell, board.notes(cell))

    for cell, removed in step.removes.items():
        notes[cell] = (board.notes(cell) or board.possible(cell)) - removed
    if board.auto_clean_notes:
        for cell, digit in step.sets.items():
            for peer in board.peers(cell):
                if digit in current(peer) and not board.digit(peer):
                    notes[peer] = current(peer) - {digit}
    states: dict[Cell, CellState] = {cell: (board.digit(cell), ns) for cell, ns in notes.items()}
    states.update({cell: (digit, NO_NOTES) for cell, digit in step.sets.items()})
    return states


@dataclass(frozen=True)
class CageFacts:
    """What the cage inspector shows about one cage of a board."""

    cage: Cage
    combos: list[Filling] | None
    """The digit combinations of the fillings still possible, each sorted as the clue reads;
    None for a cage too large to list (more than TABLE_LIMIT fillings: 8 cells on 9×9 can
    have half a million)."""
    fillings: int
    """How many fillings (digits in cell order) are still possible (0 when not listed)."""
    lines: list[tuple[str, list[int]]]
    """Each row and column the cage touches, with the digits placed in it."""
    notes: list[tuple[Cell, int, Notes]]
    """Each cell of the cage: its digit (0 for none) and its notes."""
    combo_notes: dict[Cell, Notes] | None = None
    """Each empty cell of the cage: the digits the fillings still possible put there (the
    notes the inspector applies); None when the fillings are not listed."""


def cage_facts(board: Board, cell: Cell) -> CageFacts:
    """The facts about the cage holding `cell`: fillings that still fit the digits placed
    in the cage and in its rows and columns, those digits, and the cage's notes."""
    puzzle = board.puzzle
    cage = puzzle.cage_at(cell)
    allowed = [{board.digit(c)} if board.digit(c) else board.possible(c) for c in cage.cells]
    combos: list[Filling] | None = None
    still = []
    if fillings_bound(puzzle.size, cage) <= TABLE_LIMIT:
        still = [
            f for f in fillings(puzzle.size, cage) if all(d in ok for d, ok in zip(f, allowed))
        ]
        combos = sorted({tuple(sorted(f, reverse=cage.op in "-/")) for f in still})
    n = puzzle.size
    rows = sorted({r for r, _ in cage.cells})
    columns = sorted({c for _, c in cage.cells})
    lines = [
        (f"row {r + 1}", sorted(d for d in (board.digit((r, c)) for c in range(n)) if d))
        for r in rows
    ] + [
        (f"column {c + 1}", sorted(d for d in (board.digit((r, c)) for r in range(n)) if d))
        for c in columns
    ]
    notes = [(c, board.digit(c), board.notes(c)) for c in cage.cells]
    cell_notes = None
    if combos is not None:
        cell_notes = {c: frozenset(f[k] for f in still)
                      for k, c in enumerate(cage.cells) if not board.digit(c)}
    return CageFacts(cage, combos, len(still), lines, notes, cell_notes)
