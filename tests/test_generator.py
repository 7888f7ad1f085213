"""Generated puzzles: valid, unique (by a brute-force counter written here), reproducible."""

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kaldoku_tui.terminal import in_ascii
from kaldoku_tui.engine.cages import (DOMINOES_IN_FOUR, MAX_CELLS, allowed_ops, make_cages, random_blocks,
                                      singles_allowed, split_cage)
from kaldoku_tui.engine.check import is_solved
from kaldoku_tui.engine.generator import (MUL_DOMINOES_IN_FOUR, _harden, _Solves, _swapped_rival, candidate, generate,
                                         repair, unique)
from kaldoku_tui.engine.kinds import OP_SETS
from kaldoku_tui.engine.latin import random_latin_square
from kaldoku_tui.engine.puzzle import Cage, Puzzle, PuzzleError, _connected, combine, to_grid
from kaldoku_tui.engine.solver import Undecided, candidates, closure, count_solutions, rival
from kaldoku_tui.engine.squares import latin_squares, other_solution, rival_of_any_clues
from kaldoku_tui.engine.steps import Marks, digits_of
from kaldoku_tui.engine.techniques import LEVELS, human_solve, layout, propagate, tier_needed


def count_by_backtracking(puzzle, limit=2):
    """Solutions of `puzzle`, up to `limit`: cells in reading order, each digit checked
    against its row, its column and what its cage can still reach. Deliberately simple
    and unlike the solver under test."""
    n = puzzle.size
    grid = [[0] * n for _ in range(n)]
    cage_of = {cell: cage for cage in puzzle.cages for cell in cage.cells}
    found = []

    def reachable(cage):
        digits = [grid[r][c] for r, c in cage.cells if grid[r][c]]
        open_cells = len(cage.cells) - len(digits)
        if not open_cells:
            return combine(cage.op, digits) == cage.target
        if cage.op == "+":
            return sum(digits) + open_cells <= cage.target <= sum(digits) + open_cells * n
        if cage.op == "*":
            product = 1
            for d in digits:
                product *= d
            return cage.target % product == 0 and product * n**open_cells >= cage.target
        return any(combine(cage.op, (digits[0], other)) == cage.target for other in range(1, n + 1))

    def place(index):
        if len(found) >= limit:
            return
        if index == n * n:
            found.append(to_grid(grid))
            return
        r, c = divmod(index, n)
        column = {grid[i][c] for i in range(r)}
        for d in range(1, n + 1):
            if d in grid[r] or d in column:
                continue
            grid[r][c] = d
            if reachable(cage_of[(r, c)]):
                place(index + 1)
            grid[r][c] = 0

    place(0)
    return found


def assert_good(puzzle, size, ops):
    assert puzzle.size == size
    assert Puzzle(size, puzzle.cages, puzzle.solution) == puzzle  # valid, solution included
    assert count_by_backtracking(puzzle) == [puzzle.solution]
    assert all(len(cage.cells) <= MAX_CELLS for cage in puzzle.cages)
    allowed = {"all": "+-*/=", "addmul": "+*=", "mul": "*="}[ops]
    assert all(cage.op in allowed for cage in puzzle.cages)
    assert all((cage.op == "=") == (len(cage.cells) == 1) for cage in puzzle.cages)


@settings(max_examples=40, deadline=None)
@given(
    size=st.integers(3, 6),
    seed=st.integers(0, 2**31 - 1),
    ops=st.sampled_from(["all", "addmul", "mul"]),
)
def test_generated_puzzles_are_valid_and_unique(size, seed, ops):
    puzzle = generate(size, seed=seed, ops=ops)
    assert_good(puzzle, size, ops)
    assert puzzle.meta == {"seed": seed, "ops": ops}


@pytest.mark.parametrize("size, seed, ops", [(7, 1, "all"), (8, 2, "addmul"), (9, 3, "all"), (9, 4, "mul")])
def test_large_generated_puzzles_are_valid_and_unique(size, seed, ops):
    assert_good(generate(size, seed=seed, ops=ops), size, ops)


@settings(max_examples=15, deadline=None)
@given(size=st.integers(3, 9), seed=st.integers(0, 2**31 - 1))
def test_same_seed_same_puzzle(size, seed):
    first, again = generate(size, seed=seed), generate(size, seed=seed)
    assert first == again and first.solution == again.solution
    assert first.meta == again.meta


