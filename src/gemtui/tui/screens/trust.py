"""The question asked once per untrusted folder that carries its own ``.gemtui/`` settings.

It shows every change the folder's files would make (approval mode, providers and the hosts
that would receive keys, policy rules, MCP servers, tool settings) before anything applies.
A trusted folder whose code-running files changed since is asked about again, its changed
files listed first; "not this time" leaves them out for this session only.

Esc is "not now" for a folder never decided: its settings stay out for this run and
nothing is remembered, so a reflexive Esc is never a permanent answer; "don't trust"
(remembered) has its own key, n.
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


class TrustScreen(ConsentDialog[bool | None]):
    """Trust this folder (its settings apply, and that is remembered), not (ignored and
    remembered), or not now (ignored this run only: the answer None).

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
    TrustScreen #trust-changed-files { height: auto; color: $warning; }
    """
    )

    BINDINGS = [
        Binding("t", "answer(True)", "Trust", priority=True),
        Binding("n", "answer(False)", "Don't trust", priority=True),
        Binding("escape", "decline", "Not now", priority=True),
    ]
    ANSWERS = frozenset({"answer"})
    ESC_SAYS = "not now (ignored this run; asked again next start)"

    def __init__(self, overrides: WorkspaceOverrides, changes: tuple[str, ...] = ()) -> None:
        super().__init__(on_purpose=False)
        self.overrides = overrides
        self.changes = changes
        """Files changed since the folder was trusted; empty for a folder never decided."""

    def compose(self) -> ComposeResult:
        with Vertical():
            title = self.question_text()
            yield Static(Content(title), classes="dialog-title", id="trust-title")
            if self.changes:
                yield Static(
                    "You trusted this folder, but what can run code in it changed since:",
                    classes="trust-why",
                )
                yield Static(Content("\n".join(self.changes)), id="trust-changed-files")
                why = "Until you trust the new content it is ignored. Trusting it would apply:"
            else:
                why = (
                    "This folder carries its own gemtui settings. Until you trust it they are "
                    "ignored. Trusting it would apply:"
                )
            yield Static(why, classes="trust-why")
            with VerticalScroll():
                yield Static(Content("\n".join(self.overrides.details)), id="trust-changes")
            yield self.keys_hint()

    def esc_says(self) -> str:
        return "not this time (asked again next start)" if self.changes else self.ESC_SAYS

    def question_text(self) -> str:
        folder = self.overrides.folder
        return f"Trust the new content of {folder}?" if self.changes else f"Trust {folder}?"

    def keys_line(self) -> str:
        if self.changes:
            return (
                "t trust the new content (remembered) · n / Esc not this time (ignored for "
                "this session; asked again next start)"
            )
        return (
            "t trust this folder (remembered) · n don't trust (remembered) · "
            "Esc not now (ignored this run; asked again next start)"
        )

    def action_answer(self, trusted: bool) -> None:
        self.dismiss(trusted)

    def action_decline(self) -> None:
        """Esc: not now. Nothing is remembered; a changed folder keeps its old trust."""
        self.dismiss(None)
