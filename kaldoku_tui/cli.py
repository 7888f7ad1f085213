"""The `kaldoku` command: play, or generate, solve, check and grade puzzles.

Only playing imports Textual; the other commands stay quick to start.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from datetime import date
from typing import NoReturn, Sequence

from kaldoku_tui import __version__
from kaldoku_tui.arguments import UsageError, read_puzzle_arg, stream_puzzle_arg
from kaldoku_tui.config import AppConfig
from kaldoku_tui.engine.kinds import DEFAULT_KIND, HIDDEN_OPS, LEVELS, MAX_SIZE, MIN_SIZE, OP_SETS, GameKind
from kaldoku_tui.engine.formats import FORMATS
from kaldoku_tui.engine.puzzle import Puzzle, PuzzleError
from kaldoku_tui.terminal import shown, shown_json

EXIT_OK, EXIT_NOT_UNIQUE, EXIT_BAD_INPUT = 0, 1, 2
COMMANDS = ("generate", "solve", "check", "grade", "daily", "print", "stats", "history", "replay",
            "export", "web", "serve", "games", "resume")
ERROR_LIMIT = 300
"""Characters of an error line at most: a value quoted in it is cut."""


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line and exit status 2."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def _whole_number(text: str, name: str) -> int:
    """`text` as a whole number, for the option `name`."""
    try:
        return int(text)
    except ValueError:
        digits = text.strip().lstrip("+-")
        if digits.isdecimal():  # Python reads no more than 4,300 digits
            raise argparse.ArgumentTypeError(f"{name} is far too large ({len(digits)} digits)") from None
        raise argparse.ArgumentTypeError(f"{name} must be a whole number, not {text!r}") from None


def _size(text: str) -> int:
    size = _whole_number(text, "size")
    if not MIN_SIZE <= size <= MAX_SIZE:
        raise argparse.ArgumentTypeError(f"size must be {MIN_SIZE} to {MAX_SIZE}, not {size}")
    return size


def _seed(text: str) -> int:
    seed = _whole_number(text, "seed")
    if seed < 0:
        raise argparse.ArgumentTypeError(f"seed must not be negative, not {seed}")
    return seed


def _count(text: str) -> int:
    count = _whole_number(text, "count")
    if count < 1:
        raise argparse.ArgumentTypeError(f"count must be at least 1, not {count}")
    return count


def _date(text: str) -> date:
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
        raise argparse.ArgumentTypeError(f"date must be YYYY-MM-DD, not {text!r}")
    try:
        return date.fromisoformat(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"date {text}: {exc}") from None


def _port(text: str) -> int:
    port = _whole_number(text, "port")
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"port must be 0 to 65535, not {port}")
    return port


def _tabs(text: str) -> int:
    tabs = _whole_number(text, "tabs")
    if tabs < 1:
        raise argparse.ArgumentTypeError(f"tabs must be at least 1, not {tabs}")
    return tabs


def _game_id(text: str) -> int:
    if not re.fullmatch(r"\d{1,18}", text) or int(text) < 1:
        raise argparse.ArgumentTypeError(f"a game ID is a whole number from 1 (kaldoku history lists them), "
                                         f"not {text!r}")
    return int(text)


def _add_display_options(parser: argparse.ArgumentParser) -> None:
    """The options that say how the game is shown, shared by `kaldoku` and `kaldoku daily`."""
    parser.add_argument("--ascii", action="store_true", help="draw with ASCII characters only")
    parser.add_argument(
        "--colors", choices=("auto", "truecolor", "256", "16", "none"), default="auto",
        help="force the colour depth (COLORTERM is seldom forwarded over SSH)",
    )
    parser.add_argument("--data-dir", metavar="DIR", help="where saves and stats live (or KALDOKU_HOME)")
    _add_store_options(parser)


def _add_store_options(parser: argparse.ArgumentParser) -> None:
    """The options of every command that reads the store: whose games, and which store."""
    parser.add_argument("--player", metavar="NAME", default=os.environ.get("KALDOKU_PLAYER"),
                        help="play as NAME, with their own games, records and settings "
                        "(or KALDOKU_PLAYER; the local player by default)")
    parser.add_argument("--store", metavar="URL", default=os.environ.get("KALDOKU_STORE"),
                        help="keep the games in this PostgreSQL database (postgresql://...) "
                        "instead of the data directory (or KALDOKU_STORE)")


def game_parser() -> argparse.ArgumentParser:
    """The options of a plain `kaldoku`, which opens the game."""
    parser = _Parser(
        prog="kaldoku",
        description="KenKen in the terminal. With no arguments, resume the game in "
        "progress or start a new one.",
        epilog="Other commands: kaldoku daily | generate | solve | check | grade | print | stats "
        "| history | replay | games | resume | export | web | serve (each has --help).",
    )
    parser.add_argument(
        "puzzle", nargs="?", metavar="PUZZLE",
        help="a puzzle to play: a file (JSON, typed layout...), a share code (kg1-… or kp1-…), "
        "or a Keen game ID such as 4:aa_a__a__a_a__a_a,d2m12s1a5s1m4d2a5",
    )
    parser.add_argument("--size", type=_size, help=f"start a new {MIN_SIZE}..{MAX_SIZE} puzzle")
    parser.add_argument("--seed", type=_seed, help="seed of the new puzzle (with --size)")
    parser.add_argument("--ops", choices=tuple(OP_SETS), default=None, help="operations of a new puzzle")
    parser.add_argument("--difficulty", choices=LEVELS, default=None, help="level of a new puzzle")
    parser.add_argument("--race", metavar="NAME", help="play the race NAME you are in (kaldoku serve's lobby)")
    _add_display_options(parser)
    parser.add_argument("--version", action="version", version=f"kaldoku {__version__}")
    return parser


def command_parser() -> argparse.ArgumentParser:
    """The parser of the puzzle commands."""
    parser = _Parser(prog="kaldoku",
                     description="Generate, solve, check, grade and print KenKen puzzles; the daily puzzle.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    puzzle_help = ("a JSON, JSON Lines or typed-layout file, - or nothing for standard input, "
                   "a Keen game ID or a share code")

    gen = sub.add_parser("generate", help="print new puzzles (JSON Lines unless --format says otherwise)")
    gen.add_argument("--size", type=_size, required=True, help=f"board size, {MIN_SIZE}..{MAX_SIZE}")
    gen.add_argument("--seed", type=_seed, help="seed of the first puzzle; puzzle i uses SEED+i")
    gen.add_argument("--count", type=_count, default=1, help="how many puzzles (default 1)")
    gen.add_argument("--ops", choices=tuple(OP_SETS), default="all", help="operations to use")
    gen.add_argument("--difficulty", choices=LEVELS, default=None, help="level of the puzzles")
    gen.add_argument(
        "--format", choices=EXPORT_FORMATS, default="json",
        help="json: one JSON object a line (default); keen: Keen game IDs; text: the typed "
        "layout, puzzles separated by a blank line; code: share codes",
    )

    solve = sub.add_parser("solve", help="print the solution of each puzzle")
    solve.add_argument("puzzle", nargs="?", metavar="PUZZLE", help=puzzle_help)
    solve.add_argument("--json", action="store_true", help="one JSON object a line per puzzle")

    check = sub.add_parser("check", help="validate puzzles and say whether each is unique")
    check.add_argument("puzzle", nargs="?", metavar="PUZZLE", help=puzzle_help)

    grade = sub.add_parser("grade", help="print the difficulty level of each puzzle")
    grade.add_argument("puzzle", nargs="?", metavar="PUZZLE", help=puzzle_help)
    grade.add_argument("--json", action="store_true", help="one JSON object a line per puzzle")

    daily = sub.add_parser("daily", help="play today's puzzle (the UTC date), the same for everyone")
    daily.add_argument("--date", type=_date, help="another day's puzzle, YYYY-MM-DD")
    daily.add_argument("--json", action="store_true", help="print the puzzle as JSON instead of playing")
    _add_display_options(daily)

    printed = sub.add_parser("print", help="printable grids on standard output, or a PDF booklet")
    printed.add_argument("puzzles", nargs="*", metavar="PUZZLE",
                         help=puzzle_help.replace("a JSON", "each a JSON"))
    printed.add_argument("--solution", action="store_true", help="the answers too, after the puzzles")
    printed.add_argument("--ascii", action="store_true", help="draw with ASCII characters only")
    printed.add_argument("--pdf", metavar="FILE", help="write a PDF booklet, answers at the back")
    printed.add_argument("--daily", action="store_true", help="the daily puzzle (with --days, several)")
    printed.add_argument("--days", type=_count, help="with --daily: how many days from the first")
    printed.add_argument("--date", type=_date, help="with --daily: the first day (default today, UTC)")

    stats = sub.add_parser("stats", help="print the player's records per kind of game and daily streaks")
    stats.add_argument("--json", action="store_true", help="as one JSON object")
    stats.add_argument("--data-dir", metavar="DIR", help="where the games are kept")
    _add_store_options(stats)

    history = sub.add_parser("history", help="list the games played, the last begun first")
    history.add_argument("--count", type=_count, help="only the last COUNT games")
    history.add_argument("--data-dir", metavar="DIR", help="where the games are kept")
    _add_store_options(history)

    replay = sub.add_parser("replay", help="watch a past game's moves again")
    replay.add_argument("id", type=_game_id, metavar="ID", help="the game's ID (kaldoku history)")
    _add_display_options(replay)

    games = sub.add_parser("games", help="list the unfinished games, to resume (kaldoku resume ID)")
    games.add_argument("--data-dir", metavar="DIR", help="where the games are kept")
    _add_store_options(games)

    resumed = sub.add_parser("resume", help="play an unfinished game again")
    resumed.add_argument("id", type=_game_id, metavar="ID", help="the game's ID (kaldoku games)")
    _add_display_options(resumed)

    export = sub.add_parser("export", help="print the puzzle of the game in progress, or of game ID")
    export.add_argument("id", type=_game_id, nargs="?", metavar="ID",
                        help="the game's ID (kaldoku history); the game in progress when left out")
    what = export.add_mutually_exclusive_group()
    what.add_argument("--format", choices=EXPORT_FORMATS, default="json",
                      help="JSON, a Keen game ID, the typed layout (text) or a share code")
    what.add_argument("--moves", action="store_true", help="the game's moves instead, as JSON Lines")
    export.add_argument("--data-dir", metavar="DIR", help="where the games are kept")
    _add_store_options(export)

    served = sub.add_parser("web", help="serve the game to a browser tab (each tab its own game process)")
    served.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (default 127.0.0.1: this machine only)")
    served.add_argument("--port", type=_port, default=8000, help="port to listen on (default 8000; 0: any free one)")
    served.add_argument("--tabs", type=_tabs, default=16, metavar="N",
                        help="how many tabs at once at most, each its own process (default 16)")
    served.add_argument("--data-dir", metavar="DIR", help="where the games are kept")
    _add_store_options(served)
    _add_serve_parser(sub)
    return parser


def _seconds(text: str) -> float:
    try:
        seconds = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a time in seconds, not {text!r}") from None
    if not 1 <= seconds <= 7 * 86400:
        raise argparse.ArgumentTypeError(f"a time of 1 s to a week, not {text}")
    return seconds


def _add_serve_parser(sub) -> None:
    """`kaldoku serve`: the options of the SSH server."""
    serve = sub.add_parser("serve", help="let anyone play over SSH (ssh -p PORT host), one process a session")
    serve.add_argument("--port", type=_port, default=2222, help="TCP port (default 2222)")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    serve.add_argument("--data-dir", metavar="DIR",
                       help="the host key and the players' games (default: kaldoku's data directory/serve)")
    serve.add_argument("--store", metavar="URL", help="keep the games in this store (postgresql://...) "
                       "instead, shared by several servers (or KALDOKU_STORE)")
    serve.add_argument("--guests", action=argparse.BooleanOptionalAction, default=True,
                       help="let players without a key in as guests, whose games last for the "
                       "connection (default: yes)")
    serve.add_argument("--idle-timeout", type=_seconds, default=900.0, metavar="S",
                       help="end a session after S seconds with nothing typed (default 900)")
    serve.add_argument("--max-sessions", type=_count, default=100, metavar="N",
                       help="connections at once, from everyone (default 100)")
    serve.add_argument("--per-address", type=_count, default=10, metavar="N",
                       help="connections at once from one IP address (default 10)")
    serve.add_argument("--per-key", type=_count, default=3, metavar="N",
                       help="sessions at once of one player's key (default 3)")
    serve.add_argument("--lobby", action=argparse.BooleanOptionalAction, default=True,
                       help="open on the lobby (resume, new game, daily, leaderboard, records); "
                       "--no-lobby: straight into the game (default: the lobby)")
    serve.add_argument("--size", type=_size, help="the size of a new game (default 6)")
    serve.add_argument("--ops", choices=tuple(OP_SETS), default=None, help="its operations")
    serve.add_argument("--difficulty", choices=LEVELS, default=None, help="its level")


def cmd_generate(args: argparse.Namespace) -> int:
    from kaldoku_tui.engine.generator import generate

    if args.format == "keen" and args.ops in HIDDEN_OPS:
        raise UsageError("a Keen game ID cannot hold a hidden operation: use --format json or text")
    if args.seed is None:
        import secrets

        args.seed = secrets.randbelow(2**31)
    seeds = range(args.seed, args.seed + args.count)
    with _progress(args.count) as advance:
        for i, seed in enumerate(seeds):
            puzzle = generate(args.size, seed=seed, ops=args.ops, level=args.difficulty)
            gap = "\n" if i and args.format == "text" else ""
            print(gap + exported(puzzle, args.format), end="", flush=True)
            advance()
    return EXIT_OK


def cmd_solve(args: argparse.Namespace) -> int:
    from kaldoku_tui.engine.solver import solve

    status = EXIT_OK
    for i, puzzle in enumerate(stream_puzzle_arg(args.puzzle)):
        found = solve(puzzle, limit=2)
        if len(found) != 1:
            status = EXIT_NOT_UNIQUE
        if args.json:
            solution = [list(row) for row in found[0]] if len(found) == 1 else None
            print(json.dumps({"solutions": len(found), "solution": solution}))
        else:
            if i:
                print()
            if len(found) == 1:
                print("\n".join("".join(map(str, row)) for row in found[0]))
            else:
                print(_how_many(found))
    return status


def cmd_check(args: argparse.Namespace) -> int:
    from kaldoku_tui.engine.solver import solve

    status = EXIT_OK
    for puzzle in stream_puzzle_arg(args.puzzle):
        found = solve(puzzle, limit=2)
        cages = f"{len(puzzle.cages)} cage{'s' if len(puzzle.cages) != 1 else ''}"
        print(f"{puzzle.size}×{puzzle.size}, {cages}: valid, {_how_many(found)}")
        if len(found) != 1:
            status = EXIT_NOT_UNIQUE
    return status


def cmd_grade(args: argparse.Namespace) -> int:
    from kaldoku_tui.engine.fillings import CageTooLarge
    from kaldoku_tui.engine.solver import solve
    from kaldoku_tui.engine.techniques import grade

    status = EXIT_OK
    for puzzle in stream_puzzle_arg(args.puzzle):
        found = solve(puzzle, limit=2)
        if len(found) != 1:
            status = EXIT_NOT_UNIQUE
            print(json.dumps({"level": None, "tier": None, "steps": None}) if args.json else _how_many(found))
            continue
        try:
            result = grade(puzzle)
        except CageTooLarge as exc:
            raise UsageError(f"too large to grade: {exc}") from None
        if args.json:
            print(json.dumps({"level": result.level, "tier": result.tier, "steps": result.steps}))
        else:
            print(f"{result.level} (tier {result.tier}, {result.steps} steps)")
    return status


def on_a_terminal() -> bool:
    """Whether the game has a terminal to be played on: standard input (the keys), standard
    error (where Textual draws) and standard output are all one. A browser tab's game needs
    none: textual-serve names Textual's web driver in TEXTUAL_DRIVER."""
    streams = (sys.__stdin__, sys.__stdout__, sys.__stderr__)
    return all(stream is not None and stream.isatty() for stream in streams) \
        or bool(os.environ.get("TEXTUAL_DRIVER"))


