"""Slash commands as typed in the prompt or picked in the palette (``palette.py``).

Kept free of Textual's command machinery, which loads only when the palette opens.
"""

from __future__ import annotations

from gemtui.tui.slash import COMMANDS

__all__ = ["SLASH_COMMANDS", "parse_slash"]

SLASH_COMMANDS: dict[str, str] = {c.name: c.help for c in COMMANDS}
"""Every slash command with its one-line help (from ``slash.COMMANDS``, the one table)."""


def parse_slash(text: str) -> tuple[str, str] | None:
    """``("/theme", "gemtui-light")`` for a slash command line, None for a prompt."""
    stripped = text.strip()
    if not stripped.startswith("/") or stripped.startswith("//"):
        return None
    name, _, rest = stripped.partition(" ")
    return name.lower(), rest.strip()
