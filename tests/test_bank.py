"""The bank of ready puzzles: every level of every size kept ready, and kept across restarts."""

import itertools
import json
import os

import pytest

from kaldoku_tui.bank import STARTING_KINDS, Bank, make_puzzle
from kaldoku_tui.engine.kinds import DEFAULT_KIND, GameKind
from kaldoku_tui.engine.formats import puzzle_to_dict
from kaldoku_tui.engine.generator import Stopped, generate
from kaldoku_tui.engine.puzzle import Puzzle, PuzzleError
from kaldoku_tui.engine.kinds import LEVELS
from kaldoku_tui.engine.techniques import grade
from kaldoku_tui.storage import BANK_FILE, Store

KINDS = [GameKind(3), GameKind(4, "all", "easy"), GameKind(4, "mul", "hard")]


class Maker:
    """Makes quick stand-in puzzles of the kind asked for, and remembers what it was asked."""

    def __init__(self):
        self.asked = []
        self.seeds = itertools.count()

    def __call__(self, kind, stop=None):
        self.asked.append(kind)
        plain = generate(kind.size, seed=next(self.seeds))
        return Puzzle(plain.size, plain.cages, plain.solution, {"ops": kind.ops, "difficulty": kind.level})


def as_json(puzzles):
    return [puzzle_to_dict(p) for p in puzzles]


def test_starting_kinds_are_every_level_of_every_size():
    offered = {3: LEVELS[:3]}
    expected = {GameKind(n, "all", level) for n in range(3, 10) for level in (None, *offered.get(n, LEVELS))}
    assert set(STARTING_KINDS) == expected
    assert len(STARTING_KINDS) == len(expected)
    assert STARTING_KINDS[0].level is None and DEFAULT_KIND in STARTING_KINDS
    # The slowest kinds to make come last.
    assert STARTING_KINDS[-2:] == (GameKind(8, "all", "unreasonable"), GameKind(9, "all", "unreasonable"))


def test_fill_makes_one_of_each_kind_before_a_second():
    bank, make = Bank(depth=2), Maker()
    assert bank.fill(KINDS, make) == 6
    assert make.asked == KINDS + KINDS
    assert all(bank.count(kind) == 2 for kind in KINDS)
    bank.take(KINDS[1])
    assert bank.fill(KINDS, make) == 1
    assert make.asked[-1] == KINDS[1]


def test_fill_stops_when_asked():
    bank, make = Bank(depth=2), Maker()
    assert bank.fill(KINDS, make, stop=lambda: len(make.asked) == 2) == 2
    assert bank.count(KINDS[2]) == 0


def test_stopping_abandons_the_puzzle_being_made():
    asked = itertools.count()
    hard = GameKind(9, "all", "extreme")
    bank = Bank(depth=2)
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

    bank = Bank(depth=2)
    assert bank.fill(KINDS, make) == 4
    assert calls.count(KINDS[2]) == 1
    bank.fill(KINDS, make)
    assert calls.count(KINDS[2]) == 1
    assert bank.count(KINDS[0]) == bank.count(KINDS[1]) == 2


def test_ready_puzzles_survive_a_restart(tmp_path):
    bank, notice = Bank.load(Store(tmp_path))
    assert notice is None and bank.count(KINDS[0]) == 0
    bank.fill(KINDS, Maker())
    kept = {kind: as_json(bank.ready[kind]) for kind in KINDS}

    again, notice = Bank.load(Store(tmp_path))
    assert notice is None
    assert {kind: as_json(again.ready[kind]) for kind in KINDS} == kept
    assert again.fill(KINDS, Maker()) == 0


def test_a_bank_restores_its_saved_puzzles_once(tmp_path):
    Bank.load(Store(tmp_path))[0].fill(KINDS, Maker())
    bank = Bank(store=Store(tmp_path))
    assert bank.count(KINDS[0]) == 0, "nothing is read before restore"
    assert bank.restore() is None and bank.count(KINDS[0]) == 2
    assert bank.restore() is None and bank.count(KINDS[0]) == 2
    assert not bank.changed


def test_a_taken_puzzle_is_not_offered_again_after_a_restart(tmp_path):
    bank, _ = Bank.load(Store(tmp_path))
    bank.fill(KINDS, Maker())
    taken = bank.take(KINDS[0])
    bank.fill(KINDS, lambda kind, stop: pytest.fail("stopped before making"), stop=lambda: True)
    again, _ = Bank.load(Store(tmp_path))
    assert again.count(KINDS[0]) == 1
    assert as_json([taken]) != as_json(again.ready[KINDS[0]])


def test_a_corrupt_bank_file_is_set_aside(tmp_path):
    (tmp_path / BANK_FILE).write_text('{"format": "kaldoku-bank", "vers')
    bank, notice = Bank.load(Store(tmp_path))
    assert bank.ready == {}
    assert "bank.json" in notice and "corrupt" in notice
    assert [p.name.startswith("bank.json.corrupt-") for p in tmp_path.iterdir()] == [True]


def test_a_bad_entry_costs_only_itself(tmp_path):
    good = Maker()(KINDS[1])
    no_solution = puzzle_to_dict(good)
    del no_solution["solution"]
    no_such_level = dict(puzzle_to_dict(good), difficulty="fiendish")
    puzzles = [{"size": 12, "cages": []}, "not a puzzle", no_solution, no_such_level, puzzle_to_dict(good)]
    envelope = {"format": "kaldoku-bank", "version": 1, "bank": {"puzzles": puzzles}}
    (tmp_path / BANK_FILE).write_text(json.dumps(envelope))
    bank, notice = Bank.load(Store(tmp_path))
    assert notice is None
    assert list(bank.ready) == [KINDS[1]] and as_json(bank.ready[KINDS[1]]) == [puzzle_to_dict(good)]


def test_a_bank_without_a_list_of_puzzles_is_empty(tmp_path):
    envelope = {"format": "kaldoku-bank", "version": 1, "bank": {"puzzles": 7}}
    (tmp_path / BANK_FILE).write_text(json.dumps(envelope))
    assert Bank.load(Store(tmp_path))[0].ready == {}


def test_an_unwritable_directory_leaves_the_game_to_tell_the_player(tmp_path):
    blocked = tmp_path / "file"
    blocked.write_text("")
    store = Store(blocked / "home")
    bank = Bank(store=store)
    bank.fill(KINDS[:1], Maker())
    assert bank.count(KINDS[0]) == 2
    assert store.save_game({"digits": []}).startswith("Saving is off")


@pytest.mark.parametrize("kind", [GameKind(3, "all", "hard"), GameKind(5, "addmul", "normal"), GameKind(6)])
def test_make_puzzle_makes_the_kind_asked_for(kind):
    puzzle = make_puzzle(kind)
    assert GameKind.of(puzzle) == kind
    if kind.level:
        assert grade(puzzle).level == kind.level
