"""Subagent definitions: Markdown files whose YAML front matter says what an agent may do.

The body is the agent's system prompt; the front matter gives ``name``, ``description``,
``tools`` (a list, or Claude Code's comma-separated string), ``model``, ``max_turns``,
``timeout`` (seconds; Gemini CLI's ``timeout_mins`` too) and ``temperature``. Folders are
read in order, a later one winning a name: the built-ins, the user's (``~/.gemini/agents``,
``~/.claude/agents``, then gemtui's own ``agents/``), then the workspace's
(``.claude/agents``, ``.gemini/agents``, ``.gemtui/agents``) — the workspace's only when the
folder is trusted, since a cloned repository must not hand the model agents of its choosing.

A broken file is reported and skipped, never fatal. A name that is not a valid function
name, or that a built-in tool already has, is refused: an agent called ``read_file`` must
never stand in for the tool.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from msgspec import Struct, field

from gemtui.config.paths import config_dir

__all__ = [
    "BUILTIN_AGENTS",
    "AgentDefinition",
    "AgentSet",
    "agent_dirs",
    "load_agents",
    "parse_agent",
]

READ_ONLY_TOOLS = ("read_file", "read_many_files", "glob", "grep_search", "list_directory")

_NAME = re.compile(r"^[a-z][a-z0-9_-]{0,62}$")
_FRONT = re.compile(r"\A---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|\Z)(.*)\Z", re.DOTALL)
_MAX_FILE = 256 * 1024
"""A definition past this size is refused (it is a prompt, not a data file)."""

CLAUDE_TOOLS = {
    "read": "read_file",
    "grep": "grep_search",
    "glob": "glob",
    "ls": "list_directory",
    "bash": "run_shell_command",
    "edit": "replace",
    "multiedit": "replace",
    "write": "write_file",
    "webfetch": "web_fetch",
    "websearch": "google_web_search",
    "todowrite": "write_todos",
}
"""Claude Code's tool names and the gemtui tools that do the same."""


class AgentDefinition(Struct, frozen=True):
    """One agent: what it is for, what it may use, and its limits."""

    name: str
    description: str
    prompt: str
    tools: tuple[str, ...] | None = None
    """The tools it may call (by gemtui name); None: every tool of the session."""
    model: str | None = None
    """None: the session's current model."""
    max_turns: int = 30
    timeout: float | None = 600.0
    """Seconds for the whole task."""
    temperature: float | None = None
    source: str = "builtin"
    """``builtin``, ``user`` or ``workspace``."""
    path: Path | None = None
    structured: bool = False
    """The report is an ``InvestigationReport`` (summary, files, steps), not free text."""


class AgentSet(Struct):
    """The agents found, by name, and the files that did not load (and why)."""

    agents: dict[str, AgentDefinition] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


_INVESTIGATOR_PROMPT = """\
You are a codebase investigator working for another agent. Study the code to answer the
task you are given: find the files, symbols and call paths that matter, read them, and
say how they fit together. You can only read; you change nothing. When you know enough,
call complete_task with a summary, the relevant files (each with why it matters) and
suggested next steps. Be specific: name paths and functions."""

_GENERALIST_PROMPT = """\
You are a focused assistant working for another agent on one delegated task. Do the task
with the tools you have, keep changes small, and when you are done call complete_task
with a report of what you did and found; the other agent sees only that report."""

BUILTIN_AGENTS = (
    AgentDefinition(
        name="codebase_investigator",
        description=(
            "Delegate a read-only investigation of the codebase (how something works, where "
            "it is implemented, what a change would touch). Returns a structured report with "
            "a summary and the relevant files."
        ),
        prompt=_INVESTIGATOR_PROMPT,
        tools=READ_ONLY_TOOLS,
        max_turns=20,
        structured=True,
    ),
    AgentDefinition(
        name="generalist",
        description=(
            "Delegate a self-contained task to a general agent with the session's tools; it "
            "works in its own context and returns a report."
        ),
        prompt=_GENERALIST_PROMPT,
    ),
)


def agent_dirs(
    workspace: Path, *, trusted: bool, home: Path | None = None
) -> list[tuple[str, Path, bool]]:
    """The agent folders in load order (later wins): source, folder, Claude Code's format."""
    home = home if home is not None else Path.home()
    dirs = [
        ("user", home / ".claude" / "agents", True),
        ("user", home / ".gemini" / "agents", False),
        ("user", config_dir() / "agents", False),
    ]
    if trusted:
        dirs += [
            ("workspace", workspace / ".claude" / "agents", True),
            ("workspace", workspace / ".gemini" / "agents", False),
            ("workspace", workspace / ".gemtui" / "agents", False),
        ]
    return dirs


