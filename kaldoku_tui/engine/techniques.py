"""Human-style solving: one explained deduction at a time, the easiest first; and grading.

Tiers follow Simon Tatham's Keen: (1) singles and the digits a cage's fillings can use,
(2) the fillings cell by cell, (3) cages forcing a digit into a line and subsets in lines,
(4) fish and forcing chains, (5) the line sum/product rule, then a trial that ends in a
contradiction. A puzzle's level is the hardest tier its solve needs. Keen's solver knows
no line rule: where a puzzle needs it, Keen guesses, and calls the puzzle unreasonable; so
it is tier 5 here, tried before a trial (at tier 3 until generator edition 26, the grader
gave Keen's level to 561 of the 630 Keen puzzles of keen_train; now to all 630).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations, compress, product
from math import factorial, prod
from operator import and_, itemgetter, not_, or_
from typing import Callable, Iterator, cast

from kaldoku_tui.engine.kinds import LEVELS, MAX_SIZE
from kaldoku_tui.engine.puzzle import Grid, Puzzle, cell_name
from kaldoku_tui.engine.solver import ALL_DIGITS, DIGITS_OF, Listed, Pairs
from kaldoku_tui.engine.steps import (
    Contradiction,
    Layout,
    ONE_DIGIT,
    TWO_DIGITS,
    Marks,
    Step,
    bit,
    digits_of,
    only_digit,
    say_cage,
    say_cells,
    say_combos,
    say_digits,
    say_effects,
    join,
)

__all__ = ["LEVELS", "Grade", "HumanSolve", "Step", "grade", "human_solve", "level_of", "next_step",
           "tier_needed"]

Technique = Callable[[Marks], Iterator[Step]]
Look = Callable[[Marks, int], Iterator[Step]]
"""A subset or fish technique that looks only at lines or digits with this many open places or more."""

SOUND_LOOKS: dict[Technique, tuple[Look, int]] = {}
"""The subsets and fish, each as a Look and the fewest open places where it can find
anything on a board that holds the puzzle's solution, in the grader's quick pass: there
tiers 1 and 2 have settled and every technique before it has found nothing (made with
the techniques; see `subsets` and `fish`)."""


@dataclass(frozen=True)
class HumanSolve:
    """The steps of a human-style solve, the grid they reach, and whether it is complete."""

    steps: list[Step]
    grid: Grid
    solved: bool

    @property
    def tier(self) -> int:
        """The hardest tier among the steps (1 when none was needed)."""
        return max((step.tier for step in self.steps), default=1)


@dataclass(frozen=True)
class Grade:
    """A puzzle's difficulty: its level, the tier behind it, and the number of steps."""

    level: str
    tier: int
    steps: int


def next_step(puzzle: Puzzle, grid: Grid, candidates=None, max_tier: int = 5) -> Step | None:
    """The easiest deduction on the board a player sees, or None when there is none.

    `candidates` are the player's notes, as rows of digit sets or bitmasks, or a
    mapping from cell to them; a blank cell without notes counts every digit not yet
    placed in its row and column. None also when the board contradicts itself.
    """
    marks = Marks.start(layout(puzzle), grid, candidates)
    try:
        check(marks)
        return first_step(marks, max_tier)
    except Contradiction:
        return None


def human_solve(puzzle: Puzzle, max_tier: int = 5) -> HumanSolve:
    """Solve from the clues alone, one easiest deduction at a time, up to `max_tier`."""
    marks = Marks.start(layout(puzzle))
    steps = propagate(marks, max_tier)
    return HumanSolve(steps, marks.grid(), marks.solved)


def grade(puzzle: Puzzle) -> Grade:
    """The level of a puzzle: the hardest tier its human-style solve needs.

    A puzzle that a single trial cannot crack still grades as unreasonable.
    """
    solve = human_solve(puzzle)
    tier = solve.tier if solve.solved else 5
    return Grade(LEVELS[tier - 1], tier, len(solve.steps))


@lru_cache(maxsize=16)
def layout(puzzle: Puzzle) -> Layout:
    return Layout(puzzle)


def first_step(marks: Marks, max_tier: int = 5) -> Step | None:
    """The first deduction of the easiest technique that has one."""
    for tier, technique in TECHNIQUES:
        if tier > max_tier:
            break
        for step in technique(marks):
            return step
    return None


def propagate(
    marks: Marks, max_tier: int, quick: bool = False, steps: list[Step] | None = None
) -> list[Step]:
    """Apply easiest-first steps until none is left; raise Contradiction on a dead end.

    `quick` is the grader's way: tiers 1 and 2 settle without steps, and each harder
    technique applies every step it finds before starting over from the easiest; the
    same deductions, unworded, in fewer passes. Steps are recorded in `steps` (a new
    list unless given), each before it is applied (in `quick` mode tier 3 and up only).
    """
    steps = [] if steps is None else steps
    if quick:
        marks.words = False
    while not marks.solved:
        if quick:
            settle(marks, max_tier)
            found = not marks.solved and _quick_pass(marks, max_tier, steps)
        else:
            step = first_step(marks, max_tier)
            if step is not None:
                steps.append(step)
                marks.apply(step)
            found = step is not None
        if not found:
            break
    if marks.solved and _settled_left(marks) is None:  # the fast solver's fillings say so
        for k in range(len(marks.layout.cage_cells)):
            cage_fits(marks, k)
    return steps


def tier_needed(puzzle: Puzzle, max_tier: int = 5) -> int | None:
    """The lowest tier whose deductions solve `puzzle` (its level is LEVELS[tier - 1]);
    None when tiers up to `max_tier` do not. The grader's fast path: no step is worded."""
    marks = Marks.start(layout(puzzle))
    try:
        for tier in range(1, max_tier + 1):
            propagate(marks, tier, quick=True)
            if marks.solved:
                return tier
    except Contradiction:
        return None
    return None


def level_of(puzzle: Puzzle) -> str:
    """The level `grade` gives `puzzle`, by the grader's fast path: no step is worded."""
    return LEVELS[(tier_needed(puzzle) or 5) - 1]


