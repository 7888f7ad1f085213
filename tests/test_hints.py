"""Hints in three presses and the cage inspector: the engine, then a few Pilot tests."""

from __future__ import annotations

import threading

from textual import events
from textual.widgets import Static

from kaldoku_tui.app import KaldokuApp, ensure_solution
from kaldoku_tui.engine import hints as engine_hints  # the hint finder's search
from kaldoku_tui.engine.board import Board
from kaldoku_tui.engine.check import is_solved
from kaldoku_tui.engine.fillings import fillings
from kaldoku_tui.engine.formats import read_keen
from kaldoku_tui.engine.hints import HintSearch, cage_facts, hint
from kaldoku_tui.engine.puzzle import Cage, Puzzle
from kaldoku_tui.terminal import in_ascii
from kaldoku_tui.widgets import hints as hints_widget
from kaldoku_tui.screens.inspector import InspectorScreen, facts_text
from kaldoku_tui.screens.win import WinScreen
from kaldoku_tui.widgets.grid import KenKenGrid

from conftest import EXAMPLE_SOLUTION, KEEN_IDS, game_app, until, workers_done
from screen import screen_cells, screen_text


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
    # r1c1 in {1,2,3}, r1c2 in {1,3,4}: 2 then 1, or 2 then 4
    assert facts.combos == [(2, 1), (4, 2)]
    assert facts.fillings == 2
    assert facts.lines == [("row 1", []), ("column 1", [4]), ("column 2", [2])]
    assert facts.notes == [((0, 0), 0, {1, 2}), ((0, 1), 0, set())]
    board.place((0, 1), 1)
    assert cage_facts(board, (0, 0)).combos == [(2, 1)]


def test_the_inspector_lists_sum_combinations_once(row_sums):
    facts = cage_facts(Board(row_sums), (1, 1))
    assert facts.combos == [(1, 2, 3)] and facts.fillings == 6


def test_the_inspector_does_not_list_a_huge_cage():
    rows = Puzzle(9, tuple(Cage(tuple((r, c) for c in range(9)), "+", 45) for r in range(9)))
    facts = cage_facts(Board(rows), (2, 2))  # nine cells, 9! fillings
    assert facts.combos is None
    sections = dict(facts_text(facts))
    assert sections["Combinations that still fit"].startswith("too many to list")
    assert "Cage 45+ at r3c1, nine cells" in sections


def test_the_inspector_lists_a_large_cage_with_few_fillings(no_solution):
    facts = cage_facts(Board(no_solution), (2, 2))  # seven cells, each row's digits fixed
    assert facts.combos and facts.fillings == len(fillings(3, no_solution.cage_at((2, 2))))


def test_ascii_text():
    assert in_ascii("12× and 2÷ and 3−1…") == "12x and 2/ and 3-1..."



def test_the_inspector_text_in_ascii(example):
    board = Board(example)
    board.place((1, 0), 4)
    sections = dict(facts_text(cage_facts(board, (0, 2)), ascii=True))
    assert "Cage 12x at r1c3, two cells" in sections
    assert sections["Combinations that still fit"] == "3x4   (two ways to fill it)"
    assert sections["Digits in its rows and columns"] == "row 1: -   column 3: -   column 4: -"
    assert all(ord(ch) < 128 for text in sections.values() for ch in text)


# The game, through Pilot.

SIZE = (80, 24)


def make_app(puzzle, tmp_path, **kwargs) -> KaldokuApp:
    return game_app(puzzle, tmp_path, **kwargs)


def style_at(app, cell):
    """The style drawn at the first character inside `cell` on the screen."""
    grid = app.query_one(KenKenGrid)
    region = grid.board_layout.cell_region(cell)
    x, y = grid.region.x + region.x, grid.region.y + region.y
    return screen_cells(app)[y][x]


async def press_hint(pilot, *keys):
    """Press the hint key (or these keys) and wait for the hint, looked for in a worker."""
    await pilot.press(*(keys or ("t",)))
    await workers_done(pilot.app)
    await pilot.pause()


