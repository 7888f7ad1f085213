"""The bottom line of the game: the keys of the bindings that show, and the palette's."""

from __future__ import annotations

from typing import NamedTuple

from rich.style import Style
from rich.text import Text
from textual import events
from textual.widget import Widget


class Key(NamedTuple):
    """One key as the bar shows it."""

    key: str
    """The key to press (the first of its action's)."""
    display: str
    """How the key is written: 'n', '?', '^p'."""
    description: str
    enabled: bool
    tooltip: str
    """What the key does, at more length (shown when the mouse rests on it)."""


class KeyBar(Widget):
    """The keys of the screen's bindings that show, as 'n Notes: off u Undo …', and the
    command palette's key on the right; a click on one presses it, and the mouse resting
    on one shows what it does.

    Textual's Footer mounts a widget per key and mounts them all again on each change of
    bindings: three times as the game starts (the first screen waits ~45 ms for it) and
    1.6 KB down the wire for a notes toggle. This draws the same line as text, from the
    first frame, and repaints it when the bindings change."""

    COMPONENT_CLASSES = {"keybar--key", "keybar--description", "keybar--palette"}

    def __init__(self, *, ascii: bool = False, id: str | None = None) -> None:
        super().__init__(id=id)
        self.ascii = ascii
        self.spans: list[tuple[int, int, Key]] = []
        """Where each key was drawn, from x to x."""
        self.shown: tuple[list[Key], Key | None] | None = None
        """The keys the line shows."""

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self.bindings_updated)

    def bindings_updated(self, _screen: object) -> None:
        # The screen updates its bindings after every move: the line is repainted (80
        # columns of styles, ~500 B) only when the keys it shows are not the same.
        keys = self.keys()
        if keys != self.shown:
            self.shown = keys
            self.refresh()

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def keys(self) -> tuple[list[Key], Key | None]:
        """The keys to show, one an action, and the command palette's key (if bound)."""
        app = self.app
        shown: dict[str, Key] = {}
        palette = None
        for _node, binding, enabled, tooltip in self.screen.active_bindings.values():
            key = Key(binding.key, app.get_key_display(binding), binding.description, enabled,
                      tooltip or binding.tooltip or binding.description)
            if binding.key == app.COMMAND_PALETTE_BINDING and app.ENABLE_COMMAND_PALETTE:
                palette = key
            elif binding.show:
                shown.setdefault(binding.action, key)
        return list(shown.values()), palette

    def render(self) -> Text:
        key_style = self.get_component_rich_style("keybar--key")
        text_style = self.get_component_rich_style("keybar--description")
        keys, palette = self.keys()
        line = Text(no_wrap=True, overflow="crop")
        self.spans = []
        for key in keys:
            start = len(line)
            dim = Style(dim=not key.enabled)
            line.append(key.display, key_style + dim)
            line.append(f" {key.description}", text_style + dim)
            self.spans.append((start, len(line), key))
            line.append(" ")
        if palette is not None:
            room = self.size.width - len(line)
            bar = " " if self.ascii else "▏"
            tail = Text.assemble(
                (bar, self.get_component_rich_style("keybar--palette")),
                (palette.display, key_style), (f" {palette.description}", text_style))
            if room >= len(tail):
                line.append(" " * (room - len(tail)))
                start = len(line) + 1
                line.append_text(tail)
                self.spans.append((start, len(line), palette))
        return line

    def key_at(self, x: int) -> Key | None:
        """The key drawn at column x, if any."""
        return next((key for start, end, key in self.spans if start <= x < end), None)

    def on_click(self, event: events.Click) -> None:
        key = self.key_at(event.x)
        if key is not None:
            self.app.simulate_key(key.key)

    def on_mouse_move(self, event: events.MouseMove) -> None:
        key = self.key_at(event.x)
        self.tooltip = None if key is None else key.tooltip