def test_fixed_seed_gives_the_recorded_puzzle():
    # Pins the generator across machines: change it only with a new kaldoku version.
    puzzle = generate(4, seed=1)
    assert puzzle.solution == to_grid(["1432", "4123", "2341", "3214"])
    assert [in_ascii(cage.label()) for cage in puzzle.cages] == [
        "5+", "1-", "1-", "2-", "2", "5+", "16x", "2/"
    ]


def test_different_seeds_give_different_puzzles():
    assert len({generate(6, seed=seed) for seed in range(10)}) == 10


def test_no_seed_draws_one_and_records_it():
    puzzle = generate(5)
    assert isinstance(puzzle.meta["seed"], int)
    assert generate(5, seed=puzzle.meta["seed"]) == puzzle


@pytest.mark.parametrize("size, ops", [(2, "all"), (10, "all"), (5, "plus")])
def test_bad_options_are_clear_errors(size, ops):
    with pytest.raises(PuzzleError):
        generate(size, seed=1, ops=ops)


def test_blocks_are_mostly_dominoes_and_triples():
    sizes = Counter(len(b) for seed in range(30) for b in random_blocks(9, random.Random(seed)))
    total = sum(sizes.values())
    assert (sizes[2] + sizes[3]) / total > 0.85
    assert sizes[5] + sizes[6] < 0.02 * total


@settings(max_examples=30, deadline=None)
@given(size=st.integers(3, 9), seed=st.integers(0, 2**31 - 1), dominoes=st.integers(0, 4))
def test_random_blocks_cover_the_board_with_small_connected_blocks(size, seed, dominoes):
    blocks = random_blocks(size, random.Random(seed), dominoes_in_four=dominoes)
    cells = [cell for block in blocks for cell in block]
    assert sorted(cells) == [(r, c) for r in range(size) for c in range(size)]
    assert all(_connected(block) and len(block) <= MAX_CELLS for block in blocks)


def test_fewer_dominoes_make_larger_blocks():
    def mean_size(dominoes):
        blocks = [block for seed in range(30)
                  for block in random_blocks(6, random.Random(seed), dominoes_in_four=dominoes)]
        return sum(map(len, blocks)) / len(blocks)
    assert mean_size(MUL_DOMINOES_IN_FOUR) > mean_size(DOMINOES_IN_FOUR) + 0.3


def test_operators_are_dealt_evenly():
    rng = random.Random(5)
    ops = Counter()
    for _ in range(20):
        solution = random_latin_square(9, rng)
        ops.update(cage.op for cage in make_cages(random_blocks(9, rng), solution, rng))
    counts = [ops[op] for op in "+-*/"]
    assert min(counts) > 0.5 * max(counts)


@pytest.mark.parametrize(
    "digits, size, easiest, expected",
    [
        ((1, 2), 9, False, ["-", "/"]),  # 3+ pins {1,2}; 2× has one pair
        ((1, 2), 9, True, ["-", "/", "*"]),
        ((1, 9), 9, False, ["+"]),  # −8 pins, 9÷1 is above 9/2, 9× is only 1·9
        ((2, 6), 9, False, ["-", "/", "+", "*"]),
        ((3, 6), 6, False, ["-", "/", "+"]),  # 9+ is no pin at 6 (2N−1 = 11); 18× only 3·6
        ((1, 3), 3, False, ["+", "-", "*", "/"]),  # nothing passes: any operation that fits
    ],
)
def test_domino_operators_follow_keens_rules(digits, size, easiest, expected):
    solution = to_grid([[*digits] + [0] * (size - 2)] + [[0] * size] * (size - 1))
    assert allowed_ops(((0, 0), (0, 1)), solution, "all", easiest) == expected


