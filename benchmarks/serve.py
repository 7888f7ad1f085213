"""Many players typing at once on one `kaldoku serve`: key-to-echo latency, memory, CPU.

    python -m benchmarks.serve [--sessions 50] [--seconds 30] [--interval 0.5]

Starts `kaldoku serve` (4×4 games, no lobby, a throwaway data directory) on a free port, opens
--sessions SSH sessions with asyncssh clients, each with its own key and from its own
loopback address (127.0.1.N), as that many players would. Once every board is showing,
each player types a digit into its first cell every --interval seconds (1 2 3 4 1 ...: each
changes the cell) for --seconds, and times each key until the cell shows it. Then each
player quits and the digits kept in its store are checked against the moves typed.

Prints one table: sessions, keys typed, the echo latency (median, p95, max), keys with no
echo within 5 s, memory per session (the game process's proportional set size, PSS, and
the server's growth divided among the sessions), CPU (server and games, % of one core
over the typing) and moves lost. Bounded: at most --seconds of typing plus the start-up
(capped at 5 minutes) and the clean-up.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import asyncssh

BOARD_SHOWN = "4×4".encode()
ECHO_TIMEOUT = 5.0
START_TIMEOUT = 300.0


@dataclass
class Player:
    """One benchmark session: its key's fingerprint, the digits it typed, the times they took."""

    number: int
    fingerprint: str = ""
    typed: list[int] = field(default_factory=list)
    latencies: list[float] = field(default_factory=list)
    missed: int = 0


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_seconds(pid: int) -> float:
    """User and system CPU time of process `pid` so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / 100  # utime, stime in clock ticks (USER_HZ 100)


def kib(pid: int, name: str, file: str = "status") -> int:
    """A kB figure (VmRSS, Pss...) of process `pid`, 0 when it is gone."""
    try:
        text = Path(f"/proc/{pid}/{file}").read_text()
    except OSError:
        return 0
    found = re.search(rf"^{name}:\s+(\d+)", text, re.MULTILINE)
    return int(found.group(1)) if found else 0


def game_pids(server: int) -> list[int]:
    found = subprocess.run(["pgrep", "-P", str(server)], capture_output=True, text=True, check=False)
    return [int(pid) for pid in found.stdout.split()]


async def play(player: Player, port: int, started: asyncio.Event, go: asyncio.Event,
               stop: asyncio.Event, interval: float) -> None:
    """Connect, wait for the board, then type until `stop` and quit."""
    key = asyncssh.generate_private_key("ssh-ed25519")
    player.fingerprint = key.get_fingerprint("sha256")
    address = f"127.0.1.{player.number + 1}"
    async with asyncssh.connect("127.0.0.1", port, username="bench", client_keys=[key], known_hosts=None,
                                local_addr=(address, 0)) as conn:
        process = await conn.create_process(term_type="xterm-256color", term_size=(80, 24), encoding=None)
        seen = b""
        while BOARD_SHOWN not in seen:
            seen = seen[-64:] + await process.stdout.read(65536)
        started.set()
        await go.wait()
        digit = 0
        while not stop.is_set():
            digit = digit % 4 + 1
            echo = b"m   %d   " % digit
            began = time.monotonic()
            process.stdin.write(str(digit).encode())
            player.typed.append(digit)
            try:
                seen = b""
                while echo not in seen:
                    seen = seen[-64:] + await asyncio.wait_for(process.stdout.read(65536), ECHO_TIMEOUT)
                player.latencies.append(time.monotonic() - began)
            except TimeoutError:
                player.missed += 1
            await asyncio.sleep(max(0.0, interval - (time.monotonic() - began)))
        process.stdin.write(b"q")
        await asyncio.wait_for(process.wait(), 30)


def kept_digit(data: Path, fingerprint: str) -> tuple[int, int] | None:
    """The digit in the first cell of the player's saved game and the number of its moves."""
    from kaldoku_tui.session import Session
    from kaldoku_tui.session.store import open_store

    with open_store(data, f"key:{fingerprint}") as store:
        games = store.open_games()
        saved = store.game(games[0].id) if games else None
    if saved is None:
        return None
    session = Session.resume(saved.puzzle, saved.moves, saved.kind, now=lambda: 0.0)
    return session.board.view().grid[0][0], len(saved.moves)


