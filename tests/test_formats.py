"""Puzzle texts: the JSON form and Keen game IDs, good and bad."""

from __future__ import annotations

import json

import pytest
from conftest import EXAMPLE_ID, EXAMPLE_SOLUTION, KEEN_IDS
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import examples, puzzles

from kaldoku_tui.engine.formats import (
    puzzle_from_dict,
    puzzle_to_dict,
    read_json,
    read_keen,
    read_puzzles,
    to_json_line,
    to_keen,
)
from kaldoku_tui.engine.puzzle import Cage, Puzzle, PuzzleError

EXAMPLE_CAGES = [
    (((0, 0), (0, 1)), "/", 2),
    (((0, 2), (0, 3)), "*", 12),
    (((1, 0), (2, 0)), "-", 1),
    (((1, 1), (2, 1)), "+", 5),
    (((1, 2), (1, 3)), "-", 1),
    (((2, 2), (3, 2)), "*", 4),
    (((2, 3), (3, 3)), "/", 2),
    (((3, 0), (3, 1)), "+", 5),
]


# --- JSON -------------------------------------------------------------------------


def test_example_file_reads_as_the_worked_example(puzzle_dir, example):
    (puzzle,) = read_puzzles((puzzle_dir / "example.json").read_text())
    assert puzzle == example
    assert puzzle.solution == EXAMPLE_SOLUTION


def test_json_lines_give_every_puzzle_in_order(puzzle_dir):
    text = (puzzle_dir / "three.jsonl").read_text()
    found = read_json(text)
    assert [p.size for p in found] == [3, 5, 6]
    assert [to_json_line(p) for p in found] == text.splitlines()


def test_a_json_array_of_puzzles_reads_too(example):
    text = json.dumps([puzzle_to_dict(example)] * 2)
    assert read_json(text) == [example, example]


def test_operation_spellings_are_accepted():
    data = {
        "size": 3,
        "cages": [
            {"cells": [[0, 0], [0, 1]], "op": "x", "target": 2},
            {"cells": [[0, 2], [1, 2]], "op": "÷", "target": 3},
            {"cells": [[1, 0], [1, 1]], "op": "×", "target": 6},
            {"cells": [[2, 0], [2, 1], [2, 2]], "op": "+", "target": 6},
        ],
    }
    puzzle = puzzle_from_dict(data)
    assert [cage.op for cage in puzzle.cages] == ["*", "/", "*", "+"]
    assert [c["op"] for c in puzzle_to_dict(puzzle)["cages"]] == ["*", "/", "*", "+"]


def test_extra_keys_go_to_meta_and_are_written_back(example):
    data = puzzle_to_dict(example) | {"seed": 42, "difficulty": "hard"}
    puzzle = puzzle_from_dict(data)
    assert dict(puzzle.meta) == {"seed": 42, "difficulty": "hard"}
    assert json.loads(to_json_line(puzzle)) == data


def test_solution_is_optional_and_left_out_when_unknown(example):
    data = puzzle_to_dict(example)
    del data["solution"]
    puzzle = puzzle_from_dict(data)
    assert puzzle.solution is None
    assert "solution" not in puzzle_to_dict(puzzle)


def test_a_pretty_printed_object_over_many_lines_is_one_puzzle(example):
    assert read_json(json.dumps(puzzle_to_dict(example), indent=4)) == [example]


def test_blank_lines_between_json_lines_are_skipped(example):
    line = to_json_line(example)
    assert read_json(f"\n{line}\n\n  {line}\n\n") == [example, example]


def test_to_json_line_is_one_line(example):
    assert "\n" not in to_json_line(example)


