"""The solver against known puzzles and a brute-force counter written here."""

import json
import random
from itertools import permutations

from hypothesis import given, settings
from hypothesis import strategies as st

from kaldoku_tui.engine.cages import make_cages, random_blocks
from kaldoku_tui.engine import fillings as fillings_module
from kaldoku_tui.engine.fillings import fillings, forget_tables
from kaldoku_tui.engine.latin import random_latin_square
from kaldoku_tui.engine.puzzle import Cage, Puzzle, can_fill, to_grid
from kaldoku_tui.engine.solver import (candidates, closure, closure_since, count_solutions, rival, rival_since,
                                      solve)

# formats.md's worked Keen example and its only solution.
KEEN = Puzzle(
    4,
    (
        Cage(((0, 0), (0, 1)), "/", 2),
        Cage(((0, 2), (0, 3)), "*", 12),
        Cage(((1, 0), (2, 0)), "-", 1),
        Cage(((1, 1), (2, 1)), "+", 5),
        Cage(((1, 2), (1, 3)), "-", 1),
        Cage(((2, 2), (3, 2)), "*", 4),
        Cage(((2, 3), (3, 3)), "/", 2),
        Cage(((3, 0), (3, 1)), "+", 5),
    ),
)
KEEN_SOLUTION = to_grid(["1234", "4123", "3412", "2341"])


def every_cell(n):
    return tuple((r, c) for r in range(n) for c in range(n))


def latin_squares(n):
    """Every latin square of order n, by rows that are permutations."""
    rows = list(permutations(range(1, n + 1)))

    def extend(square):
        if len(square) == n:
            yield to_grid(square)
            return
        for row in rows:
            if all(row[c] != above[c] for above in square for c in range(n)):
                yield from extend(square + [row])

    yield from extend([])


def brute_force(puzzle):
    """Every solution, by trying every latin square (small boards only)."""
    return [
        grid
        for grid in latin_squares(puzzle.size)
        if all(cage.fits([grid[r][c] for r, c in cage.cells]) for cage in puzzle.cages)
    ]


def is_solution(puzzle, grid):
    n = puzzle.size
    digits = set(range(1, n + 1))
    return (
        all(set(row) == digits for row in grid)
        and all({grid[r][c] for r in range(n)} == digits for c in range(n))
        and all(cage.fits([grid[r][c] for r, c in cage.cells]) for cage in puzzle.cages)
    )


def test_unique_puzzle_has_its_one_solution():
    assert solve(KEEN) == [KEEN_SOLUTION]
    assert solve(KEEN, limit=10) == [KEEN_SOLUTION]
    assert count_solutions(KEEN) == 1


def test_remembered_tables_are_forgotten_past_their_budget(monkeypatch):
    """A server generates for days: once FILLINGS_KEPT fillings are listed, the tables
    remembered are forgotten, and solving goes on as before."""
    forget_tables()
    tables = [fillings(4, cage) for cage in KEEN.cages]
    assert fillings.cache_info().currsize == len(KEEN.cages)
    monkeypatch.setattr(fillings_module, "FILLINGS_KEPT", 5)
    forget_tables()
    assert [fillings(4, cage) for cage in KEEN.cages] == tables
    assert fillings.cache_info().currsize < len(KEEN.cages)
    assert solve(KEEN) == [KEEN_SOLUTION]


def test_puzzle_without_solution():
    # Each clue can be met alone, but both 1s would share the top row.
    cages = [Cage(((0, 0),), "=", 1), Cage(((0, 1),), "=", 1)]
    cages.append(Cage(tuple(c for c in every_cell(3) if c not in ((0, 0), (0, 1))), "+", 15))
    puzzle = Puzzle(3, tuple(cages))
    assert solve(puzzle) == []
    assert count_solutions(puzzle) == 0


def test_keen_puzzle_with_a_changed_clue_has_no_solution():
    cages = [Cage(c.cells, c.op, 3) if c.op == "-" and c.anchor == (1, 0) else c for c in KEEN.cages]
    puzzle = Puzzle(4, tuple(cages))
    assert brute_force(puzzle) == []
    assert solve(puzzle) == []


