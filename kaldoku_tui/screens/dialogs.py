"""Small modal dialogs: confirm a step, choose a new game, the command palette. Keyboard
first: enter or y confirms; escape, q or n cancels (escape alone is slow on a terminal)."""

from __future__ import annotations

from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.command import CommandInput, CommandList, CommandPalette, SearchIcon
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.screen import ModalScreen
from textual.scrollbar import ScrollBarRender
from textual.widget import Widget
from textual.widgets import Button, Input, Label, OptionList, RadioButton, RadioSet

from kaldoku_tui.engine.kinds import LEVELS, OP_SET_LABELS, SIZES, GameKind, offered_levels, why_impossible
from kaldoku_tui.terminal import in_ascii



class AsciiScrollBarRender(ScrollBarRender):
    """A scrollbar whose thumb is whole cells of colour: the eighth-block ends are not ASCII."""

    VERTICAL_BARS = [" "] * 8
    HORIZONTAL_BARS = [" "] * 8


def ascii_scrollbars(widget: Widget) -> None:
    """Draw `widget`'s scrollbars with ASCII only."""
    # Textual types `renderer` as a class variable; per widget is what ASCII mode needs.
    widget.vertical_scrollbar.renderer = AsciiScrollBarRender  # type: ignore[misc]
    widget.horizontal_scrollbar.renderer = AsciiScrollBarRender  # type: ignore[misc]


class ReadingScreen(ModalScreen[bool | None]):
    """A dialog to read, in a VerticalScroll (with ASCII scrollbars in ASCII mode); the
    subclass composes it and binds its keys to close."""

    def __init__(self, *, ascii: bool = False) -> None:
        super().__init__()
        self.ascii = ascii

    def on_mount(self) -> None:
        if self.ascii:
            ascii_scrollbars(self.query_one(VerticalScroll))

    def action_close(self) -> None:
        self.dismiss(None)


class ConfirmDialog(ModalScreen[bool]):
    """Ask a yes-or-no question; dismisses with True for yes."""

    BINDINGS = [
        Binding("y,enter", "answer(True)", "Yes"),
        Binding("n,q,escape", "answer(False)", "No"),
    ]

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(self.question, classes="question")
            yield Label("y / Enter: yes    n / q / Esc: no", classes="keys")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)


class Option(RadioButton):
    """A radio button whose mark, not only its colour, says whether it is chosen."""

    class Clicked(Message):
        """The player clicked this option."""

        def __init__(self, option: Option) -> None:
            super().__init__()
            self.option = option

    def __init__(self, label: str, value: bool, ascii: bool) -> None:
        super().__init__(label, value)
        # A bare mark (no brackets) keeps the longest row, the six levels, within 60 columns.
        self.BUTTON_LEFT = self.BUTTON_RIGHT = ""
        self.marks = ("o", "*") if ascii else ("○", "●")

    @property
    def BUTTON_INNER(self) -> str:  # type: ignore[override]  # Textual's attribute, read the same way
        # Textual's ToggleButton draws self.BUTTON_INNER between the two sides.
        return self.marks[self.value]

    def on_click(self) -> None:
        self.post_message(self.Clicked(self))


class Choice(RadioSet, inherit_bindings=False):
    """A row of options where left and right (and space) pick, not just highlight, the
    option; up and down go to the row above or below.

    `index` is the chosen option, kept by the keys themselves: RadioSet learns of a
    change through messages, which a burst of keys (a paste, a slow link) outruns.
    Enter is left to the dialog, which confirms with it."""

    BINDINGS = [
        Binding("right,space", "step(1)", "Next", show=False),
        Binding("left", "step(-1)", "Previous", show=False),
        Binding("down", "app.focus_next", "Next row", show=False),
        Binding("up", "app.focus_previous", "Previous row", show=False),
    ]

    def __init__(self, *options: Option, id: str | None = None) -> None:
        super().__init__(*options, id=id)
        self.index = next((i for i, option in enumerate(options) if option.value), 0)

    def on_mount(self) -> None:
        # RadioSet highlights its first option once mounted; the highlight belongs on the
        # chosen one.
        self.call_after_refresh(self.highlight_chosen)

    def highlight_chosen(self) -> None:
        for _ in range(self.index):
            self.action_next_button()

    def choose(self, index: int) -> None:
        """Make option `index` the chosen one."""
        self.index = index
        list(self.query(Option))[index].value = True

    def action_step(self, delta: int) -> None:
        self.choose((self.index + delta) % len(self.query(Option)))

    def on_option_clicked(self, event: Option.Clicked) -> None:
        self.index = list(self.query(Option)).index(event.option)


