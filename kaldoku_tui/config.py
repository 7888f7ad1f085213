"""What the game app is built from, as plain data: made by the command line from its
arguments, by a test, or by a server for each of its players. Nothing here reads the
environment or imports Textual."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from pathlib import Path


@dataclass(frozen=True)
class AppConfig:
    """One game app: where its games are kept, how it is shown, what it plays first."""

    data_dir: str | Path | None = None
    """The data directory of the store (None: KALDOKU_HOME, else the platform's)."""
    store: str | None = None
    """A store's URL (postgresql://...) instead of the data directory."""
    player: str | None = None
    """Whose games, settings and records (None: the local player)."""
    ascii: bool = False
    """Draw with ASCII characters only (asked for, or the terminal cannot draw boxes)."""
    colors: str = "auto"
    """The colour depth asked for: auto, truecolor, 256, 16 or none. Textual takes it
    from the environment, so the command line's entry point applies it before the app
    is built (terminal.apply_colors)."""
    puzzle: str | None = None
    """A puzzle to play: a file, a share code or a Keen game ID."""
    size: int | None = None
    """A new puzzle of this size (with seed, ops and difficulty)."""
    seed: int | None = None
    ops: str | None = None
    difficulty: str | None = None
    daily: date | None = None
    """Play the daily puzzle of this day (resumed if begun already)."""
    race: str | None = None
    """Play this race (its short name): its puzzle, resumed if begun already, with the
    other racers' progress on the status line."""
    game: int | None = None
    """Resume this unfinished game (kaldoku games lists them)."""
    terminal_input: bool = False
    """Read the keyboard with kaldoku's own input driver (terminal_input.py): for a real
    terminal only. Off, Textual picks its driver (TEXTUAL_DRIVER: a browser's, a test's)."""

    @property
    def chosen(self) -> bool:
        """Whether a new puzzle's size, seed, operators or level are asked for."""
        return (self.size is not None or self.seed is not None or self.ops is not None
                or self.difficulty is not None)
