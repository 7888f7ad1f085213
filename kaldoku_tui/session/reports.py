"""The store's records and games as text for people: the tables `kaldoku stats`,
`kaldoku history` and `kaldoku games` print, and the streak line."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from typing import Collection, Sequence

from kaldoku_tui.engine.daily import PINNED_FIRST, Streaks, daily_kind
from kaldoku_tui.engine.kinds import GameKind
from kaldoku_tui.engine.puzzle import PuzzleError
from kaldoku_tui.session.store.base import PastGame, Record, Store, StoreError


RECORD_HEADINGS = ("Kind of game", "Played", "Won", "No help", "Best", "Median")


def records_table(records: list[tuple[GameKind, Record]]) -> str:
    """The records as a table for people, headings first; best and median are the times
    of wins without help."""
    from kaldoku_tui.session.game import clock_text

    def time_text(seconds: float | None) -> str:
        return clock_text(seconds) if seconds is not None else "-"

    rows = [RECORD_HEADINGS] + [
        (kind.describe(), str(r.played), str(r.won), str(r.unaided), time_text(r.best),
         time_text(r.median))
        for kind, r in records
    ]
    return text_table(rows, right=range(1, len(RECORD_HEADINGS)))


def text_table(rows: Sequence[tuple[str, ...]], right: Collection[int]) -> str:
    """Rows of cells as lines of aligned columns two spaces apart; the columns numbered
    in `right` are aligned right (numbers, times)."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(cell.rjust(w) if i in right else cell.ljust(w)
                               for i, (cell, w) in enumerate(zip(row, widths))).rstrip()
                     for row in rows)


def streak_text(found: Streaks) -> str:
    """The daily streaks in a line for people."""
    def days(n: int) -> str:
        return f"{n} day{'' if n == 1 else 's'}"
    return f"Daily puzzle streak: {days(found.current)} now, longest {days(found.longest)}."


HISTORY_HEADINGS = ("ID", "Begun (UTC)", "Kind of game", "Outcome", "Time", "Share code")


def history_table(games: list[PastGame]) -> str:
    """The games as a table for people, headings first."""
    from kaldoku_tui.engine.codes import share_code
    from kaldoku_tui.session.game import clock_text
    from kaldoku_tui.terminal import shown

    codes: dict[str, str] = {}

    def code(game: PastGame) -> str:
        # One puzzle played again (a daily, a shared code) is read once.
        if game.puzzle_text not in codes:
            try:
                codes[game.puzzle_text] = share_code(game.puzzle())
            except (PuzzleError, ValueError, TypeError, RecursionError):
                codes[game.puzzle_text] = "-"  # a damaged puzzle: the game is listed all the same
        return codes[game.puzzle_text]

    def kind(game: PastGame) -> str:
        found = GameKind.from_key(game.kind_key)
        words = found.describe() if found else str(game.kind_key)[:40]
        return f"daily {game.daily} {words}" if game.daily else words

    def outcome(game: PastGame) -> str:
        text = game.outcome or "playing"
        return f"{text} with help" if game.helped and game.outcome == "won" else text

    # What the database holds is shown escaped: a damaged or crafted file prints nothing raw.
    rows = [HISTORY_HEADINGS] + [
        (str(g.id), shown(str(g.started)[:16].replace("T", " ")), shown(kind(g)), shown(outcome(g), 40),
         clock_text(g.elapsed), code(g))
        for g in games
    ]
    return text_table(rows, right=(0, 4))


@dataclass(frozen=True)
class Unfinished:
    """A game in progress as listed to resume it: kind, moves, time played and when it was
    last played (UTC); `moves` is None when the game cannot be read whole."""

    id: int
    kind: str
    moves: int | None
    elapsed: float
    touched: str

    def line(self) -> str:
        """The game in one line: '4×4 · +−×÷ · 12 moves · 3:05 · 2026-11-26 09:12'."""
        from kaldoku_tui.session.game import clock_text

        moves = "damaged" if self.moves is None else f"{self.moves} move{'' if self.moves == 1 else 's'}"
        return f"{self.kind} · {moves} · {clock_text(self.elapsed)} · {self.touched}"


def unfinished_games(store: Store) -> list[Unfinished]:
    """This player's games in progress, the last played first."""
    from kaldoku_tui.terminal import shown

    found = []
    for game in store.open_games():
        kind = GameKind.from_key(game.kind_key)
        words = kind.describe() if kind else shown(str(game.kind_key), 40)
        try:
            saved = store.game(game.id, from_snapshot=True)
        except StoreError:
            saved = None
        moves = saved.start + len(saved.moves) if saved else None
        found.append(Unfinished(game.id, f"daily {game.daily} {words}" if game.daily else words,
                                moves, saved.elapsed if saved else 0.0,
                                shown(str(game.touched)[:16].replace("T", " "), 16)))
    return found


UNFINISHED_HEADINGS = ("ID", "Last played (UTC)", "Kind of game", "Moves", "Time")


def unfinished_table(games: list[Unfinished]) -> str:
    """The games in progress as a table for people, headings first."""
    from kaldoku_tui.session.game import clock_text

    rows = [UNFINISHED_HEADINGS] + [
        (str(g.id), g.touched, g.kind, "damaged" if g.moves is None else str(g.moves),
         clock_text(g.elapsed)) for g in games]
    return text_table(rows, right=(0, 3, 4))


def daily_archive(store: Store, today: date) -> list[tuple[date, str]]:
    """Every pinned daily puzzle up to `today`, the newest first, each with a line for
    people: '2026-11-25 Wed · 6×6 hard · solved 4:12' (or revealed, unfinished, nothing)."""
    from kaldoku_tui.session.game import clock_text

    played: dict[date, str] = {}
    for game in reversed(store.history()):  # the first begun first: the game that counts
        if game.daily is None or played.get(game.daily, "").startswith("solved"):
            continue
        if game.outcome == "won":
            played[game.daily] = f"solved {clock_text(game.elapsed)}" + (" with help" if game.helped else "")
        elif game.outcome == "revealed":
            played[game.daily] = "revealed"
        elif game.outcome is None:
            played[game.daily] = "unfinished"
    days = [today - timedelta(days=n) for n in range((today - PINNED_FIRST).days + 1)]
    return [(day, f"{day} {day:%a} · {daily_kind(day).size}×{daily_kind(day).size} "
                  f"{daily_kind(day).level}" + (f" · {played[day]}" if day in played else ""))
            for day in days]
