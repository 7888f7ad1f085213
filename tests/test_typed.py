"""The typed layout (formats.md section 3) and `kaldoku generate --format`."""

from __future__ import annotations

import io
import json
import sys

import pytest

from kaldoku_tui.cli import main
from kaldoku_tui.engine.formats import (
    FORMATS, read_keen, read_puzzles, read_typed, to_typed, write_puzzle,
)
from kaldoku_tui.engine.generator import generate
from kaldoku_tui.engine.puzzle import HIDDEN, Cage, Puzzle, PuzzleError

WORKED = """\
# The worked example of section 2, typed (# starts a comment; blank lines are ignored)
a a b b
c d e e

c d f g
h h f g
a 2÷
b 12×
c 1-
d 5+
e 1−
f 4x
g 2/
h 5+
"""
KEEN = "4:aa_a__a__a_a__a_a,d2m12s1a5s1m4d2a5"


def test_the_worked_example_reads_as_its_keen_id():
    assert read_puzzles(WORKED) == [read_keen(KEEN)]


def test_tabs_and_windows_line_ends_are_whitespace_like_any_other():
    assert read_puzzles(WORKED.replace(" ", "\t").replace("\n", "\r\n")) == [read_keen(KEEN)]


def test_operators_may_come_first_and_single_cells_be_bare_or_equal():
    text = "a a b\nc d b\nc e e\na +4\nb 4 +\nc 3*\nd =1\ne ?5\n"
    puzzle = read_typed(text)[0]
    ops = {cage.anchor: (cage.op, cage.target) for cage in puzzle.cages}
    assert ops == {(0, 0): ("+", 4), (0, 2): ("+", 4), (1, 0): ("*", 3), (1, 1): ("=", 1),
                   (2, 1): ("?", 5)}


@pytest.mark.parametrize("size", [3, 6, 9])
@pytest.mark.parametrize("ops", ["all", "hidden"])
def test_written_text_reads_back_as_the_same_puzzle(size, ops):
    puzzle = generate(size, seed=size)
    if ops == "hidden":  # hidden 9×9 puzzles are not made: hide a shown one's operations
        cages = tuple(Cage(c.cells, HIDDEN if len(c.cells) > 1 else c.op, c.target) for c in puzzle.cages)
        puzzle = Puzzle(size, cages, puzzle.solution)
    text = to_typed(puzzle)
    assert read_puzzles(text) == [puzzle.with_solution(None)]
    assert text.splitlines()[0].split()[0] == "a"


def test_names_run_past_the_alphabet_for_81_cages():
    from kaldoku_tui.engine.puzzle import Cage, Puzzle

    digits = [[(c + r) % 9 + 1 for c in range(9)] for r in range(9)]
    puzzle = Puzzle(9, tuple(Cage(((r, c),), "=", digits[r][c]) for r in range(9) for c in range(9)))
    text = to_typed(puzzle)
    assert text.split("\n", 1)[0].split()[-1] == "i" and "a1" in text and "c2" in text
    assert read_typed(text) == [puzzle]


def test_several_puzzles_follow_one_another():
    one, two = generate(4, seed=1), generate(5, seed=2)
    text = to_typed(one) + "\n" + to_typed(two)
    assert read_puzzles(text) == [one.with_solution(None), two.with_solution(None)]


@pytest.mark.parametrize("text, message", [
    ("a a b\nc d b\nc e\n", "line 3: row has 2 names, expected 3"),
    ("a a b\nc d b\n", "line 3: the grid ends after 2 rows, expected 3"),
    ("a a b\nc d b\nc e e\na 4+\nb 4+\nc 3*\nd 1\n", "line 3: cage 'e' has no clue"),
    ("a a b\nc d b\nc e e\na 4+\nb 4+\nc 3*\nd 1\nz 5+\n", "line 8: no cage named 'z' in the grid"),
    ("a a b\nc d b\nc e e\na 4+\na 4+\n", "line 5: cage 'a' has a second clue"),
    ("a a b\nc d b\nc e e\na 4\n", "line 4: cage 'a' has 2 cells: its clue needs an operation"),
    ("a a b\nc d b\nc e e\na 4%\n", "line 4: '4%' is not a clue such as 12\\+"),
    ("a a b\nc d b\nc e e\na 40+\n", "line 4: cage 'a': no digits 1..3 make 40\\+"),
    ("a b a\nc d b\nc e e\n", "line 1: cage 'a'"),
    ("a a b b b b b b b b\n", "line 1: a row of 10 cage names; a board is 3 to 9 cells wide"),
    ("a a b\nc d b\nc e e\na 4+\nb 4+\nc 3*\nd 1\ne 5+\nq 1\n", "line 9: every cage has its clue"),
    ("a a-b c\nc d b\nc e e\n", "line 1: 'a-b' is not a cage name"),
])
def test_errors_name_the_line(text, message):
    with pytest.raises(PuzzleError, match=f"^{message}"):
        read_puzzles(text)


def test_write_puzzle_in_each_format():
    puzzle = read_keen(KEEN)
    assert write_puzzle(puzzle, "keen") == KEEN + "\n"
    assert json.loads(write_puzzle(puzzle, "json"))["size"] == 4
    assert read_puzzles(write_puzzle(puzzle, "text")) == [puzzle]
    with pytest.raises(PuzzleError, match="format must be one of json, keen, text"):
        write_puzzle(puzzle, "pdf")
    assert FORMATS == ("json", "keen", "text")


@pytest.mark.parametrize("form", FORMATS)
def test_generate_format_reads_back_with_solve(form, capsys, monkeypatch):
    assert main(["generate", "--size", "5", "--seed", "4", "--count", "2", "--format", form]) == 0
    out = capsys.readouterr().out
    puzzles = read_puzzles(out)
    assert [p.size for p in puzzles] == [5, 5]
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(out.encode()), encoding="utf-8"))
    assert main(["check"]) == 0
    assert capsys.readouterr().out.count("valid, unique") == 2


def test_solve_reads_a_typed_file(tmp_path, capsys):
    path = tmp_path / "paper.txt"
    path.write_text(WORKED)
    assert main(["solve", str(path)]) == 0
    assert capsys.readouterr().out == "1234\n4123\n3412\n2341\n"
