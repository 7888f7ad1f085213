"""The lobby a server session opens on: resume my game, a new game, today's daily, the
daily leaderboard with my rank, my records, my display name, races.

`lobby_view` reads what the lobby shows from the player's store (no Textual); `LobbyApp`
shows it and returns the `kaldoku` arguments of the game chosen; `main` is the session's
process: the lobby, the game chosen, the lobby again, until the player leaves.
"""

from __future__ import annotations

import os
import subprocess
import sys
import unicodedata
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass, replace
from functools import partial
from typing import TypeVar
from datetime import date

from textual import events, work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import Input, Label, OptionList, Static
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from kaldoku_tui.engine.daily import daily_kind, daily_puzzle, utc_day
from kaldoku_tui.engine.kinds import GameKind
from kaldoku_tui.session.store import RACE_DAILY, Race, Standing, Store, StoreError
from kaldoku_tui.session.store.base import START_WITHIN
from kaldoku_tui.terminal import shown

T = TypeVar("T")
"""What the race desk answers."""

NAME_LIMIT = 20
LEADERS = 10


@dataclass(frozen=True)
class LobbyView:
    """What the lobby shows a player."""

    name: str | None
    """The display name chosen, None until one is."""
    in_progress: str | None
    """The kind of the game to resume, None when there is none."""
    today: date
    daily: str
    """The kind of today's daily puzzle."""
    leaders: tuple[Standing, ...]
    mine: Standing | None
    """The player's own line of today's leaderboard, wherever it is."""
    kind: str
    """The kind of a new game."""
    fastest: tuple[Standing, ...]
    """The leaderboard of that kind."""
    records: tuple[str, ...]
    """One line per kind played: won of played, best time without help."""
    rejoin: tuple[str, ...] = ()
    """The races the player dropped out of, under way: their short names."""
    race_table: tuple[str, ...] = ()
    """The table of the race last played here: its title, then a line per racer."""


def minutes(seconds: float) -> str:
    return f"{int(seconds // 60)}:{int(seconds % 60):02d}"


