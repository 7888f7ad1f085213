"""Time leveled generation and the human-style solve, per size and level.

    python -m benchmarks.levels [--seeds 20] [--sizes 4,5,6,7,8,9] [--levels hard,extreme]

Prints, for each size and level, the median and 95th-percentile seconds to generate
a puzzle of that level (seeds 0..SEEDS-1) and to solve it again human-style; then the
targets missed, if any, and the machine's load average (the machine is shared).
Targets: 9×9 hard generation median ≤ 0.5 s, 9×9 extreme ≤ 3 s, every p95 ≤ 10 s.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

from benchmarks.engine import percentile
from kaldoku_tui.engine.generator import generate
from kaldoku_tui.engine.kinds import levels_for
from kaldoku_tui.engine.techniques import LEVELS, grade, human_solve

MEDIAN_TARGETS = {(9, "hard"): 0.5, (9, "extreme"): 3.0}
"""Seconds a generation median may take, by size and level."""
P95_TARGET = 10.0
"""Seconds any generation or solve may take at the 95th percentile."""


def measure(size: int, level: str, seeds: int) -> tuple[list[float], list[float]]:
    made, solved = [], []
    for seed in range(seeds):
        start = time.perf_counter()
        puzzle = generate(size, seed=seed, level=level)
        made.append(time.perf_counter() - start)
        start = time.perf_counter()
        human_solve(puzzle)
        solved.append(time.perf_counter() - start)
        found = grade(puzzle).level
        if found != level:
            raise SystemExit(f"{size}×{size} seed {seed}: asked for {level}, graded {found}")
    return made, solved


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=20, help="puzzles per size and level (default 20)")
    parser.add_argument("--sizes", default="4,5,6,7,8,9", help="comma-separated sizes")
    parser.add_argument("--levels", default=",".join(LEVELS), help="comma-separated levels")
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]
    levels = args.levels.split(",")
    missed = []
    print(f"{'size':>4} {'level':<13}{'generate median':>16}{'p95':>8}{'solve median':>14}{'p95':>8}")
    for size in sizes:
        for level in levels:
            if level not in levels_for(size):
                continue
            made, solved = measure(size, level, args.seeds)
            limit = MEDIAN_TARGETS.get((size, level))
            if limit is not None and statistics.median(made) > limit:
                missed.append(f"{size}×{size} {level} generation median above {limit} s")
            if max(percentile(made, 0.95), percentile(solved, 0.95)) > P95_TARGET:
                missed.append(f"{size}×{size} {level} 95th percentile above {P95_TARGET} s")
            print(
                f"{size:>4} {level:<13}{statistics.median(made):>15.3f}s{percentile(made, 0.95):>7.3f}s"
                f"{statistics.median(solved):>13.3f}s{percentile(solved, 0.95):>7.3f}s",
                flush=True,
            )
    print("Targets missed: " + "; ".join(missed) if missed else "Targets met.")
    print("Load average (1, 5, 15 min): " + ", ".join(f"{load:.2f}" for load in os.getloadavg()))


if __name__ == "__main__":
    main()
