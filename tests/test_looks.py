"""Looks in any terminal: ASCII mode shows only ASCII, NO_COLOR keeps every mark readable,
and no key or command reaches a shell, a suspend or a screenshot."""

from __future__ import annotations

import pytest
from textual.app import App
from textual.command import CommandList
from textual.geometry import Region

from kaldoku_tui.app import KaldokuApp
from kaldoku_tui.screens.dialogs import ConfirmDialog, NewGameDialog, Palette
from kaldoku_tui.screens.game import GameScreen
from kaldoku_tui.screens.help import HelpScreen, key_table
from kaldoku_tui.screens.win import WinScreen
from kaldoku_tui.widgets.grid import KenKenGrid
from conftest import game_app, until
from test_grid import bands_placed
from screen import screen_cells, screen_lines, screen_text, words


def not_ascii(lines: list[str]) -> dict[str, str]:
    """Each character above ASCII, with the first line that shows it."""
    found: dict[str, str] = {}
    for line in lines:
        for char in line:
            if ord(char) > 127:
                found.setdefault(char, line.rstrip())
    return found


# Keys after a game with a digit and a note, and what each shows on top of the board.
SCREENS = {
    "game": [],
    "new game": ["g"],
    "help": ["question_mark"],
    "confirm": ["X"],
    "settings": ["o"],
    "statistics": ["s"],
    "palette": ["ctrl+p", "down"],
}


@pytest.mark.parametrize("keys", SCREENS.values(), ids=SCREENS)
async def test_ascii_mode_shows_only_ascii(keys, example):
    app = game_app(example, ascii=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("1", "l", "1", "j", "n", "3", "n", *keys)
        await bands_placed(pilot, app.game.grid)  # they come a moment after the board
        if keys:
            await until(pilot, lambda: app.screen is not app.game, what=f"{keys} open a screen")
        if isinstance(app.screen, Palette):
            await until(pilot, lambda: app.screen.query_one(CommandList).option_count, what="commands")
        assert not_ascii(screen_lines(app)) == {}


async def test_the_win_shows_only_ascii(example):
    app = game_app(example, ascii=True)
    async with app.run_test(size=(80, 24)) as pilot:
        for row in example.solution:
            for digit in row:
                await pilot.press(str(digit), "right")
            await pilot.press("down", *["left"] * example.size)
        assert isinstance(app.screen, WinScreen)
        assert not_ascii(screen_lines(app)) == {}


@pytest.mark.parametrize("ascii, chosen, other, ops, times", [
    (True, "* 4x4", "o 3x3", "+ - x /", "x"),
    (False, "● 4×4", "○ 3×3", "+ − × ÷", "×"),
])
async def test_the_new_game_dialog_marks_the_choice_by_glyph(ascii, chosen, other, ops, times, example):
    app = game_app(example, ascii=ascii)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("g")
        await pilot.pause()
        text = screen_text(app)
        assert chosen in text and other in text and ops in text
        sizes = next(line for line in screen_cells(app) if other in "".join(look.char for look in line))
        assert [word for word, looks in words(sizes) if looks[0].bold] == [f"4{times}4"], \
            "the focused row highlights the chosen size, not the first"
        await pilot.press("6")
        text = "\n".join(screen_lines(app))
        assert chosen.replace("4", "6") in text and chosen not in text


async def test_the_help_text_is_ascii(example):
    app = game_app(example, ascii=True)
    async with app.run_test(size=(80, 24)):
        assert not_ascii(key_table(app.game.key_sections()).splitlines()) == {}


def looks(app: App, grid: KenKenGrid, region: Region) -> list[tuple[str, bool, bool, bool]]:
    """What the terminal gets in `region` of the board, colour left out: each piece of
    text with whether it is bold, underlined, reversed."""
    found = []
    for y in range(region.y, region.bottom):
        strip = grid.board_line(y)
        for line_filter in app.get_line_filters():
            strip = strip.apply_filter(line_filter, grid.background_colors[1])
        for segment in strip.crop(region.x, region.right):
            style = segment.style
            found.append((segment.text, bool(style.bold), bool(style.underline), bool(style.reverse)))
    return found


async def test_no_color_keeps_every_mark(example, monkeypatch):
    """Under NO_COLOR a duplicate, a wrong cage, a done cage and the cursor each still
    differ from the unmarked look by a glyph, bold, underline or reverse."""
    monkeypatch.setenv("NO_COLOR", "1")
    app = game_app(example)
    board = app.game.session.board
    assert app.no_color
    async with app.run_test(size=(80, 24)) as pilot:
        grid = app.game.grid
        layout = grid.board_layout

        async def marked_and_not(region: Region, cell, digit):
            """The looks of `region` with and without `digit` in `cell`."""
            board.place(cell, digit)
            grid.view = board.view()
            await pilot.pause()
            marked = looks(app, grid, region)
            board.clear(cell)
            grid.view = board.view()
            await pilot.pause()
            return marked, looks(app, grid, region)

        # 12x on r1c3-r1c4 (example: r1 is 1 2 3 4).
        board.place((0, 2), 3)
        done, unfinished = await marked_and_not(layout.label_region((0, 2)), (0, 3), 4)
        assert done != unfinished, "a done cage"
        wrong, unfinished = await marked_and_not(layout.label_region((0, 2)), (0, 3), 1)
        assert wrong != unfinished, "a wrong cage"
        board.place((2, 3), 3)
        duplicate, alone = await marked_and_not(layout.cell_region((2, 3)), (2, 0), 3)
        assert duplicate != alone, "a duplicate"
        grid.cursor = (3, 3)
        await pilot.pause()
        cursor = looks(app, grid, layout.cell_region((3, 3)))
        grid.cursor = (0, 0)
        await pilot.pause()
        assert cursor != looks(app, grid, layout.cell_region((3, 3))), "the cursor"


# What no remote player may reach: a shell, suspending the process (ctrl+z would stop
# kaldoku and leave the SSH session at a shell prompt), writing files outside the data
# directory.
FORBIDDEN_ACTIONS = {"suspend_process", "screenshot", "deliver_screenshot", "command_line", "shell"}


async def test_no_key_or_command_reaches_a_shell_suspend_or_screenshot(example):
    owners = [App, KaldokuApp, GameScreen, KenKenGrid, NewGameDialog, ConfirmDialog, HelpScreen,
              WinScreen, Palette]
    actions = {binding.action.partition("(")[0].rpartition(".")[2]
               for owner in owners for binding in owner.BINDINGS}
    assert not actions & FORBIDDEN_ACTIONS
    app = game_app(example)
    async with app.run_test(size=(80, 24)):
        active = {key: active.binding.action for key, active in app.screen.active_bindings.items()}
        commands = [command.title.lower() for command in app.get_system_commands(app.game)]
    assert not {action.rpartition(".")[2] for action in active.values()} & FORBIDDEN_ACTIONS
    assert active["ctrl+z"] == "undo", "ctrl+z undoes: the terminal is raw, it cannot stop kaldoku"
    assert not [title for title in commands if "screenshot" in title or "suspend" in title]


def test_the_palette_offers_no_second_key_panel(example):
    """Textual's Keys panel repeats the help screen, in arrows and ⌫ even in ASCII mode."""
    app = game_app(example, ascii=True)
    assert "Keys" not in [command.title for command in app.get_system_commands(app.game)]