def name_problem(name: str) -> str | None:
    """Why `name` cannot be a display name (None when it can): 1 to NAME_LIMIT printable
    characters (no control, format, bidi or unassigned ones), not only spaces."""
    if not name.strip():
        return "a name needs a character other than spaces"
    if len(name) > NAME_LIMIT:
        return f"at most {NAME_LIMIT} characters"
    if any(unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp") for ch in name):
        return "only printable characters"
    return None


def new_kind(args: list[str]) -> GameKind:
    """The kind of game `kaldoku ARGS` (--size, --ops, --difficulty) begins."""
    def option(name: str) -> str | None:
        return args[args.index(name) + 1] if name in args[:-1] else None

    return GameKind(int(option("--size") or 6), option("--ops") or "all", option("--difficulty"))


def lobby_view(store, kind: GameKind, today: date | None = None, race: str | None = None,
               boards: Store | None = None) -> LobbyView:
    """What the lobby shows, read from the player's `store`; new games are of `kind`;
    `race`: the race last played in this session, whose table it shows; `boards`: the
    store whose leaderboards it shows, when not the player's (a guest's: the server's)."""
    from kaldoku_tui.session.race import results

    rejoin = tuple(r.name for r in store.races_to_rejoin())
    last = store.race(race) if race is not None else None
    race_table = ((f"Race {last.name}" + ("" if last.over else " (under way)") + ":",
                   *results(last, race_cells(last))) if last is not None else ())
    today = today or utc_day()
    games = store.open_games()
    in_progress = None
    if games:
        current = GameKind.from_key(games[0].kind_key)
        in_progress = current.describe() if current else "a game"
    chosen = store.display_name()
    name = chosen if store.name_holder(chosen) == store.player else None
    boards = boards or store
    board = boards.daily_leaderboard(today, count=1000)
    leaders = tuple(board)
    mine = next((s for s in leaders if name is not None and s.name == name), None)
    records = tuple(f"{kind.describe()}: won {r.won} of {r.played}"
                    + (f", best {minutes(r.best)}" if r.best is not None else "")
                    for kind, r in store.records())
    fastest = tuple(boards.kind_leaderboard(kind, count=LEADERS))
    return LobbyView(name, in_progress, today, daily_kind(today).describe(), leaders[:LEADERS], mine,
                     kind.describe(), fastest, records, rejoin, race_table)


def race_cells(race: Race) -> int:
    """The cells of a race's board."""
    from kaldoku_tui.engine.codes import read_code

    try:
        return read_code(race.code).size ** 2
    except ValueError:
        return 0


@dataclass
class RaceDesk:
    """Where the lobby opens, joins and starts races: the player's store (shared by every
    server of it), and the kind of a new race's game."""

    store: Store
    kind: GameKind
    why_not: str | None = None
    """Why this player cannot race (a guest), None when they can."""

    def open(self, daily: bool) -> str:
        """A new race on a new puzzle of `kind` (or today's daily): its short name."""
        from kaldoku_tui.engine.codes import share_code
        from kaldoku_tui.engine.generator import generate

        kind = self.kind
        if daily:
            puzzle = daily_puzzle(utc_day())
        else:
            puzzle = (self.store.bank_take(kind)
                      or generate(kind.size, ops=kind.ops, level=kind.level))
        return self.store.race_open(RACE_DAILY if daily else kind.key, share_code(puzzle))

    def join(self, name: str) -> Race | None:
        return self.store.race_join(name)

    def start(self, name: str) -> bool:
        return self.store.race_start(name)

    def race(self, name: str) -> Race | None:
        return self.store.race(name)


class TypedInput(Input):
    """An Input whose own keys (Backspace, arrows, Enter) act in the order they were typed.

    Textual's Input puts a printable key in at once, but runs a bound key's action only
    once the key has bubbled up to the app: in a burst (a fast typist over ssh, tmux), the
    letters after a Backspace went in before it, and it deleted them (`Alicx`, Backspace
    twice, `ce` gave `Alicx`). Textual issue 6605; this runs those actions at once."""

    OWN_KEYS = {binding.key: binding.action for binding in Binding.make_bindings(Input.BINDINGS)}

    async def _on_key(self, event: events.Key) -> None:
        action = None if event.is_printable else self.OWN_KEYS.get(event.key)
        if action is None:
            await super()._on_key(event)
            return
        event.stop()
        event.prevent_default()
        await self.run_action(action)


GUEST_RACES = ("A guest cannot race: races are kept under each racer's key, where a guest "
               "keeps nothing. Connect with an SSH key to open or join one.  Esc: back")
"""What the race room says to a guest."""
RACE_EVERY = 1.0
"""Seconds between two looks at the race being waited for."""


class RaceScreen(Screen[str]):
    """The race room: open a race or join one by its short name, see who is in; the opener
    starts it. Dismissed with the race's name once it has started ('' to go back).

    The store is read and written in thread workers, their results handed back to the UI
    thread: a store that is slow to answer (a PostgreSQL outage) never freezes the room."""

    BINDINGS = [Binding("escape,ctrl+b", "dismiss('')", "back"), Binding("s", "start", "start"),
                # Priority: the app moves the focus before it hands on the next key, so the
                # letters after a Tab in a burst reach the name field (Textual issue 6605).
                Binding("tab", "app.focus_next", show=False, priority=True),
                Binding("shift+tab", "app.focus_previous", show=False, priority=True)]

    def __init__(self, desk: RaceDesk) -> None:
        super().__init__()
        self.desk = desk
        self.name_in: str | None = None
        """The race this player is in here, None until they open or join one."""
        self.asking = False
        """Whether a race is being opened, joined or started (one at a time)."""
        self.looking = False
        """Whether the race is being read (one look at a time, however slow)."""

    def compose(self) -> ComposeResult:
        yield Label("Race: open one and tell others its name, or type a race's name and Enter.  "
                    "Esc: back", id="race-title")
        yield OptionList(Option(f"Open a race: {self.desk.kind.describe()}", id="open-kind"),
                         Option("Open a race: today's daily", id="open-daily"), id="race-menu")
        yield TypedInput(placeholder="a race's name, to join it", max_length=8, id="race-join")
        yield Static("", id="race-panel", markup=False)

    def on_mount(self) -> None:
        if self.desk.why_not:
            self.query_one("#race-menu", OptionList).disabled = True
            self.query_one("#race-join", Input).disabled = True
            self.say(self.desk.why_not)
            return
        self.set_interval(RACE_EVERY, self.look)

    def say(self, text: str) -> None:
        self.query_one("#race-panel", Static).update(text)

    def unreachable(self, error: StoreError) -> None:
        self.say(f"The races cannot be reached now ({shown(str(error), 100)}): try again.")

    def reply(self, callback: Callable[..., None], *args: object) -> None:
        """Hand a worker's result to `callback` on the UI thread, unless the room closed meanwhile."""
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(callback, *args)

    def answered(self, error: StoreError) -> None:
        self.asking = False
        self.unreachable(error)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if self.name_in is None and not self.asking:
            self.asking = True
            self.say("Opening a race…")
            daily = event.option.id == "open-daily"
            self.ask(lambda: self.desk.open(daily), self.enter)  # its puzzle may have to be made first

    @work(thread=True, group="race-desk")
    def ask(self, question: Callable[[], T], then: Callable[[T], None]) -> None:
        """Ask the race desk `question` (one question at a time: `asking`) and hand the
        answer to `then`, or a store that cannot answer to `answered`."""
        try:
            answer = question()
        except StoreError as error:
            self.reply(self.answered, error)
        else:
            self.reply(then, answer)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if self.name_in is None and not self.asking:
            self.asking = True
            typed = event.value
            self.ask(lambda: self.desk.join(typed), partial(self.joined, typed))

    def joined(self, typed: str, race: Race | None) -> None:
        self.asking = False
        if race is None:
            self.say(f"No race {shown(typed.strip(), 8)!r} to join: its name is 4 letters, "
                     "and a race that started takes nobody new.")
        else:
            self.enter(race.name)

    def enter(self, name: str) -> None:
        self.asking = False
        self.name_in = name
        self.query_one("#race-menu", OptionList).disabled = True
        self.query_one("#race-join", Input).disabled = True
        self.look()

    def look(self) -> None:
        """Read the race waited for, unless a read is under way already."""
        if self.name_in is not None and not self.looking:
            self.looking = True
            self.read_race(self.name_in)

    @work(thread=True, group="race-look")
    def read_race(self, name: str) -> None:
        try:
            race = self.desk.race(name)
        except StoreError as error:
            self.reply(self.seen, name, error)
        else:
            self.reply(self.seen, name, race)

    def seen(self, name: str, race: Race | StoreError | None) -> None:
        self.looking = False
        self.show(name, race)

    def show(self, name: str, race: Race | StoreError | None) -> None:
        """Show race `name` as read; leave for it once its opener has started it."""
        if isinstance(race, StoreError):
            self.unreachable(race)  # looked at again in a second
            return
        if race is None:
            hours = START_WITHIN.total_seconds() / 3600
            self.say(f"Race {name} is gone: it was not started within {hours:g} hours. Esc: back.")
            return
        if race.started:
            self.dismiss(race.name)
            return
        who = "\n".join(f"  {shown(r.name, NAME_LIMIT)}" + (" (you)" if r.me else "") for r in race.racers)
        kind = GameKind.from_key(race.kind)
        what = "today's daily" if race.kind == RACE_DAILY else kind.describe() if kind else "a puzzle"
        then = ("s starts it for everyone in it." if race.mine
                else f"{shown(race.opener, NAME_LIMIT)} starts it.")
        self.say(f"Race {race.name} ({what}): tell others its name, {race.name}.\n"
                 f"In it:\n{who}\n{then}")

    def action_start(self) -> None:
        if self.name_in is not None and not self.asking:
            self.asking = True
            name = self.name_in
            self.ask(lambda: self.desk.race(name) if self.desk.start(name) else None, partial(self.started, name))

    def started(self, name: str, race: Race | None) -> None:
        self.asking = False
        if race is not None:
            self.show(name, race)


class NameScreen(ModalScreen[str]):
    """Asks for the name other players see; `rename(name)` keeps it or says why not."""

    BINDINGS = [Binding("escape", "dismiss('')", "later")]

    def __init__(self, rename: Callable[[str], str | None]) -> None:
        super().__init__()
        self.rename = rename
        self.keeping = False
        """A name is being kept: Enter again waits for the answer."""

    def compose(self) -> ComposeResult:
        with Vertical(id="name"):
            yield Label(f"Your name on the leaderboards\n(up to {NAME_LIMIT} characters; Esc: later):")
            yield TypedInput(max_length=NAME_LIMIT, id="name-input")
            yield Label("", id="name-problem")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        name = event.value.strip()
        problem = name_problem(name)
        if problem:
            self.kept(name, problem)
        elif not self.keeping:
            self.keeping = True
            self.keep(name)

    @work(thread=True, group="name")
    def keep(self, name: str) -> None:
        """Keep `name` in the store off the UI thread (a server's store may be slow)."""
        try:
            problem = self.rename(name)
        except StoreError as error:
            problem = f"Your name cannot be kept now ({error}): try again."
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self.kept, name, problem)

    def kept(self, name: str, problem: str | None) -> None:
        self.keeping = False
        if problem:
            self.query_one("#name-problem", Label).update(shown(problem, 70))
        else:
            self.dismiss(name)


