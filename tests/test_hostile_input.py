"""Hostile puzzle input: huge cages are answered or refused, oversized or broken text is
refused with a one-line message naming the limit. Times are measured in
benchmarks/hostile.py; these tests assert the outcomes."""

from __future__ import annotations

import io
import json
import sys
import threading

import pytest

from kaldoku_tui.cli import main
from kaldoku_tui.engine.board import Board
from kaldoku_tui.engine.fillings import CageTooLarge, fillings, fillings_bound
from kaldoku_tui.engine.formats import MAX_TEXT, read_puzzle_bytes, read_puzzles
from kaldoku_tui.engine.hints import hint, hint_within
from kaldoku_tui.engine.puzzle import Cage, Puzzle, PuzzleError, can_fill
from kaldoku_tui.engine.solver import solve

ROW = tuple((0, c) for c in range(9))
TWO_ROWS = tuple((r, c) for r in range(2) for c in range(9))


def run(capsys, monkeypatch, *argv: str, stdin: bytes = b""):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8"))
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_cages_of_whole_rows_are_judged_without_listing_fillings():
    assert not can_fill(9, Cage(ROW, "+", 44)) and can_fill(9, Cage(ROW, "+", 45))
    assert can_fill(9, Cage(ROW, "*", 362880)) and not can_fill(9, Cage(ROW, "*", 362881))
    assert not can_fill(9, Cage(TWO_ROWS, "+", 89)) and can_fill(9, Cage(TWO_ROWS, "+", 90))
    forty = tuple((r, c) for r in range(9) for c in range(9))[:40]
    # Four whole rows (4 × 45) and four cells of the fifth: 190..210.
    assert [t for t in range(150, 250) if can_fill(9, Cage(forty, "+", t))] == list(range(190, 211))


def test_a_cage_with_too_many_fillings_is_refused_by_name():
    with pytest.raises(CageTooLarge, match=r"the 45\+ cage at r1c1 \(9 cells\) has too many ways"):
        fillings(9, Cage(ROW, "+", 45))
    assert fillings_bound(9, Cage(ROW, "+", 45)) == 362880  # 9!, exact for one line


@pytest.mark.parametrize("name, target", [("hostile_row_44.json", "44+"), ("hostile_two_rows_89.json", "89+")])
@pytest.mark.parametrize("command", ["check", "solve", "grade"])
def test_impossible_row_cages_are_refused(capsys, monkeypatch, puzzle_dir, name, target, command):
    status, out, err = run(capsys, monkeypatch, command, str(puzzle_dir / name))
    assert status == 2 and out == ""
    assert err == f"kaldoku: error: {puzzle_dir / name}: line 1: cage at r1c1: no digits 1..9 make {target}\n"


def test_two_forty_cell_cages_are_valid_with_several_solutions(capsys, monkeypatch, puzzle_dir):
    path = str(puzzle_dir / "hostile_two_40_cages.json")
    assert run(capsys, monkeypatch, "check", path)[:2] == (1, "9×9, 3 cages: valid, more than one solution\n")
    puzzle = read_puzzles((puzzle_dir / "hostile_two_40_cages.json").read_text())[0]
    found = solve(puzzle, limit=2)
    assert len(found) == 2 and all(Puzzle(9, puzzle.cages, grid) for grid in found)


def test_a_seventeen_cell_cage_is_checked_and_solved_and_grading_says_too_large(capsys, monkeypatch, puzzle_dir):
    path = puzzle_dir / "hostile_cage_17.json"
    puzzle = read_puzzles(path.read_text())[0]
    assert max(len(cage.cells) for cage in puzzle.cages) == 17
    assert run(capsys, monkeypatch, "check", str(path))[:2] == (0, "9×9, 33 cages: valid, unique\n")
    status, out, _ = run(capsys, monkeypatch, "solve", str(path))
    assert status == 0 and out.split() == ["".join(map(str, row)) for row in puzzle.solution]
    status, out, err = run(capsys, monkeypatch, "grade", str(path))
    assert status == 2 and err.startswith("kaldoku: error: too large to grade: the 90+ cage at r1c3 (17 cells)")
    assert err.count("\n") == 1


