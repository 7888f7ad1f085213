"""Time `kaldoku` on hostile puzzle input: huge cages and oversized or broken files.

    python -m benchmarks.hostile [--runs 3] [--only puzzles|terminal]

Each case runs the installed command (`python -m kaldoku_tui`) as a user would, and the
table gives the best wall time of RUNS runs, the exit status, the first line it printed
and the case's time bound. The pathological puzzles are the fixtures tests/puzzles/
hostile_*.json; the oversized inputs are made here in a temporary directory: 10 MB of
leading whitespace, a Keen ID with 5 million clues, a cage listing a million cells (all
over the byte limit), then the same kinds under it (refused by the limits on clues,
cells and cages), one byte that is not UTF-8, and targets no filling reaches (12 and
4,000 digits, 1e8, 1e9). Each must be answered or refused within its bound.

The second table floods the game on a real terminal (tmux at 80×24, sent as one paste):
300 KB of typing, a 3 MB bracketed paste, a 1 MB OSC string, 20,000 unknown CSI
sequences, 20,000 mouse moves, and all of them. For each: the CPU seconds the game used
and the seconds until it was idle again (under a tenth of a core for half a second; never
within FLOOD_SETTLE), its resident memory before and after, and the seconds from `q`
to the process's exit, which must be under one.
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


def huge_targets(folder: Path) -> list[tuple[str, Path]]:
    """Puzzles whose 2×2 cage r1c1 has a target no filling reaches: (name, file)."""
    quarters = [[[r + dr, c + dc] for dr in (0, 1) for dc in (0, 1)] for r in (0, 2) for c in (0, 2)]

    def puzzle(op: str, target: str) -> str:
        cages = [{"cells": q, "op": "+", "target": 10} for q in quarters[1:]]
        first = json.dumps({"cells": quarters[0], "op": op, "target": 0}).replace(": 0}", f": {target}}}")
        return '{"size": 4, "cages": [%s, %s]}' % (first, json.dumps(cages)[1:-1])

    cases = {
        "typed a 999999999999+": "a a b b\na a b b\nc c d d\nc c d d\na 999999999999+\nb 10+\nc 10+\nd 10+\n",
        "JSON target of 4,000 digits, +": puzzle("+", "9" * 4000),
        "JSON target 1e8, +": puzzle("+", str(10**8)),
        "JSON target 1e9, +": puzzle("+", str(10**9)),
    }
    files = []
    for i, (name, text) in enumerate(cases.items()):
        path = folder / f"target{i}"
        path.write_text(text)
        files.append((name, path))
    return files


def floods() -> dict[str, bytes]:
    """What a hostile terminal (or a paste) sends: each case is sent at once."""
    import random

    typing = bytes(random.Random(13).choice(b"123456789hjklu ") for _ in range(300_000))
    mouse = b"".join(b"\x1b[<35;%d;%dM" % (1 + i % 80, 1 + i % 24) for i in range(20_000))
    return {
        "300 KB typed, unbracketed": typing,
        "3 MB bracketed paste": b"\x1b[200~" + b"kg1-" * 750_000 + b"\x1b[201~",
        "OSC string of 1 MB": b"\x1b]0;" + b"x" * 1_000_000 + b"\x07",
        "20,000 CSI ending in q": b"\x1b[2 q" * 20_000,
        "20,000 mouse moves": mouse,
        "all of them, twice": (typing + mouse + b"\x1b[2 q" * 20_000) * 2,
    }


FLOOD_SETTLE = 120.0
"""Seconds a flood may keep the game busy before the case is reported as never settling."""


def flood_rows(cases: dict[str, bytes]) -> list[tuple]:
    """For each flood, on a fresh game in tmux at 80×24: CPU seconds used and seconds
    until the game is idle again, RSS before and after (MB), and seconds from `q` to exit."""
    from tests.sshbox import KALDOKU, Terminal, settled, usage, wait_for

    rows = []
    for name, data in cases.items():
        with tempfile.TemporaryDirectory() as home:
            env = {"TERM": "xterm-256color", "LANG": "C.UTF-8", "KALDOKU_HOME": home}
            terminal = Terminal([KALDOKU, "4:aa_a__a__a_a__a_a,d2m12s1a5s1m4d2a5"], env=env)
            try:
                terminal.wait_for_text("┛")
                pid = terminal.pane_pid()
                cpu0, rss0 = usage(pid)
                start = time.monotonic()
                terminal.paste(data, bracketed=data.startswith(b"\x1b[200~"))
                cpu1 = settled(pid, timeout=FLOOD_SETTLE)
                busy = time.monotonic() - start
                rss1 = usage(pid)[1]
                start = time.monotonic()
                terminal.press("q")
                quit_after = time.monotonic() - start if wait_for(terminal.dead, timeout=15) else None
            finally:
                terminal.close()
        rows.append((name, len(data), None if cpu1 is None else cpu1 - cpu0, busy, rss0 / 1024,
                     rss1 / 1024, quit_after))
    return rows


def print_floods(rows: list[tuple]) -> int:
    print(f"{'flood':28} {'bytes':>9} {'CPU s':>7} {'busy s':>7} {'RSS MB':>13} {'q→exit s':>8}")
    bad = 0
    for name, size, cpu, busy, rss0, rss1, quit_after in rows:
        bad += cpu is None or quit_after is None or quit_after > 1.0
        print(f"{name:28} {size:9,} {'never' if cpu is None else f'{cpu:7.2f}':>7} {busy:7.2f} "
              f"{rss0:6.0f}→{rss1:<6.0f} {'no' if quit_after is None else f'{quit_after:8.2f}':>8}")
    print(f"{len(rows)} floods, {bad} never settled or did not quit within 1 s")
    return bad


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="runs per case, best time kept")
    parser.add_argument("--only", choices=("puzzles", "terminal"), help="one table of the two")
    args = parser.parse_args(argv)
    if args.only == "terminal":
        return 1 if print_floods(flood_rows(floods())) else 0
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
        for name, path in huge_targets(Path(folder)):
            for command in ("check", "solve", "grade", "print"):
                seconds, status, first = run(kaldoku + [command, "-"], path, args.runs)
                rows.append((name, command, seconds, INPUT_BOUND, status, first))
    print(f"{'case':32} {'command':7} {'seconds':>7} {'bound':>5} {'exit':>4}  first line")
    late = 0
    for name, command, seconds, bound, status, first in rows:
        flag = "" if seconds <= bound else "  LATE"
        late += seconds > bound
        print(f"{name:32} {command:7} {seconds:7.2f} {bound:5.1f} {status:4}  {first[:90]}{flag}")
    print(f"{len(rows)} cases, {late} over their bound")
    if args.only == "puzzles":
        return 1 if late else 0
    print()
    bad = print_floods(flood_rows(floods()))
    return 1 if late or bad else 0


if __name__ == "__main__":
    sys.exit(main())
