"""Puzzle texts: the JSON form (one object or JSON Lines), Keen game IDs and the typed layout.

All three are described in formats.md. Readers raise PuzzleError naming the problem,
and refuse oversized text before reading it; writers give text that reads back as the
same puzzle (the typed layout and Keen IDs without the solution and the extra keys).
"""

from __future__ import annotations

import json
import re
from itertools import groupby
from typing import Any

from kaldoku_tui.engine.kinds import MAX_SIZE, MIN_SIZE
from kaldoku_tui.engine.pieces import is_piece_string, read_pieces
from kaldoku_tui.engine.puzzle import (HIDDEN, OP_ALIASES, OP_SYMBOLS, Cage, Cell, Puzzle, PuzzleError, can_fill,
                                      cell_name, to_grid)

"""Other spellings readers accept for an operation."""

MAX_TEXT = 2_000_000
"""The longest puzzle text read, in characters (or bytes of a file): a thousand 9×9 puzzles."""

MAX_CELLS = MAX_SIZE * MAX_SIZE
"""No puzzle has more cells, so no cage lists more and no puzzle has more cages or clues."""

FORMATS = ("json", "keen", "text")
"""The puzzle texts kaldoku writes: JSON Lines, Keen game IDs, the typed layout."""

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
    if len(data["cages"]) > MAX_CELLS:
        raise PuzzleError(f"{len(data['cages'])} cages; a puzzle has at most {MAX_CELLS}")
    cages = [_cage_from_dict(i + 1, cage) for i, cage in enumerate(data["cages"])]
    solution = data.get("solution")
    if solution is not None and not (
        isinstance(solution, list)
        and all(isinstance(row, list) and all(_is_int(d) for d in row) for row in solution)
    ):
        raise PuzzleError("solution must be a list of rows of whole numbers")
    meta = {key: value for key, value in data.items() if key not in CORE_KEYS}
    return Puzzle(size, tuple(cages), None if solution is None else to_grid(solution), meta)


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
    _check_length(text)
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
    if isinstance(cells, list) and len(cells) > MAX_CELLS:
        raise PuzzleError(f"{where} lists {len(cells)} cells; a board has at most {MAX_CELLS}")
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


def _check_length(text: str) -> None:
    if len(text) > MAX_TEXT:
        raise PuzzleError(f"too large to read: more than {MAX_TEXT:,} characters")


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
    clues = _read_clues(match[3], size * size)
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
    """The Keen game ID of a puzzle, encoded as Keen encodes it; a hidden operation is refused."""
    hidden = next((cage for cage in puzzle.cages if cage.hidden), None)
    if hidden is not None:
        raise PuzzleError(
            f"a Keen game ID cannot hold a hidden operation (the {hidden.label()} cage at "
            f"{cell_name(hidden.anchor)})"
        )
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


def _read_clues(code: str, most: int) -> list[tuple[str, int]]:
    """The clues as (letter, target); the letter is empty for a bare number. More than
    `most` (one a cell) are refused as soon as they are seen."""
    clues: list[tuple[str, int]] = []
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
        if len(clues) > most:
            raise PuzzleError(f"Keen game ID: more clues than the board's {most} cells")
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


# --- The typed layout ----------------------------------------------------------------

TYPED_NAME = re.compile(r"[A-Za-z0-9]+")
"""A cage name in the typed layout: a run of letters and digits."""

TYPED_OPS = {"+": "+", "-": "-", "−": "-", "x": "*", "X": "*", "*": "*", "×": "*",
             "/": "/", "÷": "/", "?": HIDDEN, "=": "="}
"""How an operation may be typed after (or before) a target."""

TYPED_CLUE = re.compile(r"([^0-9]?)([0-9]{1,12})([^0-9]?)")
"""A clue: its target with at most one sign before or after (which must be one of TYPED_OPS)."""

TYPED_SYMBOLS = {**OP_SYMBOLS, HIDDEN: "?"}
"""How the typed layout writes each operation (a single cell as its bare target)."""


def read_typed(text: str) -> list[Puzzle]:
    """Every puzzle typed in `text`: a grid of cage names, then a clue a line (formats.md
    section 3). Another grid may follow once every cage has its clue."""
    _check_length(text)
    lines = []
    for number, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if line:
            lines.append((number, line))
    puzzles: list[Puzzle] = []
    pos = 0
    while pos < len(lines):
        puzzle, pos = _read_one_typed(lines, pos, first=not puzzles)
        puzzles.append(puzzle)
    return puzzles


def _read_one_typed(lines: list[tuple[int, str]], pos: int, first: bool) -> tuple[Puzzle, int]:
    number, line = lines[pos]
    size = len(line.split())
    if size == 2 and not first:
        raise PuzzleError(f"line {number}: every cage has its clue already; {_shown(line)} is left over")
    if not MIN_SIZE <= size <= MAX_SIZE:
        raise PuzzleError(
            f"line {number}: a row of {size} cage names; a board is {MIN_SIZE} to {MAX_SIZE} cells wide"
        )
    cells: dict[str, list[Cell]] = {}
    seen_on: dict[str, int] = {}
    for r in range(size):
        if pos + r >= len(lines):
            end = lines[-1][0] + 1
            raise PuzzleError(f"line {end}: the grid ends after {r} rows, expected {size}")
        number, line = lines[pos + r]
        names = line.split()
        if len(names) != size:
            raise PuzzleError(f"line {number}: row has {len(names)} names, expected {size}")
        for c, name in enumerate(names):
            if not TYPED_NAME.fullmatch(name):
                raise PuzzleError(f"line {number}: {_shown(name)} is not a cage name (letters and digits)")
            cells.setdefault(name, []).append((r, c))
            seen_on.setdefault(name, number)
    pos += size
    cages: dict[str, Cage] = {}
    while pos < len(lines) and len(cages) < len(cells):
        number, line = lines[pos]
        name, cage = _typed_clue(number, line, cells, cages, size)
        cages[name] = cage
        pos += 1
    missing = next((name for name in cells if name not in cages), None)
    if missing is not None:
        raise PuzzleError(f"line {seen_on[missing]}: cage {missing!r} has no clue")
    return Puzzle(size, tuple(cages.values())), pos