@pytest.mark.parametrize(
    "text, message",
    [
        ('{"size": 3, "cages": [', "line 1: bad JSON"),
        ('{"size": 3,\n "cages": [}', "line 1: bad JSON: Expecting value (line 2, column 12)"),
        ("[1, 2]", "a puzzle must be a JSON object, not a number"),
        ('"puzzle"', "a puzzle must be a JSON object, not a string"),
        ('{"cages": []}', "no 'size' key"),
        ('{"size": 3}', "no 'cages' key"),
        ('{"size": "3", "cages": []}', "size must be a whole number"),
        ('{"size": 3.0, "cages": []}', "size must be a whole number"),
        ('{"size": true, "cages": []}', "size must be a whole number"),
        ('{"size": 3, "cages": {}}', "cages must be a list"),
        ('{"size": 3, "cages": [7]}', "cage 1 must be a JSON object"),
        ('{"size": 3, "cages": [{"op": "=", "target": 1}]}', "cage 1 has no 'cells' key"),
        ('{"size": 3, "cages": [{"cells": [[0, 0]], "target": 1}]}', "cage 1 has no 'op' key"),
        ('{"size": 3, "cages": [{"cells": [[0, 0]], "op": "="}]}', "cage 1 has no 'target' key"),
        (
            '{"size": 3, "cages": [{"cells": [[0, 0]], "op": "=", "target": 1, "colour": 2}]}',
            "cage 1 has unknown key 'colour'",
        ),
        ('{"size": 3, "cages": [{"cells": [0, 0], "op": "=", "target": 1}]}', "[row, column] pairs"),
        ('{"size": 3, "cages": [{"cells": [[0, 0, 0]], "op": "=", "target": 1}]}', "[row, column] pairs"),
        ('{"size": 3, "cages": [{"cells": [["a", 0]], "op": "=", "target": 1}]}', "[row, column] pairs"),
        ('{"size": 3, "cages": [{"cells": [[0, 0]], "op": 1, "target": 1}]}', "op must be a string"),
        ('{"size": 3, "cages": [{"cells": [[0, 0]], "op": "%", "target": 1}]}', "unknown operation '%'"),
        ('{"size": 3, "cages": [{"cells": [[0, 0]], "op": "=", "target": "1"}]}', "target must be a whole number"),
        ('{"size": 3, "cages": [{"cells": [[0, 0]], "op": "=", "target": 1.5}]}', "target must be a whole number"),
        ('{"size": 3, "cages": [{"cells": [], "op": "+", "target": 1}]}', "a cage has no cells"),
        ('{"size": 3, "cages": [], "solution": "123"}', "solution must be a list of rows"),
        ('{"size": 3, "cages": [], "solution": [[1, "2", 3]]}', "solution must be a list of rows"),
    ],
)
def test_malformed_json_names_the_problem(text, message):
    with pytest.raises(PuzzleError, match="^line 1: ") as err:
        read_json(text)
    assert message in str(err.value)


def _json(size: int, cages: list, **extra) -> str:
    cages = [{"cells": cells, "op": op, "target": target} for cells, op, target in cages]
    return json.dumps({"size": size, "cages": cages, **extra})


ROWS3 = [([[r, 0], [r, 1], [r, 2]], "+", 6) for r in range(3)]


@pytest.mark.parametrize(
    "text, message",
    [
        (_json(2, [([[0, 0], [0, 1], [1, 0], [1, 1]], "+", 6)]), "size must be 3 to 9, not 2"),
        (_json(10, []), "size must be 3 to 9, not 10"),
        (_json(3, ROWS3 + [([[3, 0]], "=", 1)]), "cell [3, 0] is off the 3×3 board"),
        (_json(3, ROWS3 + [([[-1, 0]], "=", 1)]), "cell [-1, 0] is off the 3×3 board"),
        (_json(3, ROWS3 + [([[1, 1]], "=", 1)]), "cell r2c2 is in two cages"),
        (_json(3, ROWS3[:2]), "3 cell(s) in no cage, first r3c1"),
        (_json(3, [([[0, 0], [0, 2]], "+", 3)] + ROWS3[1:]), "not orthogonally connected"),
        (_json(3, [([[0, 0], [0, 1], [0, 2]], "-", 1)] + ROWS3[1:]), "- cages take exactly two cells, not 3"),
        (_json(3, [([[0, 0]], "/", 1)] + ROWS3[1:]), "/ cages take exactly two cells, not 1"),
        (_json(3, [([[0, 0], [0, 1]], "=", 1)] + ROWS3[1:]), "= cages take one cell, not 2"),
        (_json(3, [([[0, 0], [0, 1], [0, 2]], "+", 19)] + ROWS3[1:]), "no digits 1..3 make 19+"),
        (_json(3, [([[0, 0]], "=", 4), ([[0, 1], [0, 2]], "+", 3)] + ROWS3[1:]), "no digits 1..3 make 4"),
        (_json(3, ROWS3, solution=[[1, 2, 3]] * 3), "solution column 1 does not hold 1..3"),
        (_json(3, ROWS3, solution=[[1, 2]] * 3), "solution must be 3 rows of 3 digits"),
    ],
)
def test_puzzle_rules_broken_in_json_name_the_problem(text, message):
    with pytest.raises(PuzzleError, match="^line 1: ") as err:
        read_json(text)
    assert message in str(err.value)


def test_the_line_of_a_bad_puzzle_in_json_lines_is_named(example):
    good = to_json_line(example)
    with pytest.raises(PuzzleError, match=r"^line 3: .*no 'cages' key"):
        read_json(f"{good}\n{good}\n{{\"size\": 4}}\n{good}\n")
    with pytest.raises(PuzzleError, match=r"^line 2: bad JSON: .*\(line 3, column 1\)"):
        read_json(f"{good}\n{good[:-1]}\n")


