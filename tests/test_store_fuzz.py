"""Hostile store contents: whatever a journal or a 0.1.0 file holds, resuming or carrying it
over either works or is refused in words (MoveError, PuzzleError, a notice), never a crash."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, example, given, settings, strategies as st

from kaldoku_tui.engine.puzzle import PuzzleError
from kaldoku_tui.session import MoveError, Session
from kaldoku_tui.session.moves import JOURNAL_MOVES
from kaldoku_tui.session.legacy import import_legacy
from kaldoku_tui.session.store import open_store

from conftest import EXAMPLE_ID, EXAMPLE_SOLUTION
from strategies import examples

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-10**30, 10**30) | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=6), inner, max_size=5),
    max_leaves=20,
)
STATE = st.lists(st.one_of(st.integers(-2, 12), JSON), min_size=0, max_size=5)
RECORD = st.one_of(
    JSON,
    st.fixed_dictionaries({"move": st.sampled_from(sorted(JOURNAL_MOVES))},
                          optional={"states": st.lists(STATE, max_size=4), "cell": JSON, "digit": JSON}),
)


def example4():
    from kaldoku_tui.engine.formats import read_keen

    return read_keen(EXAMPLE_ID).with_solution(EXAMPLE_SOLUTION)


@settings(max_examples=examples(400), deadline=None)
@given(st.lists(RECORD, max_size=12))
@example([{"move": "place", "states": [[0, 0, 1, [2]]]}])
@example([{"move": "note", "states": [[0, 0, 0, [1e999]]]}])
def test_any_journal_resumes_or_is_refused_in_words(records):
    try:
        session = Session.resume(example4(), records)
    except (MoveError, PuzzleError):
        return
    for cell in session.puzzle.cells:
        assert not (session.board.digit(cell) and session.board.notes(cell))
        assert 0 <= session.board.digit(cell) <= 4


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.sampled_from(["game.json", "stats.json", "settings.json", "bank.json"]),
       content=st.one_of(JSON.map(json.dumps), st.binary(max_size=200).map(lambda b: b.decode("latin-1")),
                         JSON.map(lambda value: json.dumps({"format": "kaldoku-x", "version": 1, "x": value}))))
@example(name="game.json", content="[" * 100000)
@example(name="stats.json", content='{"format":"kaldoku-stats","version":1,"stats":{"kinds":{"3/all/any":'
                                    '{"finished":1e999,"won":0,"unaided":0}}}}')
def test_any_0_1_0_file_is_carried_over_or_set_aside_with_a_notice(tmp_path_factory, name, content):
    home = tmp_path_factory.mktemp("home")
    (home / name).write_text(content.replace("kaldoku-x", f"kaldoku-{name[:-5]}").replace(
        '"x":', f'"{name[:-5]}":'), encoding="utf-8", errors="surrogatepass")
    store = open_store(home)
    notices = import_legacy(store)
    assert all("\n" not in notice for notice in notices)
    assert (home / f"{name}.imported").exists() or (home / f"{name}.unusable").exists()
    store.close()
