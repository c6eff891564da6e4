"""The slash command table: typed in the prompt or picked in the palette (``palette.py``).

Kept free of Textual's command machinery, which loads only when the palette opens.
"""

from __future__ import annotations

__all__ = ["SLASH_COMMANDS", "palette_provider", "parse_slash"]

SLASH_COMMANDS: dict[str, str] = {
    "/help": "Keys and commands",
    "/clear": "Clear the transcript (the conversation goes on)",
    "/compress": "Compress the conversation history now",
    "/model": "Show or switch the model (/model NAME)",
    "/approval-mode": "Show or set the approval mode (default, auto_edit, plan, yolo)",
    "/sessions": "Browse saved sessions",
    "/theme": "Switch the theme (/theme NAME), remembered",
    "/stats": "Token usage and cost of this session",
    "/copy": "Copy the last answer (/copy code: the last code block)",
    "/permissions": "Show the policy rules in force and remove one",
    "/quit": "Quit gemtui",
}
"""Every slash command with its one-line help, in the order /help lists them."""


def parse_slash(text: str) -> tuple[str, str] | None:
    """``("/theme", "gemtui-light")`` for a slash command line, None for a prompt."""
    stripped = text.strip()
    if not stripped.startswith("/") or stripped.startswith("//"):
        return None
    name, _, rest = stripped.partition(" ")
    return name.lower(), rest.strip()


def palette_provider() -> type:
    """The command palette provider, imported when Textual first asks for it."""
    from gemtui.tui.palette import GemtuiCommands

    return GemtuiCommands
