"""Generation beside Simon Tatham's Keen, the two run alternately on one machine.

    python -m benchmarks.keen [--seeds 30] [--sizes 4,6,9] [--levels easy,...] [--ops all,mul]
                              [--keen /usr/games/sgt-keen]

For each kind both programs make (size × level, operator set `all` or `mul`, which is
Keen's "multiplication only"; the kinds kaldoku no longer offers too, to watch their
gap): the median and 95th percentile milliseconds per puzzle of each, seed by seed in
turn, and kaldoku's median over Keen's median and over Keen's batch mean. Keen runs as
one process per puzzle (`--generate 1 PARAMS#SEED`), three times, the fastest counting;
the median time of a process that makes a 3×3 easy puzzle, measured the same way, is
taken off each of its times as process startup. Below a millisecond or two that is still
noise: the "batch mean" column, one process making all the kind's puzzles, startup taken
off once, is the figure to trust there (a mean, pulled up by slow seeds). A kind over
KEEN_RATIO_LIMIT where Keen's median is KEEN_FLOOR or more is noted "over".
Keen comes with Debian's `sgt-puzzles` package (`apt-get install sgt-puzzles`); its
`--generate` needs no display.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time

from benchmarks.engine import percentile
from kaldoku_tui.engine.generator import generate
from kaldoku_tui.engine.kinds import KEEN_RATIO_LIMIT, LEVELS, SIZES, GameKind

KEEN = "/usr/games/sgt-keen"
RUNS = 3
"""Keen makes each puzzle this many times, and the fastest counts."""
KEEN_OPS = {"all": "", "mul": "m"}
"""kaldoku's operator sets that Keen has, and the letter of Keen's parameters for each."""
KEEN_FLOOR = 0.002
"""Seconds: below this median of Keen's, a ratio to it measures noise (see KEEN_RATIO_LIMIT)."""


def keen_params(kind: GameKind) -> str:
    """Keen's parameter text for `kind`, e.g. '9dh' or '6dxm'."""
    return f"{kind.size}d{'enhxu'[LEVELS.index(kind.level)]}{KEEN_OPS[kind.ops]}"


def keen_seconds(keen: str, params: str, seed: int, count: int = 1) -> float:
    """Wall seconds for Keen to make `count` puzzles, its process startup included: the
    least of RUNS runs, since what else the machine does only ever adds to a process's time."""
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        subprocess.run([keen, "--generate", str(count), f"{params}#kaldoku{seed}"], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    return min(times)


def kaldoku_seconds(kind: GameKind, seed: int) -> float:
    start = time.perf_counter()
    generate(kind.size, seed, kind.ops, kind.level, retired=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=30)
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)))
    parser.add_argument("--levels", default=",".join(LEVELS))
    parser.add_argument("--ops", default=",".join(KEEN_OPS))
    parser.add_argument("--keen", default=KEEN, help="Keen's program (Debian: sgt-keen)")
    args = parser.parse_args()
    keen = shutil.which(args.keen)
    if keen is None:
        sys.exit(f"benchmarks.keen: no Keen at {args.keen} (Debian: apt-get install sgt-puzzles)")
    for seed in range(10):  # the first processes start slower: warm the caches
        keen_seconds(keen, "3de", seed)
    startup = statistics.median(keen_seconds(keen, "3de", seed) for seed in range(50))
    print(f"load average {os.getloadavg()[0]:.2f}; Keen's process startup {startup * 1000:.1f} ms "
          f"(taken off its times)")
    print(f"{'kind':<20}{'Keen median':>12}{'p95':>8}{'batch mean':>11}{'kaldoku median':>16}{'p95':>8}"
          f"{'ratio':>8}{'÷ batch':>9}  note")
    for size in map(int, args.sizes.split(",")):
        for ops in args.ops.split(","):
            for level in args.levels.split(","):
                kind = GameKind(size, ops, level)
                if not (kind.offered or kind.retired):
                    continue
                theirs, ours = [], []
                for seed in range(args.seeds):
                    theirs.append(max(keen_seconds(keen, keen_params(kind), seed) - startup, 0.0))
                    ours.append(kaldoku_seconds(kind, seed))
                batch = (keen_seconds(keen, keen_params(kind), 0, args.seeds) - startup) / args.seeds
                ratio = statistics.median(ours) / max(statistics.median(theirs), 1e-4)
                batch_ratio = statistics.median(ours) / max(batch, 1e-4)
                over = ratio > KEEN_RATIO_LIMIT and statistics.median(theirs) >= KEEN_FLOOR
                note = " ".join(word for word, said in (("over", over), ("retired", kind.retired)) if said)
                print(f"{kind.key:<20}{statistics.median(theirs) * 1000:>12.1f}"
                      f"{percentile(theirs, 0.95) * 1000:>8.1f}{batch * 1000:>11.1f}"
                      f"{statistics.median(ours) * 1000:>16.1f}"
                      f"{percentile(ours, 0.95) * 1000:>8.1f}{ratio:>7.1f}×{batch_ratio:>8.1f}×  {note}", flush=True)
    print(f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
