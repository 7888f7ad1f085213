"""Small modal dialogs: confirm a step, choose a new game, the command palette. Keyboard
first: enter or y confirms; escape, q or n cancels (escape alone is slow on a terminal)."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.command import CommandList, CommandPalette
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.message import Message
from textual.widgets import Button, Input, Label, OptionList, RadioButton, RadioSet

from kaldoku_tui.bank import GameKind
from kaldoku_tui.engine.puzzle import MAX_SIZE, MIN_SIZE
from kaldoku_tui.engine.steps import LEVELS

OPS_NAMES = {"all": "+ − × ÷", "addmul": "+ ×", "mul": "× only"}


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


class Choice(RadioSet, inherit_bindings=False):
    """A row of options where the arrow keys pick (not just highlight) the option.

    Enter is left to the dialog, which confirms with it."""

    BINDINGS = [
        Binding("right,down", "step(1)", "Next", show=False),
        Binding("left,up", "step(-1)", "Previous", show=False),
    ]

    def action_step(self, delta: int) -> None:
        buttons = list(self.query(RadioButton))
        index = (self.pressed_index + delta) % len(buttons)
        buttons[index].value = True


class NewGameDialog(ModalScreen[GameKind | None]):
    """Choose the size, operators and level of a new game; dismisses with the
    GameKind, or None when cancelled."""

    BINDINGS = [
        Binding("y,enter", "start", "Start"),
        Binding("n,q,escape", "cancel", "Cancel"),
        *(Binding(str(n), f"size({n})", show=False) for n in range(MIN_SIZE, MAX_SIZE + 1)),
    ]

    def __init__(self, kind: GameKind) -> None:
        super().__init__()
        self.kind = kind
        self.sizes = list(range(MIN_SIZE, MAX_SIZE + 1))
        self.ops = list(OPS_NAMES)
        self.levels: list[str | None] = [None, *LEVELS]

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="new-game"):
            yield Label("New game", classes="question")
            yield Label("Size")
            with Choice(id="size"):
                for n in self.sizes:
                    yield RadioButton(f"{n}×{n}", value=n == self.kind.size)
            yield Label("Operators")
            with Choice(id="ops"):
                for ops in self.ops:
                    yield RadioButton(OPS_NAMES[ops], value=ops == self.kind.ops)
            yield Label("Difficulty")
            with Choice(id="level"):
                for level in self.levels:
                    yield RadioButton(level or "any", value=level == self.kind.level)
            yield Label(
                "Tab: next row   ←/→: choose   3-9: size\nEnter / y: start   Esc / q / n: cancel",
                classes="keys",
            )

    def chosen(self) -> GameKind:
        """The kind of game the dialog shows now."""
        return GameKind(
            self.sizes[self.query_one("#size", Choice).pressed_index],
            self.ops[self.query_one("#ops", Choice).pressed_index],
            self.levels[self.query_one("#level", Choice).pressed_index],
        )

    def action_size(self, n: int) -> None:
        list(self.query_one("#size", Choice).query(RadioButton))[self.sizes.index(n)].value = True

    def action_start(self) -> None:
        self.dismiss(self.chosen())

    def action_cancel(self) -> None:
        self.dismiss(None)


class Palette(CommandPalette):
    """Textual's command palette, safe when keys come in a burst (a paste, a slow link).

    Textual 8.2 crashes on a page key before the command list is laid out, and on a
    second Enter that arrives before the first one has closed the palette."""

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "command_list" and parameters[0] in ("page_up", "page_down"):
            return bool(self.query_one(CommandList).scrollable_content_region)
        return super().check_action(action, parameters)

    @on(Input.Submitted)
    @on(Button.Pressed)
    @on(OptionList.OptionSelected)
    def closed_already(self, event: Message) -> None:
        if not self.is_active:
            event.prevent_default()
            event.stop()