def test_operator_sets_limit_the_choice():
    solution = random_latin_square(6, random.Random(0))
    triple = ((0, 0), (0, 1), (0, 2))
    assert allowed_ops(triple, solution, "all") == ["+", "*"]
    assert allowed_ops(triple, solution, "mul") == ["*"]
    assert allowed_ops(((0, 0),), solution, "mul") == ["="]
    assert set(allowed_ops(((0, 0), (0, 1)), solution, "addmul")) <= {"+", "*"}


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**31 - 1))
def test_split_cage_gives_two_connected_halves_with_true_clues(seed):
    rng = random.Random(seed)
    solution = random_latin_square(9, rng)
    block = max(random_blocks(9, rng), key=len)
    cage = make_cages([block], solution, rng)[0]
    halves = split_cage(cage, solution, rng)
    assert len(halves) == 2
    assert sorted(halves[0].cells + halves[1].cells) == sorted(cage.cells)
    assert abs(len(halves[0].cells) - len(halves[1].cells)) <= len(cage.cells) % 2 + 2
    for half in halves:
        assert _connected(half.cells)
        assert half.fits([solution[r][c] for r, c in half.cells])


def test_single_cells_cannot_be_split():
    with pytest.raises(PuzzleError):
        split_cage(Cage(((0, 0),), "=", 1), to_grid(["123", "231", "312"]), random.Random(0))


def test_latin_squares_are_latin_and_reproducible():
    for size in range(3, 10):
        square = random_latin_square(size, random.Random(size))
        digits = list(range(1, size + 1))
        assert all(sorted(row) == digits for row in square)
        assert all(sorted(col) == digits for col in zip(*square))
        assert random_latin_square(size, random.Random(size)) == square


def test_latin_squares_are_uniform_at_3x3():
    # 12 squares of order 3; 2400 draws give 200 each, so ±60 is about 4.5 sigma.
    rng = random.Random(11)
    counts = Counter(random_latin_square(3, rng) for _ in range(2400))
    assert len(counts) == 12
    assert all(140 < count < 260 for count in counts.values())


def test_latin_squares_at_5x5_come_from_both_isotopy_classes():
    """Built row by row, then shuffled: not the cyclic square's class alone. Of the 161,280
    squares of order 5, 10.7% are in that class (those with no 2×2 subsquare); the rows'
    matchings draw it 14.9% of the time."""
    rng = random.Random(5)
    draws = 2000
    cyclic = sum(not _intercalates(random_latin_square(5, rng)) for _ in range(draws))
    assert 0.08 * draws < cyclic < 0.22 * draws


def _intercalates(square) -> int:
    """How many 2×2 subsquares (two rows and two columns holding two digits) a square has."""
    n = len(square)
    return sum(square[r][c] == square[s][d] and square[r][d] == square[s][c]
               for r in range(n) for s in range(r + 1, n) for c in range(n) for d in range(c + 1, n))


@pytest.mark.parametrize("size", [6, 9])
def test_few_single_cells_from_six_up(size):
    """Keen makes none; splitting cages to repair a puzzle makes them, within 5% of the cages."""
    for level in (None, "easy", "normal", "hard"):
        for seed in range(3):
            cages = generate(size, seed=seed, level=level).cages
            assert sum(len(cage.cells) == 1 for cage in cages) <= 0.05 * len(cages)


def test_split_cage_keeps_both_halves_at_least_as_large_as_asked():
    solution = random_latin_square(6, random.Random(0))
    square = Cage(((0, 0), (0, 1), (1, 0), (1, 1)), "+", sum(solution[r][c] for r in (0, 1) for c in (0, 1)))
    halves = split_cage(square, solution, random.Random(1), smallest=2)
    assert sorted(len(half.cells) for half in halves) == [2, 2]
    tee = ((0, 0), (0, 1), (0, 2), (1, 1))
    cage = Cage(tee, "+", sum(solution[r][c] for r, c in tee))
    assert split_cage(cage, solution, random.Random(1), smallest=2) == []


def test_isotopes_are_latin_squares_of_the_same_digits():
    from kaldoku_tui.engine.latin import random_isotope

    square = random_latin_square(7, random.Random(3))
    other = random_isotope(square, random.Random(4))
    digits = list(range(1, 8))
    assert other != square
    assert all(sorted(row) == digits for row in other) and all(sorted(col) == digits for col in zip(*other))


