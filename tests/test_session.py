"""The session (a game without a screen): every rule, with a clock driven by hand."""

from __future__ import annotations

import json

import pytest

from kaldoku_tui.engine.hints import hint
from kaldoku_tui.engine.kinds import GameKind
from kaldoku_tui.session import MoveError, Session
from kaldoku_tui.session.game import clock_text
from kaldoku_tui.session.moves import (AskHint, Check, Clear, Fill, Note, Pause, Place, Redo,
                                       Restart, Reveal, Undo, read_move)

from conftest import EXAMPLE_SOLUTION


class Ticker:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class Journal:
    """Keeps what a session writes, as the store would."""

    taken = False

    def __init__(self) -> None:
        self.records: list[dict] = []
        self.times: list[float] = []
        self.ended: tuple | None = None

    def append(self, record, elapsed):
        self.records.append(dict(record))
        self.times.append(elapsed)

    def touch(self, elapsed):
        self.times.append(elapsed)

    def end(self, outcome, elapsed, help_used):
        self.ended = (outcome, elapsed, dict(help_used))


@pytest.fixture
def clock():
    return Ticker()


@pytest.fixture
def game(example, clock):
    return Session(example, journal=Journal(), now=clock)


def fill(session, grid, skip=()):
    for r, row in enumerate(grid):
        for c, digit in enumerate(row):
            if (r, c) not in skip:
                session.apply(Place((r, c), digit))


def test_moves_change_the_board_and_are_written_with_what_they_wrote(game):
    assert game.apply(Place((0, 0), 1)).board
    assert game.apply(Note((0, 1), 2)).board
    assert game.board.digit((0, 0)) == 1 and game.board.notes((0, 1)) == {2}
    assert game.journal.records == [
        {"move": "place", "cell": [0, 0], "digit": 1, "states": [[0, 0, 1, []]]},
        {"move": "note", "cell": [0, 1], "digit": 2, "states": [[0, 1, 0, [2]]]},
    ]
    assert not game.apply(Place((0, 0), 1)).board, "the same digit again changes nothing"
    assert len(game.journal.records) == 2, "and is not written"


def test_a_digit_off_the_board_and_a_note_on_a_digit_are_refused_in_words(game):
    assert game.apply(Place((0, 0), 5)).message == "A 4×4 board takes the digits 1 to 4."
    game.apply(Place((0, 0), 1))
    assert "holds a digit" in game.apply(Note((0, 0), 2)).message
    assert game.journal.records[-1]["move"] == "place"


def test_no_move_changes_the_board_after_a_win(game, clock):
    fill(game, EXAMPLE_SOLUTION, skip={(3, 3)})
    clock.now = 42.0
    update = game.apply(Place((3, 3), 1))
    assert update.ended == "won" and game.outcome == "won"
    assert update.board, "the winning digit is drawn"
    assert game.journal.ended == ("won", 42.0, {"checks": 0, "hints": 0, "reveals": 0})
    for move in (Clear((0, 0)), Place((0, 0), 3), Undo(), Restart(), Fill(),
                 Check(), AskHint(), Reveal()):
        assert not game.apply(move).board
        assert "solved" in game.apply(move).message
    assert game.board.grid == EXAMPLE_SOLUTION
    clock.now = 100.0
    assert game.elapsed == 42.0, "the clock stopped at the win"


def test_any_filling_that_keeps_the_rules_wins(row_sums):
    game = Session(row_sums)
    other = ((1, 2, 3), (3, 1, 2), (2, 3, 1))
    fill(game, other)
    assert game.outcome == "won" and other != row_sums.solution


def test_a_reveal_ends_the_game_as_help(game):
    update = game.apply(Reveal())
    assert update.ended == "revealed" and game.board.grid == EXAMPLE_SOLUTION and update.board
    assert game.help["reveals"] == 1 and game.aided
    assert game.apply(Undo()).board is False


def test_restart_clears_the_board_and_never_the_clock(game, clock):
    game.apply(Place((0, 0), 1))
    clock.now = 30.0
    game.apply(Restart())
    assert game.board.grid == ((0,) * 4,) * 4
    assert game.elapsed == 30.0
    clock.now = 31.0
    game.apply(Undo())
    assert game.board.digit((0, 0)) == 1, "undo brings the digits back"
    assert game.elapsed == 31.0, "and the clock goes on as it was"
    game.apply(Redo())
    assert game.elapsed == 31.0


