"""Puzzle texts: the JSON form (one object or JSON Lines) and Keen game IDs.

Both are described in formats.md. Readers raise PuzzleError naming the problem;
writers give text that reads back as the same puzzle.
"""

from __future__ import annotations

import json
import re
from itertools import groupby
from typing import Any

from kaldoku_tui.engine.kinds import MAX_SIZE, MIN_SIZE
from kaldoku_tui.engine.puzzle import Cage, Cell, Puzzle, PuzzleError

OP_ALIASES = {"x": "*", "×": "*", "÷": "/", "−": "-"}
"""Other spellings readers accept for an operation."""

CORE_KEYS = ("size", "cages", "solution")
CAGE_KEYS = ("cells", "op", "target")

# --- JSON -------------------------------------------------------------------------


def puzzle_from_dict(data: Any) -> Puzzle:
    """A puzzle from its JSON object; keys other than size, cages and solution go to meta."""
    if not isinstance(data, dict):
        raise PuzzleError(f"a puzzle must be a JSON object, not {_json_type(data)}")
    for key in ("size", "cages"):
        if key not in data:
            raise PuzzleError(f"puzzle has no {key!r} key")
    size = data["size"]
    if not _is_int(size):
        raise PuzzleError(f"size must be a whole number, not {size!r}")
    if not isinstance(data["cages"], list):
        raise PuzzleError(f"cages must be a list, not {_json_type(data['cages'])}")
    cages = [_cage_from_dict(i + 1, cage) for i, cage in enumerate(data["cages"])]
    solution = data.get("solution")
    if solution is not None and not (
        isinstance(solution, list)
        and all(isinstance(row, list) and all(_is_int(d) for d in row) for row in solution)
    ):
        raise PuzzleError("solution must be a list of rows of whole numbers")
    meta = {key: value for key, value in data.items() if key not in CORE_KEYS}
    return Puzzle(size, tuple(cages), solution, meta)


def puzzle_to_dict(puzzle: Puzzle) -> dict[str, Any]:
    """The JSON object of a puzzle: size, cages, solution when known, then its meta."""
    data: dict[str, Any] = {
        "size": puzzle.size,
        "cages": [
            {"cells": [list(cell) for cell in cage.cells], "op": cage.op, "target": cage.target}
            for cage in puzzle.cages
        ],
    }
    if puzzle.solution is not None:
        data["solution"] = [list(row) for row in puzzle.solution]
    data.update((k, v) for k, v in puzzle.meta.items() if k not in CORE_KEYS)
    return data


def to_json_line(puzzle: Puzzle) -> str:
    """The puzzle as one line of JSON."""
    return json.dumps(puzzle_to_dict(puzzle), ensure_ascii=False)


def read_json(text: str) -> list[Puzzle]:
    """Every puzzle in `text`: one JSON object (over any number of lines), JSON Lines,
    or a JSON array of objects. Errors start with the line where the bad puzzle starts."""
    decoder = json.JSONDecoder()
    puzzles: list[Puzzle] = []
    pos = _skip_space(text, 0)
    while pos < len(text):
        line = text.count("\n", 0, pos) + 1
        try:
            value, pos = decoder.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            at = f"column {exc.colno}" if exc.lineno == line else f"line {exc.lineno}, column {exc.colno}"
            raise PuzzleError(f"line {line}: bad JSON: {exc.msg} ({at})") from None
        except ValueError:  # an integer of thousands of digits
            raise PuzzleError(f"line {line}: bad JSON: a number too long to read") from None
        except RecursionError:
            raise PuzzleError(f"line {line}: bad JSON: nested too deeply") from None
        items = value if isinstance(value, list) else [value]
        for item in items:
            try:
                puzzles.append(puzzle_from_dict(item))
            except PuzzleError as exc:
                raise PuzzleError(f"line {line}: {exc}") from None
        pos = _skip_space(text, pos)
    return puzzles


