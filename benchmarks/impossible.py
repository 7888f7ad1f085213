"""Every 3×3 puzzle with one solution, by operator set: the levels that exist.

    python -m benchmarks.impossible [mul addmul all hidden]

Every 3×3 latin square under every caging of the board into connected cages of any size,
each multi-cell cage with every operation of the set that makes a whole target (a hidden
cage shows its target alone), counted once per set of cages; those with one solution are
graded by `tier_needed`. The proof behind `IMPOSSIBLE` and `levels_for(3)` in
kaldoku_tui/engine/kinds.py (5 to 55 s of CPU a set).
"""
import itertools
import sys
import time
from collections import Counter
from kaldoku_tui.engine.puzzle import Cage, Puzzle, combine, _connected
from kaldoku_tui.engine.solver import count_solutions
from kaldoku_tui.engine.techniques import tier_needed

N = 3
cells = [(r, c) for r in range(N) for c in range(N)]

def partitions(left):
    if not left:
        yield []
        return
    first, rest = left[0], left[1:]
    for k in range(len(rest) + 1):
        for others in itertools.combinations(rest, k):
            part = (first, *others)
            if _connected(part):
                remaining = [c for c in rest if c not in others]
                for tail in partitions(remaining):
                    yield [tuple(sorted(part))] + tail

parts = list(partitions(cells))
print("partitions", len(parts), flush=True)
squares = [sq for sq in itertools.product(itertools.permutations((1, 2, 3)), repeat=3)
           if all(len({row[c] for row in sq}) == 3 for c in range(3))]
print("squares", len(squares))
SETS = {"mul": "*", "addmul": "+*", "all": "+-*/", "hidden": "+-*/"}
which = sys.argv[1:] or list(SETS)
for name in which:
    usable = SETS[name]
    levels, seen = Counter(), set()
    t = time.process_time()
    for sq in squares:
        for part in parts:
            choices = []
            for block in part:
                digits = [sq[r][c] for r, c in block]
                if len(block) == 1:
                    choices.append([Cage(block, "=", digits[0])])
                    continue
                opts = []
                for op in usable:
                    if len(block) > 2 and op in "-/":
                        continue
                    target = combine(op, digits)
                    if target is not None:
                        cage = Cage(block, "?" if name == "hidden" else op, target)
                        if cage not in opts:
                            opts.append(cage)
                choices.append(opts)
            for cages in itertools.product(*choices):
                key = frozenset(cages)
                if key in seen:
                    continue
                seen.add(key)
                p = Puzzle.trusted(N, list(cages), sq)
                if count_solutions(p, 2) != 1:
                    continue
                levels[tier_needed(p)] += 1
    print(name, "unique puzzles by tier:", dict(sorted(levels.items(), key=str)),
          f"{time.process_time()-t:.1f}s cpu", flush=True)
