"""The cage inspector: what still fits the selected cage, the digits around it, its notes."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.geometry import Region
from textual.widgets import Static

from kaldoku_tui.engine.hints import CageFacts, how_many
from kaldoku_tui.terminal import in_ascii
from kaldoku_tui.engine.puzzle import cell_name
from kaldoku_tui.screens.dialogs import ReadingScreen

FEWEST_LINES = 6
"""Lines above or below the cage that the inspector needs there; with fewer on both
sides it goes left or right of the cage instead."""

MAX_COMBOS = 60
"""Combinations listed before `and N more` (a six-cell sum on 9×9 has about ninety)."""


def facts_text(facts: CageFacts, ascii: bool = False) -> list[tuple[str, str]]:
    """The inspector's sections as (title, text), in ASCII when asked."""
    cage = facts.cage
    combos = [cage.reading(combo) for combo in facts.combos or ()]
    if len(combos) > MAX_COMBOS:
        combos[MAX_COMBOS:] = [f"and {len(combos) - MAX_COMBOS} more"]
    if facts.combos is None:
        fit = "too many to list for a cage this large"
    elif combos:
        fit = f"{'   '.join(combos)}   ({how_many(facts.fillings, 'way')} to fill it)"
    else:
        fit = "none: the digits placed around it leave no way to fill it"
    dash = "—"
    placed = "   ".join(
        f"{line}: {' '.join(map(str, digits)) or dash}" for line, digits in facts.lines
    )
    notes = "   ".join(
        f"{cell_name(cell)}: " + (f"[{digit}]" if digit else " ".join(map(str, sorted(ns))) or dash)
        for cell, digit, ns in facts.notes
    )
    sections = [
        (f"Cage {cage.label()} at {cell_name(cage.anchor)}, "
         f"{how_many(len(cage.cells), 'cell')}" + (", operation hidden" if cage.hidden else ""), ""),
        ("Combinations that still fit", fit),
        ("Digits in its rows and columns", placed),
        ("Notes ([d]: digit placed)", notes),
    ]
    if ascii:
        sections = [(in_ascii(title), in_ascii(text)) for title, text in sections]
    return sections


class InspectorScreen(ReadingScreen):
    """The facts about one cage; escape, i or q closes it."""

    BINDINGS = [Binding("escape,i,q", "close", "Close"),
                Binding("a", "apply", "Apply as notes",
                        tooltip="the combinations as the cage's notes (one move: u undoes it)")]

    def __init__(self, facts: CageFacts, ascii: bool = False, cage: Region | None = None) -> None:
        super().__init__(ascii=ascii)
        self.facts = facts
        self.ascii = ascii
        self.cage = cage
        """Where the cage is on the screen: the inspector stays off it."""

    def on_resize(self) -> None:
        if self.cage is None:
            return
        width, height = self.size
        cage = self.cage
        dialog = self.query_one("#inspector")
        above, below = cage.y, height - cage.bottom
        left, right = cage.x, width - cage.right
        if max(above, below) >= FEWEST_LINES or max(left, right) < max(above, below):
            self.styles.align = ("center", "top" if above > below else "bottom")
            dialog.styles.max_height = max(above, below)
            dialog.styles.max_width = None
        else:
            self.styles.align = ("left" if left > right else "right", "middle")
            dialog.styles.max_width = max(left, right)
            dialog.styles.max_height = None

    def compose(self) -> ComposeResult:
        with VerticalScroll(classes="dialog -ascii" if self.ascii else "dialog", id="inspector"):
            (title, _), *sections = facts_text(self.facts, self.ascii)
            yield Static(title, classes="question", markup=False)
            for heading, text in sections:
                yield Static(heading, classes="heading", markup=False)
                yield Static(text, classes="facts", markup=False)
            yield Static("a: apply as the cage's notes   Esc / i / q: close"
                         if self.facts.combo_notes else "Esc / i / q: close", classes="keys")

    def action_apply(self) -> None:
        """Close, asking for the combinations as the cage's notes."""
        self.dismiss(bool(self.facts.combo_notes))
