"""`kaldoku print`: text grids and PDF booklets, read back with pypdf."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from conftest import EXAMPLE_ID, EXAMPLE_SOLUTION
from pypdf import PdfReader

from kaldoku_tui.cli import main
from kaldoku_tui.engine.codes import share_code
from kaldoku_tui.engine.daily import daily_puzzle
from kaldoku_tui.engine.formats import read_keen
from kaldoku_tui.engine.generator import generate
from kaldoku_tui.engine.puzzle import Cage, Puzzle
from kaldoku_tui.printing import (CELL_HEIGHT, MIN_CELL_WIDTH, PUZZLE_CELL, WALL, Sheet, booklet_layout, grid_text,
                                  sheet, write_booklet)


def test_a_text_grid_has_heavy_walls_between_cages_and_light_lines_inside(example):
    lines = grid_text(example).splitlines()
    n, width = 4, MIN_CELL_WIDTH
    assert len(lines) == n * (CELL_HEIGHT + 1) + 1
    assert all(len(line) == n * (width + 1) + 1 for line in lines)
    assert lines[0] == "┏" + "━" * width + "┯" + "━" * width + "┳" + "━" * width + "┯" + "━" * width + "┓"
    # Row 1: the ÷2 cage (0,0)(0,1) then the ×12 cage (0,2)(0,3): light inside, heavy between.
    assert lines[1] == "┃2÷     │       ┃12×    │       ┃"
    # The −1 cage (1,0)(2,0) runs down: a light line across it under row 2.
    below_row_2 = lines[2 * (CELL_HEIGHT + 1)]
    assert below_row_2[1:1 + width] == "─" * width
    # Blank cells: no digits anywhere but the clues.
    assert not any(ch.isdigit() for k, line in enumerate(lines) if k % (CELL_HEIGHT + 1) != 1 for ch in line)


def test_a_filled_grid_shows_the_solution_in_the_middle_line(example):
    lines = grid_text(example, example.solution).splitlines()
    for r, row in enumerate(EXAMPLE_SOLUTION):
        middle = lines[r * (CELL_HEIGHT + 1) + 2]
        assert [d for d in middle if d.isdigit()] == [str(d) for d in row]


def test_ascii_grids_use_ascii_only(example):
    text = grid_text(example, ascii=True)
    assert text.isascii()
    assert "|2/     :       |12x    :       |" in text.splitlines()


def test_print_command_text_with_the_code_level_and_answers(capsys):
    puzzle = generate(4, seed=5, level="normal")
    code = share_code(puzzle)
    assert main(["print", code, EXAMPLE_ID, "--solution"]) == 0
    out = capsys.readouterr().out
    assert f"Puzzle 1 · 4×4 normal · {code}" in out
    assert f"Puzzle 2 · 4×4 easy · {share_code(read_keen(EXAMPLE_ID))}" in out
    puzzles, answers = out.split("\nAnswers\n")
    assert "Puzzle 1 · 4×4 normal" in answers and "Puzzle 2 · 4×4 easy" in answers
    grid = answers.split("Puzzle 2 · 4×4 easy\n\n")[1].splitlines()
    for r, row in enumerate(EXAMPLE_SOLUTION):
        assert [d for d in grid[r * (CELL_HEIGHT + 1) + 2] if d.isdigit()] == [str(d) for d in row]
    blank = puzzles.split("Puzzle 2 · 4×4 easy · ")[1].splitlines()[2:]
    assert not any(ch.isdigit() for r in range(4) for ch in blank[r * (CELL_HEIGHT + 1) + 2])


def test_print_ascii_and_standard_input(capsys, monkeypatch, puzzle_dir):
    import io
    import sys

    monkeypatch.setattr(sys, "stdin", io.StringIO((puzzle_dir / "three.jsonl").read_text()))
    assert main(["print", "--ascii"]) == 0
    out = capsys.readouterr().out
    assert out.isascii()
    assert [line.split(" - ")[0] for line in out.splitlines() if line.startswith("Puzzle")] == [
        "Puzzle 1", "Puzzle 2", "Puzzle 3"]


def test_a_puzzle_without_one_solution_says_so_and_has_no_answer(capsys, puzzle_dir):
    files = [str(puzzle_dir / name) for name in ("no_solution.json", "two_solutions.json")]
    assert main(["print", *files, "--solution"]) == 0
    out = capsys.readouterr().out
    assert "Puzzle 1 · 3×3 (no solution)\n" in out
    assert "Puzzle 2 · " in out and "(more than one solution) · kp1-" in out
    answers = out.split("\nAnswers\n")[1]
    assert "Puzzle 1" not in answers and "Puzzle 2" in answers


def pdf_pages(path) -> list[str]:
    return [page.extract_text() for page in PdfReader(str(path)).pages]


def test_a_booklet_has_six_puzzles_a_page_with_codes_and_the_answers_at_the_back(tmp_path):
    puzzles = [generate(6, seed=k) for k in range(7)]  # six 6×6 a page
    sheets = [sheet(p, f"Puzzle {k}") for k, p in enumerate(puzzles, 1)]
    path = tmp_path / "book.pdf"
    write_booklet(sheets, str(path))
    pages = pdf_pages(path)
    assert len(pages) == 3  # 6 + 1 puzzles, then 7 answers on one page
    for s in sheets[:6]:
        assert s.title in pages[0] and s.code in pages[0] and s.kind in pages[0]
    assert sheets[6].code in pages[1]
    assert pages[2].startswith("Answers")
    assert all(s.title in pages[2] for s in sheets)
    # The answer grids hold every digit of every solution.
    digits = sum(p.size ** 2 for p in puzzles)
    assert sum(ch.isdigit() for ch in pages[2]) >= digits


def test_print_daily_days_pdf_makes_the_booklet_of_those_days(tmp_path, capsys):
    path = tmp_path / "days.pdf"
    assert main(["print", "--daily", "--days", "3", "--date", "2026-11-23", "--pdf", str(path)]) == 0
    assert capsys.readouterr().out == ""
    pages = pdf_pages(path)
    assert len(pages) == 2
    for k, name in enumerate(("Monday", "Tuesday", "Wednesday")):
        day = date(2026, 11, 23) + timedelta(days=k)
        assert f"{name} {day}" in pages[0]
        assert share_code(daily_puzzle(day)) in pages[0]
    assert "4×4 normal" in pages[0] and "6×6 hard" in pages[0]


@pytest.mark.parametrize(
    "argv, words",
    [
        (["print", "--days", "3"], "--days and --date go with --daily"),
        (["print", "kp1-0"], "fails its check"),
        (["print", EXAMPLE_ID, "--pdf", "/no/such/dir/book.pdf"], "cannot write /no/such/dir/book.pdf"),
        (["print", "--daily", "--days", "0"], "count must be at least 1"),
    ],
)
def test_bad_print_input_is_one_line_and_status_2(capsys, argv, words):
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and words in err


def test_print_and_daily_json_import_neither_textual_nor_rich(tmp_path):
    import subprocess
    import sys

    code = (
        "import sys; from kaldoku_tui.cli import main; "
        f"main(['print', {EXAMPLE_ID!r}, '--solution']); "
        f"main(['print', {EXAMPLE_ID!r}, '--pdf', {str(tmp_path / 'a.pdf')!r}]); "
        "main(['daily', '--json', '--date', '2026-11-23']); "
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'textual', 'rich'}))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "[]"


@pytest.mark.parametrize("name", ["merged16.json", "hostile_cage_17.json"])
def test_print_prints_what_solve_and_check_accept(capsys, tmp_path, puzzle_dir, name):
    """A cage too large to grade ("too many ways to be filled") left print refusing a
    puzzle that check and solve accept: it prints, without a level."""
    path = str(puzzle_dir / name)
    assert main(["check", path]) in (0, 1) and main(["solve", path]) in (0, 1)
    capsys.readouterr()
    assert main(["print", path, "--solution"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Puzzle 1 · 9×9 · kp1-") and "\nAnswers\n" in out
    assert main(["print", path, "--pdf", str(tmp_path / "b.pdf")]) == 0
    assert "Puzzle 1" in pdf_pages(tmp_path / "b.pdf")[0]


# --- The PDF's boxes and clues --------------------------------------------------------

MM = 25.4 / 72
"""Millimetres in a PDF point."""


def long_clues() -> Puzzle:
    """A 9×9 whose rows are a three-cell × cage (products up to 504×), a − and a ÷ or +
    pair, and a + pair."""
    solution = tuple(tuple((r + c) % 9 + 1 for c in range(9)) for r in range(9))
    cages = []
    for r, row in enumerate(solution):
        cells = [(r, c) for c in range(9)]
        a, b = sorted(row[5:7])
        cages += [Cage(tuple(cells[:3]), "*", row[0] * row[1] * row[2]),
                  Cage(tuple(cells[3:5]), "-", abs(row[3] - row[4])),
                  Cage(tuple(cells[5:7]), "/", b // a) if b % a == 0 else Cage(tuple(cells[5:7]), "+", a + b),
                  Cage(tuple(cells[7:]), "+", row[7] + row[8])]
    return Puzzle(9, tuple(cages), solution)


def drawn_texts(path) -> list[tuple[int, float, float, str, float, str]]:
    """Every text drawn in the PDF: (page, x, baseline, font, points, text), x and the
    baseline in millimetres from the page's top left corner."""
    found = []
    for number, page in enumerate(PdfReader(str(path)).pages):
        height = float(page.mediabox.height)

        def visit(text, cm, tm, font, points, number=number, height=height):
            if text.strip():
                found.append((number, tm[4] * MM, (height - tm[5]) * MM, font["/BaseFont"][1:], points, text.strip()))

        page.extract_text(visitor_text=visit)
    return found


