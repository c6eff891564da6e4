"""What a Gemini CLI or Claude Code setup on this machine and in this folder holds, and
what gemtui does with each part (``gemtui setup import``).

``survey`` only reads: each ``Finding`` says where something is, how many, and whether
gemtui reads it where it is (hooks, commands, agents, skills, context files, the
environment's keys), needs it copied (MCP servers into gemtui's config, Gemini CLI's
extensions, the person's own GEMINI.md / CLAUDE.md), or cannot use it (a Claude sign-in,
Claude Code's permissions). ``Plan.copies`` are the changes ``apply`` makes — only after
the person said yes. No secret value is ever put in a finding: keys are named, never shown.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from gemtui.config.paths import config_dir, user_config_file, workspace_config_file

__all__ = ["Copy", "Finding", "Plan", "mcp_from_claude", "survey"]

READ = "read directly"
COPY = "copied on yes"
NOT = "not carried over"

KEY_VARIABLES = (
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "GOOGLE_APPLICATION_CREDENTIALS",
    "GOOGLE_CLOUD_PROJECT",
    "GOOGLE_GENAI_USE_VERTEXAI",
    "ANTHROPIC_API_KEY",
    "OPENAI_API_KEY",
)
"""Credential variables gemtui reads from the environment (only their names are shown)."""


@dataclass(frozen=True)
class Finding:
    """One part of another agent's setup."""

    origin: str
    """``Gemini CLI`` or ``Claude Code``."""
    kind: str
    """settings, mcp, commands, skills, agents, hooks, extensions, sessions, context,
    credentials."""
    scope: str
    """``user`` (this machine) or ``workspace`` (this folder)."""
    path: str
    count: int
    use: str
    """``read directly``, ``copied on yes`` or ``not carried over``."""
    note: str = ""
    """What gemtui does with it, or why not (names only, never a value)."""


@dataclass(frozen=True)
class Copy:
    """One change ``apply`` would make."""

    kind: str
    """``mcp``, ``extensions`` or ``context``."""
    target: str
    """The file or folder written."""
    names: tuple[str, ...]
    source: str = ""
    servers: dict[str, dict[str, Any]] = field(default_factory=dict)
    """For ``mcp``: the servers in gemtui's (Gemini CLI's) keys."""

    def public(self) -> dict[str, Any]:
        """What may be shown (server definitions hold keys: only their names go out)."""
        return {k: v for k, v in asdict(self).items() if k != "servers"}


@dataclass
class Plan:
    """Everything found, and the copies that would bring the rest over."""

    findings: list[Finding] = field(default_factory=list)
    copies: list[Copy] = field(default_factory=list)


def _json(path: Path) -> dict[str, Any]:
    try:
        if not path.is_file():
            return {}
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError):
        return {}
    return data if isinstance(data, dict) else {}


def _count(folder: Path, pattern: str) -> int:
    try:
        return sum(1 for p in folder.rglob(pattern) if p.is_file()) if folder.is_dir() else 0
    except OSError:
        return 0


def mcp_from_claude(conf: dict[str, Any]) -> dict[str, Any] | None:
    """A Claude Code (``.mcp.json``, ``~/.claude.json``) server in Gemini CLI's keys."""
    kind = conf.get("type", "stdio")
    out: dict[str, Any]
    if kind in ("http", "streamable-http") and isinstance(conf.get("url"), str):
        out = {"httpUrl": conf["url"]}
    elif kind == "sse" and isinstance(conf.get("url"), str):
        out = {"url": conf["url"]}
    elif isinstance(conf.get("command"), str):
        out = {"command": conf["command"], "args": list(conf.get("args") or [])}
    else:
        return None
    for key in ("env", "headers"):
        if isinstance(conf.get(key), dict) and conf[key]:
            out[key] = {str(k): str(v) for k, v in conf[key].items()}
    return out


def _existing_servers(path: Path) -> set[str]:
    import tomllib

    try:
        data = tomllib.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return set()
    servers = data.get("mcpServers")
    return set(servers) if isinstance(servers, dict) else set()


def survey(workspace: Path, home: Path | None = None) -> Plan:
    """What this machine's and this folder's Gemini CLI and Claude Code setups hold."""
    home = home if home is not None else Path.home()
    plan = Plan()
    _settings_and_hooks(plan, workspace, home)
    _mcp(plan, workspace, home)
    _folders(plan, workspace, home)
    _context(plan, workspace, home)
    _extensions_and_sessions(plan, workspace, home)
    _credentials(plan, home)
    return plan