def _cage_from_dict(number: int, data: Any) -> Cage:
    where = f"cage {number}"
    if not isinstance(data, dict):
        raise PuzzleError(f"{where} must be a JSON object, not {_json_type(data)}")
    for key in CAGE_KEYS:
        if key not in data:
            raise PuzzleError(f"{where} has no {key!r} key")
    unknown = sorted(set(data) - set(CAGE_KEYS))
    if unknown:
        raise PuzzleError(f"{where} has unknown key {unknown[0]!r}")
    cells = data["cells"]
    if not isinstance(cells, list) or not all(
        isinstance(cell, list) and len(cell) == 2 and all(_is_int(x) for x in cell)
        for cell in cells
    ):
        raise PuzzleError(f"{where}: cells must be a list of [row, column] pairs of whole numbers")
    op = data["op"]
    if not isinstance(op, str):
        raise PuzzleError(f"{where}: op must be a string, not {op!r}")
    target = data["target"]
    if not _is_int(target):
        raise PuzzleError(f"{where}: target must be a whole number, not {target!r}")
    return Cage(tuple((r, c) for r, c in cells), OP_ALIASES.get(op, op), target)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _json_type(value: Any) -> str:
    names = {dict: "an object", list: "a list", str: "a string", bool: "true/false"}
    if value is None:
        return "null"
    return names.get(type(value), "a number")


def _skip_space(text: str, pos: int) -> int:
    while pos < len(text) and text[pos].isspace():
        pos += 1
    return pos


# --- Keen game IDs ----------------------------------------------------------------

KEEN_ID = re.compile(r"(\d+)[a-z]*:([^,]*),(.*)", re.ASCII)
"""`N:blocks,clues`; letters after N (Keen's difficulty or options) are allowed and ignored."""

KEEN_SEED = re.compile(r"\d+[a-z]*#\S*", re.ASCII)
"""Keen's other kind of ID, `4dh#123456`: a seed for Keen's own generator, not a puzzle."""

KEEN_OPS = {"a": "+", "s": "-", "m": "*", "d": "/"}
KEEN_LETTERS = {"+": "a", "-": "s", "*": "m", "/": "d", "=": "a"}
"""Keen has no `=`: a single cell is written as an addition of one digit, as Keen itself reads it."""

RUN = 25
"""The longest run of non-edges one letter stands for."""


def read_keen(game_id: str) -> Puzzle:
    """The puzzle of a Keen game ID such as `4:aa_a__a__a_a__a_a,d2m12s1a5s1m4d2a5`."""
    match = KEEN_ID.fullmatch(game_id.strip())
    if not match:
        raise PuzzleError("not a Keen game ID: expected SIZE:BLOCKS,CLUES")
    size = _number(match[1])
    if not MIN_SIZE <= size <= MAX_SIZE:
        raise PuzzleError(f"Keen game ID: size must be {MIN_SIZE} to {MAX_SIZE}, not {size}")
    walls = _read_edges(match[2], size)
    groups = _cages_from_walls(size, walls)
    clues = _read_clues(match[3])
    if len(clues) != len(groups):
        raise PuzzleError(
            f"Keen game ID: {len(clues)} clue(s) for {len(groups)} cage(s) in the block code"
        )
    cages = []
    for cells, (letter, target) in zip(groups, clues):
        if len(cells) == 1 and letter in ("", "a", "m"):
            op = "="
        elif letter:
            op = KEEN_OPS[letter]
        else:
            raise PuzzleError(
                f"Keen game ID: bare number {target} as the clue of a {len(cells)}-cell cage"
            )
        cages.append(Cage(cells, op, target))
    return Puzzle(size, tuple(cages))


def to_keen(puzzle: Puzzle) -> str:
    """The Keen game ID of a puzzle, encoded as Keen encodes it."""
    walls = [
        puzzle.cage_index(a) != puzzle.cage_index(b) for a, b in _edges(puzzle.size)
    ] + [True]
    tokens, run = [], 0
    for wall in walls:
        if not wall:
            run += 1
            continue
        while run > RUN:
            tokens.append("z")
            run -= RUN
        tokens.append(chr(ord("a") - 1 + run) if run else "_")
        run = 0
    clues = "".join(f"{KEEN_LETTERS[cage.op]}{cage.target}" for cage in puzzle.cages)
    return f"{puzzle.size}:{_compress(tokens)},{clues}"


def _edges(size: int) -> list[tuple[Cell, Cell]]:
    """The internal edges in Keen's order: vertical ones row by row, then horizontal
    ones column by column; each as the pair of cells it separates."""
    vertical = [((r, k), (r, k + 1)) for r in range(size) for k in range(size - 1)]
    horizontal = [((k, c), (k + 1, c)) for c in range(size) for k in range(size - 1)]
    return vertical + horizontal


