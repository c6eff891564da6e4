"""Small modal screens: modify a proposed edit or command, the rules in force, help."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static, TextArea
from textual.widgets.option_list import Option

from gemtui.tui.intent import ConsentDialog
from gemtui.tui.view.terminal_safe import printable

if TYPE_CHECKING:
    from gemtui.scheduler.policy import RuleBook

__all__ = [
    "DIALOG_CSS",
    "ConfirmScreen",
    "FallbackScreen",
    "HelpScreen",
    "ModifyScreen",
    "PermissionsScreen",
]

DIALOG_CSS = """
{name} {{
    align: center middle;
    background: $background 60%;
}}
{name} > Vertical {{
    width: 90%;
    max-width: 110;
    height: 80%;
    border: thick $primary;
    background: $surface;
    padding: 0 1;
}}
{name} .dialog-title {{ height: auto; text-style: bold; }}
{name} .dialog-keys {{ height: auto; color: $text-muted; }}
"""


class ConfirmScreen(ConsentDialog[bool]):
    """A yes/no question; y confirms, n or Esc declines.

    Its letters act only when it is in front on purpose (``gemtui.tui.intent``): a
    question opened by a shortcut takes F8 (or a click) first, so "yes" typed as text
    goes to the prompt instead of answering.
    """

    DEFAULT_CSS = """
    ConfirmScreen { align: center middle; background: $background 60%; }
    ConfirmScreen > .dialog {
        width: 64; height: auto; border: thick $primary; background: $surface; padding: 0 1;
    }
    ConfirmScreen .dialog-title { text-style: bold; }
    ConfirmScreen .dialog-keys { color: $text-muted; }
    """

    BINDINGS = [
        Binding("y", "answer(True)", "Yes"),
        Binding("n", "answer(False)", "No"),
        Binding("escape", "decline", "No"),
    ]
    ANSWERS = frozenset({"answer"})

    def __init__(self, question: str, *, detail: str = "", on_purpose: bool = False) -> None:
        super().__init__(on_purpose=on_purpose)
        self._question = printable(question)  # a server's words may be in either
        self._detail = printable(detail)

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(self._question, classes="dialog-title", markup=False)
            if self._detail:
                yield Static(self._detail, markup=False)
            yield self.keys_hint()

    def keys_line(self) -> str:
        return "y yes · n no"

    def question_text(self) -> str:
        return f"{self._question} {self._detail}".strip()

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)

    def action_decline(self) -> None:
        self.dismiss(False)


class FallbackScreen(ConfirmScreen):
    """The model ran out of quota or is overloaded: switch to the fallback model, or stop.

    Never answered by a stray key: it appears by itself, so its letters act only after
    F8 or a click (``gemtui.tui.intent``); until then keys go to the prompt."""

    BINDINGS = [
        Binding("s", "answer(True)", "Switch"),
        Binding("x", "answer(False)", "Stop"),
        Binding("escape", "decline", "Stop"),
    ]

    def keys_line(self) -> str:
        return "s switch · x stop"


class ModifyScreen(ModalScreen[str | None]):
    """Edit the proposed content or command; Ctrl+S allows the call with it."""

    DEFAULT_CSS = (
        DIALOG_CSS.format(name="ModifyScreen")
        + """
    ModifyScreen TextArea { height: 1fr; }
    """
    )

    BINDINGS = [
        Binding("ctrl+s", "save", "Save and allow", priority=True),
        Binding("escape", "cancel", "Cancel"),
    ]

    def __init__(self, text: str, *, title: str, language: str | None = None) -> None:
        super().__init__()
        self._text = text
        self._title = title
        self._language = language

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(f"Modify: {self._title}", classes="dialog-title")
            area = TextArea(self._text, id="modify-text", show_line_numbers=True)
            try:
                area.language = self._language
            except Exception:  # a language without a grammar installed: plain text
                area.language = None
            yield area
            yield Static("Ctrl+S save and allow · Esc cancel", classes="dialog-keys")

    def action_save(self) -> None:
        self.dismiss(self.query_one("#modify-text", TextArea).text)

    def action_cancel(self) -> None:
        self.dismiss(None)


class PermissionsScreen(ModalScreen[None]):
    """The policy rules in force (session and saved); Delete removes the highlighted one."""

    DEFAULT_CSS = (
        DIALOG_CSS.format(name="PermissionsScreen")
        + """
    PermissionsScreen OptionList { height: 1fr; }
    """
    )

    BINDINGS = [
        Binding("delete,backspace,x", "remove", "Remove rule"),
        Binding("escape,q", "close", "Close"),
    ]

    def __init__(self, policy: RuleBook) -> None:
        super().__init__()
        self.policy = policy
        self._rules: list[Any] = []

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("Rules in force, strongest first", classes="dialog-title")
            yield OptionList(id="rules")
            yield Static("Delete/x remove the highlighted rule · Esc close", classes="dialog-keys")

    def on_mount(self) -> None:
        self._reload()

    def _reload(self, near: int = 0) -> None:
        """List the rules with a removable one highlighted (the one at ``near`` or the
        next), so Delete works at once."""
        self._rules = list(self.policy.rules())
        options = self.query_one("#rules", OptionList)
        options.clear_options()
        options.add_options(
            Option(Content(rule.label()), disabled=getattr(rule, "source", "") == "builtin")
            for rule in self._rules
        )
        if not self._rules:
            options.add_option(Option("No rules.", disabled=True))
        removable = [
            i for i, rule in enumerate(self._rules) if getattr(rule, "source", "") != "builtin"
        ]
        if removable:
            options.highlighted = next((i for i in removable if i >= near), removable[-1])
        options.focus()

    def action_remove(self) -> None:
        options = self.query_one("#rules", OptionList)
        index = options.highlighted
        if index is None or index >= len(self._rules):
            return
        rule = self._rules[index]
        try:
            self.policy.remove_rule(rule)
        except (ValueError, OSError) as exc:
            self.notify(f"Cannot remove that rule: {exc}", severity="warning")
            return
        self.notify(f"Removed {rule.label()}")
        self._reload(near=index)

    def action_close(self) -> None:
        self.dismiss(None)


class HelpScreen(ModalScreen[None]):
    """Keys and slash commands."""

    DEFAULT_CSS = DIALOG_CSS.format(name="HelpScreen")

    BINDINGS = [Binding("escape,q,f1", "close", "Close")]

    def __init__(self, text: str) -> None:
        super().__init__()
        self._text = text

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("gemtui help", classes="dialog-title")
            with VerticalScroll():
                yield Static(Content.from_markup(self._text))
            yield Static("Esc close", classes="dialog-keys")

    def action_close(self) -> None:
        self.dismiss(None)
