"""Textual widgets of the game."""

from kaldoku_tui.widgets.grid import GRID_CSS, KenKenGrid

__all__ = ["GRID_CSS", "KenKenGrid"]
