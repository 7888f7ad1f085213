"""The grid widget, driven through a small App with Textual's Pilot."""

import itertools

import pytest
from textual.app import App
from textual.geometry import Region
from textual.widgets import Footer, Header

from kaldoku_tui.engine.board import Board
from kaldoku_tui.engine.puzzle import Cage, Puzzle, combine
from kaldoku_tui.session import Session
from kaldoku_tui.widgets import grid as grid_module
from kaldoku_tui.frame import BOX, Frame
from kaldoku_tui.widgets.grid import GRID_CSS, KenKenGrid

from conftest import until
from screen import screen_cells, screen_lines

SOLUTION = ((1, 2, 3, 4), (4, 1, 2, 3), (3, 4, 1, 2), (2, 3, 4, 1))


def keen4():
    """Keen's 4:aa_a__a__a_a__a_a,d2m12s1a5s1m4d2a5: ÷2 on r1c1-r1c2, ×12 on r1c3-r1c4..."""
    cages = [
        Cage(((0, 0), (0, 1)), "/", 2),
        Cage(((0, 2), (0, 3)), "*", 12),
        Cage(((1, 0), (2, 0)), "-", 1),
        Cage(((1, 1), (2, 1)), "+", 5),
        Cage(((1, 2), (1, 3)), "-", 1),
        Cage(((2, 2), (3, 2)), "*", 4),
        Cage(((2, 3), (3, 3)), "/", 2),
        Cage(((3, 0), (3, 1)), "+", 5),
    ]
    return Puzzle(4, tuple(cages), SOLUTION)


