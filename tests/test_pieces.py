"""The original Kaldoku's piece-string layout: the article's example, the shapes, errors."""

from __future__ import annotations

import pytest

from kaldoku_tui.cli import main
from kaldoku_tui.engine.formats import read_puzzles
from kaldoku_tui.engine.pieces import SHAPES, piece_cells, read_pieces
from kaldoku_tui.engine.puzzle import PuzzleError
from kaldoku_tui.engine.solver import solve

ARTICLE_PIECES = "L3_Rotate90_0_0|L2_Rotate90_1_1|L2_Rotate180_2_2|I2_Rotate360_0_3|J3_Rotate90_2_0|"
ARTICLE_ANSWER = ((1, 2, 4, 3), (4, 3, 1, 2), (2, 1, 3, 4), (3, 4, 2, 1))
"""The article's tarGetCellValue for that piece string."""


def test_the_article_example_loads_and_solves_to_its_stated_answer(puzzle_dir):
    puzzle = read_puzzles((puzzle_dir / "kaldoku-article.txt").read_text())[0]
    assert puzzle.size == 4 and len(puzzle.cages) == 5
    assert puzzle.solution == ARTICLE_ANSWER
    # The clues of the article's picture: 11+, 5+, 11+, 6x, 12x.
    assert sorted(cage.label() for cage in puzzle.cages) == sorted(["11+", "5+", "11+", "6×", "12×"])
    found = solve(puzzle, limit=5)
    assert ARTICLE_ANSWER in found
    # The J3 turned 90° of the article's picture: cells (2,0) (3,0) (3,1) (3,2), 11+.
    j3 = puzzle.cage_at((2, 0))
    assert j3.cells == ((2, 0), (3, 0), (3, 1), (3, 2)) and j3.label() == "11+"


def test_the_turning_rule_gives_the_four_l2_turns_the_article_spells_out():
    article = {
        360: ((0, 0), (1, 0), (1, 1)),
        90: ((0, 0), (0, 1), (1, 0)),
        180: ((0, 0), (0, 1), (1, 1)),
        270: ((0, 0), (1, 0), (1, -1)),
    }
    for degrees, cells in article.items():
        at = piece_cells(f"L2_Rotate{degrees}_2_3")
        assert at == tuple(sorted((2 + r, 3 + c) for r, c in cells))


def test_every_shape_in_every_turn_is_connected_and_anchored_at_its_put_cell():
    for kind, base in SHAPES.items():
        for degrees in (90, 180, 270, 360):
            cells = piece_cells(f"{kind}_Rotate{degrees}_4_4")
            assert len(cells) == len(base)
            assert min(cells) == (4, 4)  # the first cell in reading order is where it is put


def test_shapes_that_look_the_same_turned_half_round_read_180_and_270_as_not_turned():
    assert piece_cells("I3_Rotate270_0_0") == piece_cells("I3_Rotate360_0_0") == ((0, 0), (1, 0), (2, 0))
    assert piece_cells("I3_Rotate90_0_0") == ((0, 0), (0, 1), (0, 2))


def test_without_clues_every_piece_adds_up():
    text = "\n".join([ARTICLE_PIECES, *("".join(map(str, row)) for row in ARTICLE_ANSWER)])
    puzzle = read_pieces(text)
    assert sorted(cage.label() for cage in puzzle.cages) == ["11+", "11+", "5+", "5+", "8+"]
    assert puzzle.solution == ARTICLE_ANSWER


def test_clues_only_and_other_spellings():
    puzzle = read_pieces(ARTICLE_PIECES + "\n+11, 5+, 12*, 6×, 11+\n")
    assert puzzle.solution is None
    assert ARTICLE_ANSWER in solve(puzzle, limit=5)


@pytest.mark.parametrize(
    "text, words",
    [
        ("Q2_Rotate90_0_0|\n3", "unknown piece type 'Q2'"),
        ("I2_Rotate45_0_0|\n3+", "rotation must be 90, 180, 270 or 360"),
        ("I2_Rotate90_0_0|I2_Rotate90_1_0|\n3+ 3+", "cover 4 cells"),
        (ARTICLE_PIECES, "a clue line"),
        (ARTICLE_PIECES + "\n11+ 5+", "2 clue(s) for 5 pieces"),
        (ARTICLE_PIECES + "\n11+ 5+ 12x 6x 11?", "cannot read the clue '11?'"),
        (ARTICLE_PIECES + "\n11+ 5+ 12x 6 11+", "no operation for a 2-cell piece"),
        # A bare `+` takes its target from the solution; with none it is a clue it cannot read.
        (ARTICLE_PIECES + "\n+ 5+ 12x 6x 11+", "cannot read the clue"),
        (ARTICLE_PIECES + "\n11+ 5+ 12x 6x 11+\n1243\n4312\n2134\n342", "row of 4 digits, not 3"),
        (ARTICLE_PIECES + "\n11+ 5+ 12x 6x 11+\n1243\n4312\n2134\n3412", "solution"),
        (ARTICLE_PIECES.replace("J3_Rotate90_2_0", "J3_Rotate90_3_0") + "\n1+ 1+ 1+ 1+ 1+", "off the 4×4 board"),
        (ARTICLE_PIECES.replace("I2_Rotate360_0_3", "I2_Rotate360_0_2") + "\n1+ 1+ 1+ 1+ 1+", "two cages"),
    ],
)
def test_bad_piece_strings_are_refused_naming_the_problem(text, words):
    with pytest.raises(PuzzleError, match=words.replace("(", r"\(").replace(")", r"\)").replace("?", r"\?")):
        read_puzzles(text)


def test_a_bad_piece_file_is_one_line_and_status_2(tmp_path, capsys):
    path = tmp_path / "bad.txt"
    path.write_text(ARTICLE_PIECES + "\n11+ 5+\n")
    assert main(["solve", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "2 clue(s) for 5 pieces" in err


def test_the_article_file_solves_on_the_command_line(puzzle_dir, capsys):
    # Two fillings keep every rule, so solve says so and exits 1.
    assert main(["solve", "--json", str(puzzle_dir / "kaldoku-article.txt")]) == 1
    assert '"solutions": 2' in capsys.readouterr().out