def test_a_hint_on_rows_too_large_to_list_says_it_found_nothing():
    rows = Puzzle(9, tuple(Cage(tuple((r, c) for c in range(9)), "+", 45) for r in range(9)))
    found = hint_within(Board(rows), seconds=30)
    assert found.hint is None and "too many ways to be filled" in found.gave_up


def test_a_hint_names_the_cage_too_large_to_reason_about(puzzle_dir):
    puzzle = read_puzzles((puzzle_dir / "hostile_cage_17.json").read_text())[0]
    found = hint_within(Board(puzzle), seconds=30)
    assert found.hint is None and found.gave_up.startswith("No hint: the 90+ cage at r1c3 (17 cells)")
    assert hint(Board(puzzle)) is None  # the plain call answers too, without the reason


def test_a_hint_search_out_of_time_says_so_and_a_quick_one_gives_the_hint(monkeypatch, puzzle_dir):
    from kaldoku_tui.engine import hints

    board = Board(read_puzzles((puzzle_dir / "example.json").read_text())[0])
    release = threading.Event()
    real_hint = hints.find_hint
    monkeypatch.setattr(hints, "find_hint", lambda b: release.wait() and real_hint(b))
    slow = hint_within(board, seconds=0.2)
    release.set()
    assert slow == hints.HintSearch(None, "No hint found in 0.2 seconds on this board.")
    quick = hint_within(board, seconds=30)
    assert quick.gave_up is None and quick.hint == real_hint(board)


# --- Oversized and broken text ------------------------------------------------------


@pytest.mark.parametrize("data, message", [
    (b" " * 10_000_000 + b'{"size": 3}', f"too large to read: more than {MAX_TEXT:,} bytes"),
    (b"9:" + b"_" * 145 + b"," + b"a1" * 5_000_000, f"too large to read: more than {MAX_TEXT:,} bytes"),
    (b"9:" + b"_" * 145 + b"," + b"a1" * 500_000, "Keen game ID: more clues than the board's 81 cells"),
    (json.dumps({"size": 9, "cages": [{"cells": [[0, 0]] * 1_000_000, "op": "+", "target": 3}]}).encode(),
     f"too large to read: more than {MAX_TEXT:,} bytes"),
    (json.dumps({"size": 9, "cages": [{"cells": [[0, 0]] * 100_000, "op": "+", "target": 3}]}).encode(),
     "line 1: cage 1 lists 100000 cells; a board has at most 81"),
    (json.dumps({"size": 9, "cages": [{"cells": [[0, 0]], "op": "=", "target": 1}] * 1000}).encode(),
     "line 1: 1000 cages; a puzzle has at most 81"),
    (b"\xff", "not UTF-8 text: byte 0xff at offset 0"),
    (b"{\"size\": 3, \"cages\": \"\xc3\x28\"}", "not UTF-8 text: byte 0xc3 at offset 22"),
])
def test_oversized_or_broken_text_is_refused_naming_the_limit(data, message):
    with pytest.raises(PuzzleError) as caught:
        read_puzzle_bytes(data)
    assert str(caught.value) == message


@pytest.mark.parametrize("command", ["solve", "check", "grade"])
def test_a_byte_that_is_not_utf8_on_standard_input_is_one_line(capsys, monkeypatch, command):
    status, out, err = run(capsys, monkeypatch, command, stdin=b"\xff")
    assert (status, out) == (2, "")
    assert err == "kaldoku: error: standard input: not UTF-8 text: byte 0xff at offset 0\n"