class LobbyApp(App[list[str] | None]):
    """The lobby: returns the `kaldoku` arguments of the game chosen, None to leave."""

    CSS = """
    #title { padding: 0 1; text-style: bold; }
    #title, #race-title, #name Label { width: 100%; }
    #menu { width: 38; height: auto; max-height: 100%; }
    #panel { width: 1fr; padding: 0 1; }
    NameScreen { align: center middle; }
    #name { width: 64; max-width: 100%; height: auto; border: round $accent; padding: 1 2; }
    """
    BINDINGS = [Binding("q", "leave", "leave"), Binding("n", "rename", "your name")]

    def __init__(self, view: LobbyView, new_game: list[str],
                 rename: Callable[[str], str | None] | None, ask_name: bool = True,
                 races: RaceDesk | None = None) -> None:
        """`rename` keeps a display name or says why not (None: the player has none, a
        guest); `ask_name`: ask for one at once if there is none yet; `races`: where races
        are opened and joined (None: no races)."""
        super().__init__()
        self.view, self.new_game, self.rename, self.ask_name = view, new_game, rename, ask_name
        self.races = races

    def compose(self) -> ComposeResult:
        view = self.view
        options = [Option(f"Rejoin race {name}", id=f"rejoin:{name}") for name in view.rejoin]
        options += [Option(f"Resume {view.in_progress}", id="resume")] if view.in_progress else []
        options += [Option(f"New {view.kind}", id="new"), Option(f"Daily: {view.daily}", id="daily")]
        options += [Option("Race: open or join", id="race")] if self.races is not None else []
        options += [Option("Leave", id="leave")]
        naming = ", n: your name" if self.rename else ""
        yield Label(f"kaldoku: KenKen over SSH.  Enter picks{naming}, q: leave", id="title")
        with Horizontal():
            yield OptionList(*options, id="menu")
            yield Static(self.panel_text(), id="panel")

    def panel_text(self) -> str:
        view = self.view
        who = (shown(view.name, NAME_LIMIT) if view.name else "no name yet (n chooses one)" if self.rename
               else "a guest; your games end when you leave")
        lines = [f"You: {who}", ""]
        if view.race_table:
            lines += [*view.race_table, ""]
        lines += [f"Daily {view.today}, no help:", *board(view.leaders)]
        if view.mine is not None:
            lines.append(f"  your rank: {view.mine.rank} ({minutes(view.mine.time)})")
        lines += ["", f"Fastest {view.kind}:", *board(view.fastest)]
        lines += ["", "My records:", *(f"  {line}" for line in view.records or ("no game finished yet",))]
        return "\n".join(lines)

    def on_mount(self) -> None:
        if self.view.name is None and self.ask_name:
            self.action_rename()

    def action_rename(self) -> None:
        if self.rename is None:
            return

        def chosen(name: str | None) -> None:
            if name:
                self.view = replace(self.view, name=name)
                self.query_one("#panel", Static).update(self.panel_text())

        self.push_screen(NameScreen(self.rename), chosen)

    def action_leave(self) -> None:
        self.exit(None)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        choice = event.option.id or "leave"
        if choice.startswith("rejoin:"):
            self.exit(["--race", choice.removeprefix("rejoin:")])
        elif choice == "race" and self.races is not None:
            self.push_screen(RaceScreen(self.races), self.race_started)
        else:
            self.exit({"resume": [], "new": self.new_game, "daily": ["daily"], "leave": None}[choice])

    def race_started(self, name: str | None) -> None:
        if name:
            self.exit(["--race", name])


