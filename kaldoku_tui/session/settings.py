"""The player's settings: plain values, kept in the store's settings table."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, fields
from typing import Any

THEME_NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,39}")
"""What a theme's name may be (Textual's are like "textual-dark", "nord"): a name read
back from the store that is not one is dropped."""


@dataclass(frozen=True)
class Settings:
    """How the game behaves, the same for every game until the player changes it."""

    auto_clean_notes: bool = True
    """Placing a digit removes it from the notes of its row and column."""
    shade_peers: bool = False
    """Shade the cursor's row, column and cage."""
    light_numbers: bool = False
    """Light the cursor's row and column numbers and its cage's label. Off by default: a
    cursor move then sends the least down a slow link (its two cells)."""
    show_clock: bool = True
    """Show the time played in the title (it runs and counts either way)."""
    show_mistakes: bool = False
    """Mark a digit that differs from the solution as soon as it is placed: help, as a
    check is (a broken rule, a repeated digit, shows whatever this says)."""
    theme: str = ""
    """The colour theme picked in the command palette; "" for the default."""

    @classmethod
    def from_dict(cls, data: Any) -> Settings:
        """Settings as saved: unknown keys are ignored, a missing or malformed value is
        the default (so an older or newer kaldoku's file still loads)."""
        if not isinstance(data, dict):
            return cls()
        return cls(**{f.name: data[f.name] for f in fields(cls) if valid(f.name, data.get(f.name))})

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def valid(name: str, value: Any) -> bool:
    """Whether `value` is a value setting `name` can have."""
    if name == "theme":
        return isinstance(value, str) and THEME_NAME.fullmatch(value) is not None
    return isinstance(value, bool)
