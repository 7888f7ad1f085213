"""Time `kaldoku` on hostile puzzle input: huge cages and oversized or broken files.

    python -m benchmarks.hostile [--runs 3]

Each case runs the installed command (`python -m kaldoku_tui`) as a user would, and the
table gives the best wall time of RUNS runs, the exit status, the first line it printed
and the case's time bound. The pathological puzzles are the fixtures tests/puzzles/
hostile_*.json; the oversized inputs are made here in a temporary directory: 10 MB of
leading whitespace, a Keen ID with 5 million clues, a cage listing a million cells (all
over the byte limit), then the same kinds under it (refused by the limits on clues,
cells and cages), and one byte that is not UTF-8. Each must be answered or refused within its bound.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "puzzles"

PUZZLE_BOUND = 2.0
"""Seconds within which check, solve or grade of a fixture must answer or refuse."""
INPUT_BOUND = 1.0
"""Seconds within which an oversized or broken input must be refused."""


def oversized(folder: Path) -> list[tuple[str, Path]]:
    """The oversized inputs, written to `folder`: (name, file)."""
    cases = {
        "10 MB of leading whitespace": " " * 10_000_000 + '{"size": 3}',
        "Keen ID with 5 million clues": "9:" + "_" * 145 + "," + "a1" * 5_000_000,
        "cage listing a million cells": json.dumps(
            {"size": 9, "cages": [{"cells": [[0, 0]] * 1_000_000, "op": "+", "target": 3}]}
        ),
        "Keen ID, 900,000 clues (1.8 MB)": "9:" + "_" * 145 + "," + "a1" * 900_000,
        "cage of 200,000 cells (1.6 MB)": json.dumps(
            {"size": 9, "cages": [{"cells": [[0, 0]] * 200_000, "op": "+", "target": 3}]}
        ),
        "40,000 cages (1.8 MB)": json.dumps(
            {"size": 9, "cages": [{"cells": [[0, 0]], "op": "=", "target": 1}] * 40_000}
        ),
        "1.9 MB of whitespace": " " * 1_900_000,
        "byte 0xff": b"\xff",
    }
    files = []
    for i, (name, text) in enumerate(cases.items()):
        path = folder / f"input{i}"
        path.write_bytes(text if isinstance(text, bytes) else text.encode())
        files.append((name, path))
    return files


def run(command: list[str], stdin: Path, runs: int) -> tuple[float, int, str]:
    """Best wall time of `runs` runs with `stdin` as standard input, the status, the first line."""
    best = float("inf")
    for _ in range(runs):
        with stdin.open("rb") as source:
            start = time.perf_counter()
            done = subprocess.run(command, stdin=source, capture_output=True, text=True)
            best = min(best, time.perf_counter() - start)
    first = (done.stdout + done.stderr).strip().splitlines()[0]
    return best, done.returncode, first


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="runs per case, best time kept")
    args = parser.parse_args(argv)
    kaldoku = [sys.executable, "-m", "kaldoku_tui"]
    rows = []
    for fixture in sorted(FIXTURES.glob("hostile_*.json")):
        for command in ("check", "solve", "grade"):
            seconds, status, first = run(kaldoku + [command, "-"], fixture, args.runs)
            rows.append((fixture.stem, command, seconds, PUZZLE_BOUND, status, first))
    with tempfile.TemporaryDirectory() as folder:
        for name, path in oversized(Path(folder)):
            for command in ("check", "solve", "grade"):
                seconds, status, first = run(kaldoku + [command, "-"], path, args.runs)
                rows.append((name, command, seconds, INPUT_BOUND, status, first))
    print(f"{'case':32} {'command':7} {'seconds':>7} {'bound':>5} {'exit':>4}  first line")
    late = 0
    for name, command, seconds, bound, status, first in rows:
        flag = "" if seconds <= bound else "  LATE"
        late += seconds > bound
        print(f"{name:32} {command:7} {seconds:7.2f} {bound:5.1f} {status:4}  {first[:90]}{flag}")
    print(f"{len(rows)} cases, {late} over their bound")
    return 1 if late else 0


if __name__ == "__main__":
    sys.exit(main())