def board(standings: tuple[Standing, ...]) -> list[str]:
    return [f"{s.rank:>3}. {shown(s.name, NAME_LIMIT):<{NAME_LIMIT}} {minutes(s.time):>6}"
            for s in standings] or ["  nobody yet"]


def renamer(store) -> Callable[[str], str | None]:
    """Keep `name` as the player's display name, or say why not (another player's)."""

    def rename(name: str) -> str | None:
        holder = store.name_holder(name)
        if holder is not None and holder != store.player:
            return f"{name} is another player's name: choose another"
        return store.set_display_name(name)

    return rename


def main(argv: list[str]) -> int:
    """A server session's process: `--player ID [--data-dir DIR] -- NEW-GAME-ARGS` (the
    store's URL, if any, in KALDOKU_STORE). The lobby, then the game chosen in a process
    of its own on this terminal (under the same limits), then the lobby again. A guest's
    lobby reads the leaderboards from the server's store (KALDOKU_BOARDS), only them."""
    from kaldoku_tui.serve.game import BOARDS_VARIABLE
    from kaldoku_tui.session.store import StoreError, open_store, store_location

    split = argv.index("--")
    player_args, new_game = argv[:split], argv[split + 1:] or ["--size", "6"]
    player = player_args[player_args.index("--player") + 1]
    directory = player_args[player_args.index("--data-dir") + 1] if "--data-dir" in player_args else None
    location = store_location(None, directory)
    boards_at = os.environ.get(BOARDS_VARIABLE)
    first = True
    race: str | None = None
    """The race last played in this session: the lobby shows its table."""
    while True:
        try:
            with open_store(location, player) as store, ExitStack() as stack:
                boards = stack.enter_context(open_store(boards_at, player)) if boards_at else None
                named = not player.startswith("guest:")  # a guest's games and name end with the connection
                view = lobby_view(store, new_kind(new_game), race=race, boards=boards)
                desk = RaceDesk(store, new_kind(new_game), None if named else GUEST_RACES)
                choice = LobbyApp(view, new_game, renamer(store) if named else None, first, desk).run()
            first = False  # asked once a session: n asks again
        except StoreError as error:
            print(f"kaldoku: {shown(str(error), 200)}; try again later", file=sys.stderr)
            return 1
        if choice is None:
            return 0
        if choice[:1] == ["--race"]:
            race = choice[1]
        subprocess.run([sys.executable, "-m", "kaldoku_tui", *choice, *player_args], check=False)