def test_the_clock_runs_only_while_the_board_is_visible_and_playable(game, clock):
    clock.now = 10.0
    game.apply(Pause())
    clock.now = 50.0
    assert game.elapsed == 10.0 and game.hidden
    assert game.apply(Place((0, 0), 1)).message == "Paused: p to go on."
    assert game.board.digit((0, 0)) == 0, "a hidden board takes no moves"
    game.apply(Pause())  # again: go on
    clock.now = 55.0
    assert game.elapsed == 15.0
    game.cover("dialog")
    clock.now = 95.0
    assert game.elapsed == 15.0
    assert not game.apply(Place((0, 0), 1)).board
    game.cover("small")
    game.cover("dialog", False)
    clock.now = 100.0
    assert game.elapsed == 15.0, "still too small for the terminal"
    game.cover("small", False)
    clock.now = 101.0
    assert game.elapsed == 16.0
    assert game.apply(Place((0, 0), 1)).board


def test_check_marks_mistakes_and_counts_as_help(game):
    game.apply(Place((0, 0), 1))
    game.apply(Place((0, 1), 3))
    update = game.apply(Check())
    assert game.marked == {(0, 1)} and "1 digit differs" in update.message
    assert game.help["checks"] == 1 and game.journal.records[-1] == {"move": "check"}
    game.apply(Clear((0, 1)))
    assert game.marked == frozenset(), "marks go with the next change"


def test_hint_presses_point_then_explain_then_make_the_step(game):
    update = game.apply(AskHint())
    assert update.search is not None and game.hint_searching
    assert game.apply(AskHint()).search is None, "one search for presses made meanwhile"
    found = hint(update.search)
    update = game.hint_found(found, update.version)
    assert game.hint.stage == 2 and "Hint 2/3" in update.message
    assert game.help["hints"] == 1 and game.journal.records[-1] == {"move": "hint"}
    update = game.apply(AskHint())
    assert update.board and game.journal.records[-1]["move"] == "step"
    assert all(game.board.digit(cell) == digit for cell, (digit, _) in found.changes.items() if digit)
    assert game.hint.hint is None, "the next press looks again"
    assert game.help["hints"] == 1


def test_a_hint_found_for_an_older_board_is_dropped(game):
    update = game.apply(AskHint())
    game.apply(Place((0, 0), 1))
    assert game.hint_found(hint(update.search), update.version).message is None
    assert game.hint.hint is None and game.help["hints"] == 0


def test_leaving_counts_as_played_only_after_a_move(example):
    untouched = Session(example, journal=Journal())
    untouched.leave()
    assert untouched.journal.ended[0] == "skipped"
    played = Session(example, journal=Journal())
    played.apply(Place((0, 0), 1))
    played.leave()
    assert played.journal.ended[0] == "left" and played.over


def test_fill_notes_what_each_empty_cell_allows_and_undo_takes_it_back(example):
    game = Session(example, journal=Journal())
    game.apply(Place((0, 0), 1))
    assert game.apply(Fill()).board
    empty = [cell for cell in example.cells if not game.board.digit(cell)]
    assert all(game.board.notes(cell) for cell in empty) and len(empty) == 15
    assert 1 not in game.board.notes((0, 1)) | game.board.notes((1, 0)), "not the 1 of its row or column"
    assert game.journal.records[-1]["move"] == "fill"
    game.apply(Undo())
    assert not any(game.board.notes(cell) for cell in empty)


def test_resuming_replays_the_moves_to_the_same_board_history_and_help(example, clock):
    game = Session(example, journal=Journal(), now=clock)
    for move in (Place((0, 0), 1), Note((1, 1), 3), Note((1, 1), 2), Check(), Fill(),
                 Place((2, 3), 2), Undo(), Undo(), Redo(), Clear((0, 0)),
                 Restart(), Undo()):
        game.apply(move)
    again = Session.resume(example, game.journal.records, now=clock)
    assert again.board.view() == game.board.view()
    assert again.help == game.help == {"checks": 1, "hints": 0, "reveals": 0}
    for move in (Undo(),) * 4 + (Redo(),) * 2:
        game.apply(move)
        again.apply(move)
        assert again.board.view() == game.board.view()


@pytest.mark.parametrize("records, words", [
    ([{"move": "fly"}], "not a move"),
    (["place"], "not a move"),
    ([{"move": "place"}], "cell states must be a list"),
    ([{"move": "place", "states": [[0, 0, 1, []]]}], "place move without its cell"),
    ([{"move": "place", "cell": [0, 0], "states": [[0, 0, 1, []]]}], "without its digit"),
    ([{"move": "place", "cell": [0, 0], "digit": 7, "states": [[0, 0, 7, []]]}], "off the board"),
    ([{"move": "place", "cell": [0, 9], "digit": 1, "states": [[0, 9, 1, []]]}], "off the board"),
    ([{"move": "place", "states": [[0, 0, True, []]]}], "small whole numbers"),
    ([{"move": "note", "states": [[0, 0, 0, [1e999]]]}], "small whole numbers"),
    ([{"move": "reveal", "states": [[0, 0, 1, []]]}], "ended already"),
])
def test_a_damaged_journal_is_refused_in_words(example, records, words):
    with pytest.raises(MoveError, match=words):
        Session.resume(example, records)