# --- Keen game IDs ------------------------------------------------------------------


def test_the_worked_example_decodes_to_the_listed_cages():
    puzzle = read_keen(EXAMPLE_ID)
    assert puzzle.size == 4
    assert [(c.cells, c.op, c.target) for c in puzzle.cages] == EXAMPLE_CAGES
    assert puzzle.solution is None


@pytest.mark.parametrize("game_id", [EXAMPLE_ID] + KEEN_IDS)
def test_keen_ids_round_trip_to_the_same_text(game_id):
    assert to_keen(read_keen(game_id)) == game_id


def test_single_cells_read_as_equals_and_are_written_as_keen_reads_them():
    # Top-left alone, the rest of the top row, the rest of the first column, the 2×2 rest.
    game_id = "3:_a6,a1m6a5a7"
    puzzle = read_keen(game_id)
    assert [(c.cells, c.op, c.target) for c in puzzle.cages] == [
        (((0, 0),), "=", 1),
        (((0, 1), (0, 2)), "*", 6),
        (((1, 0), (2, 0)), "+", 5),
        (((1, 1), (1, 2), (2, 1), (2, 2)), "+", 7),
    ]
    assert to_keen(puzzle) == game_id
    assert read_keen("3:_a6,1m6a5a7") == puzzle
    assert read_keen("3:_a6,m1m6a5a7") == puzzle


def test_repeat_counts_expand_any_token():
    # `a2` is `aa` and `_3` is `___`: Keen writes runs of two doubled, longer ones counted.
    assert read_keen("4:a2_a__a__a_a__a_a,d2m12s1a5s1m4d2a5") == read_keen(EXAMPLE_ID)
    assert read_keen("4:aa_a_2a_2a_a_2a_a,d2m12s1a5s1m4d2a5") == read_keen(EXAMPLE_ID)


def test_long_runs_use_z_for_twenty_five_non_edges():
    # One 9×9 cage of everything: 144 non-edges, then the end mark.
    cells = tuple((r, c) for r in range(9) for c in range(9))
    whole = Puzzle(9, (Cage(cells, "+", 405),))
    game_id = to_keen(whole)
    assert game_id == "9:z5s,a405"
    assert read_keen(game_id) == whole


def test_keen_options_after_the_size_are_ignored():
    assert read_keen("4dh:" + EXAMPLE_ID[2:]) == read_keen(EXAMPLE_ID)


@pytest.mark.parametrize(
    "game_id, message",
    [
        ("hello", "not a Keen game ID"),
        ("4:aa_a__a__a_a__a_a", "not a Keen game ID"),
        ("2:_,a1a2", "size must be 3 to 9, not 2"),
        ("10:_,a1", "size must be 3 to 9, not 10"),
        ("4:aa_a__a__a_a__a_a_,d2m12s1a5s1m4d2a5", "block code too long"),
        ("4:aa_a__a__a_a__a_a_9,d2m12s1a5s1m4d2a5", "block code too long"),
        ("4:aa_a__a__a_a__a_,d2m12s1a5s1m4d2a5", "block code too short"),
        ("4:,d2m12s1a5s1m4d2a5", "block code too short"),
        ("4:aa_a__a__a_a__a_z,d2m12s1a5s1m4d2a5", "block code too long"),
        ("4:aa_a__a__a_a__a_A,d2m12s1a5s1m4d2a5", "unexpected 'A' in the block code"),
        ("4:aa_a0_a__a_a__a_a,d2m12s1a5s1m4d2a5", "repeat count 0"),
        ("4:aa_a__a__a_a__a_a,d2m12s1a5s1m4d2", "7 clue(s) for 8 cage(s)"),
        ("4:aa_a__a__a_a__a_a,d2m12s1a5s1m4d2a5a1", "9 clue(s) for 8 cage(s)"),
        ("4:aa_a__a__a_a__a_a,d2m12s1a5s1m4d2x5", "unknown clue letter 'x'"),
        ("4:aa_a__a__a_a__a_a,d2m12s1a5s1m4d2a", "clue 'a' has no number"),
        ("4:aa_a__a__a_a__a_a,d2m12s1a5s1m4d2a5!", "unexpected '!' in the clues"),
        ("4:aa_a__a__a_a__a_a,2m12s1a5s1m4d2a5", "bare number 2 as the clue of a 2-cell cage"),
        ("4:aa_a__a__a_a__a_a,d2m12s1a5s1m4d2a9", "no digits 1..4 make 9+"),
        ("3:_a6,s1m6a5a7", "- cages take exactly two cells, not 1"),
    ],
)
def test_malformed_keen_ids_name_the_problem(game_id, message):
    with pytest.raises(PuzzleError) as err:
        read_keen(game_id)
    assert message in str(err.value)


