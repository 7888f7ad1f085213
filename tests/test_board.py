"""The player's board: placing, notes, undo/redo of everything, saving with history."""

import json

import pytest

from kaldoku_tui.engine.board import Board
from kaldoku_tui.engine.puzzle import Cage, Puzzle, PuzzleError
from kaldoku_tui.session.legacy import board_from_dict, board_to_dict

SOLUTION = ((1, 2, 3, 4), (4, 1, 2, 3), (3, 4, 1, 2), (2, 3, 4, 1))


def puzzle(solution=SOLUTION):
    """Keen's 4:aa_a__a__a_a__a_a,d2m12s1a5s1m4d2a5."""
    cages = [
        Cage(((0, 0), (0, 1)), "/", 2),
        Cage(((0, 2), (0, 3)), "*", 12),
        Cage(((1, 0), (2, 0)), "-", 1),
        Cage(((1, 1), (2, 1)), "+", 5),
        Cage(((1, 2), (1, 3)), "-", 1),
        Cage(((2, 2), (3, 2)), "*", 4),
        Cage(((2, 3), (3, 3)), "/", 2),
        Cage(((3, 0), (3, 1)), "+", 5),
    ]
    return Puzzle(4, tuple(cages), solution)


@pytest.fixture
def board():
    return Board(puzzle())


def test_place_and_clear(board):
    assert board.place((0, 1), 3)
    assert board.grid[0] == (0, 3, 0, 0)
    assert not board.place((0, 1), 3), "the same digit again is no change"
    assert board.clear((0, 1))
    assert board.grid[0] == (0, 0, 0, 0)
    assert not board.clear((0, 1))


def test_bad_digits_and_cells_are_refused(board):
    with pytest.raises(ValueError):
        board.place((0, 0), 5)
    with pytest.raises(ValueError):
        board.toggle_note((4, 0), 1)


def test_notes_toggle_and_a_digit_replaces_them(board):
    board.toggle_note((0, 0), 1)
    board.toggle_note((0, 0), 2)
    board.toggle_note((0, 0), 1)
    assert board.notes((0, 0)) == {2}
    board.place((0, 0), 4)
    assert board.notes((0, 0)) == set()
    assert not board.toggle_note((0, 0), 3), "a cell holding a digit takes no notes"


def test_auto_clean_removes_the_digit_from_row_and_column_notes(board):
    for cell in [(0, 3), (3, 0), (1, 1)]:
        board.toggle_note(cell, 2)
        board.toggle_note(cell, 3)
    board.place((0, 0), 2)
    assert board.notes((0, 3)) == {3}
    assert board.notes((3, 0)) == {3}
    assert board.notes((1, 1)) == {2, 3}, "not in the row or column"
    board.undo()
    assert board.digit((0, 0)) == 0
    assert board.notes((0, 3)) == board.notes((3, 0)) == {2, 3}, "one change undoes all"


def test_auto_clean_off_keeps_notes(board):
    board.auto_clean_notes = False
    board.toggle_note((0, 3), 2)
    board.place((0, 0), 2)
    assert board.notes((0, 3)) == {2}


def test_fill_notes_uses_row_and_column_digits_and_keeps_the_players_notes(board):
    board.place((0, 0), 1)
    board.place((1, 1), 2)
    board.toggle_note((3, 3), 4)
    board.toggle_note((3, 3), 3)
    assert board.fill_notes()
    assert board.notes((0, 1)) == set(), "÷2 with a 1 needs a 2, which its column has"
    assert board.notes((3, 3)) == {4}, "3 fits no filling of ÷2; 1 and 2 the player left out"
    assert board.notes((0, 0)) == set(), "filled cells take no notes"
    board.undo()
    assert board.notes((0, 1)) == set()
    assert board.notes((3, 3)) == {3, 4}


def test_undo_redo_walks_the_whole_history(board):
    board.place((0, 0), 1)
    board.toggle_note((0, 1), 2)
    board.place((2, 2), 1)
    states = []
    while True:
        states.append((board.grid, board.notes((0, 1))))
        if not board.undo():
            break
    assert len(states) == 4
    assert states[-1] == (((0,) * 4,) * 4, set())
    assert not board.can_undo and board.can_redo
    for expected in reversed(states[:-1]):
        assert board.redo()
        assert (board.grid, board.notes((0, 1))) == expected
    assert not board.redo()


def test_a_new_change_forgets_the_redo(board):
    board.place((0, 0), 1)
    board.undo()
    board.place((0, 0), 2)
    assert not board.can_redo
    assert not board.redo()


