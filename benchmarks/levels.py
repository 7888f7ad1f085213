"""Time generation of every kind offered, and grade Keen's puzzles.

    python -m benchmarks.levels [--seeds 20] [--first-seed 0] [--sizes 3,...,9]
                                [--ops all,addmul,mul] [--levels any,easy,...]
                                [--every-kind] [--no-keen]

Prints, for each kind offered (size × operator set × level, `any` for no level asked):
the median, 95th percentile and maximum seconds to generate a puzzle (seeds FIRST_SEED up, SEEDS of them)
and the share of single-cell cages; a kind over GENERATION_LIMIT at the 95th percentile
is flagged. `--every-kind` measures the kinds not offered too (each stops after SEEDS ×
GENERATION_LIMIT seconds): the run that decides `NOT_OFFERED` in engine/kinds.py.
Then Keen's levels against ours on keen_train.jsonl, for the puzzles whose index is not
a multiple of 5 (the part the techniques were tuned on) and for the held-back rest, with
the median time to grade; and the machine's load average (the machine is shared).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import time
from pathlib import Path

from benchmarks.engine import percentile
from kaldoku_tui.engine.formats import read_puzzles
from kaldoku_tui.engine.generator import Stopped, any_level, generate, leveled
from kaldoku_tui.engine.kinds import (
    GENERATION_LIMIT, LEVELS, OP_SETS, SIZES, GameKind, levels_for,
)
from kaldoku_tui.engine.puzzle import PuzzleError
from kaldoku_tui.engine.techniques import tier_needed

KEEN_TRAIN = Path("/work/shared/data/keen_train.jsonl")
HELD_BACK = 5
"""Puzzles of keen_train whose index is a multiple of this were kept out of tuning."""


def make_one(kind: GameKind, seed: int, stop) -> list:
    """The cages of one puzzle of `kind` (a kind not offered is made as `generate` would
    make it, past its refusal)."""
    if kind.offered:
        return list(generate(kind.size, seed=seed, ops=kind.ops, level=kind.level, stop=stop).cages)
    if kind.level is None:
        return list(any_level(kind.size, random.Random(seed), kind.ops, stop).cages)
    tier = LEVELS.index(kind.level) + 1
    return list(leveled(kind.size, tier, random.Random(seed), kind.ops, stop).cages)


def measure(kind: GameKind, seeds: range) -> tuple[list[float], list[float], str]:
    """Seconds per puzzle, share of single cells per puzzle, and why it stopped early."""
    made, singles = [], []
    deadline = time.perf_counter() + len(seeds) * GENERATION_LIMIT
    for seed in seeds:
        start = time.perf_counter()
        try:
            cages = make_one(kind, seed, lambda: time.perf_counter() > deadline)
        except Stopped:
            return made, singles, "too slow"
        except PuzzleError:
            return made, singles, "failed"
        made.append(time.perf_counter() - start)
        singles.append(sum(len(cage.cells) == 1 for cage in cages) / len(cages))
    return made, singles, ""


def generation_table(args) -> None:
    print(f"{'kind':<24}{'median':>9}{'p95':>9}{'max':>9}{'singles':>9}  note")
    for size in args.sizes:
        for ops in args.ops:
            for level in args.levels:
                if level != "any" and level not in levels_for(size):
                    continue
                kind = GameKind(size, ops, None if level == "any" else level)
                if not kind.offered and not args.every_kind:
                    continue
                made, singles, why = measure(kind, range(args.first_seed, args.first_seed + args.seeds))
                note = why or ("over limit" if percentile(made, 0.95) > GENERATION_LIMIT else "")
                if not kind.offered:
                    note = f"{'retired' if kind.retired else 'not offered'} {note}".strip()
                name = f"{size}×{size} {ops} {level}"
                if not made:
                    print(f"{name:<24}{'-':>9}{'-':>9}{'-':>9}{'-':>9}  {note}", flush=True)
                    continue
                print(f"{name:<24}{statistics.median(made):>8.3f}s{percentile(made, 0.95):>8.3f}s"
                      f"{max(made):>8.3f}s{statistics.mean(singles):>8.1%}  {note}", flush=True)


def keen_table(path: Path) -> None:
    """Keen's level (rows) against ours (columns), tuned part and held-back part."""
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    parts: dict[str, dict[tuple[str, str], int]] = {"tuned": {}, "held back": {}}
    times = []
    for index, row in enumerate(rows):
        puzzle = read_puzzles(row["game_id"])[0]
        start = time.perf_counter()
        tier = tier_needed(puzzle) or 5
        times.append(time.perf_counter() - start)
        table = parts["held back" if index % HELD_BACK == 0 else "tuned"]
        key = (row["difficulty"], LEVELS[tier - 1])
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
    parser.add_argument("--seeds", type=int, default=20, help="puzzles per kind (default 20)")
    parser.add_argument("--first-seed", type=int, default=0, help="the first seed (default 0)")
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)), help="comma-separated sizes")
    parser.add_argument("--ops", default=",".join(OP_SETS), help="comma-separated operator sets")
    parser.add_argument("--levels", default=",".join(("any", *LEVELS)), help="comma-separated levels")
    parser.add_argument("--every-kind", action="store_true", help="measure kinds not offered too")
    parser.add_argument("--no-keen", action="store_true", help="skip the keen_train table")
    parser.add_argument("--keen", type=Path, default=KEEN_TRAIN, help="Keen's puzzles, JSON lines")
    args = parser.parse_args()
    args.sizes = [int(size) for size in args.sizes.split(",")]
    args.ops = args.ops.split(",")
    args.levels = args.levels.split(",")
    print("Load average at start (1, 5, 15 min): " + ", ".join(f"{x:.2f}" for x in os.getloadavg()))
    generation_table(args)
    if not args.no_keen:
        keen_table(args.keen)
    print("Load average at end (1, 5, 15 min): " + ", ".join(f"{x:.2f}" for x in os.getloadavg()))


if __name__ == "__main__":
    main()
