"""The mid end: a game in progress without a screen (moves, undo, the clock, help, hints,
how it ended) and the store it is kept in. Nothing here imports Textual."""

from kaldoku_tui.session.game import HELP, Clock, Journal, NoJournal, Session, Update
from kaldoku_tui.session.moves import Move, MoveError

__all__ = ["HELP", "Clock", "Journal", "Move", "MoveError", "NoJournal", "Session", "Update"]
