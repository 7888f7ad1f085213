"""Generation beside Simon Tatham's Keen, CPU time per puzzle on one machine.

    python -m benchmarks.keen [--seeds 60] [--first-seed 0] [--sizes 4,...,9] [--levels easy,...] [--ops all,mul]
                              [--repeat 1] [--keen /usr/games/sgt-keen] [--graded]

For each kind both programs make (size × level, operator set `all` or `mul`, which is
Keen's "multiplication only"): Keen's median and 95th percentile milliseconds per puzzle,
and kaldoku's median, p99 and maximum, and kaldoku's median over Keen's. Both are CPU
time, which a busy machine (it is shared) inflates far less than wall time: Keen makes
SEEDS puzzles in one process with `--time-generation`, which prints each puzzle's CPU
time; kaldoku's is `time.process_time` around `generate`, seed by seed. A kind that
misses issue 26's target is noted "over": at 9×9 kaldoku's median above Keen's; at 4×4
to 8×8 above twice Keen's where Keen's median is KEEN_FLOOR or more. The machine's
`uptime` is printed at the start and the end, the CPU's name at the start. With `--repeat K`, each program makes
each kind's puzzles K times, each time in a fresh process, and each puzzle's time is the
least of its K (the same puzzles: Keen's seed is fixed, kaldoku's are the seeds): what
another process on a shared machine adds is taken out on both sides alike. Keen comes with Debian's `sgt-puzzles`
package (`apt-get install sgt-puzzles`); its `--generate` needs no display.

With `--graded`, Keen's puzzles (the same seed) are graded by kaldoku's grader too, and each
kind's row adds the share kaldoku puts at the level Keen made them for, Keen's mean CPU per
puzzle of that level by kaldoku's grader (its mean over that share), kaldoku's mean, and
the ratio of the two: like for like where the two graders disagree (at 5×5 and 6×6 extreme
kaldoku's grader calls some of Keen's puzzles hard).
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import shutil
import statistics
import subprocess
import sys
import time

from benchmarks.engine import percentile
from kaldoku_tui.engine.formats import read_keen
from kaldoku_tui.engine.generator import generate
from kaldoku_tui.engine.kinds import LEVELS, GameKind
from kaldoku_tui.engine.techniques import level_of

KEEN = "/usr/games/sgt-keen"
KEEN_OPS = {"all": "", "mul": "m"}
"""kaldoku's operator sets that Keen has, and the letter of Keen's parameters for each."""
KEEN_FLOOR = 0.002
"""Seconds: below this median of Keen's, issue 26 sets no ratio (process noise dominates)."""


def keen_params(kind: GameKind) -> str:
    """Keen's parameter text for `kind`, e.g. '9dh' or '6dxm'."""
    return f"{kind.size}d{'enhxu'[LEVELS.index(kind.level)]}{KEEN_OPS[kind.ops]}"


def keen_cpu_seconds(keen: str, params: str, count: int) -> list[float]:
    """Keen's own CPU seconds for each of `count` puzzles, made in one process."""
    done = subprocess.run([keen, "--generate", str(count), "--time-generation", f"{params}#kaldoku"],
                          check=True, capture_output=True, text=True)
    return [float(line.rsplit(":", 1)[1]) for line in done.stdout.splitlines() if line.startswith("Keen ")]


def keen_levels(keen: str, params: str, count: int) -> list[str]:
    """kaldoku's grader's level of each of the `count` puzzles Keen makes from the seed
    `keen_cpu_seconds` gives it (the same puzzles: the seed fixes them)."""
    done = subprocess.run([keen, "--generate", str(count), f"{params}#kaldoku"],
                          check=True, capture_output=True, text=True)
    return [level_of(read_keen(game_id)) for game_id in done.stdout.split()]


def kaldoku_cpu_seconds(kind: GameKind, seeds: list[int]) -> list[float]:
    """kaldoku's CPU seconds for the puzzle of each seed, made one after another in this process."""
    times = []
    for seed in seeds:
        start = time.process_time()
        generate(kind.size, seed, kind.ops, kind.level)
        times.append(time.process_time() - start)
    return times


def least_of(runs: list[list[float]]) -> list[float]:
    """Each puzzle's least time over several runs of the same puzzles."""
    return [min(times) for times in zip(*runs)]


