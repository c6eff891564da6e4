"""The TUI's view models: the rules of what the screens show, without Textual.

Screens feed engine events in and apply the view operations (``ops``) that come out;
everything here is plain Python, so the rules run in unit tests without a terminal
(an import-linter contract keeps Textual and Rich out).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gemtui.tui.view.conversation import ConversationView

__all__ = ["ConversationView"]


def __getattr__(name: str) -> Any:
    """``ConversationView`` on first use: the widgets before the first frame import this
    package's small modules (``markdown_blocks``, ``terminal_safe``) without the view
    model, its msgspec ops and the event values."""
    if name == "ConversationView":
        from gemtui.tui.view.conversation import ConversationView

        return ConversationView
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
