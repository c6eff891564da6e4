"""The question asked once per untrusted folder that carries its own ``.gemtui/`` settings.

It shows every change the folder's files would make (approval mode, providers and the hosts
that would receive keys, policy rules, MCP servers, tool settings) before anything applies.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Static

from gemtui.tui.intent import ConsentDialog
from gemtui.tui.screens.dialogs import DIALOG_CSS

if TYPE_CHECKING:
    from gemtui.config.trust import WorkspaceOverrides

__all__ = ["TrustScreen"]


class TrustScreen(ConsentDialog[bool]):
    """Trust this folder (its settings apply, and that is remembered) or not (ignored).

    It appears by itself at start-up, maybe while the person already types their first
    prompt, so it is never in front on purpose: t and n act after F8 or a click, and
    keys typed before that go to the prompt (``gemtui.tui.intent``)."""

    DEFAULT_CSS = (
        DIALOG_CSS.format(name="TrustScreen")
        + """
    TrustScreen > Vertical { height: auto; max-height: 80%; }
    TrustScreen VerticalScroll { height: auto; max-height: 20; }
    TrustScreen .trust-why { height: auto; margin: 1 0; }
    TrustScreen #trust-changes { height: auto; color: $warning; }
    """
    )

    BINDINGS = [
        Binding("t", "answer(True)", "Trust", priority=True),
        Binding("n", "answer(False)", "Don't trust", priority=True),
        Binding("escape", "decline", "Don't trust", priority=True),
    ]
    ANSWERS = frozenset({"answer"})
    ESC_SAYS = "don't trust (remembered)"

    def __init__(self, overrides: WorkspaceOverrides) -> None:
        super().__init__(on_purpose=False)
        self.overrides = overrides

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(
                Content(f"Trust {self.overrides.folder}?"), classes="dialog-title", id="trust-title"
            )
            yield Static(
                "This folder carries its own gemtui settings. Until you trust it they are "
                "ignored. Trusting it would apply:",
                classes="trust-why",
            )
            with VerticalScroll():
                yield Static(Content("\n".join(self.overrides.details)), id="trust-changes")
            yield self.keys_hint()

    def keys_line(self) -> str:
        return (
            "t trust this folder (remembered) · n / Esc don't trust (remembered; "
            "its settings stay ignored)"
        )

    def action_answer(self, trusted: bool) -> None:
        self.dismiss(trusted)

    def action_decline(self) -> None:
        self.dismiss(False)