def _settings_and_hooks(plan: Plan, ws: Path, home: Path) -> None:
    files = (
        ("Gemini CLI", "user", home / ".gemini" / "settings.json"),
        ("Gemini CLI", "workspace", ws / ".gemini" / "settings.json"),
        ("Claude Code", "user", home / ".claude" / "settings.json"),
        ("Claude Code", "workspace", ws / ".claude" / "settings.json"),
        ("Claude Code", "workspace", ws / ".claude" / "settings.local.json"),
    )
    for origin, scope, path in files:
        data = _json(path)
        if not data:
            continue
        hooks = data.get("hooks")
        hooks = hooks if isinstance(hooks, dict) else {}
        others = sorted(k for k in data if k not in ("hooks", "mcpServers"))
        if others:
            plan.findings.append(
                Finding(
                    origin,
                    "settings",
                    scope,
                    str(path),
                    len(others),
                    NOT,
                    f"keys {', '.join(others)}: gemtui's own settings live in config.toml",
                )
            )
        events = [e for e, groups in hooks.items() if isinstance(groups, list) and groups]
        if events:
            trusted = " (this folder's, once it is trusted)" if scope == "workspace" else ""
            plan.findings.append(
                Finding(
                    origin,
                    "hooks",
                    scope,
                    str(path),
                    len(events),
                    READ,
                    f"events {', '.join(events)}{trusted}",
                )
            )


def _mcp(plan: Plan, ws: Path, home: Path) -> None:
    user_target, ws_target = user_config_file(), workspace_config_file(ws)
    wanted: dict[Path, dict[str, dict[str, Any]]] = {user_target: {}, ws_target: {}}
    claude = _json(home / ".claude.json")
    project = (
        claude.get("projects", {}).get(str(ws))
        if isinstance(claude.get("projects"), dict)
        else None
    )
    sources: list[tuple[str, str, str, Any, bool]] = [
        ("Gemini CLI", "user", str(home / ".gemini" / "settings.json"),
         _json(home / ".gemini" / "settings.json").get("mcpServers"), False),
        ("Gemini CLI", "workspace", str(ws / ".gemini" / "settings.json"),
         _json(ws / ".gemini" / "settings.json").get("mcpServers"), False),
        ("Claude Code", "user", str(home / ".claude.json"), claude.get("mcpServers"), True),
        ("Claude Code", "workspace", f"{home / '.claude.json'} (this folder's entry)",
         project.get("mcpServers") if isinstance(project, dict) else None, True),
        ("Claude Code", "workspace", str(ws / ".mcp.json"),
         _json(ws / ".mcp.json").get("mcpServers"), True),
    ]  # fmt: skip
    for origin, scope, path, servers, is_claude in sources:
        if not isinstance(servers, dict) or not servers:
            continue
        target = ws_target if scope == "workspace" else user_target
        usable = {}
        for name, conf in servers.items():
            if not isinstance(conf, dict):
                continue
            converted = mcp_from_claude(conf) if is_claude else dict(conf)
            if converted is not None and scope == "workspace":
                converted.pop("trust", None)  # a folder does not vouch for its own servers
            if converted is not None:
                usable[str(name)] = converted
        note = f"servers {', '.join(sorted(servers))} → {target}"
        if scope == "workspace":
            note += " (applies once the folder is trusted)"
        plan.findings.append(Finding(origin, "mcp", scope, path, len(servers), COPY, note))
        for name, conf in usable.items():
            wanted[target].setdefault(name, conf)
    for target, servers in wanted.items():
        new = {n: c for n, c in servers.items() if n not in _existing_servers(target)}
        if new:
            plan.copies.append(Copy("mcp", str(target), tuple(sorted(new)), servers=new))


def _folders(plan: Plan, ws: Path, home: Path) -> None:
    folders = (
        ("Gemini CLI", "commands", "user", home / ".gemini" / "commands", "*.toml"),
        ("Gemini CLI", "commands", "workspace", ws / ".gemini" / "commands", "*.toml"),
        ("Claude Code", "commands", "user", home / ".claude" / "commands", "*.md"),
        ("Claude Code", "commands", "workspace", ws / ".claude" / "commands", "*.md"),
        ("Gemini CLI", "agents", "user", home / ".gemini" / "agents", "*.md"),
        ("Gemini CLI", "agents", "workspace", ws / ".gemini" / "agents", "*.md"),
        ("Claude Code", "agents", "user", home / ".claude" / "agents", "*.md"),
        ("Claude Code", "agents", "workspace", ws / ".claude" / "agents", "*.md"),
        ("Gemini CLI", "skills", "user", home / ".gemini" / "skills", "SKILL.md"),
        ("Gemini CLI", "skills", "workspace", ws / ".gemini" / "skills", "SKILL.md"),
        ("Gemini CLI", "skills", "user", home / ".agents" / "skills", "SKILL.md"),
        ("Gemini CLI", "skills", "workspace", ws / ".agents" / "skills", "SKILL.md"),
        ("Claude Code", "skills", "user", home / ".claude" / "skills", "SKILL.md"),
        ("Claude Code", "skills", "workspace", ws / ".claude" / "skills", "SKILL.md"),
    )
    for origin, kind, scope, folder, pattern in folders:
        count = _count(folder, pattern)
        if count:
            note = "once the folder is trusted" if scope == "workspace" else ""
            plan.findings.append(Finding(origin, kind, scope, str(folder), count, READ, note))


