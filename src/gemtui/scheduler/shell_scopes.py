"""How far "allow for this session / always" reaches for a shell command: exactly this
command in this folder, this command with any arguments in this folder, or the command by name.

"Always" on ``rm -f README.md`` must not allow ``rm -rf src``, so a destructive command
(one that deletes, moves, overwrites or kills) remembers the exact command unless the
person widens it (this command with any arguments here, or its name); any other command
keeps remembering its name (``ls``, ``git status``). The scopes reuse the edit scopes' names (file,
folder, every) so the approval's reach key works the same for both.
"""

from __future__ import annotations

import os
import re
from typing import Any

from gemtui.scheduler.policy_paths import normalise_path_args
from gemtui.scheduler.policy_rules import PolicyDecision, PolicyRule
from gemtui.scheduler.policy_scopes import SCOPES, RememberScope
from gemtui.tools.shell_rules import root_prefix, rule_prefixes
from gemtui.tools.shell_syntax import SimpleCommand, analyze

__all__ = [
    "DESTRUCTIVE",
    "shell_remember_rules",
    "shell_remember_scopes",
    "shell_scope_label",
    "shell_scope_rules",
    "shell_scopes",
]

DESTRUCTIVE = frozenset(
    {
        *("rm", "rmdir", "unlink", "shred", "truncate", "dd", "mv", "mkfs", "wipefs"),
        *("chmod", "chown", "chgrp", "kill", "pkill", "killall", "find", "rsync"),
        *("git clean", "git reset", "git push", "git rm", "git checkout", "git restore"),
    }
)
"""Command roots (``root_prefix``) whose "always" defaults to the exact command."""


def _commands(command: str) -> tuple[SimpleCommand, ...] | None:
    """The visible simple commands (None when there are none).

    An exact rule for a command with a word from an expansion never matches (an allow
    rule needs every word literal): remembering it allows nothing beyond this call.
    """
    commands = tuple(c for c in analyze(command).commands if c.words)
    return commands or None


def _destructive(commands: tuple[SimpleCommand, ...]) -> bool:
    return any(root_prefix(c) in DESTRUCTIVE or c.name in DESTRUCTIVE for c in commands)


def shell_scopes(command: str) -> tuple[RememberScope, ...]:
    """The reaches offered for a destructive ``command``, the exact one first; () for any
    other command (its name is remembered, as the approval says)."""
    commands = _commands(command)
    if commands is None or not _destructive(commands):
        return ()
    return SCOPES


def _folder(args: dict[str, Any], root: Any) -> str:
    where = normalise_path_args(args, root).get("dir_path")
    return where if isinstance(where, str) and where else "."


def _folder_pattern(folder: str) -> str:
    """``argsPattern`` for calls run in ``folder`` (the root: no ``dir_path`` or ``.``)."""
    if folder == ".":
        return r'^(?:(?!"dir_path":).)*$|"dir_path":(?:null|"\.")[,}]'
    return '"dir_path":"' + re.escape(folder.replace("\\", "\\\\")) + '"[,}]'


def shell_scope_rules(
    tool_name: str, command: str, args: dict[str, Any], root: Any, scope: RememberScope
) -> list[PolicyRule] | None:
    """The allow rules for ``scope``; None for "every" (the name rules) or no scope."""
    commands = _commands(command)
    if commands is None or scope == "every":
        return None
    pattern = _folder_pattern(_folder(args, root))
    if scope == "file":  # the same words in another folder touch other files
        texts = list(dict.fromkeys(c.text for c in commands))
        return [
            PolicyRule(
                PolicyDecision.ALLOW,
                tool_name=tool_name,
                command_regex=re.escape(t) + r"\Z",
                args_pattern=pattern,
            )
            for t in texts
        ]
    prefixes = list(dict.fromkeys(root_prefix(c) for c in commands))
    return [
        PolicyRule(
            PolicyDecision.ALLOW, tool_name=tool_name, command_prefix=(p,), args_pattern=pattern
        )
        for p in prefixes
    ]


def shell_scope_label(
    command: str, args: dict[str, Any], root: Any, scope: RememberScope, names: str
) -> str:
    """What ``scope`` covers, in the approval's words (``names``: the "every" rules')."""
    commands = _commands(command) or ()
    folder = _folder(args, root)
    where = "the workspace root" if folder == "." else os.path.join(folder, "")
    if scope == "file":
        return "exactly " + " ; ".join(dict.fromkeys(c.text for c in commands)) + f" in {where}"
    if scope == "folder":
        prefixes = " | ".join(dict.fromkeys(root_prefix(c) for c in commands))
        return f"{prefixes} with any arguments, run in {where}"
    return f"{names} with any arguments, anywhere"


def shell_remember_rules(
    tool_name: str, command: str, args: dict[str, Any], root: Any, scope: RememberScope | None
) -> list[PolicyRule]:
    """What "allow for this session / always" saves for ``command``: the chosen reach of a
    destructive one (the exact command by default), else one prefix per command."""
    offered = shell_scopes(command)
    if offered:
        exact = shell_scope_rules(tool_name, command, args, root, scope or offered[0])
        if exact is not None:
            return exact
    return [
        PolicyRule(PolicyDecision.ALLOW, tool_name=tool_name, command_prefix=(prefix,))
        for prefix in rule_prefixes(command)
    ]


def shell_remember_scopes(
    command: str, args: dict[str, Any], root: Any
) -> tuple[tuple[str, str], ...]:
    """(scope, what it covers) for each reach offered for ``command``, the default first."""
    names = " | ".join(rule_prefixes(command))
    return tuple(
        (scope, shell_scope_label(command, args, root, scope, names))
        for scope in shell_scopes(command)
    )