def width_of(text: str, font: str, points: float) -> float:
    """How wide `text` is set in a built-in font, in millimetres (the minus is Symbol's -)."""
    from fpdf import FPDF

    pdf = FPDF(unit="mm")
    pdf.add_page()
    pdf.set_font(font, "", points)
    return pdf.get_string_width(text.replace("−", "-"))


def test_a_nine_by_nine_gets_a_bigger_box_and_no_clue_touches_a_wall(tmp_path, example):
    """Every board had the same box: a 9×9's cells were 7.4 mm (a 4×4's 16.8 mm) and a
    clue such as 144× ran into the wall, the cell() margin left out of its width."""
    sheets = [Sheet(example, "Four", "4×4", None), Sheet(long_clues(), "Nine", "9×9", None)]
    path = tmp_path / "b.pdf"
    write_booklet(sheets, str(path))
    four, nine = booklet_layout(sheets)[:2]
    assert nine.side > 2 * four.side and nine.cell == four.cell == PUZZLE_CELL
    texts = drawn_texts(path)
    for placed in (four, nine):
        for cage in placed.sheet.puzzle.cages:
            r, c = cage.anchor
            left, top = placed.left + c * placed.cell, placed.top + r * placed.cell
            inside = [t for t in texts if t[0] == placed.page and left <= t[1] < left + placed.cell
                      and top < t[2] < top + placed.cell]
            assert "".join(t[5] for t in inside) == cage.label()
            start, end = inside[0][1], inside[-1][1] + width_of(inside[-1][5], *inside[-1][3:5])
            assert left + WALL / 2 < start and end < left + placed.cell - WALL / 2, (cage.label(), start, end)
    # Read back from the page: the 9×9's first and last columns of clues are 8 cells apart.
    starts = [t[1] for t in texts if t[0] == nine.page and nine.top < t[2] < nine.top + nine.side]
    assert max(starts) - min(starts) >= 8 * PUZZLE_CELL - 1


def test_minus_is_printed_as_a_minus_sign_like_times_and_divide(tmp_path, example):
    """Helvetica has no minus sign: the PDF printed 1- beside 12× and 2÷."""
    path = tmp_path / "b.pdf"
    write_booklet([Sheet(example, "Four", "4×4", None)], str(path))
    clues = [t for t in drawn_texts(path) if t[0] == 0 and t[4] < 9]  # headings: 9 points and up
    signs = {t[5]: t[3] for t in clues if not t[5].isdigit()}
    assert signs == {"−": "Symbol", "×": "Helvetica", "÷": "Helvetica", "+": "Helvetica"}
    assert "-" not in "".join(t[5] for t in clues)
