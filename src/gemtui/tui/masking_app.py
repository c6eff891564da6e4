"""The base of gemtui's apps: every notification is shown with known secrets masked.

Screens and widgets notify through their app, so one override covers them all. In a
markup message the mask is escaped, or ``[redacted]`` would be read as a style tag and
vanish, leaving the person unaware that something was hidden.
"""

from __future__ import annotations

from typing import TypeVar

from textual.app import App
from textual.markup import escape
from textual.notifications import SeverityLevel

from gemtui.redact import MASK, redact

__all__ = ["MaskingApp"]

ReturnType = TypeVar("ReturnType")


class MaskingApp(App[ReturnType]):
    """A Textual app whose notifications pass through ``gemtui.redact``."""

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        message, title = redact(message), redact(title)
        if markup:
            message = message.replace(MASK, escape(MASK))
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=markup)
