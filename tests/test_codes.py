"""Share codes: round trips for every way a game starts, refusals, and the command line."""

from __future__ import annotations

import hashlib
import json
import re

import pytest
from conftest import EXAMPLE_ID, EXAMPLE_SOLUTION, KEEN_IDS

from kaldoku_tui.cli import main
from kaldoku_tui.engine.codes import (
    GENERATOR_EDITION,
    _seed_code,
    fingerprint,
    is_code,
    puzzle_code,
    read_code,
    share_code,
)
from kaldoku_tui.engine.formats import puzzle_from_dict, read_keen, read_puzzles
from kaldoku_tui.engine.generator import generate
from kaldoku_tui.engine.kinds import GameKind
from kaldoku_tui.engine.puzzle import Puzzle, PuzzleError
from kaldoku_tui.engine.solver import solve

URL_SAFE = re.compile(r"[0-9a-z-]+")


def assert_round_trip(puzzle: Puzzle) -> str:
    """The code of `puzzle` reads back as the same puzzle (its solution found if it had none)."""
    code = share_code(puzzle)
    assert URL_SAFE.fullmatch(code) and is_code(code)
    back = read_code(code)
    expected = puzzle if puzzle.solution else puzzle.with_solution(solve(puzzle, limit=1)[0])
    assert back == expected
    assert back.solution is not None
    return code


@pytest.mark.parametrize(
    "size, ops, level",
    [(4, "all", None), (5, "addmul", None), (4, "mul", None),
     (4, "all", "normal"), (5, "addmul", "easy"), (3, "mul", "easy"), (5, "all", "hard")],
)
def test_generated_puzzles_round_trip_in_the_puzzle_form_with_their_kind(size, ops, level):
    puzzle = generate(size, seed=1234, ops=ops, level=level)
    code = assert_round_trip(puzzle)
    assert code.startswith("kp2-")
    back = read_code(code)
    assert (back.meta["ops"], back.meta.get("difficulty")) == (ops, level)
    assert GameKind.of(back) == GameKind.of(puzzle)


def test_a_kp1_code_of_kaldoku_0_2_still_opens_its_puzzle():
    """kaldoku 0.2 gave this code for the Keen example (no kind known): kp1 reads as before."""
    assert read_code("kp1-1v3081qdvphba") == read_keen(EXAMPLE_ID).with_solution(EXAMPLE_SOLUTION)
    assert share_code(read_keen(EXAMPLE_ID)) == "kp1-1v3081qdvphba"


def test_a_large_seed_and_upper_case_and_look_alike_letters_read_the_same():
    puzzle = generate(4, seed=2**40 + 17)
    code = assert_round_trip(puzzle)
    assert read_code(code.upper()) == puzzle
    body = code.split("-")[1]
    if "1" in body or "0" in body:
        typed = code.split("-")[0] + "-" + body.replace("1", "l").replace("0", "o")
        assert read_code(typed) == puzzle


def test_every_keen_id_round_trips_in_the_puzzle_form_and_is_shorter():
    for game_id in KEEN_IDS + [EXAMPLE_ID]:
        puzzle = read_keen(game_id)
        code = assert_round_trip(puzzle)
        assert code.startswith("kp1-")
        assert len(code) < len(game_id)


def test_json_files_round_trip(puzzle_dir):
    for name in ("example.json", "three.jsonl", "mixed.jsonl", "two_solutions.json"):
        for puzzle in read_puzzles((puzzle_dir / name).read_text()):
            assert_round_trip(puzzle)


def test_one_cell_additions_and_products_keep_their_operation():
    data = {
        "size": 3,
        "cages": [
            {"cells": [[0, 0], [0, 1]], "op": "/", "target": 2},
            {"cells": [[0, 2], [1, 2], [2, 2]], "op": "*", "target": 6},
            {"cells": [[1, 0], [1, 1]], "op": "-", "target": 1},
            {"cells": [[2, 0]], "op": "+", "target": 3},
            {"cells": [[2, 1]], "op": "*", "target": 1},
        ],
    }
    puzzle = puzzle_from_dict(data)
    assert_round_trip(puzzle)
    assert [cage.op for cage in read_code(share_code(puzzle)).cages] == ["/", "*", "-", "+", "*"]


