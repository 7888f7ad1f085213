"""The game screen at the sizes players use: every number, label and word on screen."""

from __future__ import annotations

import re

import pytest

from kaldoku_tui.app import ensure_solution
from kaldoku_tui.engine.formats import read_keen

from conftest import KEEN_IDS, game_app


def keen(size: int):
    return ensure_solution(read_keen(next(k for k in KEEN_IDS if k.startswith(f"{size}:"))))


def screen_lines(app) -> list[str]:
    return [strip.text for strip in app.screen._compositor.render_strips()]


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
        await app.workers.wait_for_complete()
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