def test_several_solutions_are_all_found_and_all_different():
    # One cage over the whole 3×3 board: all 12 latin squares fit.
    puzzle = Puzzle(3, (Cage(every_cell(3), "+", 18),))
    assert count_solutions(puzzle) == 2
    found = solve(puzzle, limit=100)
    assert len(found) == 12
    assert sorted(found) == sorted(latin_squares(3))


def test_other_than_leaves_one_solution_out():
    assert solve(KEEN, other_than=KEEN_SOLUTION) == []
    puzzle = Puzzle(3, (Cage(every_cell(3), "+", 18),))
    first = next(latin_squares(3))
    others = solve(puzzle, limit=100, other_than=first)
    assert len(others) == 11 and first not in others
    assert len(solve(puzzle, limit=1, other_than=first)) == 1


def test_rival_finds_another_solution_and_the_closure():
    settled, other = rival(KEEN, KEEN_SOLUTION)
    assert other is None and settled == closure(KEEN)
    puzzle = Puzzle(3, (Cage(every_cell(3), "+", 18),))
    first = next(latin_squares(3))
    settled, other = rival(puzzle, first)
    assert other in latin_squares(3) and other != first
    assert settled == [0b1110] * 9


def test_closure_is_candidates_as_bitmasks():
    rng = random.Random(5)
    for size in (4, 6, 8) * 5:
        solution = random_latin_square(size, rng)
        puzzle = Puzzle(size, tuple(make_cages(random_blocks(size, rng), solution, rng)))
        assert closure(puzzle) == [sum(1 << d for d in digits) for digits in candidates(puzzle).values()]


def test_closure_since_a_change_keeps_what_the_old_cages_gave():
    rng = random.Random(7)
    for size in (5, 7, 8) * 4:
        solution = random_latin_square(size, rng)
        cages = make_cages(random_blocks(size, rng), solution, rng)
        puzzle = Puzzle(size, tuple(cages))
        before = closure_since(puzzle)
        assert before[0] == closure(puzzle) and set(before[1]) == set(cages)
        largest = max(cages, key=lambda cage: len(cage.cells))
        rest = [cage for cage in cages if cage is not largest]
        halves = make_cages([(cell,) for cell in largest.cells], solution, rng, others=rest)
        split = Puzzle(size, tuple(rest + halves))
        values, left = closure_since(split, before)
        fresh = closure(split)
        assert set(left) == set(split.cages)
        # Narrower than the split puzzle's own closure, and still met by the solution.
        assert all(now & then == now for now, then in zip(values, fresh))
        assert all(values[r * size + c] >> d & 1 for r, row in enumerate(solution) for c, d in enumerate(row))
        assert all(now & then == now for now, then in zip(values, before[0]))


def test_rival_since_searches_from_the_board_given():
    puzzle = Puzzle(3, (Cage(every_cell(3), "+", 18),))
    first = next(latin_squares(3))
    other = rival_since(puzzle, first, closure_since(puzzle))
    assert other in latin_squares(3) and other != first
    assert rival_since(KEEN, KEEN_SOLUTION, closure_since(KEEN)) is None


def test_limit_caps_the_solutions_returned():
    puzzle = Puzzle(4, tuple(Cage(tuple((r, c) for c in range(4)), "+", 10) for r in range(4)))
    assert len(solve(puzzle, limit=2)) == 2
    assert count_solutions(puzzle, limit=1000) == 576
    assert all(is_solution(puzzle, grid) for grid in solve(puzzle, limit=5))


