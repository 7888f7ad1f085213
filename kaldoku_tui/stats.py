"""The player's record per kind of game: games finished, won, won without help, best time.

Stats are a plain dict (saved as JSON by storage.Store) so that an older or damaged
record still loads: anything missing or malformed counts as zero.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Mapping

from kaldoku_tui.engine.kinds import GameKind


@dataclass(frozen=True)
class Record:
    """One kind of game: `finished` counts wins and give-ups; `best` is the fastest
    win without help, in seconds (None until there is one)."""

    finished: int = 0
    won: int = 0
    unaided: int = 0
    best: float | None = None

    @classmethod
    def from_dict(cls, data: Any) -> Record:
        if not isinstance(data, dict):
            return cls()
        counts = [data.get(name) for name in ("finished", "won", "unaided")]
        best = data.get("best")
        return cls(
            *(n if isinstance(n, int) and not isinstance(n, bool) and n >= 0 else 0 for n in counts),
            best=float(best) if isinstance(best, (int, float)) and not isinstance(best, bool)
            and best >= 0 else None,
        )


def records(stats: Mapping[str, Any] | None) -> list[tuple[GameKind, Record]]:
    """Every kind of game in `stats` with its record: by size, operators, then level."""
    kinds = stats.get("kinds") if isinstance(stats, Mapping) else None
    keys = kinds if isinstance(kinds, dict) else {}
    found = [(kind, record_of(stats, kind)) for kind in map(GameKind.from_key, keys) if kind]
    return sorted(found, key=lambda item: item[0].order())


def record_of(stats: Mapping[str, Any] | None, kind: GameKind) -> Record:
    """The record of `kind` in `stats`."""
    kinds = stats.get("kinds") if isinstance(stats, Mapping) else None
    return Record.from_dict(kinds.get(kind.key) if isinstance(kinds, dict) else None)


def with_game(
    stats: Mapping[str, Any] | None, kind: GameKind, won: bool, seconds: float, helped: bool
) -> dict[str, Any]:
    """`stats` after one more finished game of `kind` (a new dict; `stats` is unchanged)."""
    old = record_of(stats, kind)
    unaided = won and not helped
    best = old.best
    if unaided and (best is None or seconds < best):
        best = round(seconds, 1)
    new = Record(old.finished + 1, old.won + won, old.unaided + unaided, best)
    kinds = dict(stats.get("kinds", {})) if isinstance(stats, Mapping) and isinstance(
        stats.get("kinds"), dict) else {}
    kinds[kind.key] = asdict(new)
    return {"kinds": kinds}