def settle(marks: Marks, max_tier: int) -> None:
    """Tiers 1 and 2 to the end (tier 2 only when `max_tier` allows it), without steps:
    singles, and each cage's cells keep the digits its fillings can put there (as a
    whole at tier 1, cell by cell at tier 2). Raise Contradiction on a dead end."""
    lay = marks.layout
    cand, placed = marks.cand, marks.placed
    by_cell = max_tier >= 2
    narrow = lay.propagation(by_cell)
    if narrow is not None:
        # The fast solver's propagation is these rules, and reaches the same board: the
        # one where each cell left with one digit is placed. It goes on from where it
        # last left this board, if the board has only narrowed since.
        since = None
        if marks.settled is not None and marks.settled[0] == by_cell:
            before = marks.settled[1][0]
            if before == cand and None not in marks.settled[1][1]:
                return  # the very board it left, every cell placed that has one digit
            if list(map(or_, cand, before)) == before:  # each cell's digits among those
                since = marks.settled[1]
        marks.settled = None
        left = narrow(cand, since)
        if left is None:
            raise Contradiction("singles and cage fillings leave no way to fill the board")
        marks.settled = (by_cell, (cand[:], left))
        placed[:] = map(ONE_DIGIT.__contains__, cand)  # no cell is left empty here
        return
    done = placed_in_lines(marks)
    for i, (row, col) in enumerate(lay.lines_of):
        if not placed[i] and cand[i] & (done[row] | done[col]):
            cand[i] &= ~(done[row] | done[col])
            if not cand[i]:
                raise Contradiction(f"{cell_name(lay.cell(i))} has no digit left")
    seen: dict[int, tuple[int, ...]] = {}
    changed = True
    while changed and not marks.solved:
        changed = False
        for i, mask in enumerate(cand):
            if not placed[i] and not mask & (mask - 1):
                marks.place(i, only_digit(mask))
                changed = True
        for line, cells in enumerate(lay.lines):
            once = twice = 0
            for i in cells:
                twice |= once & cand[i]
                once |= cand[i]
            if once != lay.full:
                raise Contradiction(f"a digit has no place left in {lay.line_name(line)}")
            for d in digits_of(once & ~twice):
                home = next((i for i in cells if cand[i] >> d & 1), None)
                if home is None:
                    raise Contradiction(f"{d} has no place left in {lay.line_name(line)}")
                if not placed[home]:
                    marks.place(home, d)
                    changed = True
        for k, members in enumerate(lay.cage_cells):
            now = tuple(cand[i] for i in members)
            if seen.get(k) == now:
                continue
            spots = marks.spots(k)
            if not spots[0]:
                cage_fits(marks, k)
            if not by_cell:
                union = 0
                for mask in spots:
                    union |= mask
                spots = (union,) * len(members)
            for i, keep in zip(members, spots):
                if cand[i] & ~keep:
                    cand[i] &= keep
                    changed = True
                    if not cand[i]:
                        raise Contradiction(f"{cell_name(lay.cell(i))} has no digit left")
            seen[k] = tuple(cand[i] for i in members)


def check(marks: Marks) -> None:
    """Raise Contradiction when a cell, line or cage plainly has no way to be filled."""
    lay = marks.layout
    for i, mask in enumerate(marks.cand):
        if not mask:
            raise Contradiction(f"{cell_name(lay.cell(i))} has no digit left")
    for line, cells in enumerate(lay.lines):
        union, fixed = 0, 0
        for i in cells:
            mask = marks.cand[i]
            if not mask & (mask - 1):
                if fixed & mask:
                    raise Contradiction(f"{only_digit(mask)} is twice in {lay.line_name(line)}")
                fixed |= mask
            union |= mask
        if union != lay.full:
            raise Contradiction(f"{lay.line_name(line)} has no place for some digit")
    for k in range(len(lay.cage_cells)):
        cage_fits(marks, k)


def _quick_pass(marks: Marks, max_tier: int, steps: list[Step]) -> bool:
    """One round of the techniques above tier 2 (settle does the rest), the easiest first."""
    lay = marks.layout
    board = (tuple(marks.cand), tuple(marks.placed))
    sound = None  # whether the board holds the puzzle's solution, asked when it matters (SOUND_LOOKS)
    on_size = _idle_on_size(lay.size)
    for tier, technique, board_only, sound_look in QUICK:
        if tier > max_tier:
            return False
        if technique is trial:
            found = _quick_trials(marks)
        else:
            if sound_look is not None:
                if sound is None:
                    sound = _held_solution(marks) is not None
                if sound and sound_look[1] > lay.size:
                    continue  # no line has so many open places: nothing to look at
            # A technique finds the same on the same board (of the same puzzle, where it reads cages).
            idle = on_size if board_only else lay.idle
            if idle.get(technique) == board:
                continue
            # All found on one board, then applied: each stays true on the narrower board.
            if sound and sound_look is not None:
                look, least = sound_look
                found = list(look(marks, least))
            else:
                found = list(technique(marks))
            if not found:
                idle[technique] = board
        for step in found:
            if step is not None:
                steps.append(step)
                marks.apply(step)
        if any(found):
            return True
    return False


@lru_cache(maxsize=None)
def _idle_on_size(n: int) -> dict[Technique, tuple[tuple[int, ...], tuple[bool, ...]]]:
    """`Layout.idle` for the techniques in BOARD_ONLY, shared by every puzzle of size `n`:
    the generator's splits make new puzzles on the same board."""
    return {}


def _quick_trials(marks: Marks) -> list[Step | None]:
    """Trials for the grader, cells of fewer candidates first: the first that the fast
    solver's propagation (tiers 1 and 2) refutes, and those it refutes among as many
    trials again; where it refutes none, the same with tiers 1-4, whose trials cost far
    more when they are not refuted. Either way the grade is the same: a trial refuted on
    a board stays refuted on any narrower one, so the order of trials changes the steps,
    never the board they end on."""
    order = list(_trial_order(marks, _held_solution(marks)))
    return _first_refuted(marks, order, 2) or _first_refuted(marks, order, 4) or [None]


def _first_refuted(marks: Marks, trials: list[tuple[int, int]], tier: int) -> list[Step | None]:
    """The steps of the first of `trials` that tiers up to `tier` refute, and of those
    refuted among as many trials again: where refuted trials are few and far apart
    (7×7 × only unreasonable, seed 335: 44 looks of 30 to 90 trials, one refuted each)
    it finds several, and where the first one settles the board it costs at most twice
    as much."""
    steps: list[Step | None] = []
    until = 0
    # Tiers 1 and 2 are the fast solver's propagation: a trial is followed by it alone,
    # from where it left this board.
    narrow = marks.layout.propagation(True) if tier == 2 else None
    settled = marks.settled
    since = settled[1] if settled is not None and settled[0] and settled[1][0] == marks.cand else None
    # Trials that a trial not refuted places too: the propagation only narrows, so the
    # board that trial reached holds them and is no contradiction, nor is theirs.
    holds: set[tuple[int, int]] = set()
    for tried, (i, d) in enumerate(trials, 1):
        if narrow is not None:
            step = None
            if (i, d) not in holds:
                values = marks.cand[:]
                values[i] = 1 << d
                if narrow(values, since) is None:
                    step = make("trial", 5, "", "", marks, removes={i: 1 << d})
                else:
                    for j, (v, was) in enumerate(zip(values, marks.cand)):
                        if v != was and v in ONE_DIGIT:
                            holds.add((j, v.bit_length() - 1))
        else:
            step = _trial(marks, i, d, tier)
        if step is not None:
            steps.append(step)
            until = until or 2 * tried
        if until and tried >= until:
            break
    return steps


def _held_solution(marks: Marks) -> Grid | None:
    """The solution the puzzle carries, when the board still holds all of its digits
    (a board the clues alone narrowed always does); None otherwise. A trial of one of
    its digits never ends in a contradiction: at 9×9 unreasonable most of the time
    went into following such trials to the end."""
    solution = marks.layout.puzzle.solution
    if solution is None:
        return None
    if all(map(and_, marks.cand, marks.layout.solution_bits())):
        return solution
    return None


# Building steps.

NAMES = {
    "seen_digit": "Digit already placed",
    "single_cage": "One-cell cage",
    "naked_single": "Naked single",
    "hidden_single": "Hidden single",
    "cage_digits": "Cage combinations",
    "cage_positions": "Cage combinations, cell by cell",
    "cage_line": "Cage fills a line",
    "naked_pair": "Naked pair",
    "hidden_pair": "Hidden pair",
    "naked_triple": "Naked triple",
    "hidden_triple": "Hidden triple",
    "naked_quad": "Naked quad",
    "hidden_quad": "Hidden quad",
    "line_sum": "Line sum",
    "line_product": "Line product",
    "x_wing": "X-wing",
    "swordfish": "Swordfish",
    "jellyfish": "Jellyfish",
    "forcing_chain": "Forcing chain",
    "trial": "Trial and contradiction",
}


