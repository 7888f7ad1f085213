"""The game screen at the sizes players use: every number, label and word on screen."""

from __future__ import annotations

import re

import pytest

from kaldoku_tui.app import ensure_solution
from kaldoku_tui.engine.formats import read_keen
from kaldoku_tui.engine.kinds import GameKind

from conftest import KEEN_IDS, game_app, until, workers_done
from screen import screen_lines
from test_grid import bands_placed


def keen(size: int):
    return ensure_solution(read_keen(next(k for k in KEEN_IDS if k.startswith(f"{size}:"))))


def status_text(app) -> str:
    """The status line's lines as on screen, joined."""
    region = app.game.query_one("#status").region
    return " ".join(screen_lines(app)[region.y : region.bottom])


async def every_page(app, pilot) -> str:
    """The whole status text, paging through it with m."""
    text = status_text(app)
    found = re.search(r"\(m: more 1/(\d)\)", text)
    for _ in range(int(found.group(1)) - 1 if found else 0):
        await pilot.press("m")
        await pilot.pause()
        text += " " + status_text(app)
    return text


def words(text: str) -> list[str]:
    return re.sub(r"\(m: (more|again) \d/\d\)", " ", text).split()


SIZES = [((60, 20), 4), ((60, 20), 6)] + [
    (area, n) for area in ((80, 24), (120, 40), (200, 60)) for n in (4, 6, 9)
]


@pytest.mark.parametrize("area, n", SIZES)
async def test_numbers_labels_and_a_whole_hint_are_on_screen(area, n):
    puzzle = keen(n)
    app = game_app(puzzle)
    async with app.run_test(size=area) as pilot:
        await pilot.pause()
        grid = app.game.grid
        layout = grid.board_layout
        assert layout is not None and layout.rulers
        lines = screen_lines(app)
        x0, y0 = grid.region.offset
        assert lines[y0 + layout.top - 1].split() == [str(i) for i in range(1, n + 1)]
        for r in range(n):
            number = layout.row_ruler_region(r)
            assert lines[y0 + number.y][x0 + number.x] == str(r + 1)
        for cage in puzzle.cages:
            label = layout.label_region(cage.anchor)
            seen = lines[y0 + label.y][x0 + label.x : x0 + label.right]
            assert cage.label() in seen
        status = app.game.query_one("#status").region
        assert status.y >= grid.region.y + layout.top + layout.height, "below the board"
        before = (layout, status)

        await pilot.press("t", "t")
        await workers_done(app)
        await pilot.pause()
        message = app.game.message
        assert message.startswith("Hint 2/3"), message
        assert words(await every_page(app, pilot))[3:] == message.split(), "notes off │ and it"

        app.game.show_status("A long message: " + " ".join(f"w{i}" for i in range(200)))
        await pilot.pause()
        assert words(await every_page(app, pilot))[-200:] == [f"w{i}" for i in range(200)]
        assert (grid.board_layout, app.game.query_one("#status").region) == before


@pytest.mark.parametrize("area, n, cell_height", [((120, 40), 9, 2), ((120, 40), 6, 4),
                                                   ((200, 60), 9, 5), ((80, 24), 9, 1)])
async def test_cells_grow_on_a_big_terminal(area, n, cell_height):
    app = game_app(keen(n))
    async with app.run_test(size=area) as pilot:
        await pilot.pause()
        assert app.game.grid.board_layout.cell_height == cell_height


def dialog_words(app) -> list[str]:
    """The words inside the dialog's frame, line by line joined."""
    dialog = app.screen.query_one(".dialog")
    region = dialog.region
    lines = screen_lines(app)[region.y + 1 : region.bottom - 1]
    return " ".join(line[region.x + 1 : region.right - 1] for line in lines).split()


