"""Hints in three presses and the cage inspector: the engine, then a few Pilot tests."""

from __future__ import annotations

from kaldoku_tui.engine.board import Board
from kaldoku_tui.engine.check import is_solved
from kaldoku_tui.engine.hints import cage_facts, hint, in_ascii


def test_a_wrong_digit_comes_first_then_where_then_it_is_cleared(example):
    board = Board(example)
    board.place((3, 3), 1)  # right
    board.place((0, 0), 2)  # wrong: the solution has 1
    board.place((1, 1), 3)  # wrong too
    found = hint(board)
    assert found.step is None
    assert "mistake" in found.text(1) and "two digits" in found.text(1)
    assert "r1c1" not in found.text(1) and not found.highlight(1)
    assert "r1c1" in found.text(2) and found.highlight(2) == {(0, 0)}
    assert board.change(found.changes)
    assert board.digit((0, 0)) == 0 and board.digit((1, 1)) == 3 and board.digit((3, 3)) == 1
    assert "r1c1" in found.text(3)


def test_notes_that_leave_out_the_digit_are_a_mistake(example):
    board = Board(example)
    board.toggle_note((0, 1), 1)
    board.toggle_note((0, 1), 4)  # the solution has 2 there
    board.toggle_note((0, 0), 1)  # right
    found = hint(board)
    assert found.step is None
    assert "notes of one cell" in found.text(1)
    assert "r1c2" in found.text(2) and found.highlight(2) == {(0, 1)}
    board.change(found.changes)
    assert board.notes((0, 1)) == set() and board.notes((0, 0)) == {1}
    assert hint(board).step is not None


def test_a_step_points_at_its_region_explains_then_applies_as_one_change(example):
    board = Board(example)
    found = hint(board)
    step = found.step
    assert step is not None
    assert step.name in found.text(1) and "Look at" in found.text(1)
    cage = example.cages[step.cages[0]]
    assert found.highlight(1) == set(cage.cells)
    assert step.explanation in found.text(2)
    assert set(step.removes) <= found.highlight(2)
    assert board.change(found.changes)
    # A cell without notes stood for every digit: it now notes them less the removed ones.
    for cell, removed in step.removes.items():
        assert board.notes(cell) == set(range(1, 5)) - removed
    assert board.undo() and board.grid == ((0,) * 4,) * 4 and not board.can_undo


def test_hints_alone_solve_the_example(example):
    board = Board(example)
    for _ in range(60):
        found = hint(board)
        if found is None or found.step is None:
            break
        board.change(found.changes)
    assert is_solved(example, board.grid)


def test_placing_by_hint_crosses_the_digit_off_row_and_column_notes(example):
    board = Board(example)
    board.fill_notes()
    for _ in range(20):
        found = hint(board)
        if found.step.sets:
            break
        board.change(found.changes)
    (cell, digit), = found.step.sets.items()
    board.change(found.changes)
    assert board.digit(cell) == digit
    assert not any(digit in board.notes(peer) for peer in board.peers(cell))


def test_a_contradiction_without_a_solution_gives_no_hint(no_solution):
    board = Board(no_solution)
    assert hint(board).step.technique == "single_cage"
    board.place((0, 0), 1)
    board.place((0, 1), 1)
    assert hint(board) is None


def test_the_cage_inspector_facts(example):
    board = Board(example)
    facts = cage_facts(board, (0, 1))  # 2÷ over r1c1 and r1c2
    assert facts.cage.label() == "2÷"
    assert facts.combos == [(2, 1), (4, 2)]
    board.place((1, 0), 4)  # column 1 now holds 4: r1c1 cannot be 4
    board.place((3, 1), 2)  # column 2 holds 2
    board.toggle_note((0, 0), 1)
    board.toggle_note((0, 0), 2)
    facts = cage_facts(board, (0, 0))
    # r1c1 ∈ {1,2,3}, r1c2 ∈ {1,3,4}: 1 and 2 (2÷1 with 2 on the left) or 2 and 4 (4 on the right)
    assert facts.combos == [(2, 1), (4, 2)]
    assert facts.fillings == 2
    assert facts.lines == [("row 1", []), ("column 1", [4]), ("column 2", [2])]
    assert facts.notes == [((0, 0), 0, {1, 2}), ((0, 1), 0, set())]
    board.place((0, 1), 1)
    assert cage_facts(board, (0, 0)).combos == [(2, 1)]


def test_the_inspector_lists_sum_combinations_once(row_sums):
    facts = cage_facts(Board(row_sums), (1, 1))
    assert facts.combos == [(1, 2, 3)] and facts.fillings == 6


def test_ascii_text():
    assert in_ascii("12× and 2÷ and 3−1…") == "12x and 2/ and 3-1..."