def test_a_rival_that_swaps_a_dominos_digits_is_recut_away():
    """At 9×9 no domino may be split into two given cells (5% of the cages at most), and
    no clue a domino can take tells its two digits apart: the domino and a neighbour are
    cut the other way instead, and the rival no longer solves the puzzle (most times:
    every cut may still let it in)."""
    seen = repaired_count = 0
    for seed in range(80):
        rng = random.Random(seed)
        solution = random_latin_square(9, rng)
        puzzle = Puzzle(9, tuple(make_cages(random_blocks(9, rng), solution, rng)), solution)
        _, other = rival(puzzle, solution)
        disputed = [cage for cage in puzzle.cages
                    if any(solution[r][c] != other[r][c] for r, c in cage.cells)] if other else []
        if not disputed or any(len(cage.cells) != 2 for cage in disputed) or singles_allowed(9, puzzle.cages, 2):
            continue
        seen += 1
        repaired = repair(puzzle, other, rng, "all")
        if repaired is None:
            continue
        repaired_count += 1
        assert is_solved(repaired, solution) and not is_solved(repaired, other)
        singles = [sum(len(cage.cells) == 1 for cage in p.cages) for p in (puzzle, repaired)]
        assert singles[1] == singles[0] and len(repaired.cages) == len(puzzle.cages)
    assert seen >= 10 and repaired_count >= 0.8 * seen, (seen, repaired_count)


@pytest.mark.parametrize("ops", ["addmul", "mul", "all"])
def test_a_swapped_rival_is_another_solution_and_found_on_most_candidates_with_two(ops):
    rng = random.Random(11)
    found = with_rival = 0
    for _ in range(30):
        puzzle = candidate(7, rng, ops)
        other = _swapped_rival(puzzle)
        has_rival = rival(puzzle, puzzle.solution)[1] is not None
        with_rival += has_rival
        if other is not None:
            found += 1
            assert other != puzzle.solution and is_solved(puzzle, other)
            assert has_rival
    assert found >= with_rival // 2 > 0


@pytest.mark.parametrize("size", [5, 6])
def test_a_swap_of_two_lines_is_another_solution_found_where_no_two_digits_swap(size):
    """`_swapped_rival(..., lines=True)` also swaps two rows' or columns' digits along a cycle:
    what it finds solves the puzzle, and where it finds nothing, no such swap keeps every
    cage's digits (one may still keep a clue by other digits: 1 and 3 for 2−, as 2 and 4)."""
    rng = random.Random(size)
    found = 0
    for _ in range(80):
        puzzle = candidate(size, rng, "all")
        if _swapped_rival(puzzle) is not None:
            continue
        other = _swapped_rival(puzzle, lines=True)
        if other is not None:
            found += 1
            assert other != puzzle.solution and is_solved(puzzle, other)
            changed = [(r, c) for r in range(size) for c in range(size) if other[r][c] != puzzle.solution[r][c]]
            assert len({r for r, _ in changed}) == 2 or len({c for _, c in changed}) == 2
        else:
            assert not any(all(sorted(_cage_digits(swapped, cage)) == sorted(_cage_digits(puzzle.solution, cage))
                               for cage in puzzle.cages) for swapped in _line_swaps(puzzle.solution))
    assert found >= 5


def _cage_digits(grid, cage):
    return [grid[r][c] for r, c in cage.cells]


def _line_swaps(solution):
    """Every grid made by swapping two rows (or columns) of `solution` along one of their
    cycles of three places or more, by brute force."""
    n = len(solution)
    for grid, flip in ((solution, False), (tuple(zip(*solution)), True)):
        for first in range(n):
            for second in range(first + 1, n):
                seen = set()
                for start in range(n):
                    cycle, p = [], start
                    while p not in cycle:
                        cycle.append(p)
                        p = grid[second].index(grid[first][p])
                    if start in seen or len(cycle) < 3:
                        seen.update(cycle)
                        continue
                    seen.update(cycle)
                    swapped = [list(line) for line in grid]
                    for p in cycle:
                        swapped[first][p], swapped[second][p] = grid[second][p], grid[first][p]
                    yield tuple(zip(*swapped)) if flip else tuple(map(tuple, swapped))


def test_a_repair_leaves_the_rival_out_when_some_split_can():
    """A split the rival still meets would have it found again: at 9×9 that was 13 of the
    37 first repairs of seeds 0..59."""
    left_out = 0
    for seed in range(60):
        rng = random.Random(seed)
        solution = random_latin_square(9, rng)
        puzzle = Puzzle(9, tuple(make_cages(random_blocks(9, rng), solution, rng)), solution)
        _, other = rival(puzzle, solution)
        repaired = repair(puzzle, other, rng, "all") if other else None
        if repaired is not None:
            assert is_solved(repaired, solution)
            left_out += not is_solved(repaired, other)
    assert left_out >= 30