def test_restart_and_reveal_are_undoable(board):
    board.place((0, 0), 3)
    board.toggle_note((1, 1), 2)
    assert board.reveal()
    assert board.grid == SOLUTION
    assert board.notes((1, 1)) == set()
    board.undo()
    assert board.digit((0, 0)) == 3 and board.notes((1, 1)) == {2}
    assert board.restart()
    assert board.grid == ((0,) * 4,) * 4 and board.notes((1, 1)) == set()
    board.undo()
    assert board.digit((0, 0)) == 3


def test_reveal_without_a_solution_says_so():
    with pytest.raises(PuzzleError, match="no stored solution"):
        Board(puzzle(solution=None)).reveal()


def test_round_trip_keeps_digits_notes_and_history(board):
    board.auto_clean_notes = False
    board.place((0, 0), 1)
    board.toggle_note((0, 1), 2)
    board.place((3, 3), 1)
    board.undo()
    loaded = board_from_dict(json.loads(json.dumps(board_to_dict(board))))
    assert loaded.puzzle == board.puzzle
    assert loaded.grid == board.grid
    assert loaded.notes((0, 1)) == {2}
    assert loaded.auto_clean_notes is False
    assert loaded.redo() and loaded.digit((3, 3)) == 1
    assert loaded.undo() and loaded.undo() and loaded.undo()
    assert loaded.grid == ((0,) * 4,) * 4 and not loaded.can_undo


def test_a_copy_reads_the_same_and_goes_its_own_way(board):
    board.place((0, 0), 1)
    board.toggle_note((1, 1), 3)
    copy = board.copy()
    assert copy.grid == board.grid and copy.notes((1, 1)) == {3} and not copy.can_undo
    board.place((0, 1), 2)
    board.toggle_note((1, 1), 4)
    assert copy.digit((0, 1)) == 0 and copy.notes((1, 1)) == {3}
    copy.clear((0, 0))
    assert board.digit((0, 0)) == 1


def test_damaged_saves_give_a_clear_error(board):
    data = board_to_dict(board)
    data["digits"][0][0] = 7
    with pytest.raises(PuzzleError, match="damaged"):
        board_from_dict(data)
    data = board_to_dict(board)
    data["undo"] = [[[0, 0, 0, [], 1]]]
    with pytest.raises(PuzzleError, match="damaged"):
        board_from_dict(data)
    data = board_to_dict(board)
    data["notes"] = [[0, 0, [True]]]
    with pytest.raises(PuzzleError, match="not a whole number"):
        board_from_dict(data)
    with pytest.raises(PuzzleError, match="JSON object"):
        board_from_dict([])


def test_fill_notes_follows_the_cages():
    single = Cage(((0, 0),), "=", 4)
    pair = Cage(((0, 1), (0, 2)), "/", 3)  # 1 and 3 (or 3 and 1) on a 4×4
    rest = tuple(cell for cell in ((r, c) for r in range(4) for c in range(4))
                 if cell not in single.cells + pair.cells)
    solution = ((4, 1, 3, 2), (1, 2, 4, 3), (2, 3, 1, 4), (3, 4, 2, 1))
    board = Board(Puzzle(4, (single, pair, Cage(rest, "+", 40 - 8)), solution))
    board.toggle_note((0, 2), 3)
    board.toggle_note((0, 2), 4)
    assert board.fill_notes()
    assert board.notes((0, 0)) == {4}, "a one-cell 4 cage: only 4"
    assert board.notes((0, 1)) == {1, 3}
    assert board.notes((0, 2)) == {3}, "the player's 4 is not in the ÷3's fillings; 1 stays out"
    board.place((0, 1), 1)
    assert board.allowed()[(0, 2)] == {3}, "a digit placed in the cage narrows its partner"
    assert not board.fill_notes(), "nothing left to narrow"


def test_fill_notes_on_a_cage_too_large_to_list_uses_rows_and_columns():
    rows = tuple(Cage(tuple((r, c) for c in range(9)), "+", 45) for r in range(8))
    last = Cage(tuple((8, c) for c in range(9)), "+", 45)
    whole = Cage(tuple(cell for cage in rows for cell in cage.cells), "+", 45 * 8)
    board = Board(Puzzle(9, (whole, last)))
    board.place((0, 0), 1)
    assert board.fill_notes()
    assert board.notes((0, 1)) == set(range(2, 10)) and board.notes((1, 0)) == set(range(2, 10))
    assert board.notes((8, 1)) == set(range(1, 10))