def nine():
    """A 9×9 of dominoes across each row, a 2×2 × cage at the top left, singles on the right."""
    solution = tuple(tuple((r * 3 + r // 3 + c) % 9 + 1 for c in range(9)) for r in range(9))
    cages, ops = [], "+-*/"
    for r in range(9):
        for c in range(0, 9, 2):
            if (r, c) == (1, 0):
                continue
            cells = [(r, c)] + ([(r, c + 1)] if c < 8 else [])
            if (r, c) == (0, 0):
                cells += [(1, 0), (1, 1)]
            digits = [solution[a][b] for a, b in cells]
            op = {1: "=", 4: "*"}.get(len(cells)) or ops[len(cages) % 4]
            if combine(op, digits) is None:
                op = "+"
            cages.append(Cage(tuple(cells), op, combine(op, digits)))
    return Puzzle(9, tuple(cages), solution)


class GridApp(App):
    CSS_PATH = GRID_CSS

    def __init__(self, puzzle, ascii=False):
        super().__init__()
        self.session = Session(puzzle)
        self.ascii = ascii
        self.changes = []

    @property
    def board(self):
        return self.session.board

    def compose(self):
        yield Header()
        yield KenKenGrid(self.board.view(), ascii=self.ascii, play=self.play, id="grid")
        yield Footer()

    def play(self, move):
        if self.session.apply(move).board:
            grid = self.query_one(KenKenGrid)
            grid.view = self.board.view()
            self.changes.append(grid.view.grid)


def cell_text(grid, cell):
    region = grid.board_layout.cell_region(cell)
    lines = [grid.board_line(y) for y in range(region.y, region.bottom)]
    return [line.text[region.x : region.right] for line in lines]


def inside_segments(grid, cell):
    """Each line of the inside of `cell`, as segments."""
    region = grid.board_layout.cell_region(cell)
    return [list(grid.board_line(y).crop(region.x, region.right)) for y in range(region.y, region.bottom)]


def label_text(grid, cell):
    region = grid.board_layout.label_region(cell)
    return grid.board_line(region.y).text[region.x : region.right]


async def test_moving_with_arrows_and_hjkl_stops_at_the_edges():
    app = GridApp(keen4())
    async with app.run_test(size=(80, 24)) as pilot:
        grid = app.query_one(KenKenGrid)
        await pilot.press("up", "left", "k", "h")
        assert grid.cursor == (0, 0)
        await pilot.press("l", "right", "l", "l", "l")
        assert grid.cursor == (0, 3)
        await pilot.press("j", "down", "j", "j", "h")
        assert grid.cursor == (3, 2)
        await pilot.press("k", "up")
        assert grid.cursor == (1, 2)


async def test_digits_enter_and_every_clear_key_clears():
    app = GridApp(keen4())
    async with app.run_test(size=(80, 24)) as pilot:
        grid = app.query_one(KenKenGrid)
        await pilot.press("right", "3")
        assert app.board.digit((0, 1)) == 3
        assert "3" in "".join(cell_text(grid, (0, 1)))
        await pilot.press("5")
        assert app.board.digit((0, 1)) == 3, "5 is above the size of a 4×4"
        for key in ("0", "backspace", "delete", "space"):
            await pilot.press("2", key)
            assert app.board.digit((0, 1)) == 0, key
        assert "".join(cell_text(grid, (0, 1))).strip() == ""
        assert app.changes[0][0] == (0, 3, 0, 0), "the grid is shown the board after a move"


async def test_notes_mode_auto_clean_fill_and_undo_redo():
    app = GridApp(keen4())
    async with app.run_test(size=(80, 24)) as pilot:
        grid = app.query_one(KenKenGrid)
        await pilot.press("n", "2", "3")
        assert grid.notes_mode
        assert app.board.notes((0, 0)) == {2, 3}
        assert app.board.digit((0, 0)) == 0
        bindings = app.screen.active_bindings
        assert bindings["n"].binding.description == "Notes: ON"
        # Large cells: each note in its place, 1 2 over 3 4.
        assert [line.strip() for line in cell_text(grid, (0, 0)) if line.strip()] == ["2", "3"]
        await pilot.press("n", "right", "right", "right", "2")
        assert app.screen.active_bindings["n"].binding.description == "Notes: off"
        assert app.board.notes((0, 0)) == {3}, "placing 2 in the row cleans the notes"
        await pilot.press("u")
        assert app.board.notes((0, 0)) == {2, 3} and app.board.digit((0, 3)) == 0
        await pilot.press("r")
        assert app.board.digit((0, 3)) == 2
        await pilot.press("f")
        assert app.board.notes((1, 3)) == {1, 3, 4}
        await pilot.press("ctrl+z")
        assert app.board.notes((1, 3)) == set()
        await pilot.press("ctrl+y")
        assert app.board.notes((1, 3)) == {1, 3, 4}


async def test_checker_marks_duplicates_done_and_wrong_cages():
    app = GridApp(keen4())
    async with app.run_test(size=(80, 24)) as pilot:
        grid = app.query_one(KenKenGrid)
        await pilot.press("1", "right", "2", "right", "1")
        # The 1s at r1c1 and r1c3 clash; ÷2 holds 1 and 2 but one of them clashes.
        assert grid.duplicates == {(0, 0), (0, 2)}
        assert grid.looks[(0, 2)].duplicate and not grid.looks[(0, 1)].duplicate
        assert "1!" in "".join(cell_text(grid, (0, 2)))
        assert label_text(grid, (0, 0)).startswith("━2÷━")
        await pilot.press("4")
        assert label_text(grid, (0, 0)).startswith("━2÷✓"), "right and no clash: done"
        grid.light_numbers = True
        await pilot.press("left", "left", "3")
        assert label_text(grid, (0, 0)).startswith(" 2÷≠"), "the cursor's cage: lit"
        await pilot.press("down")
        # ÷2 now holds 3 and 2: wrong, shown by a glyph and by reverse video.
        assert label_text(grid, (0, 0)).startswith("━2÷≠")
        strip = grid.board_line(grid.board_layout.label_region((0, 0)).y)
        assert any(seg.style.reverse for seg in strip if "2÷" in seg.text)
        assert grid.duplicates == frozenset()
        assert label_text(grid, (0, 2)).startswith("━12×━"), "incomplete cages have no mark"


async def test_a_9x9_fits_80x24_with_header_footer_and_every_label():
    puzzle = nine()
    app = GridApp(puzzle)
    async with app.run_test(size=(80, 24)) as pilot:
        grid = app.query_one(KenKenGrid)
        await pilot.pause()
        assert grid.size.height == 22
        layout = grid.board_layout
        assert layout is not None and layout.cell_height == 1
        lines = screen_lines(app)
        text = "\n".join(lines)
        assert "┏" in text and "┛" in text and "Terminal too small" not in text
        for cage in puzzle.cages:
            assert label_text(grid, cage.anchor).lstrip("━ ").startswith(cage.label())
        # Rulers: the cursor's column and row numbers are lit, in reverse, by a setting.
        assert layout.rulers
        assert lines[1 + layout.top - 1].split() == list("123456789")
        await pilot.press("down", "right", "right")
        lit = layout.column_ruler_region(2)
        assert not any(s.style.reverse for s in grid.board_line(lit.y).crop(lit.x, lit.right))
        grid.light_numbers = True
        for region in (layout.column_ruler_region(2), layout.row_ruler_region(1)):
            strip = grid.board_line(region.y).crop(region.x, region.right)
            assert strip.text.strip() in "23" and all(seg.style.reverse for seg in strip)
        unlit = layout.column_ruler_region(0)
        assert not any(s.style.reverse for s in grid.board_line(unlit.y).crop(unlit.x, unlit.right))
        # And its cage's label.
        assert label_text(grid, (1, 2)).startswith(" ")
        await pilot.press("up", "left", "left")
        await pilot.press("n", "1", "2", "3")
        assert cell_text(grid, (0, 0)) == ["123    "], "compact cells list notes on one line"


async def test_too_small_says_what_it_needs_and_reflows_on_resize():
    app = GridApp(nine())
    async with app.run_test(size=(40, 12)) as pilot:
        text = "\n".join(screen_lines(app))
        assert "Terminal too small" in text
        assert "need 37×21, have 40×12" in text, "9 cells of 3 columns + 10 lines; 19 rows + header, footer"
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        text = "\n".join(screen_lines(app))
        assert "Terminal too small" not in text and "┏" in text


async def test_ascii_mode_draws_pure_ascii():
    app = GridApp(keen4(), ascii=True)
    async with app.run_test(size=(80, 24)) as pilot:
        grid = app.query_one(KenKenGrid)
        await pilot.press("1", "right", "3", "right", "1", "down", "n", "1", "2")
        lines = screen_lines(app)[1:-1]  # between the header and the footer
        assert all(line.isascii() for line in lines)
        assert label_text(grid, (0, 0)).startswith("=2/!"), "a wrong cage in ASCII"
        assert label_text(grid, (0, 2)).startswith("=12x")
        text = "\n".join(lines)
        assert "|" in text and ":" in text and "-" in text and "1!" in text


async def test_a_new_puzzle_and_a_reveal_are_drawn():
    app = GridApp(keen4())
    async with app.run_test(size=(80, 24)) as pilot:
        grid = app.query_one(KenKenGrid)
        await pilot.press("down", "down", "down", "right", "right", "right")
        board = Board(nine())
        grid.view = board.view()
        await pilot.pause()
        assert grid.board_layout.cell_height == 1
        assert sum(band.display for band in grid.bands) == 9
        assert grid.cursor == (3, 3)
        board.reveal()
        grid.view = board.view()
        await pilot.pause()
        row = screen_lines(app)[1 + grid.board_layout.cell_region((0, 0)).y]
        assert row.split()[0] == "1", "the row's number on the ruler"
        assert row.split()[2::2] == list("123456789")


async def test_a_new_theme_repaints_in_its_colours():
    app = GridApp(keen4())
    async with app.run_test(size=(80, 24)) as pilot:
        grid = app.query_one(KenKenGrid)
        await bands_placed(pilot, grid)
        band = grid.bands[0]
        y = grid.board_layout.cell_region((0, 0)).y - band.top
        dark = band.render_line(y)
        app.theme = "textual-light"
        await pilot.pause()
        light = band.render_line(y)
        assert dark.text == light.text
        assert [seg.style.bgcolor for seg in dark] != [seg.style.bgcolor for seg in light]


async def test_clicking_a_cell_selects_it():
    app = GridApp(keen4())
    async with app.run_test(size=(80, 24)) as pilot:
        grid = app.query_one(KenKenGrid)
        region = grid.board_layout.cell_region((2, 3))
        await pilot.click(KenKenGrid, offset=(region.x + 1, region.y))
        assert grid.cursor == (2, 3)


def lines_of(layout, cells):
    """Each line of the insides of these cells, as a region."""
    regions = [layout.cell_region(cell) for cell in cells]
    return {Region(r.x, y, r.width, 1) for r in regions for y in range(r.y, r.bottom)}


async def bands_placed(pilot, grid):
    """Wait for the bands, laid over the board a moment after its first screen."""
    await until(pilot, lambda: grid.placed_layout is not None and grid.placed_layout == grid.board_layout,
                what="the bands placed")
    await pilot.pause()


def spy_on_bands(grid):
    """The regions of the grid the bands are asked to repaint, from now on."""
    painted = []
    for band in (*grid.bands, grid.ruler_band):
        band.refresh = lambda *regions, band=band, **kw: painted.extend(
            region.translate((band.left, band.top)) for region in regions
        )
    return painted


async def test_the_first_screen_has_the_board_and_the_bands_come_after(monkeypatch):
    monkeypatch.setattr(grid_module, "BANDS_DELAY", 60.0)  # placed by hand below
    app = GridApp(keen4())
    async with app.run_test(size=(80, 24)) as pilot:
        grid = app.query_one(KenKenGrid)
        await pilot.pause()
        assert grid.placed_layout is None and not any(band.display for band in grid.bands)
        assert "┏" in "".join(screen_lines(app)) and "┛" in "".join(screen_lines(app))
        first = screen_cells(app)
        # A key before the bands: the grid repaints the whole lines that changed.
        painted = []
        refresh = grid.refresh
        grid.refresh = lambda *regions, **kw: painted.extend(regions) or refresh(*regions, **kw)
        await pilot.press("right")
        layout = grid.board_layout
        assert lines_of(layout, [(0, 0), (0, 1)]) <= set(painted)
        before = screen_cells(app)
        assert before != first
        grid.place_bands()
        await pilot.pause()
        assert sum(band.display for band in grid.bands) == 4 and grid.ruler_band.display
        # Laid over the board, the bands show it as it was.
        assert screen_cells(app) == before


async def test_a_move_or_a_digit_repaints_only_what_changed():
    app = GridApp(keen4())
    async with app.run_test(size=(80, 24)) as pilot:
        grid = app.query_one(KenKenGrid)
        await bands_placed(pilot, grid)
        painted = spy_on_bands(grid)
        layout = grid.board_layout
        assert layout.rulers
        grid.cursor = (0, 1)
        # By default only the cursor shows where it is: the two cells, nothing else.
        assert set(painted) == lines_of(layout, [(0, 0), (0, 1)])
        painted.clear()
        grid.light_numbers = True
        # The setting lights the numbers of row 1 and column 2 and the cage's label.
        rulers = {layout.row_ruler_region(0), layout.column_ruler_region(1)}
        label = layout.label_region((0, 0))
        assert set(painted) == rulers | {Region(label.x, label.y, 3, 1)}
        painted.clear()
        grid.cursor = (0, 0)
        # Same row and cage: the two cells and the numbers of columns 1 and 2.
        rulers = {layout.column_ruler_region(0), layout.column_ruler_region(1)}
        assert set(painted) == lines_of(layout, [(0, 0), (0, 1)]) | rulers
        painted.clear()
        grid.cursor = (0, 1)
        painted.clear()
        grid.cursor = (1, 1)
        # Into the +5 cage: the numbers of rows 1 and 2, and both cages' labels as far
        # as they reach ("2÷", "5+" after the lead).
        rulers = {layout.row_ruler_region(0), layout.row_ruler_region(1)}
        labels = {Region(region.x, region.y, 3, 1)
                  for region in map(layout.label_region, [(0, 0), (1, 1)])}
        assert set(painted) == lines_of(layout, [(0, 1), (1, 1)]) | rulers | labels
        painted.clear()
        await pilot.press("3")
        # A digit changes the middle line of its three-line cell, and nothing else.
        region = layout.cell_region((1, 1))
        assert painted == [Region(region.x, region.y + 1, region.width, 1)]
        painted.clear()
        grid.highlight_peers = True
        # The setting shades the row, the column and the cage: every line of those cells.
        shaded = {(1, c) for c in range(4)} | {(r, 1) for r in range(4)} | {(2, 1)}
        assert set(painted) == lines_of(layout, shaded - {(1, 1)})


async def test_losing_the_keyboard_repaints_the_cursor_alone_and_underlines_it():
    app = GridApp(keen4())
    async with app.run_test(size=(80, 24)) as pilot:
        grid = app.query_one(KenKenGrid)
        grid.focus()
        await bands_placed(pilot, grid)
        layout = grid.board_layout
        y = layout.cell_region((0, 0)).y + layout.middle
        x = layout.cell_region((0, 0)).x
        assert next(iter(grid.board_line(y).crop(x, x + 1))).style.reverse
        painted = spy_on_bands(grid)
        app.set_focus(None)
        await pilot.pause()
        assert not grid.has_focus
        assert set(painted) == lines_of(layout, [(0, 0)])
        away = next(iter(grid.board_line(y).crop(x, x + 1))).style
        assert away.underline and not away.reverse


async def test_marked_cells_and_the_paused_board():
    app = GridApp(keen4())
    async with app.run_test(size=(80, 24)) as pilot:
        grid = app.query_one(KenKenGrid)
        grid.marked = frozenset({(2, 2)})
        await pilot.pause()
        region = grid.board_layout.cell_region((2, 2))
        inside = grid.board_line(region.y).crop(region.x, region.right)
        assert all(segment.style.underline for segment in inside)
        grid.show_board = False
        await pilot.pause()
        assert not "".join(screen_lines(app)[1:-1]).strip(), "paused: the board is hidden"
        await pilot.press("3")
        assert app.board.digit((0, 0)) == 0, "and takes no digits"
        grid.show_board = True
        await pilot.pause()
        assert "┏" in "".join(screen_lines(app))


async def test_hinted_cells_are_underlined_until_a_new_board():
    app = GridApp(keen4())
    async with app.run_test(size=(80, 24)) as pilot:
        grid = app.query_one(KenKenGrid)
        await pilot.press("down")
        await bands_placed(pilot, grid)
        painted = spy_on_bands(grid)
        grid.hinted = frozenset({(2, 3), (3, 3)})
        layout = grid.board_layout
        assert set(painted) == lines_of(layout, [(2, 3), (3, 3)]), "just the hinted cells"

        def inside(cell):
            region = layout.cell_region(cell)
            return grid.board_line(region.y).crop(region.x, region.right)

        assert all(segment.style.underline for segment in inside((2, 3)))
        middle = layout.cell_region((2, 3))
        middle = grid.board_line(middle.y + layout.middle).crop(middle.x, middle.right)
        assert middle.text.startswith("›"), "a glyph besides the colour"
        assert not any(segment.style.underline for segment in inside((2, 2)))
        grid.view = Board(keen4()).view()
        assert grid.hinted == frozenset()
        assert not any(segment.style.underline for segment in inside((2, 3)))


@pytest.mark.parametrize(
    "crossing, char",
    [((0, 0), "┏"), ((1, 1), "╈"), ((2, 2), "╊"), ((4, 4), "┛"), ((4, 1), "┷"), ((2, 1), "╂")],
)
def test_junctions_follow_their_four_arms(crossing, char):
    frame = Frame.of(keen4(), ascii=False)
    assert frame.junctions[crossing[0]][crossing[1]][0] == char


def test_every_corner_tee_and_cross_of_light_and_heavy_arms_has_a_character():
    for arms in itertools.product(("", "light", "heavy"), repeat=4):
        up, right, down, left = map(bool, arms)
        straight = (up, right, down, left) in ((1, 0, 1, 0), (0, 1, 0, 1))
        if sum((up, right, down, left)) >= 2 and not straight:
            assert arms in BOX, arms
    assert BOX[("heavy", "light", "heavy", "light")] == "╂"


async def test_notes_look_unlike_digits():
    app = GridApp(keen4())
    async with app.run_test(size=(80, 24)) as pilot:
        grid = app.query_one(KenKenGrid)
        await pilot.press("2", "right", "n", "2", "right")
        digit = [s for line in inside_segments(grid, (0, 0)) for s in line if s.text.strip()]
        noted = [s for line in inside_segments(grid, (0, 1)) for s in line if s.text.strip()]
        assert [s.text.strip() for s in digit] == ["2"] and [s.text.strip() for s in noted] == ["2"]
        assert digit[0].style.bold and not noted[0].style.bold and noted[0].style.italic
        assert digit[0].style.color != noted[0].style.color
        assert cell_text(grid, (0, 0)) != cell_text(grid, (0, 1)), "not where a digit sits"
