"""Hidden operators: cages that show their target only (formats.md section 4)."""

from __future__ import annotations

import json
from itertools import permutations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kaldoku_tui.cli import main
from kaldoku_tui.engine.check import CageState, cage_state, is_solved
from kaldoku_tui.engine.fillings import fillings
from kaldoku_tui.engine.formats import puzzle_to_dict, read_puzzles, to_keen, to_typed
from kaldoku_tui.engine.generator import generate
from kaldoku_tui.engine.kinds import OP_SET_LABELS, OP_SETS, GameKind, levels_for
from kaldoku_tui.engine.puzzle import Cage, Puzzle, PuzzleError, can_fill
from kaldoku_tui.engine.steps import say_combos
from kaldoku_tui.engine.techniques import grade

DOMINO = ((0, 0), (0, 1))


def test_a_hidden_cage_is_right_when_any_operation_gives_its_target():
    cage = Cage(DOMINO, "?", 2)
    assert cage.fits((1, 3)) and cage.fits((4, 2)) and cage.fits((1, 2))
    assert not cage.fits((1, 4))  # 5, 3, 4, 4: none is 2
    assert cage.way((4, 2)) == "-" and cage.way((1, 2)) == "*"
    assert cage.label() == "2" and cage.hidden


def test_hidden_fillings_are_the_union_of_every_operation():
    for target in range(1, 13):
        hidden = set(fillings(4, Cage(DOMINO, "?", target)))
        shown = set().union(*(fillings(4, Cage(DOMINO, op, target)) for op in "+-*/"
                              if can_fill(4, Cage(DOMINO, op, target))))
        assert hidden == shown


def test_a_three_cell_hidden_cage_takes_sum_or_product_only():
    cage = Cage(((0, 0), (0, 1), (0, 2)), "?", 6)
    assert set(fillings(3, cage)) == set(permutations((1, 2, 3)))
    assert can_fill(3, cage) and not can_fill(3, Cage(((0, 0), (0, 1), (0, 2)), "?", 7))


def test_a_single_cell_cannot_hide_its_operation():
    with pytest.raises(PuzzleError, match="cannot hide"):
        Cage(((0, 0),), "?", 1)


def test_the_checker_judges_hidden_cages():
    puzzle = Puzzle(3, (Cage(((0, 0), (0, 1)), "?", 2), Cage(((0, 2), (1, 2)), "?", 3),
                        Cage(((1, 0), (1, 1)), "?", 3), Cage(((2, 0), (2, 1), (2, 2)), "?", 6)))
    grid = ((1, 2, 3), (3, 1, 2), (2, 3, 1))  # 1×2, 3÷... 3 and 2 make 1, 5, 6: wrong
    states = [cage_state(puzzle, grid, cage) for cage in puzzle.cages]
    assert states == [CageState.RIGHT, CageState.WRONG, CageState.RIGHT, CageState.RIGHT]
    assert not is_solved(puzzle, grid)


def test_hidden_puzzles_read_and_write_json_and_typed_but_not_keen():
    puzzle = generate(4, seed=3, ops="hidden")
    assert all(cage.op in "?=" for cage in puzzle.cages)
    assert read_puzzles(json.dumps(puzzle_to_dict(puzzle))) == [puzzle]
    assert read_puzzles(to_typed(puzzle)) == [puzzle.with_solution(None)]
    with pytest.raises(PuzzleError, match="Keen game ID cannot hold a hidden operation"):
        to_keen(puzzle)


def test_combinations_of_a_hidden_cage_are_worded_with_the_operation_that_works():
    cage = Cage(DOMINO, "?", 2)
    assert say_combos(cage, fillings(4, cage)) == "1×2, 3−1 and 4−2"  # 1 and 2 are read once, by ×


def test_hidden_is_an_operator_set_of_its_own():
    assert "hidden" in OP_SETS and "hidden" in OP_SET_LABELS
    assert GameKind(6, "hidden", "hard").describe() == "6×6 · hidden · hard"


