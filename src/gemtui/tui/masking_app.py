"""The base of gemtui's apps: every notification is shown with known secrets masked.

Screens and widgets notify through their app, so one override covers them all.
"""

from __future__ import annotations

from typing import TypeVar

from textual.app import App
from textual.notifications import SeverityLevel

from gemtui.redact import redact

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
        super().notify(
            redact(message), title=redact(title), severity=severity, timeout=timeout, markup=markup
        )