def _need_a_terminal() -> None:
    """Refuse the full-screen game without a terminal (`kaldoku > file`, a script, a cron
    job): it would write escape codes where no one sees them and run until killed."""
    if not on_a_terminal():
        raise UsageError("the game needs a terminal, and standard input, output or error is not one "
                         "(for a puzzle as text: kaldoku generate)")


def cmd_daily(args: argparse.Namespace) -> int:
    from kaldoku_tui.engine.daily import daily_kind, daily_puzzle, utc_day

    day = args.date or utc_day()
    if args.json:
        from kaldoku_tui.engine.formats import to_json_line

        print(to_json_line(daily_puzzle(day)))
        return EXIT_OK
    _need_a_terminal()
    if sys.stderr.isatty():
        print(f"Making the daily puzzle of {day}, {daily_kind(day).describe()}…", file=sys.stderr, flush=True)
    # Resumed if begun already, else begun and known as the day's.
    return play(app_config(args, daily=day))


def cmd_print(args: argparse.Namespace) -> int:
    from kaldoku_tui.printing import sheet, sheets_text, write_booklet

    if (args.days or args.date) and not args.daily:
        raise UsageError("--days and --date go with --daily")
    puzzles = [p for arg in args.puzzles for p in read_puzzle_arg(arg)]
    if not args.puzzles and not args.daily:
        puzzles = read_puzzle_arg(None)
    sheets = [sheet(p, f"Puzzle {i}") for i, p in enumerate(puzzles, 1)]
    if args.daily:
        from datetime import timedelta

        from kaldoku_tui.engine.daily import daily_puzzle, utc_day

        first = args.date or utc_day()
        days = [first + timedelta(days=k) for k in range(args.days or 1)]
        with _progress(len(days)) as advance:
            for day in days:
                sheets.append(sheet(daily_puzzle(day), f"{day:%A} {day}"))
                advance()
    if args.pdf:
        try:
            write_booklet(sheets, args.pdf)
        except OSError as exc:
            raise UsageError(f"cannot write {args.pdf}: {exc.strerror or exc}") from None
        return EXIT_OK
    print(sheets_text(sheets, answers=args.solution, ascii=args.ascii), end="")
    return EXIT_OK


