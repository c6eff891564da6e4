"""The TUI's view models: the rules of what the screens show, without Textual.

Screens feed engine events in and apply the view operations (``ops``) that come out;
everything here is plain Python, so the rules run in unit tests without a terminal
(an import-linter contract keeps Textual and Rich out).
"""

from __future__ import annotations

from gemtui.tui.view.conversation import ConversationView

__all__ = ["ConversationView"]