@pytest.mark.parametrize("ops", ["all", "mul", "hidden"])
def test_the_fast_solvers_propagation_is_tiers_one_and_two(ops):
    """The generator takes the fast solver's propagation for the human-style tiers 1
    and 2 (singles, cage fillings cell by cell): on raw candidates, many with several
    solutions, both leave every cell the same digits."""
    rng = random.Random(12)
    for size in (4, 5, 6, 7, 8) * 12:
        puzzle = candidate(size, rng, ops)
        marks = Marks.start(layout(puzzle))
        propagate(marks, 2, quick=True)
        human = {(i // size, i % size): tuple(digits_of(mask)) for i, mask in enumerate(marks.cand)}
        assert candidates(puzzle) == human, puzzle


@pytest.mark.parametrize("ops, tier", [("mul", 3), ("addmul", 4)])
def test_a_candidate_too_easy_is_hardened_by_merging_cages_while_it_stays_unique(ops, tier):
    """A unique 5×5 candidate that tiers below `tier` solve becomes, by merges alone, one
    they do not solve, still with its one solution (the tests' own counter)."""
    rng = random.Random(5)
    hardened = []
    while len(hardened) < 2:
        made = unique(candidate(5, rng, ops), rng, ops)
        if made is None or not human_solve(made[0], max_tier=tier - 1).solved:
            continue
        easy, settled = made
        found = _harden(easy, settled, tier, rng, ops)
        if found is None:
            continue
        puzzle, closed = found
        hardened.append(puzzle)
        assert count_by_backtracking(puzzle) == [easy.solution]
        assert not human_solve(puzzle, max_tier=tier - 1).solved
        assert closed == closure(puzzle)
        for cage in puzzle.cages:  # each cage is whole cages of the easy puzzle
            parts = {easy.cage_index(cell) for cell in cage.cells}
            assert sum(len(easy.cages[k].cells) for k in parts) == len(cage.cells)
            assert cage.op in OP_SETS[ops] or (cage.op == "=" and len(cage.cells) == 1)


def test_every_latin_square_of_a_small_board_is_listed_once():
    for n, count in ((3, 12), (4, 576)):
        squares = latin_squares(n)
        assert len(set(squares)) == count == len(squares)
        assert all(sorted(line) == list(range(1, n + 1)) for square in squares for line in square + tuple(zip(*square)))


@pytest.mark.parametrize("ops", ["all", "addmul", "mul"])
def test_the_squares_a_small_puzzle_allows_are_its_solutions(ops):
    """`other_solution` finds another solution exactly when the tests' own counter does."""
    rng = random.Random(7)
    for _ in range(60):
        puzzle = candidate(rng.choice((3, 4)), rng, ops)
        other = other_solution(puzzle, puzzle.solution)
        found = count_by_backtracking(puzzle, limit=3)
        assert (other is None) == (found == [puzzle.solution])
        assert other is None or (other in found and other != puzzle.solution)


def test_a_rival_of_any_clues_meets_every_clue_dealt():
    """Blocks that a square other than the solution fills with the same digits have two
    solutions whatever clues are dealt (the tests' counter), and such blocks are common
    (dropped before their clues are dealt); where there is none, some deal is unique."""
    rng = random.Random(11)
    told = unique_seen = 0
    for _ in range(150):
        n = rng.choice((3, 4))
        solution = random_latin_square(n, rng)
        blocks = random_blocks(n, rng)
        rival_always = rival_of_any_clues(blocks, solution)
        for _ in range(3):
            puzzle = Puzzle(n, make_cages(blocks, solution, rng, "all", easiest=rng.random() < 0.5), solution)
            found = count_by_backtracking(puzzle, limit=2)
            assert not rival_always or len(found) == 2
            unique_seen += len(found) == 1
        told += rival_always
    assert 30 < told < 140 and unique_seen > 10


@pytest.mark.parametrize("ops, tier", [("mul", 3), ("addmul", 4)])
def test_a_counted_board_is_hardened_to_its_level_with_one_solution(ops, tier):
    """On a 4×4 board of + × or × only, merges are kept while the puzzle stays unique and
    only then graded: what comes out is at `tier`, with one solution (the tests' counter)."""
    rng = random.Random(3)
    hardened = 0
    while hardened < 2:
        made = unique(candidate(4, rng, ops), rng, ops)
        if made is None:
            continue
        easy = made[0]
        found = _harden(easy, None, tier, rng, ops)
        if found is None:
            continue
        puzzle, closed = found
        hardened += 1
        assert count_by_backtracking(puzzle) == [easy.solution]
        assert not human_solve(puzzle, max_tier=tier - 1).solved
        assert human_solve(puzzle, max_tier=tier).solved
        assert closed == closure(puzzle)


def test_a_uniqueness_search_out_of_its_budget_is_undecided_never_unique():
    """A budget of nodes ends the search with Undecided, not with an answer; within it
    the answer is the unbudgeted one."""
    raw = candidate(9, random.Random(1), "hidden")
    with pytest.raises(Undecided):
        rival(raw, raw.solution, nodes=1)
    small = candidate(4, random.Random(2), "hidden")
    assert rival(small, small.solution, nodes=10**6) == rival(small, small.solution)


@pytest.mark.parametrize("size, seed, level",
                         [(9, 4, "normal"), (9, 10, "extreme"), (8, 9, "extreme"), (7, 50, "unreasonable")])
def test_hidden_boards_that_settle_nothing_are_still_made_at_their_level(size, seed, level):
    """Seeds that took 18 s, 13 s and 5 s at edition 10 (cut to dominoes, a hidden board
    settles nothing), and 5.6 s at edition 16 (trials on a loose 7×7 board): made at their
    level by the grader, with one solution, every operation still hidden."""
    puzzle = generate(size, seed=seed, ops="hidden", level=level)
    assert tier_needed(puzzle) == LEVELS.index(level) + 1
    assert all(cage.op == "?" for cage in puzzle.cages if len(cage.cells) > 1)
    assert count_solutions(puzzle) == 1


@pytest.mark.parametrize("ops, seed", [("addmul", 5), ("mul", 2)])
def test_a_nine_by_nine_extreme_that_steps_back_from_a_split_is_at_its_level_with_one_solution(ops, seed, monkeypatch):
    """On these seeds a split made the candidate too easy and was taken back (without
    stepping back, the seed gives another puzzle): what comes out is still extreme, with one
    solution."""
    from kaldoku_tui.engine import generator

    puzzle = generate(9, seed=seed, ops=ops, level="extreme")
    assert tier_needed(puzzle) == 4
    assert count_solutions(puzzle) == 1
    monkeypatch.setattr(generator, "STEPS_BACK_FROM", 10)
    assert generate(9, seed=seed, ops=ops, level="extreme").cages != puzzle.cages


def test_large_add_mul_boards_past_hard_merge_no_cage_of_too_many_fillings():
    """A 9×9 + × candidate is hardened only by merges whose clue at most MERGED_FILLINGS
    fillings may meet (the 6-cell sums of 12,000 to 19,000 made seed 317 take 2.9 s), and
    that seed is still made unreasonable, with one solution."""
    from kaldoku_tui.engine.fillings import fillings_bound
    from kaldoku_tui.engine.generator import MERGED_FILLINGS, _merged

    puzzle = candidate(9, random.Random(1), "addmul")
    every = list(_merged(puzzle, random.Random(2), "addmul"))
    narrow = list(_merged(puzzle, random.Random(2), "addmul", MERGED_FILLINGS))
    assert narrow == [merged for merged in every
                      if all(fillings_bound(9, cage) <= MERGED_FILLINGS for cage in merged.cages
                             if cage not in puzzle.cages)]
    assert 0 < len(narrow) < len(every)
    made = generate(9, seed=317, ops="addmul", level="unreasonable")
    assert tier_needed(made) == 5
    assert count_solutions(made) == 1


def test_solves_left_unfinished_are_not_asked_again_unless_told_to() -> None:
    """A puzzle of two solutions is never finished by the solves: after one, a `_Solves`
    made with `again=False` (a candidate's repairs) gives no more proofs; one made
    with the default (the merges of `_harden`) goes on giving them."""
    rng = random.Random(7)
    loose = next(p for p in (candidate(5, rng, "all") for _ in range(50)) if count_solutions(p) > 1)
    for again in (False, True):
        solves = _Solves(5, again=again)
        proof = solves.proof(loose)
        assert proof is not None
        assert proof[1]() is False
        assert (solves.proof(loose) is not None) is again