def make(
    technique: str,
    tier: int,
    where: str | Callable[[], str],
    reason: str | Callable[[], str],
    marks: Marks,
    sets: dict[int, int] | None = None,
    removes: dict[int, int] | None = None,
    cells=(),
    cages=(),
    lines=(),
) -> Step:
    """A Step from cell indexes and removal bitmasks, worded as `reason, so effects.`

    `where` and `reason` may be functions that say them, called only when `marks`
    want words; without words the step has its effects and technique only.
    """
    lay = marks.layout
    n = lay.size
    set_cells = {divmod(i, n): d for i, d in (sets or {}).items()}
    removed = {divmod(i, n): _digit_set(mask) for i, mask in (removes or {}).items() if mask}
    if not marks.words:
        return Step.unworded(technique, tier, NAMES[technique], set_cells, removed)
    where = where() if callable(where) else where
    reason = reason() if callable(reason) else reason
    effects = say_effects(set_cells, removed)
    return Step(
        technique=technique,
        tier=tier,
        name=NAMES[technique],
        summary=f"{where}: {effects}" if where else effects,
        explanation=f"{reason}, so {effects}.",
        sets=set_cells,
        removes=removed,
        cells=tuple(sorted(lay.cell(i) for i in cells)),
        cages=tuple(sorted(cages)),
        rows=tuple(sorted(line for line in lines if line < n)),
        columns=tuple(sorted(line - n for line in lines if line >= n)),
    )


@lru_cache(maxsize=1 << 10)
def _digit_set(mask: int) -> frozenset[int]:
    """The digits of a candidate bitmask as a set, as a Step removes them: the grader
    makes thousands of steps a puzzle from a few hundred masks."""
    return frozenset(digits_of(mask))


def unplaced(marks: Marks, cells) -> list[int]:
    return [i for i in cells if not marks.placed[i]]


def placed_in_lines(marks: Marks) -> list[int]:
    """For each line, the digits placed in it, as a bitmask."""
    done = []
    for cells in marks.layout.lines:
        mask = 0
        for i in cells:
            if marks.placed[i]:
                mask |= marks.cand[i]
        done.append(mask)
    return done


# Tier 1.


def seen_digit(m: Marks) -> Iterator[Step]:
    """A note holding a digit already placed in the cell's row or column."""
    lay = m.layout
    done = placed_in_lines(m)
    if not any(m.cand[j] & (done[row] | done[col]) for j, (row, col) in enumerate(lay.lines_of)
               if not m.placed[j]):
        return
    for i, is_placed in enumerate(m.placed):
        if not is_placed:
            continue
        d = only_digit(m.cand[i])
        hit = [j for j in lay.peers[i] if not m.placed[j] and m.cand[j] >> d & 1]
        if hit:
            yield make(
                "seen_digit", 1, "",
                f"{cell_name(lay.cell(i))} holds {d}, and a digit appears once in each row and column",
                m, removes={j: bit(d) for j in hit}, cells=[i], lines=lay.lines_of[i],
            )


def single_cage(m: Marks) -> Iterator[Step]:
    lay = m.layout
    for k, cage in enumerate(lay.puzzle.cages):
        i = lay.cage_cells[k][0]
        if cage.op == "=" and not m.placed[i]:
            yield make(
                "single_cage", 1, "",
                f"The cage at {cell_name(cage.anchor)} has one cell and the clue {cage.target}", m,
                sets={i: cage.target}, cells=[i], cages=[k],
            )


def naked_single(m: Marks) -> Iterator[Step]:
    lay = m.layout
    for i, mask in enumerate(m.cand):
        if m.placed[i] or mask & (mask - 1):
            continue
        d = only_digit(mask)
        name = cell_name(lay.cell(i))
        row, col = lay.lines_of[i]
        seen = {line: {only_digit(m.cand[j]) for j in lay.lines[line] if m.placed[j]} for line in (row, col)}
        others = set(range(1, lay.size + 1)) - {d}
        if others <= seen[row] | seen[col]:
            in_col = (others - seen[row]) & seen[col]
            parts = [f"{say_digits(sorted(others & seen[row]))} in {lay.line_name(row)}"]
            if in_col:
                parts.append(f"{say_digits(in_col)} in {lay.line_name(col)}")
            if not others & seen[row]:
                parts = [f"{say_digits(sorted(others))} in {lay.line_name(col)}"]
            reason = f"The other digits are placed already ({'; '.join(parts)}): {name} can only be {d}"
        else:
            reason = f"Every digit but {d} is ruled out in {name}"
        yield make("naked_single", 1, "", reason, m, sets={i: d}, cells=[i], lines=(row, col))


def hidden_single(m: Marks) -> Iterator[Step]:
    lay = m.layout
    for line, cells in enumerate(lay.lines):
        done = once = twice = 0
        for i in cells:
            mask = m.cand[i]
            if m.placed[i]:
                done |= mask
            twice |= once & mask
            once |= mask
        if once != lay.full:
            missing = digits_of(lay.full & ~once)[0]
            raise Contradiction(f"{missing} has no place left in {lay.line_name(line)}")
        for d in digits_of(once & ~twice & ~done):
            i = next(i for i in cells if m.cand[i] >> d & 1)  # exactly one has it
            yield make(
                "hidden_single", 1, lay.line_name(line),
                f"In {lay.line_name(line)}, {d} fits only {cell_name(lay.cell(i))}",
                m, sets={i: d}, cells=[i], lines=[line],
            )


def cage_reason(m: Marks, k: int, found) -> str:
    """`11+ over three cells of column 4: 2 and 9 are already in that column, so only 1+3+7 and 1+4+6 fit`."""
    lay = m.layout
    cage = lay.puzzle.cages[k]
    cells = lay.cage_cells[k]
    full = lay.fillings(k)
    combos = say_combos(cage, found)
    fit = "fit" if len({tuple(sorted(f)) for f in found}) > 1 else "fits"
    head = say_cage(cage)
    if len(found) == len(full):
        return f"{head} can only be {say_combos(cage, found, last='or')}"
    lost = _union(full) & ~_union(found)
    rows = {lay.lines_of[i][0] for i in cells}
    cols = {lay.lines_of[i][1] for i in cells}
    lines = sorted((rows if len(rows) == 1 else set()) | (cols if len(cols) == 1 else set()))
    placed_there = 0
    for line in lines:
        for j in lay.lines[line]:
            if m.placed[j] and j not in cells:
                placed_there |= m.cand[j]
    if lost and lost & ~placed_there == 0 and len(lines) == 1:
        what = "that row" if lines[0] < lay.size else "that column"
        lost_digits = digits_of(lost)
        verb = "is" if len(lost_digits) == 1 else "are"
        return f"{head}: {say_digits(lost_digits)} {verb} already in {what}, so only {combos} {fit}"
    return f"{head}: with the digits still possible in its cells, only {combos} {fit}"


def _union(found) -> int:
    mask = 0
    for f in found:
        for d in f:
            mask |= bit(d)
    return mask


def cage_fits(m: Marks, k: int):
    found = m.fits(k)
    if not found:
        cage = m.layout.puzzle.cages[k]
        raise Contradiction(f"the {cage.label()} cage at {cell_name(cage.anchor)} could not be filled")
    return found


