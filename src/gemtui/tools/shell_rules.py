"""What "allow for this session / always" saves for a shell command: one prefix per
simple command bash will run, read through ``shell_syntax`` so a rule covers exactly what
the approval showed."""

from __future__ import annotations

import shlex

from gemtui.tools.interpreter_prefix import interpreter_prefix
from gemtui.tools.shell_syntax import MULTI_COMMAND_TOOLS, SimpleCommand, analyze

__all__ = ["root_prefix", "rule_prefixes"]


def root_prefix(command: SimpleCommand) -> str:
    """The part of a command an "allow for this session" covers.

    ``git status -s`` → ``git status``; ``ls -la`` → ``ls``; a multi-command tool
    followed by an option (``git -C x log``) falls back to the first word; an
    interpreter keeps what it runs (``python3 -m pytest -q`` → ``python3 -m pytest``).
    """
    words = command.words
    if not words:
        return ""
    interpreted = interpreter_prefix(words)
    if interpreted is not None:  # never the bare interpreter: it would allow any code
        return interpreted
    if (
        len(words) > 1
        and words[0] in MULTI_COMMAND_TOOLS
        and command.literal[1]
        and not words[1].startswith("-")
    ):
        return shlex.join(words[:2])
    return shlex.quote(words[0])


def rule_prefixes(command: str) -> list[str]:
    """The command prefixes "allow for this session / always" saves for ``command``.

    One per visible simple command, in order, without repeats; assignments and
    transparent wrappers are left out (``CI=1 npm test`` → ``npm test``).
    """
    prefixes: list[str] = []
    for simple in analyze(command).commands:
        prefix = root_prefix(simple)
        if prefix and prefix not in prefixes:
            prefixes.append(prefix)
    return prefixes