def test_an_oversized_file_is_refused_before_it_is_read(capsys, monkeypatch, tmp_path):
    path = tmp_path / "huge.json"
    path.write_bytes(b" " * (MAX_TEXT + 10))
    status, _, err = run(capsys, monkeypatch, "check", str(path))
    assert status == 2 and err == f"kaldoku: error: {path}: too large to read: more than {MAX_TEXT:,} bytes\n"


# --- Huge targets ----------------------------------------------------------------------

QUARTERS = "a a b b\na a b b\nc c d d\nc c d d\n"
"""A 4×4 typed as four 2×2 cages: a's clue is the one under test, the others reachable."""


def quarters_json(op: str, target: int) -> str:
    """The 4×4 of QUARTERS as JSON, cage a's clue `target` `op` (any number of digits)."""
    def cage(cells, op, target):
        return '{"cells": %s, "op": "%s", "target": %s}' % (json.dumps(cells), op, target)
    quarters = [[[r + dr, c + dc] for dr in (0, 1) for dc in (0, 1)] for r in (0, 2) for c in (0, 2)]
    cages = [cage(quarters[0], op, str(target))] + [cage(q, "+", 10) for q in quarters[1:]]
    return '{"size": 4, "cages": [%s]}' % ", ".join(cages)


HUGE_TARGETS = {
    "typed 999999999999+": (QUARTERS + "a 999999999999+\nb 10+\nc 10+\nd 10+\n", "999999999999+"),
    "JSON 4,000-digit +": (quarters_json("+", "9" * 4000), "9" * 30),
    "JSON 4,000-digit ×": (quarters_json("*", "9" * 4000), "9" * 30),
    "JSON 4,000-digit ?": (quarters_json("?", "9" * 4000), "9" * 30),
    "JSON 1e8 +": (quarters_json("+", 10**8), "100000000+"),
    "JSON 1e9 +": (quarters_json("+", 10**9), "1000000000+"),
    "JSON 1e9 ×": (quarters_json("*", 10**9), "1000000000×"),
    "JSON 17+ (one above 4 × 4)": (quarters_json("+", 17), "17+"),
    "JSON 257× (one above 4⁴)": (quarters_json("*", 257), "257×"),
}
"""Targets no filling of a 2×2 cage of a 4×4 reaches, and the start of the clue the error names."""


@pytest.mark.parametrize("name", HUGE_TARGETS)
@pytest.mark.parametrize("command", ["check", "solve", "grade", "print", "play"])
def test_an_unreachable_target_is_refused_at_once(capsys, monkeypatch, tmp_path, name, command,
                                                   on_a_terminal):
    """They ended every command with MemoryError or OverflowError, or took 30-60 s (1e8, 1e9)."""
    import time

    text, clue = HUGE_TARGETS[name]
    path = tmp_path / ("p.txt" if text.startswith("a") else "p.json")
    path.write_text(text)
    argv = [str(path)] if command == "play" else [command, str(path)]
    start = time.perf_counter()
    status, out, err = run(capsys, monkeypatch, *argv)
    assert time.perf_counter() - start < 2.0
    assert (status, out) == (2, "")
    assert f"cage at r1c1: no digits 1..4 make {clue}" in err or f"cage 'a': no digits 1..4 make {clue}" in err
    assert err.count("\n") == 1 and len(err) < 400


@pytest.mark.parametrize("cells, op, most", [
    (ROW, "+", 45), (TWO_ROWS, "+", 90), (ROW, "*", 362880), (TWO_ROWS, "*", 362880**2),
    (tuple((r, c) for r in range(9) for c in range(9)), "*", 362880**9),
    (tuple((r, c) for r in range(9) for c in range(9)), "+", 405),
])
def test_the_largest_target_is_made_and_none_above_it(cells, op, most):
    assert can_fill(9, Cage(cells, op, most))
    for above in (most + 1, most * 2, 10**12, 10**4000):
        assert not can_fill(9, Cage(cells, op, above))
