"""The bank of ready puzzles: every level of every size kept ready, and kept across restarts."""

import itertools

import pytest

from conftest import sql_write
from kaldoku_tui.bank import STARTING_KINDS, Bank, make_puzzle
from kaldoku_tui.engine.kinds import DEFAULT_KIND, GameKind
from kaldoku_tui.engine.formats import puzzle_to_dict
from kaldoku_tui.engine.generator import Stopped, generate
from kaldoku_tui.engine.puzzle import PuzzleError
from kaldoku_tui.engine.kinds import LEVELS
from kaldoku_tui.engine.techniques import grade
from kaldoku_tui.session.store import open_store

KINDS = [GameKind(3), GameKind(4, "all", "easy"), GameKind(4, "mul", "normal")]


class Maker:
    """Makes puzzles of the kind asked for (small, quick kinds), and remembers what it was asked."""

    def __init__(self):
        self.asked = []
        self.seeds = itertools.count()

    def __call__(self, kind, stop=None):
        self.asked.append(kind)
        return generate(kind.size, seed=next(self.seeds), ops=kind.ops, level=kind.level)


def as_json(puzzles):
    return [puzzle_to_dict(p) for p in puzzles]


def test_starting_kinds_are_every_level_of_every_size():
    expected = {GameKind(n, "all", level) for n in range(3, 10) for level in (None, *LEVELS)
                if GameKind(n, "all", level).offered}
    assert GameKind(9, "all", "hard") in expected and GameKind(3, "all", "extreme") not in expected
    assert set(STARTING_KINDS) == expected
    assert len(STARTING_KINDS) == len(expected)
    assert STARTING_KINDS[0].level is None and DEFAULT_KIND in STARTING_KINDS
    # The slowest kinds to make come last.
    assert STARTING_KINDS[-1] == GameKind(9, "all", "unreasonable")
    assert [kind.level for kind in STARTING_KINDS[-3:]] == ["unreasonable"] * 3


def test_fill_makes_one_of_each_kind_before_a_second():
    bank, make = Bank(open_store(None), depth=2), Maker()
    assert bank.fill(KINDS, make) == 6
    assert make.asked == KINDS + KINDS
    assert all(bank.count(kind) == 2 for kind in KINDS)
    bank.take(KINDS[1])
    assert bank.fill(KINDS, make) == 1
    assert make.asked[-1] == KINDS[1]


def test_fill_stops_when_asked():
    bank, make = Bank(open_store(None), depth=2), Maker()
    assert bank.fill(KINDS, make, stop=lambda: len(make.asked) == 2) == 2
    assert bank.count(KINDS[2]) == 0


def test_stopping_abandons_the_puzzle_being_made():
    asked = itertools.count()
    hard = GameKind(9, "all", "unreasonable")
    bank = Bank(open_store(None), depth=2)
    # No to fill's own question, yes to the generator's first: the generator is under
    # way when told (a later yes could come after a lucky puzzle was already made).
    assert bank.fill([hard], make_puzzle, stop=lambda: next(asked) >= 1) == 0
    assert next(asked) == 2
    assert bank.count(hard) == 0 and hard not in bank.unmakeable
    with pytest.raises(Stopped):
        make_puzzle(hard, stop=lambda: True)


def test_a_kind_that_cannot_be_made_is_left_out_and_the_rest_filled():
    calls = []

    def make(kind, stop):
        calls.append(kind)
        if kind.ops == "mul":
            raise PuzzleError("found no puzzle")
        return Maker()(kind)

    bank = Bank(open_store(None), depth=2)
    assert bank.fill(KINDS, make) == 4
    assert calls.count(KINDS[2]) == 1
    bank.fill(KINDS, make)
    assert calls.count(KINDS[2]) == 1
    assert bank.count(KINDS[0]) == bank.count(KINDS[1]) == 2


def test_ready_puzzles_survive_a_restart(tmp_path):
    bank = Bank(open_store(tmp_path))
    assert bank.count(KINDS[0]) == 0
    made = Maker()
    bank.fill(KINDS, made)
    again = Bank(open_store(tmp_path))
    assert all(again.count(kind) == 2 for kind in KINDS)
    assert again.fill(KINDS, Maker()) == 0
    assert again.take(KINDS[1]) is not None
    assert Bank(open_store(tmp_path)).count(KINDS[1]) == 1, "taken for good"


def test_two_kaldokus_never_take_the_same_puzzle(tmp_path):
    Bank(open_store(tmp_path)).fill(KINDS[:1], Maker())
    one, two = Bank(open_store(tmp_path)), Bank(open_store(tmp_path))
    first, second = one.take(KINDS[0]), two.take(KINDS[0])
    assert first is not None and second is not None
    assert as_json([first]) != as_json([second])
    assert one.take(KINDS[0]) is None and two.count(KINDS[0]) == 0


def test_a_bad_entry_costs_only_itself(tmp_path):
    store = open_store(tmp_path)
    good = Maker()(KINDS[1])
    sql_write(tmp_path, lambda c: c.execute("INSERT INTO bank (kind, puzzle) VALUES (?, ?)",
                                    (KINDS[1].key, '{"size": 12')))
    Bank(store).add(KINDS[1], good)
    assert as_json([Bank(store).take(KINDS[1])]) == [puzzle_to_dict(good)]
    assert Bank(store).count(KINDS[1]) == 0


def test_a_store_that_cannot_save_still_keeps_a_bank(tmp_path):
    blocked = tmp_path / "file"
    blocked.write_text("")
    store = open_store(blocked / "home")
    assert store.notices and store.notices[0].startswith("Saving is off")
    bank = Bank(store)
    bank.fill(KINDS[:1], Maker())
    assert bank.count(KINDS[0]) == 2


@pytest.mark.parametrize("kind", [GameKind(3, "all", "hard"), GameKind(5, "addmul", "normal"), GameKind(6)])
def test_make_puzzle_makes_the_kind_asked_for(kind):
    puzzle = make_puzzle(kind)
    assert GameKind.of(puzzle) == kind
    if kind.level:
        assert grade(puzzle).level == kind.level
