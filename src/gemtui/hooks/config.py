"""Reading hook definitions from Gemini CLI's ``settings.json`` files.

The shape, as Gemini CLI documents it: ``{"hooks": {"BeforeTool": [{"matcher": "regex",
"hooks": [{"type": "command", "command": "…", "name": "…", "timeout": ms}]}]}}``.
Files are read from the user's ``~/.gemini/settings.json`` and gemtui's config dir, then
the workspace's ``.gemini/settings.json`` and ``.gemtui/settings.json`` — those only when
the folder is trusted: a cloned repository must not run commands on every tool call. A
broken file or entry is a problem named in a warning; the others still load. A hook from
the workspace's files is the project's (``HookSpec.project``): under ``-s`` it runs in the
sandbox like any command the project supplies; the person's own hooks run outside it.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gemtui.config.paths import config_dir

__all__ = [
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
)
DEFAULT_TIMEOUT_MS = 60_000


@dataclass(frozen=True)
class HookSpec:
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

    def matches(self, target: str | None) -> bool:
        """Tool events match the tool name by regex; other events by exact string."""
        if not self.matcher or self.matcher == "*" or target is None:
            return True
        if self.event in ("BeforeTool", "AfterTool"):
            try:
                return re.fullmatch(self.matcher, target) is not None
            except re.error:
                return False
        return self.matcher == target


@dataclass
class HookSet:
    """Every hook loaded, and the problems met."""

    hooks: list[HookSpec] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def for_event(self, event: str, target: str | None = None) -> list[HookSpec]:
        return [h for h in self.hooks if h.event == event and h.matches(target)]


def hook_files(workspace: Path, *, trusted: bool, home: Path | None = None) -> list[Path]:
    """The settings files hooks come from, in order."""
    home = home if home is not None else Path.home()
    files = [home / ".gemini" / "settings.json", config_dir() / "settings.json"]
    if trusted:
        files += project_hook_files(workspace)
    return files


def project_hook_files(workspace: Path) -> list[Path]:
    """The workspace's own settings files: their hooks are the project's."""
    return [workspace / ".gemini" / "settings.json", workspace / ".gemtui" / "settings.json"]


def load_hooks(files: list[Path], project: list[Path] | None = None) -> HookSet:
    """Every hook of every file; never raises. Hooks from a file in ``project`` are marked
    the project's (a file that is both, the workspace being home, counts as the project's).
    """
    found = HookSet()
    projects = {os.path.abspath(p) for p in project or ()}
    for path in files:
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
        for event, groups in hooks.items():
            if event in ("enabled", "disabled", "notifications"):
                continue  # Gemini CLI's switches, not events
            if event not in HOOK_EVENTS:
                found.problems.append(f"{path}: unknown hook event {event!r}")
                continue
            _read_groups(path, event, groups, found, os.path.abspath(path) in projects)
    return found


def _read_groups(path: Path, event: str, groups: Any, found: HookSet, project: bool) -> None:
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
            timeout = entry.get("timeout", DEFAULT_TIMEOUT_MS)
            if not isinstance(command, str) or not command.strip():
                found.problems.append(f"{path}: hooks.{event}: a hook needs a 'command'")
                continue
            if not isinstance(timeout, int | float) or timeout <= 0:
                found.problems.append(f"{path}: hooks.{event}: 'timeout' must be milliseconds")
                continue
            found.hooks.append(
                HookSpec(
                    event=event,
                    command=command,
                    name=str(entry.get("name") or command),
                    matcher=matcher if isinstance(matcher, str) else "",
                    timeout_ms=int(timeout),
                    source=path,
                    description=str(entry.get("description") or ""),
                    project=project,
                )
            )