def _context(plan: Plan, ws: Path, home: Path) -> None:
    for origin, name in (("Gemini CLI", "GEMINI.md"), ("Claude Code", "CLAUDE.md")):
        if (ws / name).is_file():
            plan.findings.append(Finding(origin, "context", "workspace", str(ws / name), 1, READ))
    for origin, path in (
        ("Gemini CLI", home / ".gemini" / "GEMINI.md"),
        ("Claude Code", home / ".claude" / "CLAUDE.md"),
    ):
        if not path.is_file():
            continue
        target = config_dir() / path.name
        if target.exists():
            note = f"gemtui has its own {target}: left as it is"
            plan.findings.append(Finding(origin, "context", "user", str(path), 1, NOT, note))
            continue
        note = f"your own instructions → {target}"
        plan.findings.append(Finding(origin, "context", "user", str(path), 1, COPY, note))
        plan.copies.append(Copy("context", str(target), (path.name,), source=str(path)))


def _extensions_and_sessions(plan: Plan, ws: Path, home: Path) -> None:
    folder = home / ".gemini" / "extensions"
    names = []
    if folder.is_dir():
        names = sorted(p.name for p in folder.iterdir() if (p / "gemini-extension.json").is_file())
    if names:
        note = f"{', '.join(names)} → gemtui's extensions (those not installed yet)"
        plan.findings.append(
            Finding("Gemini CLI", "extensions", "user", str(folder), len(names), COPY, note)
        )
        plan.copies.append(Copy("extensions", "gemtui extensions", tuple(names), str(folder)))
    plugins = home / ".claude" / "plugins"
    if plugins.is_dir() and any(plugins.iterdir()):
        note = "plugins are not supported (copy their commands, agents, hooks into .claude/)"
        plan.findings.append(
            Finding("Claude Code", "extensions", "user", str(plugins), 0, NOT, note)
        )
    try:
        chats = len(list((home / ".gemini" / "tmp").glob("*/chats/*.json*")))
    except OSError:
        chats = 0
    if chats:
        note = "shown (read-only) in `gemtui sessions`"
        plan.findings.append(
            Finding(
                "Gemini CLI", "sessions", "user", str(home / ".gemini" / "tmp"), chats, READ, note
            )
        )
    claude_chats = _count(home / ".claude" / "projects", "*.jsonl")
    if claude_chats:
        note = "Claude Code's transcripts are not imported"
        plan.findings.append(
            Finding(
                "Claude Code",
                "sessions",
                "user",
                str(home / ".claude" / "projects"),
                claude_chats,
                NOT,
                note,
            )
        )


def _credentials(plan: Plan, home: Path) -> None:
    present = [v for v in KEY_VARIABLES if os.environ.get(v)]
    if present:
        plan.findings.append(
            Finding("environment", "credentials", "user", "environment", len(present), READ,
                    f"{', '.join(present)} set (values not shown)")
        )  # fmt: skip
    dotenv = home / ".gemini" / ".env"
    if dotenv.is_file():
        try:
            lines = dotenv.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError):
            lines = []
        names = [
            line.removeprefix("export ").split("=", 1)[0].strip()
            for line in lines
            if "=" in line and not line.lstrip().startswith("#")
        ]
        note = (
            f"holds {', '.join(names) or 'nothing'}: gemtui reads the environment, so export them"
        )
        plan.findings.append(
            Finding("Gemini CLI", "credentials", "user", str(dotenv), len(names), NOT, note)
        )
    oauth = home / ".gemini" / "oauth_creds.json"
    if oauth.is_file():
        note = (
            "Gemini CLI's Google sign-in is not reused: `gemtui auth login` signs in again "
            "(Code Assist for individuals refuses other clients: UNSUPPORTED_CLIENT)"
        )
        plan.findings.append(Finding("Gemini CLI", "credentials", "user", str(oauth), 1, NOT, note))
    claude = home / ".claude" / ".credentials.json"
    if claude.is_file():
        note = "a Claude subscription sign-in serves only Claude Code: use ANTHROPIC_API_KEY"
        plan.findings.append(
            Finding("Claude Code", "credentials", "user", str(claude), 1, NOT, note)
        )
