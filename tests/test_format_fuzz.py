"""Fuzzing the puzzle readers: whatever the text, a reader gives puzzles or a PuzzleError.

Four streams of input, 2,400 in all: any text; any bytes; valid JSON, Keen IDs and typed
layouts with random characters cut, doubled or put in; and JSON values of any shape built
from the keys a puzzle uses. The hostile cases of issue 14 come first as explicit examples.
"""

from __future__ import annotations

import json

from hypothesis import example, given, settings
from hypothesis import strategies as st

from kaldoku_tui.engine.formats import puzzle_from_dict, read_puzzle_bytes, read_puzzles, to_typed
from kaldoku_tui.engine.generator import generate
from kaldoku_tui.engine.puzzle import Puzzle, PuzzleError

from strategies import examples

SAMPLES = [
    '{"size": 4, "cages": [{"cells": [[0, 0], [0, 1]], "op": "/", "target": 2}]}',
    "4:aa_a__a__a_a__a_a,d2m12s1a5s1m4d2a5",
    "a a b\nc d b\nc e e\na 4+\nb 4?\nc 3*\nd 1\ne 5+\n",
    json.dumps({"size": 3, "cages": [{"cells": [[r, c]], "op": "=", "target": (r + c) % 3 + 1}
                                     for r in range(3) for c in range(3)]}),
    to_typed(generate(5, seed=1, ops="hidden")),
]
ALPHABET = "{}[]\",:0123456789 \n#abcdxyz_-+*/?=÷×−aAs" + "\x00\ufeff\u202e"


def reads(text: str) -> None:
    try:
        puzzles = read_puzzles(text)
    except PuzzleError:
        return
    assert all(isinstance(p, Puzzle) for p in puzzles)


@settings(max_examples=examples(700), deadline=None)
@given(st.text(max_size=300))
@example("[" * 100_000)
@example('{"size": 9, "cages": [{"cells": [[0, 0]], "op": "+", "target": ' + "9" * 5000 + "}]}")
@example("9:" + "z" * 10_000 + ",a1")
@example("a" * 50 + "\n")
@example("a b c\n" * 3 + "a 1\nb 2\nc 99999999999999\n")
def test_any_text_reads_or_is_refused(text):
    reads(text)


@settings(max_examples=examples(500), deadline=None)
@given(st.binary(max_size=300))
@example(b"\xff")
@example(b"\xc3\x28")
@example(b" " * 2_000_001)
def test_any_bytes_read_or_are_refused(data):
    try:
        puzzles = read_puzzle_bytes(data)
    except PuzzleError:
        return
    assert all(isinstance(p, Puzzle) for p in puzzles)


@st.composite
def mutated(draw):
    text = list(draw(st.sampled_from(SAMPLES)))
    for _ in range(draw(st.integers(1, 6))):
        at = draw(st.integers(0, len(text)))
        kind = draw(st.sampled_from(("cut", "put", "double")))
        if kind == "cut" and at < len(text):
            del text[at]
        elif kind == "put":
            text.insert(at, draw(st.sampled_from(ALPHABET)))
        elif at < len(text):
            text.insert(at, text[at])
    return "".join(text)


@settings(max_examples=examples(800), deadline=None)
@given(mutated())
def test_valid_texts_with_random_edits_read_or_are_refused(text):
    reads(text)


KEYS = st.sampled_from(["size", "cages", "cells", "op", "target", "solution", "seed"])
VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-10, 100) | st.floats() | st.sampled_from(["+", "?", "x", "=", ""]),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(KEYS, inner, max_size=5),
    max_leaves=30,
)


@settings(max_examples=examples(400), deadline=None)
@given(VALUES)
def test_json_values_of_any_shape_are_puzzles_or_refused(value):
    try:
        assert isinstance(puzzle_from_dict(value), Puzzle)
    except PuzzleError:
        pass
