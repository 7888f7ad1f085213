"""A generator that runs for days: memory and CPU over a long stream of every kind.

    python -m benchmarks.stream [--seeds 100] [--first-seed 3000]

One process per row generates, seed by seed, 6×6 to 9×9 with all operators, + × and × only
(× only to normal), the level going round easy..unreasonable with the seed: what a
server's puzzle bank does for days. Rows: the remembered filling tables within their
budget (`fillings.FILLINGS_KEPT`, as shipped) and without one, run side by side so that
the machine's load falls on both. Columns: puzzles made, peak resident memory (MB) and
CPU seconds; the machine's `uptime` at the start and the end.
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import time

from benchmarks.keen import uptime

UNBOUNDED = 10**12
"""A budget never reached: the tables as they were before they had one."""


def stream(first_seed: int, seeds: int, budget: int | None) -> tuple[int, float, float]:
    """Puzzles made, peak RSS in MB and CPU seconds of this process's stream."""
    from kaldoku_tui.engine import fillings
    from kaldoku_tui.engine.generator import generate

    if budget is not None:
        fillings.FILLINGS_KEPT = budget
    made, start = 0, time.process_time()
    for seed in range(first_seed, first_seed + seeds):
        level = ("easy", "normal", "hard", "extreme", "unreasonable")[seed % 5]
        for size in (6, 7, 8, 9):
            for ops in ("all", "addmul", "mul"):
                if ops == "mul" and level not in ("easy", "normal"):
                    continue
                generate(size, seed, ops, level)
                made += 1
    return made, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=100)
    parser.add_argument("--first-seed", type=int, default=3000)
    parser.add_argument("--budget", type=int, help=argparse.SUPPRESS)  # a child's row
    args = parser.parse_args()
    if args.budget is not None:
        budget = None if args.budget < 0 else args.budget
        print(*stream(args.first_seed, args.seeds, budget))
        return
    print("uptime:", uptime())
    rows = {"tables within FILLINGS_KEPT": -1, "tables unbounded": UNBOUNDED}
    children = {
        name: subprocess.Popen(
            [sys.executable, "-m", "benchmarks.stream", "--seeds", str(args.seeds),
             "--first-seed", str(args.first_seed), "--budget", str(budget)],
            stdout=subprocess.PIPE, text=True,
        )
        for name, budget in rows.items()
    }
    print(f"{'stream':30} {'puzzles':>8} {'peak MB':>8} {'CPU s':>8}")
    for name, child in children.items():
        out, _ = child.communicate()
        made, peak, cpu = out.split()
        print(f"{name:30} {made:>8} {float(peak):8.0f} {float(cpu):8.1f}")
    print("uptime:", uptime())


if __name__ == "__main__":
    main()