def test_the_piece_string_of_the_article_round_trips(puzzle_dir):
    puzzle = read_puzzles((puzzle_dir / "kaldoku-article.txt").read_text())[0]
    assert_round_trip(puzzle)


def test_a_code_of_another_generator_edition_is_refused_saying_how_to_get_the_puzzle():
    code = _seed_code(generate(4, seed=8), 8, "all", None)
    for edition in (GENERATOR_EDITION - 1, GENERATOR_EDITION + 1):
        other = code.replace(f"kg{GENERATOR_EDITION}-", f"kg{edition}-")
        with pytest.raises(PuzzleError, match="makes other puzzles now: ask its sender for the kp code"):
            read_code(other)


def test_a_seed_code_that_regenerates_another_puzzle_is_refused():
    from kaldoku_tui.engine.codes import _seed_code

    puzzle = generate(4, seed=8)
    other = Puzzle(4, puzzle.cages, puzzle.solution, {**puzzle.meta, "seed": 9})
    with pytest.raises(PuzzleError, match="does not match the puzzle it regenerates"):
        read_code(_seed_code(other, 9, "all", None))


def test_a_code_carries_the_puzzle_whatever_its_seed_says():
    """A puzzle saved by an older generator edition keeps its old seed in its meta."""
    puzzle = generate(4, seed=8)
    other = Puzzle(4, puzzle.cages, puzzle.solution, {**puzzle.meta, "seed": 9})
    code = share_code(other)
    assert code.startswith("kp") and read_code(code) == other
    assert share_code(puzzle) == share_code(other) == puzzle_code(puzzle)


def test_a_mistyped_puzzle_code_fails_its_check():
    code = puzzle_code(read_keen(KEEN_IDS[4]))
    refused = 0
    for i in range(4, len(code)):
        digit = "a" if code[i] != "a" else "b"
        try:
            read_code(code[:i] + digit + code[i + 1:])
        except PuzzleError as exc:
            assert "share code" in str(exc)
            refused += 1
    assert refused == len(code) - 4


@pytest.mark.parametrize(
    "text, words",
    [
        ("kg1-", "not a share code"),
        ("kx1-abc", "unknown form"),
        ("kp9-abc", "packing version 9"),
        ("kp2-0", "fails its check"),
        ("kp1-abcu", "not a code digit"),
        ("kp1-" + "z" * 300, "too long"),
        ("kp1-0", "fails its check"),
        (f"kg{GENERATOR_EDITION}-7", "names no kind of puzzle"),
        (f"kg{GENERATOR_EDITION}-" + "z" * 20 + "5wc570x401", "names no kind of puzzle"),  # a seed past 2**64
    ],
)
def test_malformed_codes_are_refused_with_a_reason(text, words):
    with pytest.raises(PuzzleError, match=words):
        read_code(text)


