"""Time puzzle generation and the solver's uniqueness proof, per size.

    python -m benchmarks.engine [--seeds 500] [--sizes 3,4,5,6,7,8,9] [--ops all]

For each size, over seeds 0..SEEDS-1, prints the median, 95th percentile and maximum
milliseconds to
- generate a unique puzzle (`generate(size, seed)`);
- solve it with a uniqueness proof (`solve(puzzle, limit=2)`);
- solve a raw candidate (random square, random cages, not yet repaired) with limit=2,
  the harder job the generator gives the solver, since many have several solutions.
Filling tables are cached per process, as in the game, so solves after the first
reuse them. Targets: 9×9 generation median ≤ 300 ms; 9×9 solve median ≤ 20 ms and
never above 1 s.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a script: python benchmarks/engine.py
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from kaldoku_tui.engine.generator import candidate, generate
from kaldoku_tui.engine.solver import solve


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def timed(action) -> tuple[float, object]:
    start = time.perf_counter()
    result = action()
    return (time.perf_counter() - start) * 1000, result


def measure(size: int, seeds: int, ops: str) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {"generate": [], "solve": [], "raw": []}
    for seed in range(seeds):
        elapsed, puzzle = timed(lambda: generate(size, seed=seed, ops=ops))
        times["generate"].append(elapsed)
        elapsed, found = timed(lambda: solve(puzzle, limit=2))
        if found != [puzzle.solution]:
            raise SystemExit(f"{size}×{size} seed {seed}: the generated puzzle is not unique")
        times["solve"].append(elapsed)
        raw = candidate(size, random.Random(seed), ops)
        elapsed, found = timed(lambda: solve(raw, limit=2))
        if raw.solution not in found and len(found) < 2:
            raise SystemExit(f"{size}×{size} seed {seed}: the solver missed a raw candidate's solution")
        times["raw"].append(elapsed)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=500, help="puzzles per size (default 500)")
    parser.add_argument("--sizes", default="3,4,5,6,7,8,9", help="comma-separated sizes")
    parser.add_argument("--ops", default="all", choices=["all", "addmul", "mul"])
    args = parser.parse_args()
    print(f"milliseconds over seeds 0..{args.seeds - 1}, ops {args.ops}")
    columns = ("generate", "solve", "raw")
    print(f"{'size':>4}" + "".join(f"{name + ' median':>16}{'p95':>8}{'max':>8}" for name in columns))
    for size in (int(text) for text in args.sizes.split(",")):
        times = measure(size, args.seeds, args.ops)
        print(
            f"{size:>4}"
            + "".join(
                f"{statistics.median(times[name]):>16.1f}{percentile(times[name], 0.95):>8.1f}"
                f"{max(times[name]):>8.1f}"
                for name in columns
            ),
            flush=True,
        )


if __name__ == "__main__":
    main()