def _how_many(found: list) -> str:
    """What the solutions found (up to two) say about a puzzle."""
    return {0: "no solution", 1: "unique"}.get(len(found), "more than one solution")


class _progress:
    """A progress bar on stderr for long runs on a terminal; nothing otherwise."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.bar = None

    def __enter__(self):
        if self.total >= 5 and sys.stderr.isatty():
            from rich.console import Console
            from rich.progress import Progress

            # Rich would send stdout through the bar's console, to stderr: keep the JSON
            # on stdout unless both are the terminal, where the lines then show above the bar.
            self.bar = Progress(
                console=Console(stderr=True), transient=True,
                redirect_stdout=sys.stdout.isatty(), redirect_stderr=False,
            )
            self.bar.start()
            task = self.bar.add_task("generating", total=self.total)
            return lambda: self.bar.advance(task)
        return lambda: None

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.stop()


def _store(args: argparse.Namespace):
    """The player's store, its notices told on stderr; UsageError for an unsafe directory,
    a player name no player can have or a store that cannot be reached."""
    from kaldoku_tui.session.legacy import import_legacy
    from kaldoku_tui.session.store import StoreError, open_store, player_id, store_location

    try:
        store = open_store(store_location(args.store, args.data_dir), player_id(args.player))
    except StoreError as error:
        raise UsageError(str(error)) from None
    for notice in store.notices + import_legacy(store):
        print(f"kaldoku: {shown(notice, ERROR_LIMIT)}", file=sys.stderr)
    return store


def cmd_stats(args: argparse.Namespace) -> int:
    """Print the records: played, won, won without help, best and median time per kind;
    and the streaks of days with the daily puzzle won."""
    from kaldoku_tui.engine.daily import utc_day
    from kaldoku_tui.session.reports import records_table, streak_text

    store = _store(args)
    records, streaks = store.records(), store.streaks(utc_day())
    store.close()
    if args.json:
        kinds = [{"kind": kind.key, "size": kind.size, "ops": kind.ops, "level": kind.level,
                  **record.to_dict()} for kind, record in records]
        print(json.dumps({"kinds": kinds, "streak": {"current": streaks.current, "longest": streaks.longest}},
                         ensure_ascii=False))
        return EXIT_OK
    if records:
        print(records_table(records))
        print("Best and median: the times of wins without help, in minutes and seconds.")
    else:
        print("No game finished yet.")
    print(streak_text(streaks))
    return EXIT_OK


def cmd_history(args: argparse.Namespace) -> int:
    """List the games played: ID, date, kind, outcome, time and share code."""
    from kaldoku_tui.session.reports import history_table
    from kaldoku_tui.session.store import StoreError

    store = _store(args)
    try:
        # A page at a time, the first a small one: the first lines show at once however
        # many games there are.
        shown_so_far, page = 0, FIRST_PAGE if args.count is None else args.count
        while games := store.history(page, shown_so_far):
            table = history_table(games).split("\n")
            print("\n".join(table if not shown_so_far else table[1:]), flush=True)
            shown_so_far += len(games)
            if args.count is not None or len(games) < page:
                break
            page = HISTORY_PAGE
    except StoreError as error:
        raise UsageError(f"the games cannot be read: {error}") from None
    finally:
        store.close()
    if not shown_so_far:
        print("No game played yet.")
    return EXIT_OK


def cmd_games(args: argparse.Namespace) -> int:
    """List the unfinished games: ID, when last played, kind, moves and time."""
    from kaldoku_tui.session.reports import unfinished_games, unfinished_table
    from kaldoku_tui.session.store import StoreError

    store = _store(args)
    try:
        games = unfinished_games(store)
    except StoreError as error:
        raise UsageError(f"the games cannot be read: {error}") from None
    finally:
        store.close()
    print(unfinished_table(games) + "\nkaldoku resume ID plays one again." if games
          else "No unfinished game.")
    return EXIT_OK


def cmd_resume(args: argparse.Namespace) -> int:
    """Play unfinished game ID again."""
    return play(app_config(args))


FIRST_PAGE, HISTORY_PAGE = 40, 500
"""Games `kaldoku history` reads and prints at first, then at a time."""


def _stored_game(store, game_id: int | None):
    """Game `game_id` (the game in progress when None) from `store`; UsageError when
    there is none or it cannot be read."""
    from kaldoku_tui.session.store import StoreError

    if game_id is None:
        for found in store.open_games():
            try:
                return store.game(found.id)
            except StoreError:
                continue
        raise UsageError("no game in progress: give a game ID (kaldoku history lists them)")
    try:
        saved = store.game(game_id)
    except StoreError as error:
        raise UsageError(f"game {game_id} cannot be read: {str(error)[:200]}") from None
    if saved is None:
        raise UsageError(f"no game {game_id} (kaldoku history lists them)")
    return saved


def cmd_replay(args: argparse.Namespace) -> int:
    """Replay game ID's moves on the board, at the player's pace."""
    from kaldoku_tui.screens.replay import ReplayApp, replay_frames
    from kaldoku_tui.session.game import MoveError
    from kaldoku_tui.terminal import apply_colors, use_ascii

    store = _store(args)
    saved = _stored_game(store, args.id)
    store.close()
    try:
        frames = replay_frames(saved)
    except (MoveError, PuzzleError) as error:
        raise UsageError(f"game {args.id} cannot be replayed: {error}") from None
    _need_a_terminal()
    apply_colors(args.colors)
    ReplayApp(saved, frames, ascii=use_ascii(args.ascii)).run()
    return EXIT_OK


EXPORT_FORMATS = (*FORMATS, "code")
"""The forms `kaldoku export --format` prints a puzzle in: those of engine/formats.py and
the share code."""


def exported(puzzle: Puzzle, form: str) -> str:
    """`puzzle` in `form`, ending with a newline."""
    from kaldoku_tui.engine.codes import share_code
    from kaldoku_tui.engine.formats import write_puzzle

    return share_code(puzzle) + "\n" if form == "code" else write_puzzle(puzzle, form)


def cmd_export(args: argparse.Namespace) -> int:
    """Print the puzzle of the game in progress (or game ID), or its moves as JSON Lines."""
    from kaldoku_tui.session.store import StoreError

    store = _store(args)
    try:
        if args.moves:
            # The moves as stored, a damaged one as {"move": null} in its place.
            game_id = args.id if args.id is not None else _stored_game(store, None).id
            log = store.move_log(game_id)
            if log is None:
                raise UsageError(f"no game {game_id} (kaldoku history lists them)")
            for line in log:
                print(json.dumps(line))  # \u escapes: nothing in a record reaches the terminal raw
        else:
            # A puzzle file may have put anything in a title: JSON's escapes keep it from the terminal.
            print(shown_json(exported(_stored_game(store, args.id).puzzle, args.format)), end="")
    except StoreError as error:
        raise UsageError(f"the moves cannot be read: {error}") from None
    finally:
        store.close()
    return EXIT_OK


def cmd_web(args: argparse.Namespace) -> int:
    """Serve the game to browser tabs until Ctrl+C; the address printed carries the token."""
    from pathlib import Path

    from kaldoku_tui.web import WebConfig, serve

    _store(args).close()  # an unsafe or unusable store is said now, once
    game_args: tuple[str, ...] = ("--data-dir", str(Path(args.data_dir).resolve())) if args.data_dir else ()
    if args.store:
        game_args += ("--store", args.store)
    if args.player:
        game_args += ("--player", args.player)
    try:
        serve(WebConfig(host=args.host, port=args.port, game_args=game_args, max_tabs=args.tabs))
    except OSError as exc:
        raise UsageError(f"cannot listen on {args.host} port {args.port}: {exc.strerror or exc}") from None
    return EXIT_OK


def cmd_serve(args: argparse.Namespace) -> int:
    """Run the SSH server until SIGTERM or Ctrl+C."""
    import asyncio
    import logging
    from pathlib import Path

    try:
        from kaldoku_tui.serve.gate import Limits
        from kaldoku_tui.serve.server import ServeConfig, ServeError, serve
    except ImportError as error:
        raise UsageError(f"kaldoku serve needs asyncssh ({error}): pip install 'kaldoku[serve]'") from None
    from kaldoku_tui.session.store import data_dir

    new_game = [*(("--size", str(args.size)) if args.size else ()), *(("--ops", args.ops) if args.ops else ()),
                *(("--difficulty", args.difficulty) if args.difficulty else ())]
    config = ServeConfig(
        data_dir=Path(args.data_dir).expanduser() if args.data_dir else data_dir() / "serve",
        host=args.host, port=args.port, store=args.store or os.environ.get("KALDOKU_STORE"),
        guests=args.guests, idle_timeout=args.idle_timeout, lobby=args.lobby,
        limits=Limits(max_sessions=args.max_sessions, per_address=args.per_address, per_key=args.per_key),
        new_game=tuple(new_game))
    logging.basicConfig(level=logging.INFO, format="%(message)s", stream=sys.stderr)
    logging.getLogger("asyncssh").setLevel(logging.WARNING)
    try:
        asyncio.run(serve(config))
    except ServeError as error:
        raise UsageError(str(error)) from None
    except OSError as error:  # the port is taken, the address is not ours
        raise UsageError(f"cannot listen on {args.host}:{args.port}: {error.strerror or error}") from None
    return EXIT_OK


HANDLERS = {
    "generate": cmd_generate, "solve": cmd_solve, "check": cmd_check, "grade": cmd_grade,
    "daily": cmd_daily, "print": cmd_print,
    "stats": cmd_stats, "history": cmd_history, "replay": cmd_replay, "export": cmd_export, "web": cmd_web,
    "serve": cmd_serve, "games": cmd_games, "resume": cmd_resume,
}


def app_config(args: argparse.Namespace, daily: date | None = None) -> AppConfig:
    """The game app that `kaldoku` (or `kaldoku daily`, with `daily`) asks for, on this
    terminal."""
    from kaldoku_tui.terminal import use_ascii

    return AppConfig(
        data_dir=args.data_dir, store=args.store, player=args.player,
        ascii=use_ascii(args.ascii), colors=args.colors,
        puzzle=getattr(args, "puzzle", None), size=getattr(args, "size", None),
        seed=getattr(args, "seed", None), ops=getattr(args, "ops", None),
        difficulty=getattr(args, "difficulty", None), daily=daily, race=getattr(args, "race", None),
        game=getattr(args, "id", None) if getattr(args, "command", None) == "resume" else None,
        terminal_input=(sys.stdin.isatty() and sys.stdout.isatty()
                        and "TEXTUAL_DRIVER" not in os.environ),
    )


def play(config: AppConfig) -> int:
    """Play the game `config` asks for, in the colours it asks for; the exit status."""
    import gc

    # Starting makes a few hundred thousand objects that last as long as the game (modules,
    # styles, a resumed game's history): looking through them for garbage before the board
    # is drawn only delays it. The app turns collection back on once its first screen is up.
    gc.disable()
    try:
        from kaldoku_tui.app import run
        from kaldoku_tui.terminal import apply_colors

        apply_colors(config.colors)  # Textual reads them from the environment
        return run(config)
    finally:
        gc.enable()


def main(argv: Sequence[str] | None = None) -> int:
    """Run `kaldoku` with `argv` and return the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if argv and argv[0] in COMMANDS:
            args = command_parser().parse_args(argv)
            return HANDLERS[args.command](args)
        if argv and argv[0] in ("help", "commands"):
            command_parser().print_help()
            return EXIT_OK
        config = app_config(game_parser().parse_args(argv))
        if config.chosen and config.difficulty and sys.stderr.isatty():
            kind = GameKind(config.size or DEFAULT_KIND.size, config.ops or "all", config.difficulty)
            print(f"Generating a {kind.describe()} puzzle…", file=sys.stderr, flush=True)
        _need_a_terminal()
        return play(config)
    except (UsageError, PuzzleError) as exc:
        # Arguments and files may hold escape sequences and huge values: shown, one line.
        print(f"kaldoku: error: {shown(str(exc), ERROR_LIMIT)}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader (head, less) went away: stop quietly, as Unix tools do.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