def test_the_generator_still_makes_the_puzzles_of_this_edition():
    """When this fails the generator gives other puzzles for the same seeds: bump
    GENERATOR_EDITION in codes.py (old codes are then refused) and record the new value."""
    marks = [fingerprint(generate(size, seed=seed, ops=ops))
             for size, seed, ops in ((4, 1, "all"), (5, 2, "addmul"), (6, 3, "mul"))]
    marks += [fingerprint(generate(size, seed=seed, level=level))
              for size, seed, level in ((4, 4, "normal"), (9, 5, "hard"), (6, 6, "extreme"))]
    marks.append(fingerprint(generate(5, seed=7, ops="mul", level="normal")))
    marks += [fingerprint(generate(5, seed=8, ops=ops, level="hard")) for ops in ("addmul", "mul", "hidden")]
    marks.append(fingerprint(generate(8, seed=1, ops="hidden", level="normal")))  # hidden 8×8 and 9×9: edition 11
    marks += [fingerprint(generate(4, seed=1, ops=ops, level="extreme")) for ops in ("addmul", "mul")]  # edition 12
    marks += [fingerprint(generate(9, seed=seed, ops=ops, level="extreme"))
              for seed, ops in ((4, "addmul"), (2, "mul"))]  # edition 13: steps back from too easy
    marks.append(fingerprint(generate(9, seed=3, ops="mul", level="easy")))  # edition 14: squares by rows
    marks += [fingerprint(generate(size, seed=1, level="extreme")) for size in (5, 7)]  # edition 14: small all-ops
    marks.append(fingerprint(generate(9, seed=0, level="extreme")))  # edition 15: steps back from a new clue
    marks.append(fingerprint(generate(9, seed=1001, level="hard")))  # edition 16: hard searches on a budget
    marks.append(fingerprint(generate(9, seed=4, ops="addmul", level="easy")))  # edition 16 too: swapped rivals
    marks.append(fingerprint(generate(7, seed=2, ops="hidden", level="unreasonable")))  # edition 17: narrowed
    marks += [fingerprint(generate(4, seed=seed, ops=ops, level=level))  # edition 20: 4×4 candidates dropped sooner
              for seed in range(3) for ops, level in (("all", "extreme"), ("mul", "normal"))]
    marks.append(fingerprint(generate(8, seed=7, level="hard")))  # edition 20: stuck and loose boards
    marks.append(fingerprint(generate(6, seed=6, level="normal")))  # edition 21: 6×6 normal unproved
    marks.append(fingerprint(generate(5, seed=9, level="unreasonable")))  # edition 24: larger cages
    marks.append(fingerprint(generate(5, seed=10, level="extreme")))  # edition 25: repairs leave no single cell
    marks.append(fingerprint(generate(6, seed=11, level="hard")))  # edition 26: the line rule above extreme
    # A change may touch a few puzzles in twenty: many small ones catch it.
    marks += [fingerprint(generate(4, seed=seed, level=level)) for seed in range(40) for level in ("normal", "hard")]
    digest = hashlib.sha256(json.dumps([GENERATOR_EDITION, marks]).encode()).hexdigest()[:12]
    assert digest == "f424f8528ac7", "the generator changed: bump GENERATOR_EDITION"


def test_a_seed_code_of_this_edition_still_opens_its_puzzle():
    puzzle = generate(5, seed=3, level="hard")
    given_before = _seed_code(puzzle, 3, "all", "hard")  # what share_code gave then
    assert given_before.startswith(f"kg{GENERATOR_EDITION}-")
    assert read_code(given_before) == puzzle
    assert read_code(given_before).meta["difficulty"] == "hard"


# --- The command line --------------------------------------------------------------


def test_a_code_works_wherever_a_puzzle_does(capsys):
    code = share_code(read_keen(EXAMPLE_ID))
    rows = "\n".join("".join(map(str, row)) for row in EXAMPLE_SOLUTION)
    assert main(["solve", code]) == 0
    assert capsys.readouterr().out == rows + "\n"
    assert main(["check", code]) == 0
    assert "unique" in capsys.readouterr().out
    assert main(["grade", "--json", code]) == 0
    assert json.loads(capsys.readouterr().out)["level"]


def test_kaldoku_code_plays_exactly_that_puzzle(tmp_path, monkeypatch):
    from kaldoku_tui.app import build_app
    from kaldoku_tui.cli import app_config, game_parser

    monkeypatch.setenv("KALDOKU_HOME", str(tmp_path))
    puzzle = generate(5, seed=77, level="normal")
    app = build_app(app_config(game_parser().parse_args([share_code(puzzle)])))
    assert app.game.session.board.puzzle == puzzle
    assert app.game.session.board.puzzle.meta["difficulty"] == "normal"


@pytest.mark.parametrize("code", ["kp1-0", "kg7-abc", "kz1-abc", "kp1-!!"])
def test_a_bad_code_on_the_command_line_is_one_line_and_status_2(capsys, code):
    assert main(["solve", code]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("kaldoku: error: ") and err.count("\n") == 1
