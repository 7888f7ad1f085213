"""The screens the game opens that lead from one game to another (the unfinished games,
the daily archive and a daily's result) and the statistics, each made with what it shows.

Their modules are imported when first opened, not with the game screen: every start
would pay for them (the statistics' chart library alone costs 46 ms)."""

from __future__ import annotations

from dataclasses import replace
from datetime import date
from typing import TYPE_CHECKING

from kaldoku_tui.engine.daily import daily_of
from kaldoku_tui.services import Services
from kaldoku_tui.session.game import Session

if TYPE_CHECKING:
    from kaldoku_tui.screens.archive import ArchiveScreen
    from kaldoku_tui.screens.daily import DailyResultScreen
    from kaldoku_tui.screens.games import UnfinishedScreen
    from kaldoku_tui.screens.records import RecordsScreen


def playing_id(session: Session) -> int | None:
    """The store's id of the game `session` plays (None for one not kept)."""
    return getattr(session.journal, "game_id", None)


def unfinished_screen(session: Session, services: Services) -> UnfinishedScreen:
    """The unfinished games, to resume one; the one played shows its time as the clock
    shows it, not as last saved."""
    from kaldoku_tui.screens.games import UnfinishedScreen
    from kaldoku_tui.session.reports import unfinished_games

    this = playing_id(session)
    games = [replace(game, elapsed=session.elapsed) if game.id == this else game
             for game in unfinished_games(services.store)]
    return UnfinishedScreen(games, this, ascii=services.ascii)


def archive_screen(services: Services) -> ArchiveScreen:
    """The daily archive: every past day's daily puzzle, which were solved, one to play."""
    from kaldoku_tui.engine.daily import utc_day
    from kaldoku_tui.screens.archive import ArchiveScreen
    from kaldoku_tui.session.reports import daily_archive

    return ArchiveScreen(daily_archive(services.store, utc_day()), ascii=services.ascii)


def begun_daily(services: Services, day: date) -> int | None:
    """The unfinished game of `day`'s daily puzzle, if there is one."""
    begun = [game.id for game in services.store.open_games() if game.daily == day]
    return begun[0] if begun else None


def daily_result_screen(session: Session, services: Services) -> DailyResultScreen | None:
    """How a daily played already went, shown before its practice board; None for a
    daily not yet ended and for any other game."""
    day = daily_of(session.puzzle)
    game = services.finished_daily(day) if session.practice and day else None
    if day is None or game is None:
        return None
    from kaldoku_tui.screens.daily import DailyResultScreen

    return DailyResultScreen(day, game, services.store, ascii=services.ascii)


def records_screen(session: Session, services: Services) -> RecordsScreen:
    """The statistics, opened at the kind of game played."""
    from kaldoku_tui.screens.records import RecordsScreen

    return RecordsScreen(services.store, session.kind, ascii=services.ascii)