def test_a_game_needs_its_solution(example):
    from kaldoku_tui.engine.puzzle import Puzzle, PuzzleError

    with pytest.raises(PuzzleError):
        Session(Puzzle(example.size, example.cages))


def test_the_kind_comes_from_the_puzzle_unless_given(example):
    assert Session(example).kind == GameKind(4)
    assert Session(example, GameKind(4, "all", "hard")).kind.level == "hard"


def test_clock_text_and_help_in_words(game):
    assert clock_text(65) == "1:05" and clock_text(3725) == "1:02:05"
    assert game.help_summary() == "no help"
    game.apply(Check())
    game.apply(Check())
    assert game.help_summary() == "2 checks"


def test_a_full_but_wrong_board_is_told_and_old_news_goes(game):
    assert game.apply(Undo()).message == "Nothing to undo."
    assert game.apply(Place((0, 0), 1)).message == "", "the news before the move is old"
    wrong = [list(row) for row in EXAMPLE_SOLUTION]
    wrong[3][2], wrong[3][3] = wrong[3][3], wrong[3][2]
    fill(game, wrong, skip={(3, 3)})
    update = game.apply(Place((3, 3), wrong[3][3]))
    assert update.ended is None and "filled, but not all is right" in update.message
    update = game.apply(Clear((3, 3)))
    assert update.message == ""


def test_every_move_reads_back_from_the_journal_as_it_was_made(example, clock):
    game = Session(example, journal=Journal(), now=clock)
    for move in (Place((0, 0), 1), Note((1, 1), 3), Check(), Fill(), Undo(), Redo(), Clear((0, 0)),
                 Pause(), Pause(), Restart(), Undo(), Reveal()):
        game.apply(move)
    moves = [read_move(record) for record in game.journal.records]
    assert [move.to_dict() for move in moves] == game.journal.records
    assert [move.name for move in moves] == ["place", "note", "check", "fill", "undo", "redo",
                                             "clear", "pause", "resume", "restart", "undo", "reveal"]
    assert moves[0] == Place((0, 0), 1, states=(((0, 0), (1, frozenset())),))
    assert json.dumps(game.journal.records[0]) == \
        '{"move": "place", "cell": [0, 0], "digit": 1, "states": [[0, 0, 1, []]]}', "as ever written"


def test_a_journal_of_an_earlier_kaldoku_still_resumes(example):
    """The journal's JSON as kaldoku wrote it before moves were typed."""
    records = [
        {"move": "place", "cell": [0, 0], "digit": 1, "states": [[0, 0, 1, []]]},
        {"move": "note", "cell": [1, 1], "digit": 2, "states": [[1, 1, 0, [2]]]},
        {"move": "change", "states": [[2, 2, 1, []], [3, 3, 0, [4]]]},
        {"move": "check"}, {"move": "hint"}, {"move": "pause"},
        {"move": "step", "states": [[0, 1, 2, []]]}, {"move": "undo"}, {"move": "redo"},
    ]
    game = Session.resume(example, records)
    assert game.board.grid[0][:2] == (1, 2) and game.board.notes((1, 1)) == {2}
    assert game.board.digit((2, 2)) == 1 and game.board.notes((3, 3)) == {4}
    assert game.help == {"checks": 1, "hints": 1, "reveals": 0} and not game.paused


def test_resuming_a_won_game_is_refused_by_the_rule_live_play_follows(example):
    game = Session(example, journal=Journal())
    for r, row in enumerate(EXAMPLE_SOLUTION):
        for c, digit in enumerate(row):
            game.apply(Place((r, c), digit))
    assert game.outcome == "won"
    with pytest.raises(MoveError, match="ended already"):
        Session.resume(example, game.journal.records)
    with pytest.raises(MoveError, match="after the game ended"):
        Session.resume(example, [*game.journal.records, {"move": "undo"}])


def test_a_pause_and_the_end_turn_keys_off_and_the_session_says_why(game):
    keys = ("pause", "check", "reveal", "restart", "hint", "inspect", "new_game", "games")
    assert [action for action in keys if game.action_off(action)] == []
    assert game.refusal(Check()) is None
    game.apply(Pause())
    assert [action for action in keys if game.action_off(action)] == [
        "check", "reveal", "restart", "hint", "inspect"]
    assert game.refusal(Check()) == "Paused: p to go on."
    game.apply(Pause())
    game.apply(Reveal())
    assert [action for action in keys if game.action_off(action)] == [
        "pause", "check", "reveal", "hint"]
    assert game.refusal(Check()) == "The game is over: g for a new game."