def cage_digits(m: Marks) -> Iterator[Step]:
    """Every cell of a cage keeps only digits that some filling of the cage uses."""
    lay = m.layout
    for k, cells in enumerate(lay.cage_cells):
        open_cells = unplaced(m, cells)
        if not open_cells:
            continue
        found = cage_fits(m, k)
        union = 0
        for mask in m.spots(k):
            union |= mask
        removes = {i: m.cand[i] & ~union for i in open_cells if m.cand[i] & ~union}
        if removes:
            reason = f"{cage_reason(m, k, found)}; its cells use only {say_digits(digits_of(union))}"
            yield make("cage_digits", 1, say_cage(lay.puzzle.cages[k]), reason, m,
                       removes=removes, cells=cells, cages=[k])


def cage_positions(m: Marks) -> Iterator[Step]:
    """Each cell of a cage keeps only digits some filling puts in that very cell."""
    lay = m.layout
    for k, cells in enumerate(lay.cage_cells):
        open_cells = unplaced(m, cells)
        if not open_cells:
            continue
        found = cage_fits(m, k)
        removes = {}
        for i, here in zip(cells, m.spots(k)):
            if not m.placed[i] and m.cand[i] & ~here:
                removes[i] = m.cand[i] & ~here
        if removes:
            reason = f"{cage_reason(m, k, found)}; taken cell by cell, no way puts these digits there"
            yield make("cage_positions", 2, say_cage(lay.puzzle.cages[k]), reason, m,
                       removes=removes, cells=cells, cages=[k])


# Tier 3.


def cage_line(m: Marks) -> Iterator[Step]:
    """A digit every filling puts in one line inside the cage is in no other cell of that line."""
    lay = m.layout
    cand, placed = m.cand, m.placed
    quiet = None if m.words else m.quiet  # the grader applies every step found
    left = _settled_left(m) if quiet is not None else None
    if quiet is not None and left is not None and m.settled is not None and m.settled[0]:
        yield from _cage_line_left(m, quiet, left)
        return
    for k, (cells, (groups, lines)) in enumerate(zip(lay.cage_cells, _cage_lines(lay))):
        if all(placed[i] for i in cells):
            continue
        if quiet is not None:
            masks = tuple([cand[i] for i in cells])
            if quiet.get(k) == masks:
                continue
            quiet[k] = masks
        found = None
        for g, (line, outside) in enumerate(lines):
            if found is None:
                if all(placed[j] for j in outside):
                    continue
                found, in_lines = m.always(k, groups)
                if not found:
                    cage_fits(m, k)  # says why there is none
                if not any(in_lines):
                    break
            always = in_lines[g]
            removes = {j: cand[j] & always for j in outside if not placed[j] and cand[j] & always}
            if removes:
                ds = digits_of(always)
                reason = lambda: (  # worded only when asked, while this step is current
                    f"{cage_reason(m, k, found)}; each puts {say_digits(ds)} in "
                    f"{lay.line_name(line)} inside the cage: the {say_digits(ds)} of "
                    f"{lay.line_name(line)} {'is' if len(ds) == 1 else 'are'} in this cage")
                yield make("cage_line", 3, lambda: say_cage(lay.puzzle.cages[k]), reason, m,
                           removes=removes, cells=cells, cages=[k], lines=[line])


def _cage_line_left(m: Marks, quiet: dict, left: list[Pairs | Listed]) -> Iterator[Step]:
    """cage_line's steps, unworded, on a board the fast solver's propagation left cell by
    cell, with the fillings it left each cage (`_settled_left`): the same steps in the
    same order."""
    cand, placed = m.cand, m.placed
    for k, masks_of, groups, outsides in _cage_lines_wide(m.layout):
        masks = masks_of(cand)
        if quiet.get(k) == masks:
            continue
        quiet[k] = masks
        entry = left[k]
        if len(entry) == 3:  # a domino, along its line: the digits of every pair left
            always = -1
            for first, second in entry[1]:
                always &= first | second
            every: tuple[int, ...] = (always,)
        else:
            every = _always_left(entry, groups)
        for outside, always in zip(outsides, every):
            if always:
                removes = {j: cand[j] & always for j in outside if cand[j] & always and not placed[j]}
                if removes:
                    yield make("cage_line", 3, "", "", m, removes=removes)


def _settled_left(m: Marks) -> list[Pairs | Listed] | None:
    """The fillings the fast solver's propagation left each cage of `m`, when it left
    this very board (as the grader's settle does before tier 3 looks): each cage's
    fillings are then exactly those its cells' candidates allow. None otherwise."""
    if m.settled is None or m.settled[1][0] != m.cand:
        return None
    left = m.settled[1][1]
    return cast("list[Pairs | Listed]", left) if None not in left else None


_ALWAYS_KEPT = 4096
"""The most answers `_always_left` remembers (a server's memory stays bounded)."""

_always_found: dict[tuple[int, int, int], tuple[object, tuple[tuple[int, ...], ...], tuple[int, ...]]] = {}


def _always_left(entry: Listed, groups: tuple[tuple[int, ...], ...]) -> tuple[int, ...]:
    """`Marks.always`'s digits by group, from the fillings the fast solver left a cage of
    three cells or more (`solver.Listed`, never empty): a digit is always in a group when
    no filling left lacks it in every position of the group. Remembered by the fillings
    left: which of the cage's table, the table being shared by the cages of one form."""
    keeps, alive = entry[3], entry[1]
    key = (id(keeps), alive, id(groups))
    known = _always_found.get(key)
    if known is not None and known[0] is keeps and known[1] is groups:
        return known[2]
    if len(_always_found) >= _ALWAYS_KEPT:
        _always_found.clear()
    found = _always_found[key] = (keeps, groups, _always_of(entry, groups))
    return found[2]


def _always_of(entry: Listed, groups: tuple[tuple[int, ...], ...]) -> tuple[int, ...]:
    """`_always_left`, worked out."""
    every = []
    unions, alive, _, keeps, _ = entry
    for positions in groups:
        union = 0
        for pos in positions:
            union |= unions[pos]
        always = 0
        for d in DIGITS_OF[union]:
            lacking = alive
            for pos in positions:
                lacking &= keeps[pos][d]
            if not lacking:
                always |= 1 << d
        every.append(always)
    return tuple(every)


@lru_cache(maxsize=16)
def _cage_lines(lay: Layout) -> list[tuple[tuple[tuple[int, ...], ...], list[tuple[int, list[int]]]]]:
    """For each cage of two or more cells, each line through it: the cage's positions
    on that line, and the line with its cells outside the cage; cage_line asks for them
    on every pass."""
    return [_cage_lines_of(lay.size, cells) for cells in lay.cage_cells]


@lru_cache(maxsize=16)
def _cage_lines_wide(lay: Layout) -> list[tuple[int, itemgetter, tuple[tuple[int, ...], ...], list[list[int]]]]:
    """_cage_lines of the cages and lines where a cage has two cells or more in a line, for
    a board that singles and fillings cell by cell have settled: there a cage's one cell
    in a line, if every filling left puts one digit in it, holds that digit alone, and
    the digit is gone from the rest of its row and column already. Each cage by its
    place, with a function that reads its cells' candidates off a board."""
    wide = []
    for k, cells in enumerate(lay.cage_cells):
        masks_of, groups, outsides = _cage_lines_wide_of(lay.size, cells)
        if groups:
            wide.append((k, masks_of, groups, outsides))
    return wide


