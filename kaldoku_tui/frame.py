"""The lines of a board: cage walls heavy, the lines inside cages light, and the right
box-drawing character at every crossing (ASCII: `=` and `|` for walls, `-` and `:`
inside). No Textual here: the game's grid and `kaldoku print` both draw with it.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

from kaldoku_tui.engine.puzzle import Puzzle


def _box_characters() -> dict[tuple[str, ...], str]:
    """Box-drawing characters by their (up, right, down, left) arms, each "", "light" or "heavy".

    Read from the Unicode names, such as "BOX DRAWINGS UP HEAVY AND DOWN HORIZONTAL LIGHT".
    """
    directions = {
        "UP": ("UP",), "DOWN": ("DOWN",), "LEFT": ("LEFT",), "RIGHT": ("RIGHT",),
        "VERTICAL": ("UP", "DOWN"), "HORIZONTAL": ("LEFT", "RIGHT"),
    }  # fmt: skip
    table: dict[tuple[str, ...], str] = {}
    for code in [*range(0x2500, 0x2504), *range(0x250C, 0x254C)]:
        char = chr(code)
        arms: dict[str, str] = {}
        parts = unicodedata.name(char).removeprefix("BOX DRAWINGS ").split(" AND ")
        weights = [next((w for w in part.split() if w in ("LIGHT", "HEAVY")), "") for part in parts]
        for part, weight in zip(parts, weights):
            weight = weight or next(w for w in weights if w)
            for word in part.split():
                for arm in directions.get(word, ()):
                    arms[arm] = weight.lower()
        key = tuple(arms.get(arm, "") for arm in ("UP", "RIGHT", "DOWN", "LEFT"))
        table[key] = char
    return table


BOX = _box_characters()


@dataclass(frozen=True)
class Frame:
    """The lines of one puzzle's board: which edges are cage walls, and the characters."""

    junctions: tuple[tuple[tuple[str, bool], ...], ...]
    """At each crossing (i, j), 0 <= i, j <= N: its character and whether it touches a wall."""
    across: tuple[tuple[bool, ...], ...]
    """across[i][c]: whether the line above row i in column c is a wall (i = N: the bottom)."""
    down: tuple[tuple[bool, ...], ...]
    """down[r][j]: whether the line left of column j in row r is a wall (j = N: the right)."""
    across_chars: tuple[str, str]
    """The characters of a light and of a heavy line across."""
    down_chars: tuple[str, str]
    """The characters of a light and of a heavy line down."""

    @classmethod
    def of(cls, puzzle: Puzzle, ascii: bool) -> Frame:
        n = puzzle.size
        cage = puzzle.cage_index
        across = tuple(
            tuple(i in (0, n) or cage((i - 1, c)) != cage((i, c)) for c in range(n))
            for i in range(n + 1)
        )
        down = tuple(
            tuple(j in (0, n) or cage((r, j - 1)) != cage((r, j)) for j in range(n + 1))
            for r in range(n)
        )
        name = {True: "heavy", False: "light", None: ""}
        junctions = []
        for i in range(n + 1):
            row = []
            for j in range(n + 1):
                arms = (
                    down[i - 1][j] if i > 0 else None,
                    across[i][j] if j < n else None,
                    down[i][j] if i < n else None,
                    across[i][j - 1] if j > 0 else None,
                )
                char = "+" if ascii else BOX[tuple(name[arm] for arm in arms)]
                row.append((char, any(arms)))
            junctions.append(tuple(row))
        if ascii:
            return cls(tuple(junctions), across, down, ("-", "="), (":", "|"))
        return cls(tuple(junctions), across, down, ("─", "━"), ("│", "┃"))
