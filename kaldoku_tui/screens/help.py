"""The help screen: every key of the game, read from the bindings themselves."""

from __future__ import annotations

import textwrap
from typing import Iterable

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Static

from kaldoku_tui.screens.dialogs import ReadingScreen
from kaldoku_tui.widgets.grid import KenKenGrid

ABOUT = (
    "Fill the grid so that each row and each column holds every digit once, and the "
    "digits of each cage (heavy walls) make its number with its operation."
)


KEY_NAMES = {"question_mark": "?"}


def key_names(binding: Binding) -> list[str]:
    """The keys of a binding as a player reads them: 'up', 'ctrl+z', '?'."""
    return [KEY_NAMES.get(key.strip(), key.strip()) for key in binding.key.split(",")]


def key_table(sections: Iterable[tuple[str, Iterable[Binding]]], width: int = 66) -> str:
    """The sections of keys as plain text, one line a key set (descriptions wrapped to
    `width`); a key bound twice for the two states of a mode is listed once."""
    sections = [(title, list(bindings)) for title, bindings in sections]
    keys_width = 2 + max(
        len(", ".join(key_names(b))) for _, bindings in sections for b in bindings
    )
    lines = []
    for title, bindings in sections:
        lines += ["", title]
        seen = set()
        for binding in bindings:
            what = (binding.key, binding.action.partition("(")[0])
            if what in seen:
                continue
            seen.add(what)
            keys = ", ".join(key_names(binding))
            lines += textwrap.wrap(
                describe(binding),
                width,
                initial_indent=f"  {keys:<{keys_width}}",
                subsequent_indent=" " * (keys_width + 2),
            )
    return "\n".join(lines)


def describe(binding: Binding) -> str:
    """What a key does, for the help screen: its tooltip, but for Textual's own keys."""
    action = binding.action.partition("(")[0]
    if action == "move":
        return f"move {binding.description.lower()}"
    return HELP_TEXT.get(action) or binding.tooltip or binding.description or action


HELP_TEXT = {
    "quit": "quit (the game is saved)",
    "command_palette": "command palette: every action, and the themes",
    "help_quit": "how to quit",
}


def grid_bindings(size: int) -> list[Binding]:
    """The grid's bindings, with the digit keys of a board of `size` folded into one line."""
    bindings = [b for b in KenKenGrid.BINDINGS
                if isinstance(b, Binding) and not b.action.startswith(("digit(", "note("))]
    digits = Binding(",".join(str(d) for d in range(1, size + 1)), "digit",
                     "enter a digit (a note in notes mode)")
    notes = Binding(f"alt+1..alt+{size}", "note",
                    "put in or take out a note, in either mode (see the README for the "
                    "terminals that send Alt)")
    return [*bindings[:4], digits, notes, *bindings[4:]]


def key_sections(size: int, game: Iterable[object], anywhere: Iterable[object]
                 ) -> list[tuple[str, list[Binding]]]:
    """Every key of the game, in sections: the board's (of a board of `size`), the game
    screen's and the app's."""
    return [
        ("On the board", grid_bindings(size)),
        ("Game", [b for b in game if isinstance(b, Binding)]),
        ("Anywhere", [b for b in anywhere if isinstance(b, Binding)]),
    ]


class KeyTable(Static):
    """The key table, its descriptions wrapped to the width it is given."""

    def __init__(self, sections: list[tuple[str, list[Binding]]]) -> None:
        super().__init__(id="keys", markup=False)
        self.sections = sections

    def on_resize(self) -> None:
        self.update(key_table(self.sections, self.size.width))


class HelpScreen(ReadingScreen):
    """Every key, in sections; escape, q, ? or f1 closes it."""

    BINDINGS = [Binding("escape,q,question_mark,f1", "close", "Close")]

    def __init__(self, sections: list[tuple[str, list[Binding]]], *, ascii: bool = False) -> None:
        super().__init__(ascii=ascii)
        self.sections = sections

    def compose(self) -> ComposeResult:
        with VerticalScroll(classes="dialog", id="help"):
            yield Static("kaldoku: keys", classes="question")
            yield Static(ABOUT)
            yield KeyTable(self.sections)
            yield Static("\nEsc / q / ? / F1: close   up/down: scroll", classes="keys")