def measure(sessions: int, seconds: float, interval: float, data: Path) -> dict:
    """Run the server and the players; the figures of the table."""
    port = free_port()
    with open(data.parent / "serve.log", "w") as log:
        server = subprocess.Popen(
            [sys.executable, "-m", "kaldoku_tui", "serve", "--port", str(port), "--data-dir", str(data),
             "--size", "4", "--no-lobby", "--max-sessions", str(sessions + 10), "--per-address", "5"],
            stdout=subprocess.PIPE, stderr=log, text=True)
        try:
            server.stdout.readline()
            idle_rss = kib(server.pid, "VmRSS")
            result = asyncio.run(run(sessions, seconds, interval, port, server.pid))
        finally:
            server.terminate()
            server.wait(30)
    result["server"] = (result.pop("server_rss") - idle_rss) / 1024 / sessions
    players = result.pop("players")
    lost = 0
    for player in players:
        kept = kept_digit(data, player.fingerprint)
        if kept is None or kept[0] != player.typed[-1] or kept[1] < len(player.typed):
            lost += 1
    result["lost"] = lost
    return result


async def run(sessions: int, seconds: float, interval: float, port: int, server: int) -> dict:
    """The players, connected one after another, then typing together for `seconds`."""
    players = [Player(i) for i in range(sessions)]
    started = [asyncio.Event() for _ in players]
    go, stop = asyncio.Event(), asyncio.Event()
    tasks = []
    for player, event in zip(players, started, strict=True):
        tasks.append(asyncio.create_task(play(player, port, event, go, stop, interval)))
        await asyncio.sleep(0.05)  # a crowd arriving, not one instant
    await asyncio.wait_for(asyncio.gather(*(e.wait() for e in started)), START_TIMEOUT)
    games = game_pids(server)
    cpu_before = cpu_seconds(server), sum(cpu_seconds(pid) for pid in games)
    go.set()
    began = time.monotonic()
    await asyncio.sleep(seconds)
    elapsed = time.monotonic() - began
    cpu_after = cpu_seconds(server), sum(cpu_seconds(pid) for pid in games if Path(f"/proc/{pid}").exists())
    pss = [kib(pid, "Pss", "smaps_rollup") for pid in games]
    server_rss = kib(server, "VmRSS")
    stop.set()
    await asyncio.gather(*tasks)
    latencies = sorted(t for p in players for t in p.latencies)
    return {
        "sessions": sessions, "keys": sum(len(p.typed) for p in players),
        "median": statistics.median(latencies) * 1000 if latencies else float("nan"),
        "p95": latencies[int(0.95 * (len(latencies) - 1))] * 1000 if latencies else float("nan"),
        "max": latencies[-1] * 1000 if latencies else float("nan"),
        "missed": sum(p.missed for p in players),
        "pss": statistics.mean(pss) / 1024 if pss else float("nan"),
        "server_rss": server_rss, "players": players,
        "server_cpu": (cpu_after[0] - cpu_before[0]) / elapsed * 100,
        "games_cpu": (cpu_after[1] - cpu_before[1]) / elapsed * 100,
    }


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--interval", type=float, default=0.5, help="seconds between one player's keys")
    args = parser.parse_args(argv)
    directory = Path(tempfile.mkdtemp(prefix="kaldoku-serve-bench-"))
    try:
        data = directory / "data"
        result = measure(args.sessions, args.seconds, args.interval, data)
    finally:
        shutil.rmtree(directory, ignore_errors=True)
    print(f"kaldoku serve, {args.sessions} players typing a digit every {args.interval} s for "
          f"{args.seconds:.0f} s (asyncssh clients on loopback, 4×4 games); load average "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    header = ("sessions", "keys", "echo median", "echo p95", "echo max", "no echo", "PSS/game",
              "server/session", "server CPU", "games CPU", "players with moves lost")
    row = (f"{result['sessions']}", f"{result['keys']}", f"{result['median']:.0f} ms", f"{result['p95']:.0f} ms",
           f"{result['max']:.0f} ms", f"{result['missed']}", f"{result['pss']:.1f} MiB",
           f"{result['server']:.2f} MiB", f"{result['server_cpu']:.0f} %", f"{result['games_cpu']:.0f} %",
           f"{result['lost']}")
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
