"""Difficulty levels: generated puzzles grade at the level asked for, and `kaldoku grade`."""

import io
import json

import pytest

from kaldoku_tui.cli import main
from kaldoku_tui.engine.formats import read_puzzles, to_json_line
from kaldoku_tui.engine.generator import generate
from kaldoku_tui.engine.kinds import OP_SETS, SIZES, GameKind, levels_for, offered_kinds
from kaldoku_tui.engine.puzzle import Cage, Puzzle, PuzzleError
from kaldoku_tui.engine.techniques import LEVELS, grade, human_solve, tier_needed

ALL_KINDS = [GameKind(n, ops, level) for n in SIZES for ops in OP_SETS for level in levels_for(n)]

KEEN_ID = "4:aa_a__a__a_a__a_a,d2m12s1a5s1m4d2a5"


def level_cases():
    """Every level of every size made: three seeds each, one for the slow ones (extreme
    and unreasonable from 6×6 up)."""
    for size in range(3, 10):
        for level in levels_for(size):
            slow = size >= 6 and LEVELS.index(level) >= 3
            yield pytest.param(size, level, 1 if slow else 3, id=f"{size}-{level}")


@pytest.mark.parametrize("size,level,seeds", level_cases())
def test_generated_puzzle_grades_at_its_level(size, level, seeds):
    for seed in range(seeds):
        puzzle = generate(size, seed=seed, level=level)
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


def every_kind_case(kind: GameKind):
    """A kind as a test case; the slow ones (a second or more each under load, and the plain
    counters take seconds from 7×7 up) run in the long run only."""
    high = kind.level in ("extreme", "unreasonable")
    slow = (kind.size >= 7 or (kind.size == 6 and (high or kind.ops == "hidden"))
            or (kind.ops in ("mul", "addmul") and high))
    return pytest.param(kind, id=kind.key, marks=[pytest.mark.long] if slow else [])


@pytest.mark.parametrize("kind", [every_kind_case(kind) for kind in
                                  (*offered_kinds(),
                                   *(GameKind(n, ops) for n in SIZES for ops in OP_SETS))])
def test_every_kind_offered_is_made_at_its_level_with_one_solution(kind):
    """One seed of every kind offered: its level by the grader, its one solution by the
    tests' own counters (the solver's, itself checked against them, from 8×8 up: the
    plain counters take seconds there)."""
    from test_generator import count_by_backtracking
    from test_hidden import count_solutions

    from kaldoku_tui.engine.formats import puzzle_to_dict
    from kaldoku_tui.engine.solver import count_solutions as solver_count

    puzzle = generate(kind.size, seed=1, ops=kind.ops, level=kind.level)
    assert GameKind.of(puzzle) == kind
    if kind.level is not None:
        assert tier_needed(puzzle) == LEVELS.index(kind.level) + 1
    if kind.ops == "hidden":
        assert {cage.op for cage in puzzle.cages} <= {"?", "="}
    else:
        assert {cage.op for cage in puzzle.cages} <= set(OP_SETS[kind.ops]) | {"="}
    if kind.size >= 8:
        assert solver_count(puzzle) == 1
    elif kind.ops == "hidden":
        assert count_solutions(puzzle_to_dict(puzzle)) == 1
    else:
        assert count_by_backtracking(puzzle) == [puzzle.solution]


def test_every_kind_that_can_exist_is_offered():
    impossible = [kind for kind in ALL_KINDS if not kind.offered]
    assert impossible == [GameKind(3, "addmul", "hard"), GameKind(3, "mul", "hard")]
    assert len(offered_kinds()) == len(ALL_KINDS) - 2 == 130


def test_a_kind_that_cannot_exist_is_refused_with_why_and_what_exists(capsys):
    why = r"no 3×3 puzzle with × only needs hard deductions \(every one was checked\); 3×3 mul offers easy, normal"
    with pytest.raises(PuzzleError, match=why):
        generate(3, seed=1, ops="mul", level="hard")
    assert main(["generate", "--size", "3", "--ops", "addmul", "--difficulty", "hard"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "with + and × only needs hard deductions (every one was checked); 3×3 addmul offers easy, normal\n" in err


async def test_the_new_game_dialog_greys_out_a_level_that_cannot_exist_before_it_is_picked(example):
    from conftest import game_app

    from kaldoku_tui.screens.dialogs import NewGameDialog, Option

    app = game_app(example)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("g", "3", "tab", "right", "right")  # 3×3, × only
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, NewGameDialog) and dialog.chosen() == GameKind(3, "mul", None)
        said = str(dialog.query_one("#refused").render())
        assert "3×3 × only has no hard or extreme or unreasonable puzzle: easy, normal or any." in said
        greyed = [str(option.label) for option in dialog.query_one("#level").query(Option)
                  if "strike" in str(option.styles.text_style)]
        assert greyed == ["hard", "extreme", "unreasonable"]
        await pilot.press("4")  # every level of 4×4 × only exists
        await pilot.pause()
        assert not dialog.query_one("#refused").display
