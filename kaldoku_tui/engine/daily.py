"""The daily puzzle: one a day for everyone, made from the date with no server.

The day is the UTC date, so every player has the same day at the same moment. The
weekday gives a kind of game, easier early in the week. The puzzles of 2026-01-01 to
2030-12-31 are pinned: made once (by generator edition 7, from a seed hashed from the
date) and kept as share codes in dailies.txt, so a day's puzzle is the same in every
kaldoku whatever its generator becomes. A day outside that range is made from its seed
by this kaldoku's generator (the same for everyone on the same kaldoku); `pin_lines`
makes more lines to add to the file before 2030 ends. A pinned day keeps its level as well:
it was graded with the line sum and product rules at hard, where they were until generator
edition 26 (now above extreme, as Keen has them), and 222 of its 1,044 hard days need them.

    Monday     4×4 normal        Friday     8×8 hard
    Tuesday    5×5 normal        Saturday   9×9 unreasonable
    Wednesday  6×6 hard          Sunday     9×9 hard
    Thursday   7×7 hard

Every day uses all four operations.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone
from functools import lru_cache
from hashlib import blake2b
from typing import Iterable, Iterator

from kaldoku_tui.engine.kinds import GameKind
from kaldoku_tui.engine.puzzle import Puzzle

SCHEDULE = (
    GameKind(4, "all", "normal"),
    GameKind(5, "all", "normal"),
    GameKind(6, "all", "hard"),
    GameKind(7, "all", "hard"),
    GameKind(8, "all", "hard"),
    GameKind(9, "all", "unreasonable"),
    GameKind(9, "all", "hard"),
)
"""The kind of each weekday's puzzle, Monday first (as `date.weekday()` counts)."""


def utc_day(moment: datetime | None = None) -> date:
    """The UTC date of `moment` (now when None); a naive moment is taken as UTC."""
    if moment is None:
        return datetime.now(timezone.utc).date()
    if moment.tzinfo is None:
        return moment.date()
    return moment.astimezone(timezone.utc).date()


def daily_kind(day: date) -> GameKind:
    """The size, operations and level of `day`'s puzzle."""
    return SCHEDULE[day.weekday()]


def daily_seed(day: date) -> int:
    """The seed of `day`'s puzzle: a hash of the date, below 2**31 like other seeds."""
    digest = blake2b(f"kaldoku daily {day.isoformat()}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") % 2**31


PINNED_FIRST, PINNED_LAST = date(2026, 1, 1), date(2030, 12, 31)
"""The days whose puzzles dailies.txt keeps, line by line from the first."""


@lru_cache(maxsize=1)
def _pinned_codes() -> tuple[str, ...]:
    """The share codes of dailies.txt, one a day from PINNED_FIRST (comment lines left out)."""
    from importlib.resources import files  # a dozen modules the game's startup does without

    text = files("kaldoku_tui.engine").joinpath("dailies.txt").read_text(encoding="ascii")
    return tuple(line for line in text.splitlines() if line and not line.startswith("#"))


def daily_puzzle(day: date) -> Puzzle:
    """`day`'s puzzle; its meta says which day (`daily`) besides seed, ops and level."""
    from kaldoku_tui.engine.codes import read_code, regenerate  # codes imports this module

    kind = daily_kind(day)
    if PINNED_FIRST <= day <= PINNED_LAST:
        puzzle = read_code(_pinned_codes()[(day - PINNED_FIRST).days])
    else:
        puzzle = regenerate(kind.size, daily_seed(day), kind.ops, kind.level)
    meta = {"seed": daily_seed(day), "ops": kind.ops, "difficulty": kind.level, "daily": day.isoformat()}
    return Puzzle(puzzle.size, puzzle.cages, puzzle.solution, meta)


@lru_cache(maxsize=1)
def _pinned_seeds() -> dict[int, date]:
    days = (PINNED_LAST - PINNED_FIRST).days + 1
    return {daily_seed(day): day for day in (PINNED_FIRST + timedelta(days=k) for k in range(days))}


def pinned_day_of_seed(seed: int) -> date | None:
    """The pinned day whose puzzle was made from `seed`, if any (an old seed code may name it)."""
    return _pinned_seeds().get(seed)


def pin_lines(first: date, last: date) -> Iterator[str]:
    """The lines of dailies.txt for the days `first` to `last`, made by this kaldoku's
    generator: to pin more days, append those after PINNED_LAST and move it on."""
    from kaldoku_tui.engine.codes import share_code
    from kaldoku_tui.engine.generator import generate

    day = first
    while day <= last:
        kind = daily_kind(day)
        yield share_code(generate(kind.size, seed=daily_seed(day), ops=kind.ops, level=kind.level))
        day += timedelta(days=1)


def daily_of(puzzle: Puzzle) -> date | None:
    """The day whose daily puzzle `puzzle` is (as its meta says, and its seed and size
    agree), or None for any other puzzle."""
    text = puzzle.meta.get("daily")
    try:
        day = date.fromisoformat(text) if isinstance(text, str) else None
    except ValueError:
        return None
    if day is None or puzzle.meta.get("seed") != daily_seed(day) or puzzle.size != daily_kind(day).size:
        return None
    return day


def result_line(day: date, clock: str, help_used: int, streak: int | None = None) -> str:
    """The line a player shares when `day`'s puzzle is solved, with no spoiler:
    `kaldoku daily 2026-11-23 · 6×6 hard · 4:12 · no help · streak 5`.

    `clock` is the time as the game's clock shows it; `help_used` counts checks,
    reveals and hints; `streak` is left out when None."""
    kind = daily_kind(day)
    words = [
        f"kaldoku daily {day.isoformat()}",
        f"{kind.size}×{kind.size} {kind.level}",
        clock,
        "no help" if help_used == 0 else "with help",
    ]
    if streak is not None:
        words.append(f"streak {streak}")
    return " · ".join(words)


@dataclass(frozen=True)
class Streaks:
    """Days in a row with the daily puzzle solved: the run still going, and the longest."""

    current: int
    longest: int


def streaks(solved: Iterable[date], today: date) -> Streaks:
    """The streaks of a player who solved the daily puzzles of the days in `solved`.

    The current streak ends today, or yesterday while today's puzzle is still open;
    a day missed before that ends it. Days after `today` are not counted."""
    days = {day for day in solved if day <= today}
    longest = 0
    for day in days:
        if day - timedelta(days=1) not in days:
            length = 1
            while day + timedelta(days=length) in days:
                length += 1
            longest = max(longest, length)
    end = today if today in days else today - timedelta(days=1)
    current = 0
    while end - timedelta(days=current) in days:
        current += 1
    return Streaks(current, longest)