@lru_cache(maxsize=4096)
def _cage_lines_wide_of(
    n: int, cells: tuple[int, ...]
) -> tuple[itemgetter, tuple[tuple[int, ...], ...], list[list[int]]]:
    """_cage_lines_wide of one cage by its cells: its cells' getter, groups and lines' other cells."""
    groups, lines = _cage_lines_of(n, cells)
    kept = [g for g, positions in enumerate(groups) if len(positions) > 1]
    return itemgetter(*cells), tuple([groups[g] for g in kept]), [lines[g][1] for g in kept]


@lru_cache(maxsize=4096)
def _cage_lines_of(n: int, cells: tuple[int, ...]) -> tuple[tuple[tuple[int, ...], ...], list[tuple[int, list[int]]]]:
    """_cage_lines of one cage by its cells: a generator's puzzles, split after split, share most cages."""
    if len(cells) == 1:
        return (), []
    rows, cols = [i // n for i in cells], [i % n for i in cells]
    members = set(cells)
    groups = [tuple([pos for pos, r in enumerate(rows) if r == row]) for row in sorted(set(rows))]
    groups += [tuple([pos for pos, c in enumerate(cols) if c == col]) for col in sorted(set(cols))]
    lines = sorted(set(rows)) + [n + col for col in sorted(set(cols))]
    line_cells = _geometry_lines(n)
    return tuple(groups), [(line, [j for j in line_cells[line] if j not in members]) for line in lines]


@lru_cache(maxsize=None)
def _geometry_lines(n: int) -> list[list[int]]:
    """The cells of each line of an n×n board: rows, then columns."""
    return [[r * n + c for c in range(n)] for r in range(n)] + [[r * n + c for r in range(n)] for c in range(n)]


@lru_cache(maxsize=8)
def _lines_seen(
    n: int, cand: tuple[int, ...], placed: tuple[bool, ...]
) -> list[tuple[list[int], tuple[int, ...], int, tuple[int, ...]]]:
    """For each line of a board (rows, then columns) with candidates `cand` and `placed`
    cells: its open cells, their candidates, the digits placed in it (a bitmask), and every
    cell's candidates. Remembered: the six subset techniques and three fish look at the
    same board in one pass of the grader."""
    found = []
    for cells, masks_of in _line_getters(n):
        masks = masks_of(cand)
        here = masks_of(placed)
        if True not in here:
            found.append((cells, masks, 0, masks))
            continue
        open_cells = []
        open_masks = []
        done = 0
        for i, mask, is_placed in zip(cells, masks, here):
            if is_placed:
                done |= mask
            else:
                open_cells.append(i)
                open_masks.append(mask)
        found.append((open_cells, tuple(open_masks), done, masks))
    return found


@lru_cache(maxsize=None)
def _line_getters(n: int) -> list[tuple[list[int], itemgetter]]:
    """The cells of each line of an n×n board (rows, then columns), each with a function
    that reads them off a board in that order."""
    return [(cells, itemgetter(*cells)) for cells in _geometry_lines(n)]


SUBSET_NAMES = {2: "pair", 3: "triple", 4: "quad"}
"""Subsets by order. Orders up to half a line are enough: in a line of m open cells, a
naked subset of k cells is a hidden subset of the other m − k, and m ≤ 9."""

FISH_NAMES = {2: "x_wing", 3: "swordfish", 4: "jellyfish"}
"""Fish by order; as with subsets, a fish over k rows is one over m − k columns."""


def subsets(size: int, hidden: bool) -> Technique:
    """Naked or hidden subsets of `size` cells in a line."""
    technique = f"{'hidden' if hidden else 'naked'}_{SUBSET_NAMES[size]}"

    def find(m: Marks, least: int = 0) -> Iterator[Step]:
        """The subsets in lines of more than `size` open cells, and of `least` or more."""
        lay = m.layout
        fewest = max(size + 1, least)
        for line, (open_cells, open_cands, _, _) in enumerate(_lines_seen(lay.size, tuple(m.cand), tuple(m.placed))):
            if len(open_cells) < fewest:
                continue
            found = _line_subsets(lay.size, size, hidden, open_cands)
            for group, digits, removed in found:
                spots = [open_cells[pos] for pos in group]
                removes = {open_cells[pos]: mask for pos, mask in removed}
                if not hidden:
                    reason = lambda: (
                        f"In {lay.line_name(line)}, {say_cells(lay.cell(i) for i in spots)} hold "
                        f"only {say_digits(digits_of(digits))} between them: those digits go there")
                else:
                    reason = lambda: (
                        f"In {lay.line_name(line)}, {say_digits(digits_of(digits))} fit only "
                        f"{say_cells(lay.cell(i) for i in spots)}: those cells take them and hold nothing else")
                yield make(technique, 3, lay.line_name(line), reason, m,
                           removes=removes, cells=spots, lines=[line])

    find.__name__ = technique
    # In a line of m open cells, a naked subset of k cells is a hidden one of m − k; on a
    # board that holds a solution, where the ones before it in the quick pass found nothing.
    SOUND_LOOKS[find] = find, 2 * size + hidden
    return find


@lru_cache(maxsize=1 << 16)
def _line_subsets(
    n: int, size: int, hidden: bool, cands: tuple[int, ...]
) -> tuple[tuple[tuple[int, ...], int, tuple[tuple[int, int], ...]], ...]:
    """The naked (or hidden) subsets of `size` among a line's open cells, whose candidates
    are `cands`, that remove digits: for each, the positions of its cells, its digits as a
    mask, and the digits it removes by position. Remembered: a solve looks at the same
    lines again on every pass."""
    found = []
    positions = range(len(cands))
    if not hidden:
        small = [pos for pos in positions if cands[pos].bit_count() <= size]
        for group in combinations(small, size):
            union = 0
            for pos in group:
                union |= cands[pos]
            if union.bit_count() != size:
                continue
            removes = tuple((pos, cands[pos] & union) for pos in positions
                            if pos not in group and cands[pos] & union)
            if removes:
                found.append((group, union, removes))
        return tuple(found)
    # The digits in 2 to `size` cells: `two` holds the digits in two cells or more, and so
    # on, counted only as far as `size` + 1 cells: a line the grader has not met is
    # seldom one with a subset (82 of 4,232 hidden ones, 5×5 and 6×6 extreme).
    one = two = three = 0
    if size == 2:
        for mask in cands:
            three |= two & mask
            two |= one & mask
            one |= mask
        few = two & ~three
    else:  # sizes up to 4
        four = five = 0
        for mask in cands:
            five |= four & mask
            four |= three & mask
            three |= two & mask
            two |= one & mask
            one |= mask
        few = two & ~(four, five)[size - 3]
    if few.bit_count() < size:
        return ()
    where = []  # for each of those digits, the positions that hold it as a bitmask
    for d in DIGITS_OF[few]:
        digit = 1 << d
        spots = 0
        for pos, mask in enumerate(cands):
            if mask & digit:
                spots |= 1 << pos
        where.append((d, spots))
    for chosen in combinations(where, size):
        spots = keep = 0
        for d, places in chosen:
            spots |= places
            keep |= 1 << d
        if spots.bit_count() != size:
            continue
        group = tuple([pos for pos in positions if spots >> pos & 1])
        removes = tuple((pos, cands[pos] & ~keep) for pos in group if cands[pos] & ~keep)
        if removes:
            found.append((group, keep, removes))
    return tuple(found)


def line_rule(m: Marks) -> Iterator[Step]:
    """A row or column adds up to N(N+1)/2 and multiplies to N!; so do runs of them.

    Cages wholly inside a run of lines, with the digits placed there, leave a total
    for the few remaining cells; those cells keep only digits that can make it.
    """
    cand, placed = m.cand, m.placed
    quiet = None if m.words else m.quiet_runs  # the grader applies every step found
    open_cells = sum(compress(CELL_BITS, map(not_, placed)))  # as a bitmask over the board
    windows, covers = _windows(m.layout)
    for w, (lines, window, op, candidates, outside, masks_of) in enumerate(windows):
        # The cells left for the total are the open ones outside those cages: with none or
        # more than three, there is nothing to work out.
        rest = outside & open_cells
        if 1 <= rest.bit_count() <= 3:
            if quiet is not None:  # as cage_line's: the run's cells alone say what it gives
                masks = masks_of(cand)
                if quiet.get(w) == masks:
                    continue
                quiet[w] = masks
            step = _line_total(m, op, lines, window, candidates, covers, open_cells, rest)
            if step is not None:
                yield step


CELL_BITS = tuple(1 << i for i in range(MAX_SIZE * MAX_SIZE))
"""Each cell's bit, by its index in reading order, in a bitmask over a board's cells."""


@lru_cache(maxsize=16)
def _windows(lay: Layout) -> tuple[list[tuple[list[int], list[int], str, int, int, itemgetter]], list[int]]:
    """Runs of one or two rows or columns, each with an operation, the cages of it (or
    single cells) wholly inside (bit k for cage k), the run's cells outside those cages
    (bit i for cell i), and a function that reads the run's candidates off a board; only
    runs holding such a cage of the operation. Made for every puzzle a generator meets,
    so cage by cage, in one pass. With them, each cage's cells as a bitmask (0 for a
    cage of − or ÷, never counted)."""
    n = lay.size
    runs = _runs(n)
    sums, products = [0] * len(runs), [0] * len(runs)  # the cages each run holds, by operation
    summed, multiplied = [0] * len(runs), [0] * len(runs)  # the cells they cover
    plus = times = 0  # the + cages and the × cages
    covers = [0] * len(lay.cage_cells)
    for k, (cage, cells) in enumerate(zip(lay.puzzle.cages, lay.cage_cells)):
        op = cage.op
        added, multiplied_in = op in ("+", "="), op in ("*", "=")  # a single cell counts in both
        if not (added or multiplied_in):
            continue
        one = 1 << k
        if op == "+":
            plus |= one
        elif op == "*":
            times |= one
        places, cover = _runs_holding(n, cells)
        covers[k] = cover
        for place in places:
            if added:
                sums[place] |= one
                summed[place] |= cover
            if multiplied_in:
                products[place] |= one
                multiplied[place] |= cover
    found: list[tuple[list[int], list[int], str, int, int, itemgetter]] = []
    for place, (lines, window, _, _, _, whole, masks_of) in enumerate(runs):
        if sums[place] & plus:
            found.append((lines, window, "+", sums[place], whole & ~summed[place], masks_of))
        if products[place] & times:
            found.append((lines, window, "*", products[place], whole & ~multiplied[place], masks_of))
    return found, covers


@lru_cache(maxsize=4096)
def _runs_holding(n: int, cells: tuple[int, ...]) -> tuple[list[int], int]:
    """The places in `_runs(n)` of the runs that hold a cage of these cells wholly, and
    the cells as a bitmask: a generator's puzzles, split after split, share most cages."""
    rows, cols = [i // n for i in cells], [i % n for i in cells]
    at = _run_places(n)
    places = []
    # Runs of rows, then of columns: first <= the cage's first line, its last < end.
    for base, low, high in ((0, min(rows), max(rows)), (n, min(cols), max(cols))):
        for width in (1, 2):
            for first in range(max(0, high - width + 1), min(low, n - width) + 1):
                places.append(at[(base, first, first + width)])
    return sorted(places), sum(1 << i for i in cells)


@lru_cache(maxsize=None)
def _run_places(n: int) -> dict[tuple[int, int, int], int]:
    """The place in `_runs(n)` of each run by 0 for rows or n for columns, its first line
    and the one past its last."""
    return {(base, first, end): place for place, (_, _, first, end, base, _, _) in enumerate(_runs(n))}


@lru_cache(maxsize=None)
def _runs(n: int) -> list[tuple[list[int], list[int], int, int, int, int, itemgetter]]:
    """_windows' runs on a board of size `n`: the lines, their cells in reading order,
    the first line and the one past the last counted within rows or columns, 0 for
    rows or n for columns, the cells as a bitmask, and their candidates' getter."""
    cells_of = [[r * n + c for c in range(n)] for r in range(n)] + [[r * n + c for r in range(n)] for c in range(n)]
    runs = []
    for width in (1, 2):
        for first in range(n - width + 1):
            for base in (0, n):
                lines = list(range(base + first, base + first + width))
                window = sorted(i for line in lines for i in cells_of[line])
                runs.append((lines, window, first, first + width, base, sum(1 << i for i in window),
                             itemgetter(*window)))
    return runs


def _line_total(
    m: Marks, op: str, lines: list[int], window: list[int], candidates: int, covers: list[int], open_cells: int,
    rest_cells: int,
) -> Step | None:
    """line_rule's step on a run of `lines` (its cells `window`) for `op`, with the cages
    wholly inside it (bit k for cage k), given each cage's cells, the board's open cells and
    the run's open cells outside those cages (`rest_cells`), as bitmasks (bit i for cell i);
    None when it has none."""
    lay = m.layout
    n = lay.size
    width = len(lines)
    cages = lay.puzzle.cages
    total = width * n * (n + 1) // 2 if op == "+" else factorial(n) ** width
    inside, placed_digits = [], []
    used = 0  # the cells of the cages inside, as a bitmask
    while candidates:
        k = (candidates & -candidates).bit_length() - 1  # the cages in order
        candidates &= candidates - 1
        cover = covers[k]
        if cover & open_cells:
            inside.append(k)
            used |= cover
            total = total - cages[k].target if op == "+" else total // cages[k].target
    if not any(cages[k].op == op for k in inside):
        return None
    cand = m.cand
    for i in window:  # the digits placed outside them, in reading order
        if not CELL_BITS[i] & (used | open_cells):
            d = only_digit(cand[i])
            placed_digits.append(d)
            total = total - d if op == "+" else total // d
    rest, clash = _rest_of(n, rest_cells)
    possible = _makes(op, total, tuple([cand[i] for i in rest]), clash)
    removes = {i: cand[i] & ~possible[pos] for pos, i in enumerate(rest) if cand[i] & ~possible[pos]}
    if not removes:
        return None
    sets = {}
    for pos, i in enumerate(rest):
        if possible[pos] and possible[pos] & (possible[pos] - 1) == 0:
            sets[i] = only_digit(possible[pos])
            removes.pop(i, None)
    if any(not p for p in possible):
        raise Contradiction(f"{say_cells(lay.cell(i) for i in rest)} could not make the rest of the line")

    def reason() -> str:
        where = _say_lines(lay, lines)
        if op == "+":
            line_total = n * (n + 1) // 2
            whole = f"add up to 2×{line_total} = {2 * line_total}" if width > 1 else f"adds up to {line_total}"
        else:
            whole = (f"multiply to ({n}!)² = {factorial(n) ** 2}" if width > 1
                     else f"multiplies to {n}! = {factorial(n)}")
        labels = join([cages[k].label() for k in inside])
        cage_words = f"the cage {labels} lies" if len(inside) == 1 else f"the cages {labels} lie"
        if placed_digits:
            digit_words = "digits" if len(placed_digits) > 1 else "digit"
            placed_note = f", and with the placed {digit_words} {say_digits(placed_digits)} that"
        else:
            placed_note = ", which"
        remaining = say_cells(lay.cell(i) for i in rest)
        if len(rest) == 1:
            left = f"leaves {total} for {remaining}"
        else:
            left = f"leaves {remaining} to {'add up' if op == '+' else 'multiply'} to {total}"
        return f"{where[0].upper()}{where[1:]} {whole}; {cage_words} wholly inside{placed_note} {left}"

    technique = "line_sum" if op == "+" else "line_product"
    return make(technique, 5, lambda: _say_lines(lay, lines), reason, m, sets=sets, removes=removes,
                cells=rest, cages=inside, lines=lines)


@lru_cache(maxsize=1 << 12)
def _rest_of(n: int, cells: int) -> tuple[tuple[int, ...], tuple[tuple[int, ...], ...]]:
    """The cells of a bitmask (bit i for cell i) in reading order, and for each the earlier
    of them in its row or column."""
    rest = tuple([i for i in range(n * n) if cells >> i & 1])
    clash = tuple(tuple(j for j in range(pos) if rest[j] // n == i // n or rest[j] % n == i % n)
                  for pos, i in enumerate(rest))
    return rest, clash


@lru_cache(maxsize=1 << 14)
def _makes(op: str, total: int, masks: tuple[int, ...], clash: tuple[tuple[int, ...], ...]) -> tuple[int, ...]:
    """For cells whose candidates are `masks`, the digits each takes in some choice of
    digits that makes `total` by `op`, with no repeat where `clash[pos]` (the earlier
    positions that share a row or column with each) says. Remembered: line_rule meets
    the same few cells again on every pass."""
    possible = [0] * len(masks)
    last = len(masks) - 1
    repeats = [(pos, j) for pos in range(last) for j in clash[pos]]  # pairs of the head's cells
    # Every choice for the cells but the last; the total leaves one digit for it.
    for head in product(*[DIGITS_OF[mask] for mask in masks[:last]]):
        for pos, j in repeats:
            if head[pos] == head[j]:
                break
        else:
            if op == "+":
                d = total - sum(head)
            else:
                made = prod(head)
                if total % made:
                    continue
                d = total // made
            if d < 1 or not masks[last] >> d & 1:
                continue
            for j in clash[last]:
                if head[j] == d:
                    break
            else:
                for pos, e in enumerate(head):
                    possible[pos] |= 1 << e
                possible[last] |= 1 << d
    return tuple(possible)


# Tier 4.


def fish(size: int) -> Technique:
    """X-wing (2), swordfish (3), jellyfish (4): a digit confined to `size` columns in
    `size` rows, or the reverse."""
    technique = FISH_NAMES[size]

    def find(m: Marks, least: int = 0) -> Iterator[Step]:
        """The fish of digits open in `least` rows (and columns) or more."""
        lay = m.layout
        n = lay.size
        for base, cross, d, every, lines_open, fewest, most in _fish_spots(n, tuple(m.cand), tuple(m.placed)):
            if len(every) < size or lines_open < least or fewest > size:
                continue
            spots = tuple(every) if most <= size else tuple([spot for spot in every if spot[1].bit_count() <= size])
            if len(spots) < size:
                continue
            for group, positions in _fish_groups(spots, size):
                removes = {}
                for pos in positions:
                    for i in lay.lines[cross + pos]:
                        if lay.lines_of[i][0 if base == 0 else 1] not in group and m.cand[i] >> d & 1 \
                                and not m.placed[i]:
                            removes[i] = bit(d)
                if removes:
                    own = lambda: _say_lines(lay, group)
                    other = lambda: _say_lines(lay, [cross + pos for pos in positions])
                    reason = lambda: (
                        f"In {own()}, {d} fits only in {other()}: the {d}s of those "
                        f"{'rows' if base == 0 else 'columns'} are the {d}s of {other()}")
                    places = dict(spots)
                    cells = [lay.lines[line][pos] for line in group for pos in range(n) if places[line] >> pos & 1]
                    yield make(technique, 4, lambda: f"{d} in {own()}", reason, m, removes=removes, cells=cells,
                               lines=list(group) + [cross + pos for pos in positions])

    find.__name__ = technique
    # A fish over k of the m rows where a digit is open is one over m − k columns: on a
    # board that holds a solution, where the smaller fish before it found nothing, and
    # singles none (m − k of 0 or 1), one of 2k rows or more.
    SOUND_LOOKS[find] = find, 2 * size
    return find


@lru_cache(maxsize=8)
def _fish_spots(
    n: int, cand: tuple[int, ...], placed: tuple[bool, ...]
) -> list[tuple[int, int, int, list[tuple[int, int]], int, int, int]]:
    """On a board: for rows (base 0, cross n), then columns (base n, cross 0), and each
    digit with two places or more in two of those lines or more where it is not placed:
    those lines, each with the digit's places in it (a bitmask); the number of lines where it is not
    placed; and the fewest and most places in a line of those. Remembered: the fish of
    every size look at the same board in one pass of the grader."""
    seen = _lines_seen(n, cand, placed)
    full = ALL_DIGITS[n]
    found = []
    for base, cross in ((0, n), (n, 0)):
        spots_of: list[list[tuple[int, int]]] = [[] for _ in range(n + 1)]
        open_in = [0] * (n + 1)
        for line in range(base, base + n):
            _, _, done, masks = seen[line]
            places = _places_of_digits(n, masks)
            for d in DIGITS_OF[full & ~done]:
                open_in[d] += 1
                if places[d].bit_count() >= 2:
                    spots_of[d].append((line, places[d]))
        for d in range(1, n + 1):
            spots = spots_of[d]
            if len(spots) >= 2:
                counts = [where.bit_count() for _, where in spots]
                found.append((base, cross, d, spots, open_in[d], min(counts), max(counts)))
    return found


@lru_cache(maxsize=1 << 14)
def _fish_groups(spots: tuple[tuple[int, int], ...], size: int) -> list[tuple[tuple[int, ...], list[int]]]:
    """The groups of `size` lines among `spots` (each line with the positions a digit may
    take in it as a bitmask, by line) whose positions together are `size` many, with those
    positions: in the order of `combinations`, a group left as soon as its positions are
    too many (a jellyfish looked at 126 groups of 9 lines for every digit, row and column)."""
    lines = [line for line, _ in spots]
    masks = [where for _, where in spots]
    found: list[tuple[tuple[int, ...], list[int]]] = []
    chosen: list[int] = []

    def extend(start: int, union: int) -> None:
        if len(chosen) == size:
            if union.bit_count() == size:
                found.append((tuple(chosen), [pos for pos in range(union.bit_length()) if union >> pos & 1]))
            return
        for j in range(start, len(lines) - (size - len(chosen)) + 1):
            wider = union | masks[j]
            if wider.bit_count() <= size:
                chosen.append(lines[j])
                extend(j + 1, wider)
                chosen.pop()

    extend(0, 0)
    return found


@lru_cache(maxsize=1 << 16)
def _places_of_digits(n: int, cands: tuple[int, ...]) -> tuple[int, ...]:
    """For each digit 0..n, the positions in a line whose candidates are `cands` that
    hold it, as a bitmask. Remembered: fish look at every line for every digit on every pass."""
    places = [0] * (n + 1)
    for pos, mask in enumerate(cands):
        here = 1 << pos
        for d in DIGITS_OF[mask]:
            places[d] |= here
    return tuple(places)


def forcing_chain(m: Marks) -> Iterator[Step]:
    """Chains of two-digit cells: if the first cell is not x, each link forces the next.

    Either the first cell is x or the chain's end is x, so a cell that sees both is not
    x; and a chain that forces a cell seen by the first to its other digit proves x.
    """
    lay = m.layout
    cand, placed = m.cand, m.placed
    pairs = [i for i, mask in enumerate(cand) if mask in TWO_DIGITS]  # a placed cell has one
    is_pair = set(pairs)
    # A link, "cell i is v", as i * LINK + v; each one's next links, in the order of i's
    # peers: each two-digit peer that v leaves its other digit. Made once, followed by
    # every chain.
    after: dict[int, list[int]] = {}
    for i in pairs:
        peers = [j for j in lay.peers[i] if j in is_pair]
        for v in DIGITS_OF[cand[i]]:
            seen_value = 1 << v
            after[i * LINK + v] = [j * LINK + (cand[j] ^ seen_value).bit_length() - 1
                                   for j in peers if cand[j] & seen_value]
    for start in pairs:
        around = lay.peer_sets[start]
        for x in DIGITS_OF[cand[start]]:
            y = (cand[start] ^ 1 << x).bit_length() - 1
            proved = start * LINK + x  # the start forced to x after all
            parent: dict[int, int] = {start * LINK + y: -1}
            queue = [start * LINK + y]
            for link in queue:
                for node in after[link]:
                    if node in parent:
                        continue
                    parent[node] = link
                    forced = node % LINK
                    if forced != x and forced != y:
                        queue.append(node)
                        continue
                    j = node // LINK
                    if node == proved or (forced == y and j in around):
                        first, last = cell_name(lay.cell(start)), cell_name(lay.cell(j))
                        clash = (f"so {first} would be {x} as well" if j == start
                                 else f"and {last} sees {first}: two {y}s in one line")
                        chain = _chain(parent, node) if m.words else []
                        reason = lambda: f"If {first} were {y}: {_say_chain(lay, chain)}, {clash}"
                        yield make("forcing_chain", 4, first, reason, m,
                                   sets={start: x}, cells=[c for c, _ in chain])
                        continue
                    if forced == x and j != start:
                        removes = {c: bit(x) for c in around & lay.peer_sets[j] if cand[c] >> x & 1 and not placed[c]}
                        if removes:
                            chain = _chain(parent, node) if m.words else []
                            reason = lambda: (
                                f"If {cell_name(lay.cell(start))} is not {x}, then "
                                f"{_say_chain(lay, chain)}; so {cell_name(lay.cell(start))} or "
                                f"{cell_name(lay.cell(j))} is {x}, and a cell that sees both is not")
                            yield make("forcing_chain", 4, f"chain from {cell_name(lay.cell(start))}",
                                       reason, m, removes=removes, cells=[c for c, _ in chain])
                    queue.append(node)


LINK = 16
"""A forcing chain's link, "cell i is v", is i * LINK + v (digits are below LINK)."""


def _say_lines(lay: Layout, lines) -> str:
    """`rows 1 and 2`, `column 3`."""
    n = lay.size
    kind = "row" if lines[0] < n else "column"
    numbers = [str(line % n + 1) for line in lines]
    return f"{kind}s {join(numbers)}" if len(numbers) > 1 else f"{kind} {numbers[0]}"


def _chain(parent: dict[int, int], end: int) -> list[tuple[int, int]]:
    """The (cell, digit) steps from the chain's start to `end`, following `parent` back."""
    chain = []
    node = end
    while node >= 0:
        chain.append(divmod(node, LINK))
        node = parent[node]
    return chain[::-1]


def _say_chain(lay: Layout, chain) -> str:
    return ", so ".join(f"{cell_name(lay.cell(c))} is {v}" for c, v in chain)


# Tier 5.


def trial(m: Marks) -> Iterator[Step]:
    """Assume a digit, follow tiers 1-4, and reach a contradiction: the digit is wrong."""
    return _trials(m, None)


def _trials(m: Marks, known: Grid | None) -> Iterator[Step]:
    """`trial`'s steps, not trying the digits of `known` (`_trial_order`)."""
    for i, d in _trial_order(m, known):
        step = _trial(m, i, d)
        if step is not None:
            yield step


def _trial_order(m: Marks, known: Grid | None) -> Iterator[tuple[int, int]]:
    """The trials (cell index, digit) to make on `m`, cells of fewer candidates first, not
    trying the digits of `known`: a solution of the puzzle that the board still holds,
    whose digits every sound deduction leaves in place, so that no trial of one of them
    can end in a contradiction."""
    n = m.layout.size
    order = sorted((bin(mask).count("1"), i) for i, mask in enumerate(m.cand) if not m.placed[i])
    for _, i in order:
        for d in DIGITS_OF[m.cand[i]]:
            if known is None or known[i // n][i % n] != d:
                yield i, d


def _trial(m: Marks, i: int, d: int, tier: int = 4) -> Step | None:
    """The step removing `d` from cell `i` when, placed there, tiers 1 to `tier` reach a
    contradiction; None when they do not."""
    attempt = m.copy()
    steps: list[Step] = []
    try:
        attempt.place(i, d)
        propagate(attempt, tier, quick=not m.words, steps=steps)
    except Contradiction as why:
        name = cell_name(m.layout.cell(i))
        shown = [step.summary for step in steps[:3]]
        if len(steps) > 4:
            shown.append(f"{len(steps) - 4} more steps")
        if len(steps) > 3:
            shown.append(steps[-1].summary)
        path = f"then {'; '.join(shown)}; " if shown else ""
        reason = f"Suppose {name} were {d}: {path}then {why}"
        return make("trial", 5, name, reason, m, removes={i: bit(d)}, cells=[i])
    return None


TECHNIQUES: list[tuple[int, Technique]] = [
    (1, seen_digit),
    (1, single_cage),
    (1, naked_single),
    (1, hidden_single),
    (1, cage_digits),
    (2, cage_positions),
    (3, cage_line),
    (3, subsets(2, hidden=False)),
    (3, subsets(2, hidden=True)),
    (3, subsets(3, hidden=False)),
    (3, subsets(3, hidden=True)),
    (3, subsets(4, hidden=False)),
    (3, subsets(4, hidden=True)),
    (4, fish(2)),
    (4, fish(3)),
    (4, fish(4)),
    (4, forcing_chain),
    (5, line_rule),
    (5, trial),
]

BOARD_ONLY = frozenset(technique for tier, technique in TECHNIQUES if tier in (3, 4)) - {cage_line, line_rule}
"""The techniques above tier 2 that read candidates in lines alone, never cages."""

QUICK: list[tuple[int, Technique, bool, tuple[Look, int] | None]] = [
    (tier, technique, technique in BOARD_ONLY, SOUND_LOOKS.get(technique))
    for tier, technique in TECHNIQUES if tier >= 3]
"""The techniques of the grader's quick pass (tiers 1 and 2 settle), each with its tier,
whether it reads lines alone, and its SOUND_LOOKS. On a board with no solution (a
trial's) the looks may differ, so there each technique looks everywhere."""