async def test_three_hint_presses_point_explain_then_make_the_step(tmp_path):
    puzzle = ensure_solution(read_keen(KEEN_IDS[-1]))  # 9×9
    app = make_app(puzzle, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        grid = app.query_one(KenKenGrid)
        cells = grid.board_layout.cell_width, grid.board_layout.cell_height
        await press_hint(pilot)
        step = app.game.session.hint.hint.step
        cage = puzzle.cages[step.cages[0]]
        assert step.name in app.game.message and "Hint 1/3" in app.game.message
        assert grid.hinted == set(cage.cells)
        assert app.game.session.help["hints"] == 0
        await press_hint(pilot)
        assert step.explanation in app.game.message
        assert grid.hinted >= set(step.removes)
        await pilot.pause()
        assert style_at(app, min(step.removes)).underline
        # The explanation wraps below the board, which keeps its size at 80×24.
        assert "(t: make it)" in app.game.message
        layout = grid.board_layout
        assert (layout.cell_width, layout.cell_height) == cells
        assert app.game.session.help["hints"] == 1
        await press_hint(pilot)
        assert "Hint made" in app.game.message and grid.hinted == set()
        board = app.game.session.board
        for cell in puzzle.cells:
            expected = set(range(1, 10)) - step.removes[cell] if cell in step.removes else set()
            assert board.digit(cell) == 0 and board.notes(cell) == expected
        assert app.game.session.help["hints"] == 1
        await pilot.press("u")
        assert all(not board.notes(cell) for cell in puzzle.cells)
        assert not board.can_undo
        # Longer than the spare rows: paged, and it says so.
        app.game.show_status("word " * 60 + "END")
        await pilot.pause()
        assert "END" not in screen_text(app) and "(m: more 1/" in screen_text(app)
        await pilot.press("m", "m")
        await pilot.pause()
        assert "END (m: again 3/3)" in screen_text(app)


async def test_a_mistake_hint_and_help_counted_on_the_win_screen(example, tmp_path):
    app = make_app(example, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        grid = app.query_one(KenKenGrid)
        await pilot.press("right", "3")
        await press_hint(pilot)  # r1c2 is 2
        assert "mistake" in app.game.message and "r1c2" not in app.game.message
        assert grid.hinted == set()
        await press_hint(pilot)
        assert "r1c2" in app.game.message and grid.hinted == {(0, 1)}
        await pilot.press("left")  # moving does not change the board: the hint goes on
        await press_hint(pilot)
        assert app.game.session.board.digit((0, 1)) == 0
        await pilot.press("t", "4")  # a board change starts the hint afresh
        assert app.game.session.hint.hint is None and grid.hinted == set()
        await pilot.press("u", "c")
        board = app.game.session.board
        for r, c in example.cells[:-1]:
            board.place((r, c), EXAMPLE_SOLUTION[r][c])
        grid.refresh_board()
        await press_hint(pilot, "t", "t", "t")  # typed at once: all three count
        await pilot.pause()
        assert isinstance(app.screen, WinScreen)
        assert board.grid == EXAMPLE_SOLUTION
        assert app.game.session.help == {"checks": 1, "hints": 2, "reveals": 0}
        assert "1 check, 2 hints" in str(app.screen.query_one("#win-help").render())


async def test_keys_typed_in_one_burst_count_in_their_order(example, tmp_path):
    """A digit and the hint, check or inspector key pasted at once (or over a slow link):
    the hint, the check and the inspector see the digit typed before them."""
    app = make_app(example, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        for key, char in [("right", None), ("3", "3"), ("t", "t")]:
            app.post_message(events.Key(key, char))
        await pilot.pause()
        await workers_done(app)
        await pilot.pause()
        assert app.game.session.board.digit((0, 1)) == 3
        assert "mistake" in app.game.message  # r1c2 is 2
        for key, char in [("u", "u"), ("c", "c")]:
            app.post_message(events.Key(key, char))
        await pilot.pause()
        assert app.game.session.board.digit((0, 1)) == 0
        assert app.game.grid.marked == frozenset(), "checked after the undo, not before"
        for key, char in [("4", "4"), ("i", "i")]:
            app.post_message(events.Key(key, char))
        await pilot.pause()
        assert isinstance(app.screen, InspectorScreen)
        assert ((0, 1), 4, frozenset()) in app.screen.facts.notes, "opened on the board with the 4"


async def test_a_slow_hint_leaves_the_game_playable_and_is_dropped_if_the_board_changes(
    example, tmp_path, monkeypatch
):
    asked, release = [], threading.Event()

    def slow_hint(board):
        asked.append(board.grid)
        release.wait(10)
        return HintSearch(hint(board))

    monkeypatch.setattr(engine_hints, "hint_within", slow_hint)
    monkeypatch.setattr(hints_widget, "SLOW_HINT", 0.05)
    app = make_app(example, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("t", "right")
        assert app.game.grid.cursor == (0, 1), "played on while the hint is looked for"
        await until(pilot, lambda: "Looking for a hint" in app.game.message)
        await pilot.press("2")
        assert app.game.session.board.digit((0, 1)) == 2
        release.set()
        await workers_done(app)
        await pilot.pause()
        assert app.game.session.hint.hint is None, "found for a board that has changed since: dropped"
        assert "Looking for a hint" not in app.game.message
        await press_hint(pilot)
        assert asked[-1] == app.game.session.board.grid and app.game.session.hint.hint is not None
        assert "Hint 1/3" in app.game.message


async def test_the_cage_inspector(example, tmp_path):
    app = make_app(example, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        board, grid = app.game.session.board, app.query_one(KenKenGrid)
        board.place((1, 0), 4)
        board.toggle_note((2, 1), 1)
        board.toggle_note((2, 1), 2)
        grid.view = board.view()
        grid.cursor = (0, 1)
        await pilot.press("i")
        assert isinstance(app.screen, InspectorScreen)
        text = "\n".join(str(w.render()) for w in app.screen.query(Static))
        assert "Cage 2÷ at r1c1, two cells" in text
        assert "2÷1   4÷2   (three ways to fill it)" in text
        assert "row 1: —   column 1: 4   column 2: —" in text
        assert "r1c1: —   r1c2: —" in text
        await pilot.press("i")
        assert app.screen is app.game
        grid.cursor = (1, 1)
        await pilot.press("i")
        text = "\n".join(str(w.render()) for w in app.screen.query(Static))
        assert "Cage 5+ at r2c2" in text and "r3c2: 1 2" in text
        await pilot.press("q")
        assert app.screen is app.game
        await pilot.press("i", "escape")
        assert app.screen is app.game


async def test_a_hint_search_that_gives_up_says_so(example, tmp_path, monkeypatch):
    monkeypatch.setattr(engine_hints, "hint_within",
                        lambda board: HintSearch(None, "No hint found in 5 seconds on this board."))
    app = make_app(example, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await press_hint(pilot)
        assert app.game.message.endswith("No hint found in 5 seconds on this board.")
        assert not app.game.session.hint_searching and app.game.session.help["hints"] == 0