def test_huge_cages_fall_back_to_bounds():
    n = 9
    whole_sum = Puzzle(n, (Cage(every_cell(n), "+", n * n * (n + 1) // 2),))
    found = solve(whole_sum, limit=2)
    assert len(found) == 2 and all(is_solution(whole_sum, grid) for grid in found)
    whole_product = Puzzle(n, (Cage(every_cell(n), "*", 362880**n),))
    assert count_solutions(whole_product) == 2


def test_huge_cage_beside_small_ones_is_solved_exactly():
    # 4×4 boards whose top half is one + cage, too big for a filling table.
    for seed in range(5):
        rng = random.Random(seed)
        solution = random_latin_square(4, rng)
        small = [c for c in make_cages(random_blocks(4, rng), solution, rng) if c.anchor[0] >= 2]
        taken = {cell for cage in small for cell in cage.cells}
        top = tuple(c for c in every_cell(4) if c not in taken)
        big = Cage(top, "+", sum(solution[r][c] for r, c in top))
        puzzle = Puzzle(4, (big, *small))
        assert len(top) > 6
        assert sorted(solve(puzzle, limit=1000)) == sorted(brute_force(puzzle))


def test_candidates_follow_the_placed_digits():
    free = candidates(KEEN)
    assert free is not None
    assert all(KEEN_SOLUTION[r][c] in digits for (r, c), digits in free.items())
    # 12× in a row of 1..4 is 3·4: the top-right pair keeps only 3 and 4.
    assert set(free[(0, 2)]) <= {3, 4}
    placed = candidates(KEEN, KEEN_SOLUTION)
    assert placed == {(r, c): (KEEN_SOLUTION[r][c],) for r in range(4) for c in range(4)}


def test_candidates_of_a_contradiction_are_none():
    wrong = [[0] * 4 for _ in range(4)]
    wrong[0][0] = wrong[0][3] = 1
    assert candidates(KEEN, to_grid(wrong)) is None
    bad_clue = [[0] * 4 for _ in range(4)]
    bad_clue[0][0] = 3  # the ÷2 pair cannot hold a 3
    assert candidates(KEEN, to_grid(bad_clue)) is None


def rules_one_by_one(puzzle, grid):
    """The candidates singles, hidden singles and each cage's fillings (cell by cell) leave
    once `grid`'s digits are placed, each rule applied on its own until none changes the
    board; None on a contradiction. What `candidates` must reach, however it gets there."""
    n = puzzle.size
    cand = {(r, c): 1 << grid[r][c] if grid[r][c] else (1 << n + 1) - 2 for r, c in every_cell(n)}
    lines = [[(r, c) for c in range(n)] for r in range(n)] + [[(r, c) for r in range(n)] for c in range(n)]
    before = None
    while cand != before:
        before = dict(cand)
        for line in lines:
            for cell in line:
                if cand[cell].bit_count() == 1:
                    for other in line:
                        if other != cell:
                            cand[other] &= ~cand[cell]
            for d in range(1, n + 1):
                places = [cell for cell in line if cand[cell] >> d & 1]
                if not places:
                    return None
                if len(places) == 1:
                    cand[places[0]] &= 1 << d
        for cage in puzzle.cages:
            left = [f for f in fillings(n, cage) if all(cand[cell] >> d & 1 for cell, d in zip(cage.cells, f))]
            for p, cell in enumerate(cage.cells):
                cand[cell] &= sum({1 << f[p] for f in left})
        if not all(cand.values()):
            return None
    return {cell: tuple(d for d in range(1, n + 1) if mask >> d & 1) for cell, mask in cand.items()}


def test_candidates_are_the_board_of_the_rules_one_by_one_with_cages_up_to_six_cells():
    # Large cages keep their fillings as a bitset over thousands of them: the same board.
    rng = random.Random(26)
    contradictions = 0
    for _ in range(40):
        n = rng.randint(4, 6)
        solution = random_latin_square(n, rng)
        blocks = random_blocks(n, rng, dominoes_in_four=0)
        puzzle = Puzzle(n, tuple(make_cages(blocks, solution, rng, rng.choice(["all", "addmul", "mul", "hidden"]))))
        grid = [[0] * n for _ in range(n)]
        r, c = rng.randrange(n), rng.randrange(n)
        grid[r][c] = rng.randint(1, n)  # right or wrong: wrong ones may end in a contradiction
        expected = rules_one_by_one(puzzle, grid)
        contradictions += expected is None
        assert candidates(puzzle, to_grid(grid)) == expected
    assert 0 < contradictions < 40


@st.composite
def small_puzzles(draw):
    """Random 3×3 and 4×4 cagings, with clues from a latin square, some then altered."""
    size = draw(st.integers(3, 4))
    rng = random.Random(draw(st.integers(0, 2**32)))
    solution = random_latin_square(size, rng)
    ops = draw(st.sampled_from(["all", "addmul", "mul"]))
    cages = make_cages(random_blocks(size, rng), solution, rng, ops)
    if draw(st.booleans()):
        k = draw(st.integers(0, len(cages) - 1))
        altered = Cage(cages[k].cells, cages[k].op, draw(st.integers(1, 24)))
        if can_fill(size, altered):
            cages[k] = altered
    return Puzzle(size, tuple(cages))


@settings(max_examples=60, deadline=None)
@given(small_puzzles())
def test_solver_agrees_with_brute_force(puzzle):
    expected = brute_force(puzzle)
    assert sorted(solve(puzzle, limit=1000)) == sorted(expected)
    assert count_solutions(puzzle) == min(len(expected), 2)
    if expected:
        others = solve(puzzle, limit=1000, other_than=expected[0])
        assert sorted(others) == sorted(expected[1:])


# --- kaldoku solve: streams of puzzles ------------------------------------------------


def test_solve_streams_any_number_of_puzzles_with_the_limit_on_each(tmp_path, capsys, monkeypatch):
    """A JSON Lines file larger than the limit is read a line at a time; a line over it is refused."""
    from kaldoku_tui.cli import main
    from kaldoku_tui.engine import formats
    from kaldoku_tui.engine.formats import to_json_line

    line = to_json_line(KEEN)
    monkeypatch.setattr(formats, "MAX_TEXT", len(line) * 3)
    path = tmp_path / "many.jsonl"
    path.write_text((line + "\n") * 40)
    assert main(["solve", "--json", str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 40 and {json.loads(row)["solution"] == [list(r) for r in KEEN_SOLUTION] for row in out} == {True}
    path.write_text(line + "\n" + line * 4 + "\n")
    assert main(["solve", "--json", str(path)]) == 2
    out, err = capsys.readouterr()
    assert len(out.splitlines()) == 1
    assert err == f"kaldoku: error: {path}: line 2: too large to read: more than {len(line) * 3:,} bytes\n"


def test_solve_reads_codes_keen_ids_and_json_a_line_mixed(tmp_path, capsys):
    from kaldoku_tui.cli import main
    from kaldoku_tui.engine.codes import share_code
    from kaldoku_tui.engine.formats import to_json_line, to_keen

    path = tmp_path / "mixed.txt"
    path.write_text("\n".join([share_code(KEEN), "", to_keen(KEEN), to_json_line(KEEN)]) + "\n")
    assert main(["check", str(path)]) == 0
    assert capsys.readouterr().out.count("valid, unique") == 3
    path.write_text(share_code(KEEN) + "\nnot a puzzle\n")
    assert main(["check", str(path)]) == 2
    assert "line 2: neither JSON, a share code nor a Keen game ID: 'not a puzzle'" in capsys.readouterr().err


def test_a_share_code_piped_into_kaldoku_solve_is_solved():
    """`kaldoku export --format code | kaldoku solve`, by the installed command."""
    import subprocess
    import sys
    from pathlib import Path

    from kaldoku_tui.engine.codes import share_code

    kaldoku = Path(sys.executable).parent / "kaldoku"
    done = subprocess.run([str(kaldoku), "solve"], input=share_code(KEEN) + "\n", capture_output=True,
                          text=True, timeout=60)
    assert (done.returncode, done.stdout.split(), done.stderr) == (0, ["1234", "4123", "3412", "2341"], "")
