"""Reading hook definitions from Gemini CLI's ``settings.json`` files.

The shape, as Gemini CLI documents it: ``{"hooks": {"BeforeTool": [{"matcher": "regex",
"hooks": [{"type": "command", "command": "…", "name": "…", "timeout": ms}]}]}}``.
Files are read from the user's ``~/.gemini/settings.json`` and gemtui's config dir, then
the workspace's ``.gemini/settings.json`` and ``.gemtui/settings.json`` — those only when
the folder is trusted: a cloned repository must not run commands on every tool call. A
broken file or entry is a problem named in a warning; the others still load. A hook from
the workspace's files is the project's (``HookSpec.project``): under ``-s`` it runs in the
sandbox like any command the project supplies; the person's own hooks run outside it.

Claude Code's ``settings.json`` hooks load too (``~/.claude/settings.json``; the workspace's
``.claude/settings.json`` and ``.claude/settings.local.json``, trusted folders only): its
event names are aliases of ours (``CLAUDE_EVENTS``), its tool names match in any matcher
(``Bash`` matches ``run_shell_command``), and a hook written for it (from a ``.claude`` file
or under a Claude event name) is ``HookSpec.claude``: the runner speaks Claude Code's
dialect to it (its event and tool names on stdin, ``permissionDecision`` understood, its
``timeout`` in seconds).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from msgspec import Struct, field

from gemtui.config.paths import config_dir

__all__ = [
    "CLAUDE_EVENTS",
    "CLAUDE_TOOL_NAMES",
    "DEFAULT_TIMEOUT_MS",
    "HOOK_EVENTS",
    "HookSet",
    "HookSpec",
    "hook_files",
    "load_hooks",
    "project_hook_files",
]

HOOK_EVENTS = (
    "SessionStart",
    "SessionEnd",
    "BeforeAgent",
    "AfterAgent",
    "BeforeModel",
    "AfterModel",
    "BeforeTool",
    "AfterTool",
    "PreCompress",
    "Notification",
    "BeforeToolSelection",
    "SubagentStop",
)
DEFAULT_TIMEOUT_MS = 60_000

CLAUDE_EVENTS = {
    "PreToolUse": "BeforeTool",
    "PostToolUse": "AfterTool",
    "UserPromptSubmit": "BeforeAgent",
    "Stop": "AfterAgent",
    "SubagentStop": "SubagentStop",
    "SessionStart": "SessionStart",
    "SessionEnd": "SessionEnd",
    "PreCompact": "PreCompress",
    "Notification": "Notification",
}
"""Claude Code's hook events and the gemtui event each one fires on."""

CLAUDE_TOOL_NAMES = {
    "run_shell_command": "Bash",
    "replace": "Edit",
    "write_file": "Write",
    "read_file": "Read",
    "grep_search": "Grep",
    "glob": "Glob",
    "list_directory": "LS",
    "web_fetch": "WebFetch",
    "google_web_search": "WebSearch",
    "write_todos": "TodoWrite",
}
"""Our tools and Claude Code's name for the same tool (matchers accept either)."""
_CLAUDE_ALSO = {"MultiEdit": "replace"}


class HookSpec(Struct, frozen=True):
    """One hook command for one event."""

    event: str
    command: str
    name: str
    matcher: str = ""
    timeout_ms: int = DEFAULT_TIMEOUT_MS
    source: Path = Path()
    description: str = ""
    project: bool = False
    """From the workspace's settings (a command the project supplies), not the person's."""
    claude: bool = False
    """Written for Claude Code: its event and tool names on stdin, its answers understood."""
    alias: str = ""
    """The event name the file used (Claude Code's, when it differs from ours)."""

    def matches(self, target: str | None) -> bool:
        """Tool events match the tool name, or Claude Code's name for it, by regex; other
        events by exact string."""
        if not self.matcher or self.matcher == "*" or target is None:
            return True
        if self.event in ("BeforeTool", "AfterTool"):
            names = [target] + [c for c in (CLAUDE_TOOL_NAMES.get(target),) if c]
            names += [k for k, v in _CLAUDE_ALSO.items() if v == target]
            try:
                return any(re.fullmatch(self.matcher, n) is not None for n in names)
            except re.error:
                return False
        return self.matcher == target


class HookSet(Struct):
    """Every hook loaded, and the problems met."""

    hooks: list[HookSpec] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def for_event(self, event: str, target: str | None = None) -> list[HookSpec]:
        return [h for h in self.hooks if h.event == event and h.matches(target)]


