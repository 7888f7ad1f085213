"""Difficulty levels: generated puzzles grade at the level asked for, and `kaldoku grade`."""

import io
import json

import pytest

from kaldoku_tui.cli import main
from kaldoku_tui.engine.formats import read_puzzles, to_json_line
from kaldoku_tui.engine.generator import generate
from kaldoku_tui.engine.kinds import OP_SETS, SIZES, GameKind, levels_for, offered_kinds, offered_levels
from kaldoku_tui.engine.puzzle import Cage, Puzzle, PuzzleError
from kaldoku_tui.engine.techniques import LEVELS, grade, human_solve, tier_needed

ALL_KINDS = [GameKind(n, ops, level) for n in SIZES for ops in OP_SETS for level in levels_for(n)]

KEEN_ID = "4:aa_a__a__a_a__a_a,d2m12s1a5s1m4d2a5"


def level_cases():
    """Every level of every size made, those no longer offered too (a code may name one):
    three seeds each, one for the slow ones (extreme and unreasonable from 6×6 up, about a
    second each at 9×9)."""
    for size in range(3, 10):
        for level in levels_for(size):
            kind = GameKind(size, "all", level)
            if kind.offered or kind.retired:
                slow = size >= 6 and LEVELS.index(level) >= 3
                yield pytest.param(size, level, 1 if slow else 3, id=f"{size}-{level}")


@pytest.mark.parametrize("size,level,seeds", level_cases())
def test_generated_puzzle_grades_at_its_level(size, level, seeds):
    for seed in range(seeds):
        puzzle = generate(size, seed=seed, level=level, retired=True)
        assert grade(puzzle).level == level
        assert tier_needed(puzzle) == LEVELS.index(level) + 1
        assert puzzle.meta["difficulty"] == level
        tier = LEVELS.index(level) + 1
        solve = human_solve(puzzle, max_tier=tier)
        assert solve.solved and solve.grid == puzzle.solution
        if tier > 1:
            assert not human_solve(puzzle, max_tier=tier - 1).solved
        steps = human_solve(puzzle).steps
        for step in steps:
            assert all(puzzle.solution[r][c] not in ds for (r, c), ds in step.removes.items())
            assert all(puzzle.solution[r][c] == d for (r, c), d in step.sets.items())
        if tier < 5:
            assert all(step.technique != "trial" for step in steps)


def test_same_seed_same_puzzle():
    assert generate(5, seed=11, level="hard") == generate(5, seed=11, level="hard")


def test_three_by_three_offers_the_lower_levels_only():
    for level in ("easy", "normal", "hard"):
        assert grade(generate(3, seed=1, level=level)).level == level
    for level in ("extreme", "unreasonable"):
        with pytest.raises(PuzzleError, match="3×3 puzzle cannot be 'extreme'|3×3 puzzle cannot be 'unr"):
            generate(3, seed=1, level=level)


def test_cli_generate_difficulty_on_three_by_three_is_a_one_line_error(capsys):
    assert main(["generate", "--size", "3", "--difficulty", "extreme"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("kaldoku: error:") and "easy, normal, hard" in err
    assert err.count("\n") == 1


def test_cli_grade_json(capsys):
    assert main(["grade", KEEN_ID, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    expected = grade(read_puzzles(KEEN_ID)[0])
    assert out == {"level": expected.level, "tier": expected.tier, "steps": expected.steps}
    assert out["level"] in ("easy", "normal")


def test_cli_grade_reads_json_lines_from_stdin(monkeypatch, capsys):
    puzzles = [generate(4, seed=seed, level=level) for seed, level in enumerate(("easy", "hard"))]
    monkeypatch.setattr("sys.stdin", io.StringIO("".join(to_json_line(p) + "\n" for p in puzzles)))
    assert main(["grade", "--json"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [line["level"] for line in lines] == ["easy", "hard"]
    assert [line["tier"] for line in lines] == [1, 3]


def test_cli_grade_plain_text(tmp_path, capsys):
    path = tmp_path / "p.json"
    path.write_text(to_json_line(generate(5, seed=3, level="normal")))
    assert main(["grade", str(path)]) == 0
    assert capsys.readouterr().out.startswith("normal (tier 2, ")


def test_cli_grade_not_unique_exits_1(monkeypatch, capsys):
    # Columns 1 and 2 can be read either way round: two solutions.
    loose = Puzzle(
        3,
        (
            Cage(((0, 0), (0, 1)), "+", 3),
            Cage(((1, 0), (1, 1)), "+", 4),
            Cage(((2, 0), (2, 1)), "+", 5),
            Cage(((0, 2), (1, 2), (2, 2)), "+", 6),
        ),
    )
    monkeypatch.setattr("sys.stdin", io.StringIO(to_json_line(loose)))
    assert main(["grade", "--json"]) == 1
    assert json.loads(capsys.readouterr().out) == {"level": None, "tier": None, "steps": None}
    monkeypatch.setattr("sys.stdin", io.StringIO(to_json_line(loose)))
    assert main(["grade"]) == 1
    assert capsys.readouterr().out == "more than one solution\n"


def test_cli_grade_bad_input_exits_2(tmp_path, capsys):
    path = tmp_path / "bad.json"
    path.write_text('{"size": 12, "cages": []}')
    assert main(["grade", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("kaldoku: error:") and err.count("\n") == 1


@pytest.mark.parametrize("ops", ["addmul", "mul"])
def test_the_other_operator_sets_make_their_offered_levels(ops):
    for size in (4, 6):
        for level in offered_levels(size, ops):
            puzzle = generate(size, seed=2, ops=ops, level=level)
            assert tier_needed(puzzle) == LEVELS.index(level) + 1
            assert {cage.op for cage in puzzle.cages} <= set(OP_SETS[ops]) | {"="}


def test_a_kind_no_longer_offered_is_refused_for_new_games(capsys):
    for kind in (GameKind(4, "all", "extreme"), GameKind(4, "mul", "hard")):
        assert kind.retired and not kind.offered and kind not in offered_kinds()
        with pytest.raises(PuzzleError, match=f"does not make 4×4 {kind.ops} {kind.level}"):
            generate(4, seed=1, ops=kind.ops, level=kind.level)
    assert main(["generate", "--size", "5", "--difficulty", "unreasonable"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "5×5 all offers easy, normal, hard\n" in err


def test_a_kind_not_offered_is_refused_with_what_exists(capsys):
    size, ops, level = next((k.size, k.ops, k.level) for k in ALL_KINDS if not k.offered)
    with pytest.raises(PuzzleError, match=f"does not make {size}×{size} {ops} {level}"):
        generate(size, seed=1, ops=ops, level=level)
    assert main(["generate", "--size", str(size), "--ops", ops, "--difficulty", level]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and ", ".join(offered_levels(size, ops)) in err