class NewGameDialog(ModalScreen[GameKind | None]):
    """Choose the size, operators and level of a new game; dismisses with the
    GameKind, or None when cancelled."""

    BINDINGS = [
        Binding("y,enter", "start", "Start"),
        Binding("n,q,escape", "cancel", "Cancel"),
        *(Binding(str(n), f"size({n})", show=False) for n in SIZES),
    ]

    def __init__(self, kind: GameKind, *, ascii: bool = False, leaving: str | None = None) -> None:
        super().__init__()
        self.kind = kind
        self.ascii = ascii
        self.leaving = leaving
        """What happens to the game being played, said under the title."""
        self.sizes = list(SIZES)
        self.ops = list(OP_SET_LABELS)
        self.levels: list[str | None] = [None, *LEVELS]

    def compose(self) -> ComposeResult:
        ascii = self.ascii
        text = in_ascii if ascii else str
        with Vertical(classes="dialog", id="new-game"):
            yield Label("New game", classes="question")
            if self.leaving:
                yield Label(text(self.leaving), id="leaving", markup=False)
            yield Label("Size")
            yield Choice(*(Option(text(f"{n}×{n}"), n == self.kind.size, ascii) for n in self.sizes),
                         id="size")
            yield Label("Operators")
            yield Choice(*(Option(text(OP_SET_LABELS[ops]), ops == self.kind.ops, ascii) for ops in self.ops),
                         id="ops")
            yield Label("Difficulty")
            yield Choice(*(Option(level or "any", level == self.kind.level, ascii) for level in self.levels),
                         id="level")
            yield Label(id="refused")
            yield Label(
                "up/down: row   left/right: choose   3-9: size\nEnter / y: start   Esc / q / n: cancel",
                classes="keys",
            )

    def chosen(self) -> GameKind:
        """The kind of game the dialog shows now."""
        return GameKind(
            self.sizes[self.query_one("#size", Choice).index],
            self.ops[self.query_one("#ops", Choice).index],
            self.levels[self.query_one("#level", Choice).index],
        )

    def action_size(self, n: int) -> None:
        self.query_one("#size", Choice).choose(self.sizes.index(n))

    def on_mount(self) -> None:
        self.grey_out_impossible()

    def on_radio_set_changed(self) -> None:
        self.grey_out_impossible()

    def grey_out_impossible(self) -> None:
        """Grey out the levels no puzzle of the chosen size and operators can have, and say
        why, before the player picks one."""
        kind = self.chosen()
        options = list(self.query_one("#level", Choice).query(Option))
        impossible = [level for level in self.levels if level and why_impossible(kind.size, kind.ops, level)]
        for option, level in zip(options, self.levels):
            option.styles.text_style = "dim strike" if level in impossible else "none"
        if impossible:
            offered = ", ".join(offered_levels(kind.size, kind.ops))
            self.say(f"{kind.size}×{kind.size} {OP_SET_LABELS[kind.ops]} has no {' or '.join(impossible)} "
                     f"puzzle: {offered} or any.")
        else:
            self.query_one("#refused", Label).display = False

    def say(self, text: str) -> None:
        refused = self.query_one("#refused", Label)
        refused.update(in_ascii(text) if self.ascii else text)
        refused.display = True

    def action_start(self) -> None:
        kind = self.chosen()
        if kind.offered:
            self.dismiss(kind)
            return
        why = why_impossible(kind.size, kind.ops, kind.level) or "not made"
        self.say(f"{kind.size}×{kind.size} {OP_SET_LABELS[kind.ops]}: {why}.")

    def action_cancel(self) -> None:
        self.dismiss(None)


class Palette(CommandPalette):
    """Textual's command palette, safe when keys come in a burst (a paste, a slow link),
    and drawn in ASCII in ASCII mode.

    Textual 8.2 crashes on a page key before the command list is laid out, on a second
    Enter that arrives before the first one has closed the palette, and on typing that
    arrives after Esc has closed it (it searches on, in a palette that is gone)."""

    def __init__(self, *, ascii: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.ascii = ascii

    def on_mount(self) -> None:
        if self.ascii:
            self.query_one(SearchIcon).icon = ">"
            search = self.query_one(CommandInput)
            search.placeholder = search.placeholder.replace("…", "...")
            ascii_scrollbars(self.query_one(CommandList))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "command_list" and parameters[0] in ("page_up", "page_down"):
            return bool(self.query_one(CommandList).scrollable_content_region)
        return super().check_action(action, parameters)

    @on(Input.Changed)
    @on(Input.Submitted)
    @on(Button.Pressed)
    @on(OptionList.OptionSelected)
    def closed_already(self, event: Message) -> None:
        if not self.is_active:
            event.prevent_default()
            event.stop()
