"""Runaway guards: a count per session that stops at its cap (issue 37).

Why: a model stuck in a loop can run up a bill with nothing but searches (Claude Code caps
web searches at 200 per session after such bills). The session holds one ``Allowance``
per guarded action in its ``ToolContext``; subagents run with the same context, so what
they use counts toward the session's cap and cannot go around it. The count lives as
long as the session object: a resumed session (the person's own act) starts afresh.
"""

from __future__ import annotations

from collections.abc import Callable

from msgspec import Struct

from gemtui.tools.tool_error import ToolError

__all__ = ["Allowance"]


class Allowance(Struct):
    """How many of one action a session may take, and who hears when it runs out."""

    limit: int
    """The cap; 0 allows none."""
    what: str
    """The action, plural (``web searches``)."""
    setting: str
    """Where the cap is set (``[tools] max_web_searches``), named in the refusal."""
    on_reached: Callable[[str], object] | None = None
    """Told once, the first time the cap refuses (the person's notice)."""
    used: int = 0
    _said: bool = False

    def take(self) -> None:
        """Count one more, or refuse with a tool error the model can finish after."""
        if self.used < self.limit:
            self.used += 1
            return
        message = (
            f"This session reached its limit of {self.limit} {self.what} ({self.setting}); "
            "no more are allowed. Finish with what you have."
        )
        if not self._said and self.on_reached is not None:
            self._said = True
            self.on_reached(message)
        raise ToolError(message)
