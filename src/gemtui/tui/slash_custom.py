"""The person's own commands in the TUI: custom TOML commands in help, completion, palette.

Kept apart from ``slash.py`` (the built-in table): the commands here come from files and
can change while the app runs (``/commands reload``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gemtui.tui.app_surface import AppSurface

__all__ = ["custom_command", "custom_help", "refresh_custom_commands"]


def custom_help(app: AppSurface) -> dict[str, str]:
    """``/name`` → help of the session's custom commands (built-in names win)."""
    from gemtui.tui.commands import SLASH_COMMANDS

    if app.session is None:
        return {}
    return {k: v for k, v in app.session.commands.help().items() if k not in SLASH_COMMANDS}


def refresh_custom_commands(app: AppSurface) -> None:
    """Give the prompt's completer the current custom commands and workspace roots."""
    try:
        prompt = app.main.prompt
    except LookupError:  # no main screen yet: the next start sets them
        return
    prompt.extra_commands = custom_help(app)
    if app.session is not None:
        prompt.extra_roots = tuple(app.session.workspace.roots[1:])


def custom_command(app: AppSurface, line: str) -> bool:
    """Send a custom command's line as the prompt (the session expands it); False when
    no custom command has that name."""
    if app.session is None:
        return False
    name = line.strip().partition(" ")[0]
    if app.session.commands.find(name) is None:
        return False
    app.send_prompt(line.strip())
    return True
