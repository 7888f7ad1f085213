"""The daily puzzle: determinism, the weekday schedule, the result line and streaks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import pytest

from kaldoku_tui.cli import main
from kaldoku_tui.engine.codes import GENERATOR_EDITION, _seed_code, fingerprint, read_code, share_code
from kaldoku_tui.engine.daily import (
    PINNED_FIRST,
    PINNED_LAST,
    SCHEDULE,
    Streaks,
    daily_kind,
    daily_puzzle,
    daily_seed,
    result_line,
    streaks,
    utc_day,
)
from kaldoku_tui.engine.formats import puzzle_to_dict
from kaldoku_tui.engine.kinds import LEVELS
from kaldoku_tui.engine.steps import Marks
from kaldoku_tui.engine.techniques import grade, layout, line_rule, propagate

KALDOKU = Path(sys.executable).parent / "kaldoku"
MONDAY = date(2026, 11, 23)


def daily_json_in_a_new_process(day: date, hash_seed: str) -> dict:
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    done = subprocess.run([str(KALDOKU), "daily", "--json", "--date", day.isoformat()],
                          capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_the_same_date_gives_the_same_puzzle_in_every_process():
    here = puzzle_to_dict(daily_puzzle(MONDAY))
    assert daily_json_in_a_new_process(MONDAY, "1") == here
    assert daily_json_in_a_new_process(MONDAY, "2") == here
    assert here["daily"] == "2026-11-23"


def test_another_date_gives_another_puzzle():
    next_monday = MONDAY + timedelta(days=7)
    assert daily_kind(next_monday) == daily_kind(MONDAY)
    assert daily_seed(next_monday) != daily_seed(MONDAY)
    assert daily_puzzle(next_monday) != daily_puzzle(MONDAY)
    seeds = {daily_seed(MONDAY + timedelta(days=k)) for k in range(366)}
    assert len(seeds) == 366


def test_the_weekday_schedule_gets_harder_through_the_week():
    week = [daily_kind(MONDAY + timedelta(days=k)) for k in range(7)]
    assert week == list(SCHEDULE)
    assert (week[0].size, week[0].level) == (4, "normal")
    assert (week[5].size, week[5].level) == (9, "unreasonable")
    assert (week[6].size, week[6].level) == (9, "hard")
    monday_to_saturday = week[:6]
    assert [k.size for k in monday_to_saturday] == sorted(k.size for k in monday_to_saturday)
    ranks = [LEVELS.index(k.level) for k in monday_to_saturday]
    assert ranks == sorted(ranks)
    assert all(k.offered for k in week)


@pytest.mark.parametrize("offset", [0, 1, 2])
def test_the_puzzle_is_of_its_weekday_kind(offset):
    day = MONDAY + timedelta(days=offset)
    puzzle, kind = daily_puzzle(day), daily_kind(day)
    assert (puzzle.size, puzzle.meta["ops"], puzzle.meta["difficulty"]) == (kind.size, kind.ops, kind.level)
    assert grade(puzzle).level == kind.level
    assert share_code(puzzle).startswith("kp2-")


PINNED = {
    "2026-01-01": "kp2-a7979vjfwvg3geam2aaybsyqbffenpvdyyvfqf6mq1",
    "2026-11-23": "kp2-cxbhyyjzspthen",
    "2026-11-28": "kp2-5hyqrgkqknfz2cdv3tzke0dsm7tjh01egjszchdyqtjpeztzddmpqaxv7xbqyzp6yxy2z",
    "2026-11-30": "kp2-8jn2x253zpx6sdd",
    "2026-12-05": "kp2-7x3svsd6y4w7m4rnefd2fwg7rvgba5hwgnhwqhn7qzxqefzxz9ajtqdvenxvqfdtpneeh",
    "2027-06-15": "kp2-hrpkkyb4kx7znaxqe2de",
    "2028-02-29": "kp2-19e8c36fqen6xvsjnxxa9y",
    "2030-12-31": "kp2-1as7q18pfm2qqzned9anv",
}
"""Days and their puzzles as kaldoku gave them on 2026-11-26 (generator edition 7): a
day's puzzle never changes, whatever the generator becomes."""


@pytest.mark.parametrize("day", PINNED)
def test_a_pinned_day_keeps_its_exact_puzzle(day):
    puzzle, kept = daily_puzzle(date.fromisoformat(day)), read_code(PINNED[day])
    assert (puzzle.cages, puzzle.solution) == (kept.cages, kept.solution)
    assert share_code(puzzle) == PINNED[day]


def graded_when_pinned(puzzle) -> str:
    """The level of `puzzle` by the grader that pinned the days, the line rule at hard: a
    day's puzzle and level never change, and the rule went above hard at edition 26."""
    level = grade(puzzle).level
    if LEVELS.index(level) <= LEVELS.index("hard"):
        return level
    marks = Marks.start(layout(puzzle))
    propagate(marks, 3, quick=True)
    while not marks.solved:
        step = next(line_rule(marks), None)
        if step is None:
            return level
        marks.apply(step)
        propagate(marks, 3, quick=True)
    return "hard"