# --- Either -------------------------------------------------------------------------


def test_read_puzzles_tells_keen_ids_from_json(example):
    assert read_puzzles(f"  {EXAMPLE_ID}\n") == [read_keen(EXAMPLE_ID)]
    assert read_puzzles(to_json_line(example)) == [example]
    assert read_puzzles(f"{EXAMPLE_ID}\n{KEEN_IDS[0]}\n") == [read_keen(EXAMPLE_ID), read_keen(KEEN_IDS[0])]
    assert read_puzzles(" \n") == []


def test_read_puzzles_names_text_of_neither_kind():
    with pytest.raises(PuzzleError, match="neither JSON, a Keen game ID nor a typed layout: 'size 4'"):
        read_puzzles("size 4\n")
    with pytest.raises(PuzzleError, match=r"^line 3: Keen game ID: size must be"):
        read_puzzles(f"{EXAMPLE_ID}\n\n12:_,a1\n")
    with pytest.raises(PuzzleError, match=r"^line 2: neither JSON, a Keen game ID nor a typed layout: 'oops'"):
        read_puzzles(f"{EXAMPLE_ID}\noops\n")


def test_a_keen_random_seed_is_told_apart_from_a_game_id():
    with pytest.raises(PuzzleError, match="'4dh#123456' is a Keen random seed; give its game ID"):
        read_puzzles("4dh#123456")


def test_a_byte_order_mark_is_skipped(example):
    assert read_puzzles("\ufeff" + to_json_line(example)) == [example]
    assert read_puzzles("\ufeff" + EXAMPLE_ID) == [read_keen(EXAMPLE_ID)]


def test_numbers_and_nesting_beyond_reason_are_named():
    long = "9" * 5000
    with pytest.raises(PuzzleError, match="line 1: bad JSON: a number too long"):
        read_json(f'{{"size": {long}, "cages": []}}')
    with pytest.raises(PuzzleError, match="line 1: bad JSON: nested too deeply"):
        read_json("[" * 100_000 + "]" * 100_000)
    with pytest.raises(PuzzleError, match="number too long"):
        read_keen(f"{long}:_,a1")
    with pytest.raises(PuzzleError, match="number too long"):
        read_keen(f"4:_{long},a1")
    with pytest.raises(PuzzleError, match="number too long"):
        read_keen(f"4:aa_a__a__a_a__a_a,d2m12s1a5s1m4d2a{long}")


def _mutations(text: str):
    """Strategies for `text` with a few characters deleted, replaced or inserted."""
    alphabet = st.sampled_from(list('_az09,:{}[]"-.x ') + ["\n", "1e9", "null", "true"])

    @st.composite
    def mutated(draw):
        chars = list(text)
        for _ in range(draw(st.integers(1, 4))):
            i = draw(st.integers(0, len(chars)))
            kind = draw(st.sampled_from(["delete", "replace", "insert"]))
            if kind == "insert" or i == len(chars):
                chars.insert(i, draw(alphabet))
            elif kind == "delete":
                del chars[i]
            else:
                chars[i] = draw(alphabet)
        return "".join(chars)

    return mutated()


@settings(max_examples=examples(300), deadline=None)
@given(
    st.one_of(
        st.text(max_size=60),
        _mutations(EXAMPLE_ID),
        _mutations(KEEN_IDS[1]),
        _mutations('{"size": 3, "cages": [{"cells": [[0, 0], [0, 1]], "op": "-", "target": 1}], '
                   '"solution": [[1, 2, 3]]}'),
    )
)
def test_any_text_reads_as_puzzles_or_a_puzzle_error(text):
    try:
        found = read_puzzles(text)
    except PuzzleError as exc:
        assert str(exc) and "\n" not in str(exc)
    else:
        assert all(isinstance(p, Puzzle) for p in found)


# --- Round trips ------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(puzzles(), st.dictionaries(st.sampled_from(["seed", "difficulty", "note"]), st.integers()))
def test_json_round_trip_is_exact(puzzle, meta):
    puzzle = Puzzle(puzzle.size, puzzle.cages, puzzle.solution, meta)
    line = to_json_line(puzzle)
    (again,) = read_json(line)
    assert again == puzzle
    assert dict(again.meta) == meta
    assert to_json_line(again) == line


@settings(max_examples=60, deadline=None)
@given(puzzles(with_solution=False))
def test_keen_round_trip_is_exact(puzzle):
    game_id = to_keen(puzzle)
    again = read_keen(game_id)
    assert again == puzzle
    assert to_keen(again) == game_id
    assert read_puzzles(game_id) == [puzzle]
