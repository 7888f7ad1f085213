"""Every mark on the board reads: text against its background at WCAG contrast ≥ 4.5:1 in
the default themes, in colour and under NO_COLOR (where Textual greys every colour)."""

from __future__ import annotations

import pytest
from rich.style import Style
from textual.filter import monochrome_style

from kaldoku_tui.app import ensure_solution
from kaldoku_tui.engine.formats import read_keen
from kaldoku_tui.session.moves import Check

from conftest import KEEN_IDS, game_app

BOX = range(0x2500, 0x2580)


def luminance(rgb: tuple[int, int, int]) -> float:
    """WCAG relative luminance of an sRGB colour."""
    def channel(value: int) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = map(channel, rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(style: Style) -> float:
    """The WCAG contrast ratio of a style's text against its background, as drawn."""
    fore, back = style.color, style.bgcolor
    if style.reverse:
        fore, back = back, fore
    light, dark = sorted((luminance(fore.get_truecolor()), luminance(back.get_truecolor())),
                         reverse=True)
    return (light + 0.05) / (dark + 0.05)


def test_the_ratio_is_wcag():
    black, white = Style(color="#000000", bgcolor="#ffffff"), Style(color="#777777", bgcolor="#ffffff")
    assert contrast(black) == pytest.approx(21.0)
    assert contrast(white) == pytest.approx(4.48, abs=0.01)
    assert contrast(Style(color="#000000", bgcolor="#ffffff", reverse=True)) == pytest.approx(21.0)


def marked_board(app):
    """Play the marks onto the board: digits, notes, a duplicate that check marks too, a
    hinted cell, a done and a wrong cage."""
    session = app.game.session
    board = session.board
    solution = board.puzzle.solution
    board.place((0, 0), solution[0][0])
    board.place((0, 1), solution[0][0])  # a duplicate, and wrong
    board.place((2, 2), solution[2][2])
    board.toggle_note((1, 1), 1)
    board.toggle_note((1, 1), 2)
    for cell in board.puzzle.cages[-1].cells:
        r, c = cell
        board.place(cell, solution[r][c])
    return board


@pytest.mark.parametrize("theme", ["textual-dark", "textual-light"])
@pytest.mark.parametrize("no_color", [False, True])
async def test_every_mark_has_contrast(theme, no_color):
    puzzle = ensure_solution(read_keen(next(k for k in KEEN_IDS if k.startswith("6:"))))
    app = game_app(puzzle, theme=theme)
    async with app.run_test(size=(80, 24)) as pilot:
        game = app.game
        grid = game.grid
        board = marked_board(app)
        grid.view = board.view()
        game.play(Check())
        grid.hinted = frozenset({(2, 2), (3, 3), (1, 1)})
        grid.light_numbers = True
        grid.highlight_peers = True
        grid.cursor = (0, 1)
        await pilot.pause()
        worst = {}
        for notes_mode in (False, True):
            grid.notes_mode = notes_mode
            grid.cursor = (1, 1) if notes_mode else (0, 1)
            await pilot.pause()
            grid.lines.clear()
            for y in range(grid.size.height):
                for segment in grid.board_line(y):
                    text = "".join(ch for ch in segment.text if not ch.isspace() and ord(ch) not in BOX)
                    if not text:
                        continue
                    style = monochrome_style(segment.style) if no_color else segment.style
                    ratio = contrast(style)
                    if ratio < worst.get(text, (99,))[0]:
                        worst[text] = (ratio, str(segment.style))
        assert worst, "the board has text"
        low = {text: found for text, found in worst.items() if found[0] < 4.5}
        assert low == {}