def test_every_pinned_day_holds_a_puzzle_of_its_weekday_kind():
    from test_generator import count_by_backtracking

    day, checked = PINNED_FIRST, 0
    while day <= PINNED_LAST:
        puzzle, kind = daily_puzzle(day), daily_kind(day)
        assert (puzzle.size, puzzle.meta["ops"], puzzle.meta["difficulty"]) == (kind.size, kind.ops, kind.level)
        if day.toordinal() % 97 == 0 and kind.size <= 6:  # a sample, counted by the tests' own solver
            assert count_by_backtracking(puzzle) == [puzzle.solution]
            assert graded_when_pinned(puzzle) == kind.level
            checked += 1
        day += timedelta(days=1)
    assert checked >= 5


def test_a_seed_code_an_older_kaldoku_gave_for_a_daily_still_opens_it():
    day = date(2026, 11, 28)
    puzzle = daily_puzzle(day)
    given = _seed_code(puzzle, daily_seed(day), "all", "unreasonable").replace(f"kg{GENERATOR_EDITION}-", "kg7-")
    assert given.startswith("kg7-")
    assert read_code(given) == puzzle and fingerprint(read_code(given)) == fingerprint(puzzle)


def test_a_day_past_the_pinned_ones_is_made_the_same_for_everyone():
    day = PINNED_LAST + timedelta(days=3)
    assert daily_puzzle(day) == daily_puzzle(day)
    assert daily_puzzle(day).meta["daily"] == day.isoformat()


def test_today_is_the_utc_date_whatever_the_players_time_zone():
    # 17:30 on Sunday in California is already Monday in UTC: Monday's puzzle.
    california = timezone(timedelta(hours=-8))
    assert utc_day(datetime(2026, 11, 22, 17, 30, tzinfo=california)) == MONDAY
    # 08:00 on Tuesday in Tokyo is still Monday in UTC.
    tokyo = timezone(timedelta(hours=9))
    assert utc_day(datetime(2026, 11, 24, 8, 0, tzinfo=tokyo)) == MONDAY
    assert utc_day(datetime(2026, 11, 23, 23, 59)) == MONDAY  # naive: taken as UTC
    now = datetime.now(timezone.utc)
    assert utc_day() in (now.date(), (now + timedelta(seconds=5)).date())


def test_the_result_line_says_day_kind_time_help_and_streak():
    wednesday = MONDAY + timedelta(days=2)
    assert result_line(wednesday, "4:12", 0, streak=5) == (
        "kaldoku daily 2026-11-25 · 6×6 hard · 4:12 · no help · streak 5")
    assert result_line(MONDAY, "1:02:03", 2) == "kaldoku daily 2026-11-23 · 4×4 normal · 1:02:03 · with help"


def days(*offsets: int) -> set[date]:
    return {MONDAY + timedelta(days=k) for k in offsets}


@pytest.mark.parametrize(
    "solved, today, expected",
    [
        (days(), 0, Streaks(0, 0)),
        (days(0), 0, Streaks(1, 1)),
        (days(-2, -1, 0), 0, Streaks(3, 3)),
        (days(-2, -1), 0, Streaks(2, 2)),           # today still open: the streak lives
        (days(-3, -2), 0, Streaks(0, 2)),           # yesterday missed: it ended
        (days(-9, -8, -7, -6, -4, -3, -1, 0), 0, Streaks(2, 4)),
        (days(-1, 0, 1, 2), 0, Streaks(2, 2)),      # days after today are not counted
        (days(-400, -399, -398, -397, -396, 0), 0, Streaks(1, 5)),
    ],
)
def test_streaks_across_missed_days(solved, today, expected):
    assert streaks(solved, MONDAY + timedelta(days=today)) == expected


def test_streaks_count_utc_days_so_time_zones_do_not_break_them():
    # A player in UTC-5 solves each daily at 20:30 local time, 01:30 UTC the next day:
    # the puzzle of each UTC day, one a day, so the streak goes on.
    local = timezone(timedelta(hours=-5))
    moments = [datetime(2026, 11, 22 + k, 20, 30, tzinfo=local) for k in range(4)]
    solved = {utc_day(m) for m in moments}
    assert solved == days(0, 1, 2, 3)
    assert streaks(solved, MONDAY + timedelta(days=3)) == Streaks(4, 4)


# --- The command line --------------------------------------------------------------


def test_daily_json_prints_the_days_puzzle(capsys):
    assert main(["daily", "--json", "--date", "2026-11-24"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data == puzzle_to_dict(daily_puzzle(MONDAY + timedelta(days=1)))


def test_daily_plays_the_days_puzzle_through_the_puzzle_path(monkeypatch, tmp_path, on_a_terminal):
    import kaldoku_tui.app as app_module

    monkeypatch.setenv("KALDOKU_HOME", str(tmp_path))
    built = []
    monkeypatch.setattr(app_module, "run", lambda args: built.append(app_module.build_app(args)) or 0)
    assert main(["daily", "--date", "2026-11-23", "--ascii"]) == 0
    app = built[0]
    assert app.game.session.board.puzzle == daily_puzzle(MONDAY)
    assert app.services.ascii


@pytest.mark.parametrize("value", ["2026-13-01", "23/11/2026", "tomorrow", "2026-02-30"])
def test_a_bad_date_is_one_line_and_status_2(capsys, value):
    assert main(["daily", "--json", "--date", value]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("kaldoku: error: ") and err.count("\n") == 1
