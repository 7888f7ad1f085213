"""Where the board goes on a terminal (kaldoku_tui/layout.py): plain arithmetic, tested
without Textual."""

from __future__ import annotations

import pytest

from kaldoku_tui.layout import (CELL_SIZES, STATUS_LINES, STATUS_MOST, Layout, Rect,
                                compact_notes, fit_layout, note_places, status_lines)
from kaldoku_tui.widgets.grid import ASCII_GLYPHS, UNICODE_GLYPHS


@pytest.mark.parametrize(
    "size, label_width, area, cell, rulers",
    [
        (4, 3, (200, 60), (11, 5), True),  # roomy: big cells, notes 3×3
        (4, 3, (80, 22), (9, 4), True),
        (4, 3, (60, 16), (9, 2), True),  # 60×20 less title, keys and two status lines
        (9, 3, (80, 21), (7, 1), True),  # 9×9 in 80×24 less header, status line and footer
        (9, 5, (80, 21), (7, 1), True),  # "3024×" and its state glyph
        (9, 7, (80, 21), (7, 1), True),  # a 7-character clue: no room left for the glyph
        (9, 3, (74, 21), (5, 1), True),  # the cells shrink before the rulers go
        (9, 3, (80, 19), (7, 1), False),
        (9, 3, (36, 22), None, False),
    ],
)
def test_cells_shrink_to_fit(size, label_width, area, cell, rulers):
    layout = fit_layout(size, label_width, *area)
    assert (layout.cell_width, layout.cell_height) == cell if cell else layout is None
    if layout:
        assert layout.rulers == rulers
        assert layout.left - layout.ruler_left >= 0 and layout.top - layout.ruler_top >= 0
        assert layout.left + layout.width <= area[0] and layout.top + layout.height <= area[1]


def test_the_board_is_centred_and_the_largest_that_fits():
    layout = fit_layout(4, 3, 80, 22)
    assert layout is not None
    outer_width, outer_height = layout.width + layout.ruler_left, layout.height + layout.ruler_top
    assert layout.left - layout.ruler_left == (80 - outer_width) // 2
    assert layout.top - layout.ruler_top == (22 - outer_height) // 2
    larger = CELL_SIZES[: CELL_SIZES.index((layout.cell_width, layout.cell_height))]
    assert larger, "the test needs a cell size that does not fit"
    for width, height in larger:
        assert 4 * (width + 1) + 1 + 2 > 80 or 4 * (height + 1) + 1 + 1 > 22, "a larger cell fits"


@pytest.mark.parametrize("layout", [Layout(4, 7, 3, 2, 1, rulers=True), Layout(9, 5, 1, 0, 0),
                                    Layout(6, 9, 2, 3, 2, rulers=True)])
def test_every_point_inside_a_cell_finds_it_and_every_wall_finds_none(layout):
    inside = {}
    for r in range(layout.size):
        for c in range(layout.size):
            region = layout.cell_region((r, c))
            assert (region.width, region.height) == (layout.cell_width, layout.cell_height)
            inside.update({(x, y): (r, c) for x in range(region.x, region.right)
                           for y in range(region.y, region.bottom)})
    for x in range(layout.left - 1, layout.left + layout.width + 1):
        for y in range(layout.top - 1, layout.top + layout.height + 1):
            assert layout.cell_at(x, y) == inside.get((x, y)), (x, y)
    assert len(inside) == layout.size ** 2 * layout.cell_width * layout.cell_height


def test_labels_rulers_and_bands_sit_around_their_cells():
    layout = Layout(4, 7, 3, 4, 2, rulers=True)
    cell = layout.cell_region((1, 2))
    assert layout.label_region((1, 2)) == Rect(cell.x, cell.y - 1, cell.width, 1)
    assert layout.column_ruler_region(2) == Rect(cell.x, layout.top - 1, cell.width, 1)
    assert layout.row_ruler_region(1) == Rect(layout.left - 2, cell.y + layout.middle, 1, 1)
    band = layout.column_band(2)
    assert (band.x, band.right) == (cell.x, cell.right + 1), "the cells and the wall after them"
    assert (band.y, band.bottom) == (layout.top - 1, layout.top + layout.height)
    assert layout.ruler_band() == Rect(layout.left - 2, layout.top, 2, layout.height)
    cage = layout.cage_region([(1, 2), (2, 2), (2, 3)], (1, 2))
    assert cage == Rect(cell.x, cell.y - 1, 2 * cell.width + 1, 2 * cell.height + 2)


def test_rect_union_and_edges():
    assert Rect.union([Rect(1, 1, 2, 2), Rect(4, 0, 1, 1)]) == Rect(1, 0, 4, 3)
    assert (Rect(2, 3, 4, 5).right, Rect(2, 3, 4, 5).bottom) == (6, 8)


@pytest.mark.parametrize("size, width, rows", [(4, 80, 22), (9, 80, 22), (9, 80, 19), (6, 200, 60),
                                               (9, 30, 10)])
def test_the_status_line_gets_what_the_board_leaves(size, width, rows):
    lines = status_lines(size, 3, width, rows)
    assert STATUS_LINES[-1] <= lines <= max(STATUS_MOST, STATUS_LINES[0])
    layout = fit_layout(size, 3, width, rows - lines)
    if layout is not None:
        assert layout.height + layout.ruler_top <= rows - lines


@pytest.mark.parametrize(
    "size, width, height, first, last",
    [
        (9, 7, 3, (0, 0), (2, 4)),  # 3×3: 1 top left, 9 bottom right; a column left of the middle, where a digit goes
        (9, 9, 2, (0, 0), (1, 6)),  # two lines: 1-5 above, 6-9 below
        (4, 7, 3, (0, 2), (1, 4)),  # 1 2 over 3 4
        (6, 7, 1, (0, 0), (0, 5)),  # one line, a place each
    ],
)
def test_each_note_has_its_own_place(size, width, height, first, last):
    places = note_places(size, width, height)
    assert places[1] == first and places[size] == last
    assert len(set(places.values())) == size, "no two digits share a place"
    assert all(0 <= line < height and 0 <= column < width for line, column in places.values())


@pytest.mark.parametrize(
    "notes, text",
    [({1, 2, 3}, "123"), (set(range(1, 8)), "1234567"), (set(range(1, 9)), "¬9"),
     ({1, 2, 3, 4, 6, 7, 8}, "1234678"), ({1, 2, 3, 4, 6, 7, 8, 9}, "¬5"), (set(range(1, 10)), "1–9")],
)
def test_compact_notes_tell_which_digits(notes, text):
    assert note_places(9, 7, 1) is None
    assert compact_notes(frozenset(notes), 9, 7, UNICODE_GLYPHS) == text
    assert compact_notes(frozenset(notes), 9, 7, ASCII_GLYPHS) == text.replace("¬", "~").replace("–", "-")