def _typed_clue(
    number: int, line: str, cells: dict[str, list[Cell]], cages: dict[str, Cage], size: int
) -> tuple[str, Cage]:
    """The cage named on a clue line, with its clue."""
    where = f"line {number}"
    name, clue = (line.split(None, 1) + [""])[:2]
    if name not in cells:
        raise PuzzleError(f"{where}: no cage named {_shown(name)} in the grid")
    if name in cages:
        raise PuzzleError(f"{where}: cage {name!r} has a second clue")
    clue = "".join(clue.split())
    match = TYPED_CLUE.fullmatch(clue)
    if not match or (match[1] and match[3]) or (match[1] or match[3] or "=") not in TYPED_OPS:
        raise PuzzleError(f"{where}: {_shown(clue)} is not a clue such as 12+, 3÷ or 7? (cage {name!r})")
    members = cells[name]
    op = TYPED_OPS[match[1] or match[3] or "="]
    if len(members) == 1 and op == HIDDEN:
        op = "="
    if len(members) > 1 and op == "=":
        raise PuzzleError(
            f"{where}: cage {name!r} has {len(members)} cells: its clue needs an operation "
            "(? when hidden)"
        )
    try:
        cage = Cage(tuple(members), op, int(match[2]))
    except PuzzleError as exc:
        raise PuzzleError(f"{where}: cage {name!r}: {exc}") from None
    if not can_fill(size, cage):
        raise PuzzleError(f"{where}: cage {name!r}: no digits 1..{size} make {clue}")
    return name, cage


def to_typed(puzzle: Puzzle) -> str:
    """The typed layout of a puzzle: cages named a, b, c... in reading order, then their clues."""
    names = _typed_names(len(puzzle.cages))
    width = max(map(len, names))
    rows = [
        " ".join(names[puzzle.cage_index((r, c))].ljust(width) for c in range(puzzle.size)).rstrip()
        for r in range(puzzle.size)
    ]
    clues = [f"{name} {cage.target}{TYPED_SYMBOLS[cage.op]}" for name, cage in zip(names, puzzle.cages)]
    return "\n".join(rows + clues) + "\n"


def _typed_names(count: int) -> list[str]:
    """a..z, A..Z, then a1..z9: names enough for 81 cages."""
    letters = [chr(ord("a") + i) for i in range(26)]
    return (letters + [x.upper() for x in letters] + [f"{x}{d}" for d in range(1, 10) for x in letters])[:count]


def _shown(text: str) -> str:
    return repr(text if len(text) <= 40 else text[:37] + "...")


# --- Either ----------------------------------------------------------------------


def read_puzzles(text: str) -> list[Puzzle]:
    """Every puzzle in `text`: JSON (one object, JSON Lines or an array), Keen game IDs
    one a line, one original Kaldoku piece string (see pieces.py), or the typed layout."""
    _check_length(text)
    text = text.lstrip("\ufeff")  # the byte-order mark some editors write
    stripped = text.lstrip()
    if not stripped:
        return []
    if stripped[0] in "{[":
        return read_json(text)
    if is_piece_string(text):
        return [read_pieces(text)]
    lines = [(n, line.strip()) for n, line in enumerate(text.splitlines(), 1) if line.strip()]
    if not (KEEN_ID.fullmatch(lines[0][1]) or KEEN_SEED.fullmatch(lines[0][1])):
        head = lines[0][1].split("#", 1)[0].split()
        if len(head) != 1 and len(head) != 2:  # a comment, or a row of a grid
            return read_typed(text)
    where = "line {}: " if len(lines) > 1 else ""
    puzzles = []
    for number, line in lines:
        if KEEN_SEED.fullmatch(line):
            raise PuzzleError(f"{where.format(number)}{line!r} is a Keen random seed; give its game ID instead")
        if not KEEN_ID.fullmatch(line):
            raise PuzzleError(
                f"{where.format(number)}neither JSON, a Keen game ID nor a typed layout: {_shown(line)}"
            )
        try:
            puzzles.append(read_keen(line))
        except PuzzleError as exc:
            raise PuzzleError(f"{where.format(number)}{exc}") from None
    return puzzles


def read_puzzle_bytes(data: bytes) -> list[Puzzle]:
    """Every puzzle in a file's bytes (see `read_puzzles`), which must be UTF-8 text."""
    if len(data) > MAX_TEXT:
        raise PuzzleError(f"too large to read: more than {MAX_TEXT:,} bytes")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise PuzzleError(
            f"not UTF-8 text: byte 0x{data[exc.start]:02x} at offset {exc.start}"
        ) from None
    return read_puzzles(text)


def write_puzzle(puzzle: Puzzle, form: str) -> str:
    """A puzzle as text in one of FORMATS, ending with a newline."""
    if form == "json":
        return to_json_line(puzzle) + "\n"
    if form == "keen":
        return to_keen(puzzle) + "\n"
    if form == "text":
        return to_typed(puzzle)
    raise PuzzleError(f"format must be one of {', '.join(FORMATS)}, not {form!r}")
