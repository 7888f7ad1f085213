"""Time generation of every kind, and grade Keen's puzzles.

    python -m benchmarks.levels [--seeds 60] [--first-seed 0] [--sizes 3,...,9]
                                [--ops all,addmul,mul,hidden] [--levels any,easy,...]
                                [--no-keen]

Prints, for each kind offered, which is every kind that can exist (size × operator set ×
level, `any` for no level asked): the median, 99th percentile and maximum CPU seconds
(`time.process_time`: the machine is shared) to generate a puzzle, seeds FIRST_SEED up,
SEEDS of them, and the mean share and the most single-cell cages; a kind whose p99 is
P99_LIMIT or more or whose maximum is MAX_LIMIT or more (issue 26's targets) is noted
"over". Each kind stops after SEEDS × MAX_LIMIT seconds of CPU ("too slow").
Then Keen's levels against ours on keen_train.jsonl, for the puzzles whose index is not
a multiple of 5 (the part the techniques were tuned on) and for the held-back rest, with
the median time to grade; and the machine's `uptime` at the start and the end.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from benchmarks.engine import percentile
from benchmarks.keen import cpu_model, uptime
from kaldoku_tui.engine.formats import read_puzzles
from kaldoku_tui.engine.generator import Stopped, generate
from kaldoku_tui.engine.kinds import LEVELS, OP_SETS, SIZES, GameKind
from kaldoku_tui.engine.puzzle import PuzzleError
from kaldoku_tui.engine.techniques import level_of

KEEN_TRAIN = Path("/work/shared/data/keen_train.jsonl")
HELD_BACK = 5
"""Puzzles of keen_train whose index is a multiple of this were kept out of tuning."""
P99_LIMIT, MAX_LIMIT = 2.0, 5.0
"""Issue 26's targets for every kind: CPU seconds a puzzle at the 99th percentile and at most."""


def measure(kind: GameKind, seeds: range) -> tuple[list[float], list[int], list[float], str]:
    """CPU seconds per puzzle, single cells per puzzle and their share, and why it stopped early."""
    made, singles, shares = [], [], []
    deadline = time.process_time() + len(seeds) * MAX_LIMIT
    for seed in seeds:
        start = time.process_time()
        try:
            puzzle = generate(kind.size, seed=seed, ops=kind.ops, level=kind.level,
                              stop=lambda: time.process_time() > deadline)
        except Stopped:
            return made, singles, shares, "too slow"
        except PuzzleError:
            return made, singles, shares, "failed"
        made.append(time.process_time() - start)
        singles.append(sum(len(cage.cells) == 1 for cage in puzzle.cages))
        shares.append(singles[-1] / len(puzzle.cages))
    return made, singles, shares, ""


def generation_table(args) -> None:
    print(f"{'kind':<24}{'median':>9}{'p99':>9}{'max':>9}{'singles':>9}{'most':>6}  note")
    for size in args.sizes:
        for ops in args.ops:
            for level in args.levels:
                kind = GameKind(size, ops, None if level == "any" else level)
                if not kind.offered:
                    continue
                made, singles, shares, why = measure(kind, range(args.first_seed, args.first_seed + args.seeds))
                over = made and (percentile(made, 0.99) >= P99_LIMIT or max(made) >= MAX_LIMIT)
                note = why or ("over" if over else "")
                name = f"{size}×{size} {ops} {level}"
                if not made:
                    print(f"{name:<24}{'-':>9}{'-':>9}{'-':>9}{'-':>9}{'-':>6}  {note}", flush=True)
                    continue
                print(f"{name:<24}{statistics.median(made):>8.3f}s{percentile(made, 0.99):>8.3f}s"
                      f"{max(made):>8.3f}s{statistics.mean(shares):>8.1%}{max(singles):>6}  {note}", flush=True)


def keen_table(path: Path) -> None:
    """Keen's level (rows) against ours (columns), tuned part and held-back part."""
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    parts: dict[str, dict[tuple[str, str], int]] = {"tuned": {}, "held back": {}}
    times = []
    for index, row in enumerate(rows):
        puzzle = read_puzzles(row["game_id"])[0]
        start = time.perf_counter()
        level = level_of(puzzle)
        times.append(time.perf_counter() - start)
        table = parts["held back" if index % HELD_BACK == 0 else "tuned"]
        key = (row["difficulty"], level)
        table[key] = table.get(key, 0) + 1
    for name, table in parts.items():
        total = sum(table.values())
        same = sum(table.get((level, level), 0) for level in LEVELS)
        above = sum(n for (keen, ours), n in table.items() if LEVELS.index(ours) > LEVELS.index(keen))
        print(f"\nkeen_train, {name} part ({total} puzzles): rows Keen's level, columns ours")
        print(f"{'':>13}" + "".join(f"{level[:5]:>7}" for level in LEVELS))
        for keen in LEVELS:
            print(f"{keen:>13}" + "".join(f"{table.get((keen, ours), 0):>7}" for ours in LEVELS))
        print(f"same level {same}/{total} ({same / total:.1%}); ours above Keen's: {above}")
    print(f"grade time median {statistics.median(times) * 1000:.1f} ms, "
          f"p95 {percentile(times, 0.95) * 1000:.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=60, help="puzzles per kind (default 60)")
    parser.add_argument("--first-seed", type=int, default=0, help="the first seed (default 0)")
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)), help="comma-separated sizes")
    parser.add_argument("--ops", default=",".join(OP_SETS), help="comma-separated operator sets")
    parser.add_argument("--levels", default=",".join(("any", *LEVELS)), help="comma-separated levels")
    parser.add_argument("--no-keen", action="store_true", help="skip the keen_train table")
    parser.add_argument("--keen", type=Path, default=KEEN_TRAIN, help="Keen's puzzles, JSON lines")
    args = parser.parse_args()
    args.sizes = [int(size) for size in args.sizes.split(",")]
    args.ops = args.ops.split(",")
    args.levels = args.levels.split(",")
    print("uptime at start: " + uptime())
    print("cpu: " + cpu_model())
    generation_table(args)
    if not args.no_keen:
        keen_table(args.keen)
    print("uptime at end: " + uptime())


if __name__ == "__main__":
    main()
