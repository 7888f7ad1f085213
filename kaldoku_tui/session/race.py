"""A race as a racer's game sees it (no Textual): what this player writes to the store
once a second (cells filled, and their time once the puzzle is solved) and the line that
shows the others' progress: cells filled and whether they have finished, never digits."""

from __future__ import annotations

from kaldoku_tui.session.game import Session, clock_text
from kaldoku_tui.session.store import Race, Store
from kaldoku_tui.terminal import shown

NAME_ROOM = 20


def filled(session: Session) -> int:
    """How many cells of the board hold a digit."""
    return sum(1 for row in session.board.grid for digit in row if digit)


def race_time(session: Session) -> float | None:
    """The time the racer finished in: solved, not revealed; None until then."""
    return round(session.elapsed, 1) if session.outcome == "won" else None


def keep_progress(store: Store, name: str, session: Session) -> Race | None:
    """Write this racer's progress in race `name` and read everyone's; StoreError when the
    store cannot be reached."""
    store.race_progress(name, filled(session), race_time(session))
    return store.race(name)


def standing(race: Race, cells: int) -> str:
    """The others' progress in a line: `Race abcd: Ann 12/16, bob done 1:10`."""
    others = [f"{shown(r.name, NAME_ROOM)} done {clock_text(r.seconds)}" if r.seconds is not None
              else f"{shown(r.name, NAME_ROOM)} {r.filled}/{cells}" for r in race.racers if not r.me]
    return f"Race {race.name}: " + (", ".join(others) or "nobody else")


def results(race: Race, cells: int) -> list[str]:
    """The table of a race: place, name, time or cells filled so far."""
    return [f"{place:>3}. {shown(r.name, NAME_ROOM):<{NAME_ROOM}} "
            + (f"{clock_text(r.seconds):>8}" if r.seconds is not None else f"{r.filled:>3}/{cells} cells")
            + (" (you)" if r.me else "")
            for place, r in enumerate(race.racers, 1)]
