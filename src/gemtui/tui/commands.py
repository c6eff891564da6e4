"""Slash commands as typed in the prompt or picked in the palette (``palette.py``).

Kept free of Textual's command machinery, which loads only when the palette opens.
"""

from __future__ import annotations

from gemtui.tui.slash import COMMANDS
from gemtui.tui.slash_line import parse_slash

__all__ = ["SLASH_COMMANDS", "parse_slash"]

SLASH_COMMANDS: dict[str, str] = {c.name: c.help for c in COMMANDS}
"""Every slash command with its one-line help (from ``slash.COMMANDS``, the one table)."""