@pytest.mark.parametrize("key", ["g", "o"])
async def test_dialogs_fit_60_by_20_with_every_word(key):
    from kaldoku_tui.engine.kinds import LEVELS, OP_SET_LABELS, SIZES
    from kaldoku_tui.screens.settings import QUESTIONS

    app = game_app(keen(6))
    async with app.run_test(size=(60, 20)) as pilot:
        await pilot.press(key)
        await pilot.pause()
        dialog = app.screen.query_one(".dialog").region
        assert app.screen.region.contains_region(dialog)
        seen = " ".join(dialog_words(app))
        if key == "g":
            expected = [f"○ {n}×{n}" for n in SIZES if n != 6] + ["● 6×6"]
            expected += [f" {label} " for label in OP_SET_LABELS.values()]
            expected += [f"○ {level}" for level in LEVELS] + ["● any"]
        else:
            expected = list(QUESTIONS.values()) + ["● on ○ off", "○ on ● off"]
        for part in expected:
            assert part in f" {seen} ", part


async def test_help_fits_60_by_20_and_wraps_its_lines():
    app = game_app(keen(6))
    async with app.run_test(size=(60, 20)) as pilot:
        await pilot.press("question_mark")
        await pilot.pause()
        dialog = app.screen.query_one(".dialog").region
        assert app.screen.region.contains_region(dialog)
        table = app.screen.query_one("#keys")
        text = str(table.render())
        assert max(map(len, text.splitlines())) <= table.size.width
        assert "1, 2, 3, 4, 5, 6 " in text


async def test_up_and_down_move_between_rows_left_right_enter_space_change():
    app = game_app(keen(6))
    async with app.run_test(size=(60, 20)) as pilot:
        await pilot.press("o", "down")
        await pilot.pause()
        screen = app.screen
        assert screen.focused.id == "shade_peers"
        assert screen.shown() == app.services.settings, "moving changes nothing"
        await pilot.press("right", "down", "enter", "up", "up", "left")
        shown = screen.shown()
        assert shown.shade_peers and shown.light_numbers and not shown.auto_clean_notes
        await pilot.press("space", "q")
        assert app.services.settings.auto_clean_notes and app.services.settings.shade_peers

        await pilot.press("g", "down", "right", "down", "right", "right", "up", "up", "left")
        dialog = app.screen
        assert dialog.chosen().size == 5 and dialog.chosen().ops == "addmul"
        assert dialog.chosen().level == "normal"
        await pilot.press("escape")


@pytest.mark.parametrize("cell", [(0, 0), (2, 3), (5, 5), (3, 0)])
async def test_the_inspector_leaves_its_cage_in_sight(cell):
    app = game_app(keen(6))
    async with app.run_test(size=(60, 20)) as pilot:
        app.game.grid.cursor = cell
        await pilot.press("i")
        await pilot.pause()
        cage = app.game.grid.cage_region(app.screen.facts.cage)
        dialog = app.screen.query_one(".dialog").region
        assert dialog and not dialog.overlaps(cage)


async def test_a_new_game_of_another_size_is_drawn_at_its_own_layout_at_once(monkeypatch):
    from kaldoku_tui.widgets.grid import KenKenGrid

    app = game_app(keen(4))
    async with app.run_test(size=(80, 24)) as pilot:
        grid = app.game.grid
        await bands_placed(pilot, grid)
        drawn = []
        draw_line = KenKenGrid.draw_line

        def spy(self, y, layout):
            drawn.append((self.view.size, layout, self.size))
            return draw_line(self, y, layout)

        monkeypatch.setattr(KenKenGrid, "draw_line", spy)
        app.game.begin(GameKind(9), keen(9))
        await until(pilot, lambda: getattr(grid.board_layout, "size", 0) == 9, what="the 9×9 laid out")
        await bands_placed(pilot, grid)
        final = app.game.grid.board_layout
        assert final.size == 9 and final.rulers
        assert {(size, layout, area) for size, layout, area in drawn} == {(9, final, app.game.grid.size)}, \
            "no frame of the new board at a passing size"