# --- Uniqueness, by a counter that shares no code with the engine ---------------------


def meets(digits: list[int], op: str, target: int) -> bool:
    """Whether `digits` make `target` by `op`, `?` meaning any of + − × ÷."""
    ways = {"+": [sum(digits)], "*": [_product(digits)]}
    if len(digits) == 2:
        big, small = max(digits), min(digits)
        ways["-"] = [big - small]
        ways["/"] = [big // small] if big % small == 0 else []
    if op == "=":
        return digits == [target]
    if op == "?":
        return any(target in values for values in ways.values())
    return target in ways.get(op, [])


def _product(digits: list[int]) -> int:
    out = 1
    for d in digits:
        out *= d
    return out


def count_solutions(data: dict, limit: int = 2) -> int:
    """Solutions of a puzzle's JSON object, counted by plain backtracking in reading order."""
    n = data["size"]
    grid = [[0] * n for _ in range(n)]
    last_of = {}
    for cage in data["cages"]:
        cells = [tuple(cell) for cell in cage["cells"]]
        last_of.setdefault(max(cells), []).append((cells, cage["op"], cage["target"]))
    found = 0

    def place(i: int) -> None:
        nonlocal found
        if found >= limit:
            return
        if i == n * n:
            found += 1
            return
        r, c = divmod(i, n)
        for d in range(1, n + 1):
            if d in grid[r][:c] or any(grid[k][c] == d for k in range(r)):
                continue
            grid[r][c] = d
            if all(meets([grid[a][b] for a, b in cells], op, target)
                   for cells, op, target in last_of.get((r, c), [])):
                place(i + 1)
        grid[r][c] = 0

    place(0)
    return found


@settings(max_examples=40, deadline=None)
@given(size=st.integers(3, 6), seed=st.integers(0, 10**6), data=st.data())
def test_hidden_puzzles_are_unique_with_their_operations_hidden(size, seed, data):
    level = data.draw(st.sampled_from((None, *levels_for(size)[:3])))
    puzzle = generate(size, seed=seed, ops="hidden", level=level)
    as_json = puzzle_to_dict(puzzle)
    assert all(cage["op"] == "?" for cage in as_json["cages"] if len(cage["cells"]) > 1)
    assert count_solutions(as_json) == 1
    assert is_solved(puzzle, puzzle.solution)
    if level is not None:
        assert grade(puzzle).level == level


def test_the_counter_sees_that_hiding_operations_can_break_uniqueness():
    shown = [puzzle_to_dict(generate(4, seed=seed)) for seed in range(20)]
    assert all(count_solutions(data) == 1 for data in shown)
    hidden = [
        {**data, "cages": [{**cage, "op": "?" if len(cage["cells"]) > 1 else "="} for cage in data["cages"]]}
        for data in shown
    ]
    assert any(count_solutions(data) == 2 for data in hidden)


def test_generate_hidden_from_the_command_line(capsys):
    assert main(["generate", "--size", "4", "--ops", "hidden", "--difficulty", "normal", "--seed", "2"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["ops"] == "hidden" and data["difficulty"] == "normal"
    assert {cage["op"] for cage in data["cages"]} <= {"?", "="}
    assert count_solutions(data) == 1


def test_generate_refuses_hidden_keen_ids(capsys):
    assert main(["generate", "--size", "4", "--ops", "hidden", "--format", "keen"]) == 2
    assert "cannot hold a hidden operation" in capsys.readouterr().err


@pytest.mark.parametrize("seed", [2, 4, 5])
def test_no_operation_shows_in_a_hidden_puzzle_repaired_with_a_narrower_clue(seed):
    # These 7×7 hard puzzles are made by giving a cage a narrower clue: it stays hidden.
    puzzle = generate(7, seed=seed, ops="hidden", level="hard")
    assert all(cage.hidden for cage in puzzle.cages if len(cage.cells) > 1)