def kaldoku_least(kind: GameKind, seeds: list[int], repeat: int) -> list[float]:
    """`kaldoku_cpu_seconds`, each of `repeat` times in a fresh process (caches cold, as in
    the first), and the least for each seed."""
    if repeat == 1:
        return kaldoku_cpu_seconds(kind, seeds)
    spawn = multiprocessing.get_context("spawn")
    runs = []
    for _ in range(repeat):
        with spawn.Pool(1) as pool:
            runs.append(pool.apply(kaldoku_cpu_seconds, (kind, seeds)))
    return least_of(runs)


def target(kind: GameKind, keen_median: float) -> float | None:
    """The most kaldoku's median may be over Keen's (issue 26), None where none is set."""
    if kind.size == 9:
        return 1.0
    return 2.0 if keen_median >= KEEN_FLOOR else None


def graded(kind: GameKind, keen: str, count: int, theirs: list[float], ours: list[float]) -> str:
    """The `--graded` columns of `kind`'s row: the share of Keen's puzzles kaldoku's grader puts
    at the level, Keen's mean CPU ms per such puzzle, kaldoku's mean, and their ratio."""
    levels = keen_levels(keen, keen_params(kind), count)
    share = levels.count(kind.level) / len(levels)
    if not share:
        return f"{share:>6.0%}  none at the level"
    per = statistics.mean(theirs) / share
    return (f"{share:>6.0%}{per * 1000:>8.1f}{statistics.mean(ours) * 1000:>8.1f}"
            f"{statistics.mean(ours) / per:>7.2f}×")


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def cpu_model() -> str:
    """The processor's name, as Linux gives it: Keen's times and ours scale differently from one
    CPU to another (on 2026-11-27 a new machine halved Keen's and took a quarter to a third off
    ours), so a table says which it was measured on."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            for line in info:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=60)
    parser.add_argument("--first-seed", type=int, default=0,
                        help="kaldoku's seeds are FIRST_SEED.. (seeds a change was not tuned on)")
    parser.add_argument("--sizes", default="4,5,6,7,8,9")
    parser.add_argument("--levels", default=",".join(LEVELS))
    parser.add_argument("--ops", default=",".join(KEEN_OPS))
    parser.add_argument("--repeat", type=int, default=1,
                        help="make each kind's puzzles this many times and keep each puzzle's least time")
    parser.add_argument("--keen", default=KEEN, help="Keen's program (Debian: sgt-keen)")
    parser.add_argument("--graded", action="store_true",
                        help="grade Keen's puzzles by kaldoku's grader too, and compare like for like")
    args = parser.parse_args()
    keen = shutil.which(args.keen)
    if keen is None:
        sys.exit(f"benchmarks.keen: no Keen at {args.keen} (Debian: apt-get install sgt-puzzles)")
    if args.repeat < 1:
        sys.exit("benchmarks.keen: --repeat must be 1 or more")
    print(f"uptime: {uptime()}")
    print(f"cpu: {cpu_model()}, {os.cpu_count()} cores")
    print(f"{'kind':<20}{'Keen median':>12}{'p95':>8}{'kaldoku median':>16}{'p99':>8}{'max':>8}"
          f"{'ratio':>8}  note   (CPU ms per puzzle, {args.seeds} seeds"
          f"{f', least of {args.repeat} runs' if args.repeat > 1 else ''})"
          f"{'; graded: share at the level, Keen per such puzzle, kaldoku mean, ratio' if args.graded else ''}")
    for size in map(int, args.sizes.split(",")):
        for ops in args.ops.split(","):
            for level in args.levels.split(","):
                kind = GameKind(size, ops, level)
                if not kind.offered:
                    continue
                theirs = least_of([keen_cpu_seconds(keen, keen_params(kind), args.seeds) for _ in range(args.repeat)])
                ours = kaldoku_least(kind, list(range(args.first_seed, args.first_seed + args.seeds)), args.repeat)
                ratio = statistics.median(ours) / max(statistics.median(theirs), 1e-5)
                most = target(kind, statistics.median(theirs))
                note = "over" if most is not None and ratio > most else ""
                print(f"{kind.key:<20}{statistics.median(theirs) * 1000:>12.1f}"
                      f"{percentile(theirs, 0.95) * 1000:>8.1f}{statistics.median(ours) * 1000:>16.1f}"
                      f"{percentile(ours, 0.99) * 1000:>8.0f}{max(ours) * 1000:>8.0f}"
                      f"{ratio:>7.2f}×  {note:<5}{graded(kind, keen, args.seeds, theirs, ours) if args.graded else ''}",
                      flush=True)
    print(f"uptime: {uptime()}")


if __name__ == "__main__":
    main()