def load_agents(
    workspace: Path, *, trusted: bool, reserved: frozenset[str], home: Path | None = None
) -> AgentSet:
    """The built-ins and every definition file found; ``reserved`` are tool names."""
    found = AgentSet({a.name: a for a in BUILTIN_AGENTS})
    for source, folder, claude in agent_dirs(workspace, trusted=trusted, home=home):
        try:
            files = sorted(p for p in folder.glob("*.md") if p.is_file())
        except OSError:
            continue
        for path in files:
            try:
                agent = parse_agent(_read(path), source=source, path=path, claude=claude)
            except (OSError, ValueError) as exc:
                found.problems.append(f"{path}: {exc}")
                continue
            if agent.name in reserved:
                found.problems.append(f"{path}: {agent.name!r} is the name of a tool")
                continue
            found.agents[agent.name] = agent
    return found


def _read(path: Path) -> str:
    if path.stat().st_size > _MAX_FILE:
        raise ValueError(f"larger than {_MAX_FILE // 1024} KiB")
    return path.read_text(encoding="utf-8")


def parse_agent(
    text: str, *, source: str = "user", path: Path | None = None, claude: bool = False
) -> AgentDefinition:
    """One definition from its file's text; ValueError says what is wrong."""
    import yaml  # only when a definition file exists: start-up without one skips it

    match = _FRONT.match(text.lstrip("\ufeff"))
    if match is None:
        raise ValueError("no YAML front matter (a '---' block at the top)")
    try:
        meta = yaml.safe_load(match.group(1)) or {}
    except yaml.YAMLError as exc:
        raise ValueError(f"bad YAML front matter: {exc}") from exc
    if not isinstance(meta, dict):
        raise ValueError("the front matter is not a mapping")
    name = _text(meta, "name") or (path.stem if path is not None else "")
    name = name.strip()
    if not _NAME.match(name):
        raise ValueError(f"name {name!r}: use lowercase letters, digits, '_' and '-' (at most 63)")
    description = _text(meta, "description").strip()
    if not description:
        raise ValueError("a description is required (the model reads it to choose the agent)")
    prompt = match.group(2).strip()
    if not prompt:
        raise ValueError("the body (the agent's system prompt) is empty")
    model = _text(meta, "model").strip() or None
    if claude and model in ("inherit", "sonnet", "opus", "haiku"):
        model = None  # Claude Code's aliases: the session's model
    return AgentDefinition(
        name=name,
        description=description,
        prompt=prompt,
        tools=_tools(meta.get("tools"), claude=claude),
        model=model,
        max_turns=_number(meta, "max_turns", int, 30, low=1, high=500),
        timeout=_timeout(meta),
        temperature=_optional_float(meta, "temperature", low=0.0, high=2.0),
        source=source,
        path=path,
    )


def _text(meta: dict[str, Any], key: str) -> str:
    value = meta.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ValueError(f"{key} must be text")
    return value


def _tools(value: Any, *, claude: bool) -> tuple[str, ...] | None:
    """The tool list; Claude Code's names are mapped, and a string is split on commas."""
    if value is None:
        return None
    if isinstance(value, str):
        items: list[Any] = [v.strip() for v in value.split(",") if v.strip()]
    elif isinstance(value, list):
        items = value
    else:
        raise ValueError("tools must be a list of tool names (or a comma-separated string)")
    names: list[str] = []
    for item in items:
        if not isinstance(item, str) or not item.strip():
            raise ValueError("tools must be a list of tool names")
        item = item.strip()
        names.append(CLAUDE_TOOLS.get(item.lower(), item) if claude else item)
    return tuple(dict.fromkeys(names))


def _number(
    meta: dict[str, Any], key: str, kind: type[int], default: int, *, low: int, high: int
) -> int:
    value = meta.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"{key} must be a whole number from {low} to {high}")
    return kind(value)


def _optional_float(meta: dict[str, Any], key: str, *, low: float, high: float) -> float | None:
    value = meta.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= high:
        raise ValueError(f"{key} must be a number from {low} to {high}")
    return float(value)


def _timeout(meta: dict[str, Any]) -> float | None:
    """Seconds (``timeout``) or minutes (``timeout_mins``); at most a day."""
    seconds = _optional_float(meta, "timeout", low=1.0, high=86_400.0)
    minutes = _optional_float(meta, "timeout_mins", low=0.1, high=1_440.0)
    if seconds is not None:
        return seconds
    if minutes is not None:
        return minutes * 60
    return 600.0
