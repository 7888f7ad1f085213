"""The `kaldoku` puzzle commands: solve, check and generate, their output and exit statuses."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import EXAMPLE_ID, EXAMPLE_SOLUTION, KEEN_IDS

from kaldoku_tui.cli import main
from kaldoku_tui.engine.check import is_solved
from kaldoku_tui.engine.formats import read_puzzles

EXAMPLE_ROWS = "\n".join("".join(map(str, row)) for row in EXAMPLE_SOLUTION)
KALDOKU = Path(sys.executable).parent / "kaldoku"


def run(capsys, *argv: str, stdin: str | bytes | None = None, monkeypatch=None):
    """Run `kaldoku ARGV` in this process: (status, stdout, stderr)."""
    if stdin is not None:
        data = stdin.encode() if isinstance(stdin, str) else stdin
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


# --- solve ---------------------------------------------------------------------------


def test_solve_prints_the_solution_of_a_file(capsys, puzzle_dir):
    status, out, err = run(capsys, "solve", str(puzzle_dir / "example.json"))
    assert (status, out, err) == (0, EXAMPLE_ROWS + "\n", "")


def test_solve_a_keen_id_given_as_the_argument(capsys):
    status, out, err = run(capsys, "solve", EXAMPLE_ID)
    assert (status, out, err) == (0, EXAMPLE_ROWS + "\n", "")
    # Keen writes options after the size ("4du:"); the argument reads like standard input.
    status, out, err = run(capsys, "solve", EXAMPLE_ID.replace("4:", "4du:", 1))
    assert (status, out, err) == (0, EXAMPLE_ROWS + "\n", "")


def test_solve_reads_standard_input(capsys, monkeypatch, puzzle_dir):
    text = (puzzle_dir / "example.json").read_text()
    for argv in (["solve"], ["solve", "-"]):
        status, out, _ = run(capsys, *argv, stdin=text, monkeypatch=monkeypatch)
        assert (status, out) == (0, EXAMPLE_ROWS + "\n")


def test_solve_json(capsys):
    status, out, _ = run(capsys, "solve", "--json", EXAMPLE_ID)
    assert status == 0
    assert json.loads(out) == {"solutions": 1, "solution": [list(row) for row in EXAMPLE_SOLUTION]}


def test_solve_json_lines_of_several_puzzles(capsys, puzzle_dir):
    path = puzzle_dir / "three.jsonl"
    puzzles = read_puzzles(path.read_text())
    status, out, _ = run(capsys, "solve", "--json", str(path))
    assert status == 0
    answers = [json.loads(line) for line in out.splitlines()]
    assert [a["solutions"] for a in answers] == [1, 1, 1]
    assert [a["solution"] for a in answers] == [[list(r) for r in p.solution] for p in puzzles]

    status, out, _ = run(capsys, "solve", str(path))
    blocks = out.rstrip("\n").split("\n\n")
    assert [len(block.splitlines()) for block in blocks] == [3, 5, 6]
    assert blocks[0] == "\n".join("".join(map(str, row)) for row in puzzles[0].solution)


def test_solve_says_when_there_are_two_or_no_solutions(capsys, puzzle_dir):
    status, out, err = run(capsys, "solve", str(puzzle_dir / "two_solutions.json"))
    assert (status, out, err) == (1, "more than one solution\n", "")
    status, out, err = run(capsys, "solve", str(puzzle_dir / "no_solution.json"))
    assert (status, out, err) == (1, "no solution\n", "")
    status, out, _ = run(capsys, "solve", "--json", str(puzzle_dir / "two_solutions.json"))
    assert (status, json.loads(out)) == (1, {"solutions": 2, "solution": None})
    status, out, _ = run(capsys, "solve", "--json", str(puzzle_dir / "no_solution.json"))
    assert (status, json.loads(out)) == (1, {"solutions": 0, "solution": None})


def test_one_non_unique_puzzle_among_several_makes_the_status_1(capsys, puzzle_dir):
    status, out, _ = run(capsys, "solve", "--json", str(puzzle_dir / "mixed.jsonl"))
    assert status == 1
    assert [json.loads(line)["solutions"] for line in out.splitlines()] == [1, 2]


# --- check -----------------------------------------------------------------------------


def test_check_says_valid_and_unique(capsys, puzzle_dir):
    status, out, err = run(capsys, "check", str(puzzle_dir / "example.json"))
    assert (status, out, err) == (0, "4×4, 8 cages: valid, unique\n", "")


def test_check_a_keen_id_and_each_of_several_puzzles(capsys, puzzle_dir):
    assert run(capsys, "check", EXAMPLE_ID)[:2] == (0, "4×4, 8 cages: valid, unique\n")
    status, out, _ = run(capsys, "check", str(puzzle_dir / "three.jsonl"))
    assert status == 0
    assert [line.split(":")[1] for line in out.splitlines()] == [" valid, unique"] * 3


def test_a_file_of_keen_ids_made_by_keen_checks_unique(capsys, puzzle_dir):
    status, out, _ = run(capsys, "check", str(puzzle_dir / "keen.txt"))
    assert status == 0
    sizes = [int(game_id.split(":")[0]) for game_id in KEEN_IDS]
    assert [line.split(",")[0] for line in out.splitlines()] == [f"{n}×{n}" for n in sizes]
    assert all(line.endswith(": valid, unique") for line in out.splitlines())


def test_check_tells_no_solution_from_several(capsys, puzzle_dir):
    status, out, _ = run(capsys, "check", str(puzzle_dir / "two_solutions.json"))
    assert (status, out) == (1, "3×3, 3 cages: valid, more than one solution\n")
    status, out, _ = run(capsys, "check", str(puzzle_dir / "no_solution.json"))
    assert (status, out) == (1, "3×3, 3 cages: valid, no solution\n")


# --- generate --------------------------------------------------------------------------


@pytest.mark.parametrize("size", [3, 4, 6])
def test_generate_prints_pure_json_lines_of_unique_puzzles(capsys, monkeypatch, size):
    status, out, err = run(capsys, "generate", "--size", str(size), "--seed", "11", "--count", "3")
    assert (status, err) == (0, "")
    lines = out.splitlines()
    assert len(lines) == 3
    for seed, line in enumerate(lines, start=11):
        data = json.loads(line)
        assert data["size"] == size and data["seed"] == seed
        (puzzle,) = read_puzzles(line)
        assert is_solved(puzzle, puzzle.solution)
    status, out, _ = run(capsys, "check", "-", stdin="\n".join(lines), monkeypatch=monkeypatch)
    assert status == 0 and out.count("unique") == 3


def test_generate_the_same_seed_gives_the_same_puzzle(capsys):
    first = run(capsys, "generate", "--size", "5", "--seed", "2024")[1]
    again = run(capsys, "generate", "--size", "5", "--seed", "2024")[1]
    other = run(capsys, "generate", "--size", "5", "--seed", "2025")[1]
    assert first == again
    assert json.loads(first)["cages"] != json.loads(other)["cages"]


def test_generate_without_a_seed_records_the_seed_it_used(capsys):
    status, out, _ = run(capsys, "generate", "--size", "4")
    seed = json.loads(out)["seed"]
    assert status == 0 and isinstance(seed, int)
    assert run(capsys, "generate", "--size", "4", "--seed", str(seed))[1] == out


def test_generate_prints_share_codes_that_open_the_same_puzzles(capsys, monkeypatch):
    args = ("generate", "--size", "6", "--seed", "3", "--count", "2", "--ops", "hidden")
    _, out, _ = run(capsys, *args)
    status, codes, err = run(capsys, *args, "--format", "code")
    assert (status, err) == (0, "") and all(line.startswith("kp") for line in codes.splitlines())
    solved = run(capsys, "solve", "--json", "-", stdin=codes, monkeypatch=monkeypatch)[1]
    assert [json.loads(line)["solution"] for line in solved.splitlines()] == [
        json.loads(line)["solution"] for line in out.splitlines()]


@pytest.mark.parametrize("ops, allowed", [("mul", {"*", "="}), ("addmul", {"+", "*", "="})])
def test_generate_keeps_to_the_operation_set(capsys, ops, allowed):
    _, out, _ = run(capsys, "generate", "--size", "5", "--seed", "3", "--count", "2", "--ops", ops)
    for line in out.splitlines():
        assert {cage["op"] for cage in json.loads(line)["cages"]} <= allowed


# --- bad input -----------------------------------------------------------------------------


BAD_JSON = '{"size": 4, "cages": [}\n'
DISCONNECTED = json.dumps(
    {
        "size": 3,
        "cages": [
            {"cells": [[0, 0], [0, 2]], "op": "+", "target": 3},
            {"cells": [[0, 1], [1, 1]], "op": "+", "target": 3},
            {"cells": [[1, 0], [2, 0], [2, 1]], "op": "+", "target": 6},
            {"cells": [[1, 2], [2, 2]], "op": "+", "target": 3},
        ],
    }
)


@pytest.mark.parametrize(
    "argv, files, message",
    [
        (["solve", "missing.json"], {}, "no such file, and not a Keen game ID: missing.json"),
        (["solve", "bad.json"], {"bad.json": BAD_JSON}, "bad.json: line 1: bad JSON"),
        (["check", "cut.json"], {"cut.json": DISCONNECTED},
         "cut.json: line 1: cage at r1c1 is not orthogonally connected"),
        (["solve", "words.txt"], {"words.txt": "hello\n"},
         "words.txt: neither JSON, a Keen game ID nor a typed layout"),
        (["solve", "empty.json"], {"empty.json": ""}, "empty.json: no puzzle found"),
        (["solve", "."], {}, "cannot read ."),
        (["solve", "4:aa_a__a__a_a__a_a,d2m12s1a5s1m4d2x5"], {}, "unknown clue letter 'x'"),
        (["check", "4:aa_a__a__a_a,d2m12"], {}, "block code too short"),
        (["solve", "6du#12345"], {}, "'6du#12345' is a Keen random seed; give its game ID instead"),
        (["solve", "--frobnicate"], {}, "unrecognized arguments: --frobnicate"),
        (["generate", "--size", "12"], {}, "size must be 3 to 9, not 12"),
        (["generate", "--size", "4", "--seed", "x"], {}, "seed must be a whole number"),
        (["generate"], {}, "the following arguments are required: --size"),
    ],
)
def test_bad_input_is_one_line_on_stderr_and_status_2(capsys, monkeypatch, tmp_path, argv, files, message):
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    monkeypatch.chdir(tmp_path)
    status, out, err = run(capsys, *argv)
    assert status == 2
    assert out == ""
    assert err.startswith("kaldoku: error: ") and err.count("\n") == 1
    assert message in err


def test_bad_standard_input_names_it(capsys, monkeypatch):
    status, _, err = run(capsys, "solve", stdin=BAD_JSON, monkeypatch=monkeypatch)
    assert status == 2
    assert err.startswith("kaldoku: error: standard input: line 1: bad JSON")


def test_the_line_of_a_bad_puzzle_in_json_lines_is_named(capsys, tmp_path, puzzle_dir):
    lines = (puzzle_dir / "three.jsonl").read_text().splitlines()
    lines[1] = DISCONNECTED
    path = tmp_path / "some.jsonl"
    path.write_text("\n".join(lines) + "\n")
    status, out, err = run(capsys, "solve", str(path))
    # A stream is solved as it is read: the puzzle before the bad line is answered.
    assert (status, out.count("\n")) == (2, 3)
    assert err == f"kaldoku: error: {path}: line 2: cage at r1c1 is not orthogonally connected\n"


# --- the installed command --------------------------------------------------------------


def test_the_installed_command(puzzle_dir):
    assert KALDOKU.exists(), f"the console script is not installed beside {sys.executable}"

    def kaldoku(*argv, stdin=""):
        return subprocess.run(
            [str(KALDOKU), *argv], input=stdin, capture_output=True, text=True, timeout=60
        )

    done = kaldoku("solve", EXAMPLE_ID)
    assert (done.returncode, done.stdout, done.stderr) == (0, EXAMPLE_ROWS + "\n", "")

    done = kaldoku("solve", "--json", "-", stdin=(puzzle_dir / "mixed.jsonl").read_text())
    assert done.returncode == 1
    assert [json.loads(line)["solutions"] for line in done.stdout.splitlines()] == [1, 2]

    done = kaldoku("generate", "--size", "4", "--seed", "9", "--count", "2")
    assert done.returncode == 0 and done.stderr == ""
    assert [json.loads(line)["seed"] for line in done.stdout.splitlines()] == [9, 10]

    done = kaldoku("check", stdin=BAD_JSON)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("kaldoku: error: standard input: line 1: bad JSON")
    assert "Traceback" not in done.stderr and done.stderr.count("\n") == 1


def test_the_game_refuses_to_start_without_a_terminal(tmp_path):
    """`kaldoku --seed 5 > file` typed in a terminal: the keys and the screen are there,
    standard output is a file. The game once started anyway; it refuses in one line."""
    written, home = tmp_path / "file", tmp_path / "home"
    terminal, pane = os.openpty()
    try:
        with written.open("w") as stdout:
            done = subprocess.run([str(KALDOKU), "--seed", "5"], stdin=pane, stdout=stdout, stderr=pane,
                                  timeout=60, env={**os.environ, "KALDOKU_HOME": str(home)})
        shown = os.read(terminal, 4096).decode()
    finally:
        os.close(terminal)
        os.close(pane)
    assert done.returncode == 2 and written.read_text() == ""
    assert shown == ("kaldoku: error: the game needs a terminal, and standard input, output or "
                     "error is not one (for a puzzle as text: kaldoku generate)\r\n")
    assert not home.exists() or not any(home.iterdir()), "no game begun, nothing saved"


@pytest.mark.parametrize("argv", [["daily"], ["--size", "4"], [EXAMPLE_ID]])
def test_every_full_screen_command_refuses_without_a_terminal(capsys, tmp_path, monkeypatch, argv):
    monkeypatch.setenv("KALDOKU_HOME", str(tmp_path))
    monkeypatch.setattr("kaldoku_tui.cli.on_a_terminal", lambda: False)
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("kaldoku: error: the game needs a terminal")


def test_generate_shows_progress_on_a_terminal_and_keeps_the_json_on_stdout():
    terminal, stderr = os.openpty()
    done = subprocess.run(
        [sys.executable, "-m", "kaldoku_tui", "generate", "--size", "3", "--seed", "1", "--count", "6"],
        stdout=subprocess.PIPE, stderr=stderr, timeout=60,
    )
    os.close(stderr)
    shown = b""
    while chunk := _read_or_end(terminal):
        shown += chunk
    os.close(terminal)
    assert done.returncode == 0
    assert [json.loads(line)["seed"] for line in done.stdout.splitlines()] == [1, 2, 3, 4, 5, 6]
    assert b"generating" in shown and b'"size"' not in shown


def _read_or_end(fd: int) -> bytes:
    """The next bytes from a pseudo-terminal; b"" at its end (Linux raises EIO there)."""
    try:
        return os.read(fd, 65536)
    except OSError:
        return b""


def test_the_puzzle_commands_do_not_import_textual():
    code = (
        "import sys; from kaldoku_tui.cli import main; "
        f"main(['solve', {EXAMPLE_ID!r}]); main(['generate', '--size', '4', '--seed', '1']); "
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'textual'))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "[]"


def test_check_counts_one_cage_in_the_singular(capsys, tmp_path):
    one = tmp_path / "one.json"
    cells = [[r, c] for r in range(3) for c in range(3)]
    one.write_text(json.dumps({"size": 3, "cages": [{"cells": cells, "op": "+", "target": 18}]}))
    status, out, _ = run(capsys, "check", str(one))
    assert out == "3×3, 1 cage: valid, more than one solution\n"
