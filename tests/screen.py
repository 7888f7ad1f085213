"""The screen of a running headless app as a player sees it, read through Textual's public
`App.export_screenshot` (an SVG drawn by Rich's `Console.export_svg`)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass

from rich.cells import cell_len

SVG = "{http://www.w3.org/2000/svg}"
ASPECT = 0.61
"""Rich's export_svg default font_aspect_ratio: a character is 0.61 of the font size wide."""


@dataclass(frozen=True)
class Look:
    """One character cell on the screen: what is drawn there and how."""

    char: str
    colour: str = ""
    """The character's colour (#rrggbb), reverse already applied; empty on a blank, which
    shows only its background."""
    background: str = ""
    """The cell's background (#rrggbb); empty where the terminal's own shows."""
    bold: bool = False
    italic: bool = False
    underline: bool = False


def screen_cells(app) -> list[list[Look]]:
    """Each line of the screen, one Look per character cell. A wide character's second
    cell is a Look of the empty string, so that the chars of a line join into its text."""
    svg = app.export_screenshot()
    width, height = app.size
    font, line_height = map(float, re.search(r"font-size: ([\d.]+)px;\s*line-height: ([\d.]+)px", svg).groups())
    char_width = font * ASPECT
    classes = {name: css for name, css in re.findall(r"\.(terminal-\d+-r\d+) \{ ([^}]*) \}", svg)}
    backgrounds: dict[tuple[int, int], str] = {}
    lines = [[Look(" ") for _ in range(width)] for _ in range(height)]
    root = ET.fromstring(svg)
    for rect in root.iter(f"{SVG}rect"):
        if rect.get("shape-rendering") == "crispEdges":
            y = round((float(rect.get("y")) - 1.5) / line_height)
            x = round(float(rect.get("x")) / char_width)
            for column in range(x, x + round(float(rect.get("width")) / char_width)):
                backgrounds[y, column] = rect.get("fill")
    for (y, x), fill in backgrounds.items():
        if y < height and x < width:
            lines[y][x] = Look(" ", background=fill)
    for text in root.iter(f"{SVG}text"):
        clip = re.fullmatch(r"url\(#terminal-\d+-line-(\d+)\)", text.get("clip-path") or "")
        if clip is None:
            continue  # the window's title
        y = int(clip.group(1))
        x = round(float(text.get("x")) / char_width)
        css = classes[text.get("class")]
        colour = re.search(r"fill: (#[0-9a-f]{6})", css).group(1)
        for char in text.text.replace("\xa0", " ").rstrip("\n"):
            if char != " ":  # a blank keeps only its background, however the text was cut
                    lines[y][x] = Look(char, colour, backgrounds.get((y, x), ""), "font-weight: bold" in css,
                                   "font-style: italic" in css, "text-decoration: underline" in css)
            for shadow in range(1, cell_len(char)):
                lines[y][x + shadow] = Look("")
            x += cell_len(char)
    return lines


def screen_lines(app) -> list[str]:
    """The text of each line of the screen."""
    return ["".join(look.char for look in line) for line in screen_cells(app)]


def screen_text(app) -> str:
    """The text of the screen, its lines joined by newlines."""
    return "\n".join(screen_lines(app))


def words(line: list[Look]) -> list[tuple[str, list[Look]]]:
    """The words of a line of screen_cells (runs of characters between blanks), each with
    the Looks of its characters."""
    found: list[tuple[str, list[Look]]] = []
    run: list[Look] = []
    for look in [*line, Look(" ")]:
        if look.char == " " and run:
            found.append(("".join(each.char for each in run), run))
            run = []
        elif look.char != " ":
            run.append(look)
    return found
