"""Custom slash commands in Gemini CLI's TOML format (``.gemini/commands/*.toml``).

Loading (``toml_commands``) knows where the files live and what a valid one holds;
expansion (``template``) turns ``/name args`` into the prompt the model is sent, running
``!{…}`` through the scheduler (policy and approval) and reading ``@{…}`` inside the
workspace. Nothing here imports a view.
"""

from __future__ import annotations

from gemtui.commands.template import CommandError, CommandRunner, expand_command
from gemtui.commands.toml_commands import (
    CommandSet,
    CustomCommand,
    command_dirs,
    load_commands,
)

__all__ = [
    "CommandError",
    "CommandRunner",
    "CommandSet",
    "CustomCommand",
    "command_dirs",
    "expand_command",
    "load_commands",
]