def hook_files(workspace: Path, *, trusted: bool, home: Path | None = None) -> list[Path]:
    """The settings files hooks come from, in order."""
    home = home if home is not None else Path.home()
    files = [
        home / ".claude" / "settings.json",
        home / ".gemini" / "settings.json",
        config_dir() / "settings.json",
    ]
    if trusted:
        files += project_hook_files(workspace)
    return files


def project_hook_files(workspace: Path) -> list[Path]:
    """The workspace's own settings files: their hooks are the project's."""
    return [
        workspace / ".claude" / "settings.json",
        workspace / ".claude" / "settings.local.json",
        workspace / ".gemini" / "settings.json",
        workspace / ".gemtui" / "settings.json",
    ]


def load_hooks(files: list[Path], project: list[Path] | None = None) -> HookSet:
    """Every hook of every file; never raises. Hooks from a file in ``project`` are marked
    the project's (a file that is both, the workspace being home, counts as the project's).
    """
    found = HookSet()
    projects = {os.path.abspath(p) for p in project or ()}
    seen: set[str] = set()
    for path in files:
        if os.path.abspath(path) in seen:
            continue  # the workspace is home: its files are read once
        seen.add(os.path.abspath(path))
        try:
            if path.exists() and not path.is_file():  # a FIFO would block the start forever
                found.problems.append(f"{path}: not a regular file")
                continue
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            continue
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            found.problems.append(f"{path}: {exc}")
            continue
        hooks = data.get("hooks") if isinstance(data, dict) else None
        if hooks is None:
            continue
        if not isinstance(hooks, dict):
            found.problems.append(f"{path}: 'hooks' must be an object of events")
            continue
        claude_file = path.parent.name == ".claude"
        for event, groups in hooks.items():
            if event in ("enabled", "disabled", "notifications"):
                continue  # Gemini CLI's switches, not events
            if event not in HOOK_EVENTS and event not in CLAUDE_EVENTS:
                why = "a Claude Code event gemtui has no counterpart for" if claude_file else ""
                found.problems.append(f"{path}: unknown hook event {event!r} {why}".rstrip())
                continue
            dialect = _Dialect(
                project=os.path.abspath(path) in projects,
                claude=claude_file or event not in HOOK_EVENTS,
                seconds=claude_file,
                alias=event,
            )
            _read_groups(path, CLAUDE_EVENTS.get(event) or event, groups, found, dialect)
    return found


class _Dialect(Struct, frozen=True):
    """How one file's entries for one event are read."""

    project: bool
    claude: bool
    seconds: bool
    """``timeout`` is in seconds (Claude Code's files), not milliseconds."""
    alias: str


def _read_groups(path: Path, event: str, groups: Any, found: HookSet, how: _Dialect) -> None:
    if not isinstance(groups, list):
        found.problems.append(f"{path}: hooks.{event} must be a list")
        return
    for group in groups:
        entries = group.get("hooks") if isinstance(group, dict) else None
        if not isinstance(entries, list):
            found.problems.append(f"{path}: each hooks.{event} entry needs a 'hooks' list")
            continue
        matcher = group.get("matcher", "")
        for entry in entries:
            command = entry.get("command") if isinstance(entry, dict) else None
            if not isinstance(entry, dict) or entry.get("type", "command") != "command":
                found.problems.append(f"{path}: hooks.{event}: only type 'command' is supported")
                continue
            scale = 1000 if how.seconds else 1
            timeout = entry.get("timeout", DEFAULT_TIMEOUT_MS / scale)
            if not isinstance(command, str) or not command.strip():
                found.problems.append(f"{path}: hooks.{event}: a hook needs a 'command'")
                continue
            if not isinstance(timeout, int | float) or timeout <= 0:
                unit = "seconds" if how.seconds else "milliseconds"
                found.problems.append(f"{path}: hooks.{event}: 'timeout' must be {unit}")
                continue
            found.hooks.append(
                HookSpec(
                    event=event,
                    command=command,
                    name=str(entry.get("name") or command),
                    matcher=matcher if isinstance(matcher, str) else "",
                    timeout_ms=int(timeout * scale),
                    source=path,
                    description=str(entry.get("description") or ""),
                    project=how.project,
                    claude=how.claude,
                    alias=how.alias,
                )
            )