def _read_edges(code: str, size: int) -> list[bool]:
    """Whether each internal edge is a wall, from the run-length block code."""
    total = 2 * size * (size - 1)
    marks: list[bool] = []  # one per edge, then the closing virtual edge
    for token in re.finditer(r"([_a-z])(\d*)|(.)", code, re.ASCII):
        if token[3] is not None:
            raise PuzzleError(f"Keen game ID: unexpected {token[3]!r} in the block code")
        letter, count = token[1], _number(token[2] or "1")
        if count < 1:
            raise PuzzleError(f"Keen game ID: repeat count {token[2]} after {letter!r}")
        run = 0 if letter == "_" else ord(letter) - ord("a") + 1
        for _ in range(count):
            if letter == "z":
                marks += [False] * RUN
            else:
                marks += [False] * run + [True]
            if len(marks) > total + 1:
                raise PuzzleError(
                    f"Keen game ID: block code too long for {size}×{size} "
                    f"({total} edges and an end mark)"
                )
    if len(marks) < total + 1 or not marks[-1]:
        raise PuzzleError(
            f"Keen game ID: block code too short for {size}×{size} "
            f"(covers {len(marks)} of {total} edges and an end mark)"
        )
    return marks[:total]


def _cages_from_walls(size: int, walls: list[bool]) -> list[tuple[Cell, ...]]:
    """The cells of each cage, cages in reading order of their first cell."""
    parent = {(r, c): (r, c) for r in range(size) for c in range(size)}

    def root(cell: Cell) -> Cell:
        while parent[cell] != cell:
            parent[cell] = parent[parent[cell]]
            cell = parent[cell]
        return cell

    for (a, b), wall in zip(_edges(size), walls):
        if not wall:
            parent[max(root(a), root(b))] = min(root(a), root(b))
    groups: dict[Cell, list[Cell]] = {}
    for cell in sorted(parent):
        groups.setdefault(root(cell), []).append(cell)
    return [tuple(cells) for cells in groups.values()]


def _read_clues(code: str) -> list[tuple[str, int]]:
    """The clues as (letter, target); the letter is empty for a bare number."""
    clues = []
    for token in re.finditer(r"([a-zA-Z]?)(\d*)|(.)", code, re.ASCII):
        if token[3] is not None:
            raise PuzzleError(f"Keen game ID: unexpected {token[3]!r} in the clues")
        letter, number = token[1], token[2]
        if not letter and not number:
            continue
        if letter and letter not in KEEN_OPS:
            raise PuzzleError(
                f"Keen game ID: unknown clue letter {letter!r} (a add, s subtract, m multiply, d divide)"
            )
        if not number:
            raise PuzzleError(f"Keen game ID: clue {letter!r} has no number")
        clues.append((letter, _number(number)))
    return clues


def _number(digits: str) -> int:
    # No clue or repeat count comes near this; int() fails past 4300 digits.
    if len(digits) > 100:
        raise PuzzleError(f"Keen game ID: number too long: {digits[:10]}...")
    return int(digits)


def _compress(tokens: list[str]) -> str:
    """Keen's repeat counts: a run of three or more equal tokens becomes the token and its count."""
    runs = ((token, len(list(group))) for token, group in groupby(tokens))
    return "".join(token * run if run <= 2 else f"{token}{run}" for token, run in runs)


# --- Either ----------------------------------------------------------------------


def read_puzzles(text: str) -> list[Puzzle]:
    """Every puzzle in `text`: JSON (one object, JSON Lines or an array), Keen game IDs
    one a line, or one original Kaldoku piece string (see pieces.py)."""
    text = text.lstrip("\ufeff")  # the byte-order mark some editors write
    stripped = text.strip()
    if not stripped:
        return []
    if stripped[0] in "{[":
        return read_json(text)
    from kaldoku_tui.engine.pieces import is_piece_string, read_pieces  # pieces imports this module

    if is_piece_string(text):
        return [read_pieces(text)]
    lines = [(n, line.strip()) for n, line in enumerate(text.splitlines(), 1) if line.strip()]
    where = "line {}: " if len(lines) > 1 else ""
    puzzles = []
    for number, line in lines:
        if KEEN_SEED.fullmatch(line):
            raise PuzzleError(f"{where.format(number)}{line!r} is a Keen random seed; give its game ID instead")
        if not KEEN_ID.fullmatch(line):
            shown = line if len(line) <= 40 else line[:37] + "..."
            raise PuzzleError(f"{where.format(number)}neither JSON nor a Keen game ID: {shown!r}")
        try:
            puzzles.append(read_keen(line))
        except PuzzleError as exc:
            raise PuzzleError(f"{where.format(number)}{exc}") from None
    return puzzles
