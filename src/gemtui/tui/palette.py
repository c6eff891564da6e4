"""The command palette provider: the slash commands' actions in Textual's palette."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from textual.command import DiscoveryHit, Hit, Hits, Provider

if TYPE_CHECKING:
    from gemtui.tui.app_surface import AppSurface

__all__ = ["GemtuiCommands"]


class GemtuiCommands(Provider):
    """The same actions as the slash commands, in Textual's command palette."""

    @property
    def _gemtui(self) -> AppSurface:
        return self.app  # type: ignore[return-value]

    def _entries(self) -> list[tuple[str, str, str]]:
        entries = [
            (f"gemtui: {name.removeprefix('/')}", name, help_text)
            for name, help_text in self._gemtui.slash_commands.items()
        ]
        from gemtui.bus.events import ApprovalMode

        for mode in ApprovalMode:
            entries.append(
                (f"gemtui: approval mode {mode}", f"/approval-mode {mode}", "Set the mode")
            )
        for theme in sorted(self.app.available_themes):  # the one theme entry: it saves
            entries.append((f"gemtui: theme {theme}", f"/theme {theme}", "Switch theme (saved)"))
        entries.append(("gemtui: copy last code block", "/copy code", "Copy via OSC 52"))
        from gemtui.tui.slash_custom import custom_help

        for name, help_text in custom_help(self._gemtui).items():
            entries.append((f"gemtui: {name.removeprefix('/')}", name, help_text))
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
