"""The panes of the main screen; import each from its module (kept lazy)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gemtui.tui.widgets.transcript import Transcript

__all__ = ["Transcript"]


def __getattr__(name: str) -> Any:
    """Import a pane on first use, so importing the package stays cheap."""
    if name == "Transcript":
        from gemtui.tui.widgets.transcript import Transcript

        return Transcript
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
