"""Slash commands and the command palette provider: one table, two ways in."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from textual.command import DiscoveryHit, Hit, Hits, Provider

if TYPE_CHECKING:
    from gemtui.tui.app import GemtuiApp

__all__ = ["SLASH_COMMANDS", "GemtuiCommands", "parse_slash"]

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


class GemtuiCommands(Provider):
    """The same actions as the slash commands, in Textual's command palette."""

    @property
    def _gemtui(self) -> GemtuiApp:
        return self.app  # type: ignore[return-value]

    def _entries(self) -> list[tuple[str, str, str]]:
        entries = [
            (f"gemtui: {name.removeprefix('/')}", name, help_text)
            for name, help_text in SLASH_COMMANDS.items()
        ]
        for mode in ("default", "auto_edit", "plan", "yolo"):
            entries.append(
                (f"gemtui: approval mode {mode}", f"/approval-mode {mode}", "Set the mode")
            )
        for theme in sorted(self.app.available_themes):
            if theme.startswith("gemtui"):
                entries.append((f"gemtui: theme {theme}", f"/theme {theme}", "Switch theme"))
        entries.append(("gemtui: copy last code block", "/copy code", "Copy via OSC 52"))
        return entries

    async def discover(self) -> Hits:
        for title, line, help_text in self._entries():
            yield DiscoveryHit(title, partial(self._gemtui.run_slash, line), help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, line, help_text in self._entries():
            score = matcher.match(title)
            if score > 0:
                yield Hit(
                    score,
                    matcher.highlight(title),
                    partial(self._gemtui.run_slash, line),
                    help=help_text,
                )
