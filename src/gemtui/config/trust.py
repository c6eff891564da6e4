"""Folder trust: a folder's own ``.gemtui/`` settings and policy apply only once it is trusted.

Without it, a cloned repository could switch on yolo, send the user's API key to a server
of its choosing, start its own MCP servers or allow its own commands. As in Gemini CLI, the
person's decisions live in ``trusted_folders.json`` in the user config dir (the same shape:
a path mapped to ``TRUST_FOLDER``, ``TRUST_PARENT`` or ``DO_NOT_TRUST``); the most specific
entry covering the workspace decides. A "do not trust" is remembered too, so the TUI asks
once per folder; headless runs trust a folder only by that list or ``--trust-workspace``.

What a folder would change is described from its raw files (``WorkspaceOverrides``) and
never fails: an untrusted folder's broken file must not be able to stop gemtui either.

Trust covers the content the person trusted (``trust_content``): a trusted folder whose
code-running files changed since is not trusted this run until the person accepts the new
content — the TUI asks, ``--trust-workspace`` accepts it, other runs leave it out and say so.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Mapping
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from gemtui.config.paths import config_dir, workspace_config_file
from gemtui.config.toml_file import read_toml_file
from gemtui.config.trust_content import (
    TRUST_CONTENT_FILE_NAME,
    content_changes,
    read_content_records,
    trusted_content,
)
from gemtui.errors import FatalConfigError

__all__ = [
    "TRUST_FILE_NAME",
    "TrustStore",
    "WorkspaceOverrides",
    "WorkspaceTrust",
    "workspace_overrides",
    "workspace_policy_file",
    "workspace_trust",
]

TRUST_FILE_NAME = "trusted_folders.json"
_TRUST, _PARENT, _DISTRUST = "TRUST_FOLDER", "TRUST_PARENT", "DO_NOT_TRUST"
_MAX_VALUE = 80


def workspace_policy_file(workspace: Path) -> Path:
    """The folder's own policy rules, applied only when the folder is trusted."""
    return workspace / ".gemtui" / "policy.toml"


class TrustStore:
    """The person's trust decisions, read fresh on each question and written atomically."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or config_dir() / TRUST_FILE_NAME

    def _entries(self) -> dict[str, str]:
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return {}
        except (OSError, UnicodeDecodeError) as exc:
            raise FatalConfigError(f"{self.path}: cannot read the trusted folders: {exc}") from exc
        try:
            data = json.loads(text) if text.strip() else {}
        except (ValueError, RecursionError) as exc:
            raise FatalConfigError(
                f"{self.path}: the trusted folders file is not valid JSON ({exc}); "
                "fix it or move it aside."
            ) from exc
        if not isinstance(data, dict) or not all(
            isinstance(v, str) and v in (_TRUST, _PARENT, _DISTRUST) for v in data.values()
        ):
            raise FatalConfigError(
                f"{self.path}: expected an object mapping folders to "
                f'"{_TRUST}", "{_PARENT}" or "{_DISTRUST}"'
            )
        return data

    def is_trusted(self, folder: Path) -> bool | None:
        """True or False when a listed folder covers ``folder``; None when never decided."""
        target = folder.resolve()
        best: tuple[int, bool] | None = None
        for listed, level in self._entries().items():
            base = Path(listed).expanduser().resolve()
            if level == _PARENT:
                base = base.parent
            if target != base and base not in target.parents:
                continue
            depth = len(base.parts)
            if best is None or depth >= best[0]:  # the most specific entry decides
                best = (depth, level != _DISTRUST)
        return None if best is None else best[1]

    def remember(
        self, folder: Path, trusted: bool, content: Mapping[str, str] | None = None
    ) -> None:
        """Record the decision for exactly this folder (OSError when it cannot be saved);
        a trust covers ``content`` (what the person was shown; by default what is there now).
        """
        entries = self._entries()
        entries[str(folder.resolve())] = _TRUST if trusted else _DISTRUST
        _write_json(self.path, entries)
        if not trusted:
            self.remember_content(folder, None)
        else:
            self.remember_content(folder, trusted_content(folder) if content is None else content)

    @property
    def content_path(self) -> Path:
        """Where the trusted content's hashes are kept, beside the decisions."""
        return self.path.with_name(TRUST_CONTENT_FILE_NAME)

    def recorded_content(self, folder: Path) -> dict[str, str] | None:
        """The hashes recorded when ``folder`` was last trusted (None: never recorded)."""
        return read_content_records(self.content_path).get(str(folder.resolve()))

    def remember_content(self, folder: Path, content: Mapping[str, str] | None) -> None:
        """Record (None: forget) what a trust of exactly ``folder`` covers."""
        records = read_content_records(self.content_path)
        key = str(folder.resolve())
        if content is None:
            if records.pop(key, None) is None:
                return
        else:
            records[key] = dict(content)
        _write_json(self.content_path, records)


def _write_json(path: Path, data: dict[str, Any]) -> None:
    """Write ``data`` atomically: a crash leaves the old file or the new one, never half."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.stem}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(data, fh, indent=2, sort_keys=True)
            fh.write("\n")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


@dataclass(frozen=True)
class WorkspaceOverrides:
    """What a folder's own settings and policy would change, for the question and the notice."""

    folder: Path
    settings_keys: tuple[str, ...]
    """Dotted keys the folder's config.toml sets (``providers.gemini.base_url``)."""
    policy_rules: int | None
    """How many ``[[rule]]`` tables the folder's policy has (None: unreadable)."""
    details: tuple[str, ...]
    """One line per change, values included, hosts that would receive keys called out."""
    files: tuple[str, ...]
    """The files found, relative to the folder (``.gemtui/config.toml``)."""

    def summary(self) -> str:
        """The files and what they set, on one line."""
        parts = []
        if self.settings_keys:
            parts.append(f".gemtui/config.toml ({', '.join(self.settings_keys)})")
        elif ".gemtui/config.toml" in self.files:
            parts.append(".gemtui/config.toml")
        if ".gemtui/policy.toml" in self.files:
            n = self.policy_rules
            count = "unreadable" if n is None else f"{n} rule{'s' if n != 1 else ''}"
            parts.append(f".gemtui/policy.toml ({count})")
        parts += [f for f in self.files if f in WORKSPACE_COMMAND_DIRS + WORKSPACE_AGENT_DIRS]
        parts += [f"{f} (hooks)" for f in self.files if f in WORKSPACE_HOOK_FILES]
        parts += [f"{f} (skills)" for f in self.files if f in WORKSPACE_SKILL_DIRS]
        return ", ".join(parts)

    def ignored_notice(self, how_to_trust: str) -> str:
        return (
            f"ignored this folder's own settings because it is not trusted: {self.summary()}. "
            f"{how_to_trust}"
        )


def _show(value: Any) -> str:
    """A value as JSON: newlines and escape sequences in a hostile file stay visible text."""
    try:
        text = json.dumps(value, ensure_ascii=False, default=str)
    except (ValueError, RecursionError):
        text = "…"
    return text if len(text) <= _MAX_VALUE else text[: _MAX_VALUE - 1] + "…"


def _key(key: str) -> str:
    """A key as written, or quoted when it holds anything but plain characters."""
    plain = key.isprintable() and not any(c.isspace() for c in key) and len(key) <= _MAX_VALUE
    return key if plain else _show(key)


def _leaves(data: dict[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    for key, value in data.items():
        dotted = f"{prefix}{_key(key)}"
        if isinstance(value, dict) and value:
            out.extend(_leaves(value, dotted + "."))
        else:
            out.append((dotted, value))
    return out


def _host(url: Any) -> str:
    try:
        parts = urlsplit(str(url))
    except ValueError:
        return str(url)
    return parts.netloc or str(url)


_KEY_OF_KIND = {
    "gemini": "Gemini API key",
    "openai": "OpenAI-compatible API key",
    "anthropic": "Anthropic API key",
    "code-assist": "Google account token",
    "vertex": "Google Cloud credentials (ADC token or Vertex AI key)",
}


def _provider_notes(data: dict[str, Any]) -> dict[str, str]:
    """Which of the user's credentials each provider's ``base_url`` would receive."""
    notes: dict[str, str] = {}
    providers = data.get("providers")
    if not isinstance(providers, dict):
        return notes
    for name, conf in providers.items():
        if isinstance(conf, dict) and "base_url" in conf:
            what = _KEY_OF_KIND.get(str(conf.get("kind")), "API key")
            where = _host(conf["base_url"])
            notes[f"providers.{_key(name)}.base_url"] = f"your {what} would be sent to {where}"
    return notes


def _settings_details(data: dict[str, Any]) -> tuple[list[str], list[str]]:
    keys: list[str] = []
    lines: list[str] = []
    notes = _provider_notes(data)
    for key, value in _leaves(data):
        keys.append(key)
        line = f"{key} = {_show(value)}"
        head = key.split(".")
        if key in notes:
            line += f"  → {notes[key]}"
        elif key == "general.approval_mode" and value == "yolo":
            line += "  → every tool call would run without asking"
        elif head[0] == "mcpServers" and head[-1] in ("command", "url", "httpUrl"):
            line += "  → an MCP server gemtui would start or connect to"
        lines.append(line)
    return keys, lines


def _policy_details(data: dict[str, Any]) -> list[str]:
    tables = data.get("rule", [])
    if not isinstance(tables, list):
        return ["policy: 'rule' is not a list of [[rule]] tables"]
    lines = []
    for index, table in enumerate(tables, start=1):
        if isinstance(table, dict):
            body = ", ".join(f"{_key(k)} = {_show(v)}" for k, v in table.items())
        else:
            body = _show(table)
        lines.append(f"policy rule {index}: {body}")
    return lines


def _read_raw(path: Path, what: str) -> tuple[dict[str, Any] | None, str | None]:
    """(tables, None), (None, None) when absent, or (None, why it cannot be read)."""
    try:
        return read_toml_file(path, what), None
    except FatalConfigError as exc:  # described, never fatal: the folder is not trusted
        return None, "unreadable (" + exc.message.removeprefix(f"{path}: ").split(";")[0] + ")"


WORKSPACE_COMMAND_DIRS = (".gemini/commands", ".gemtui/commands", ".claude/commands")
"""A folder's own custom command folders (loaded only when it is trusted)."""


WORKSPACE_AGENT_DIRS = (".claude/agents", ".gemini/agents", ".gemtui/agents")
"""A folder's own agent definitions (``*.md``; loaded only when it is trusted)."""


WORKSPACE_HOOK_FILES = (
    ".gemini/settings.json",
    ".gemtui/settings.json",
    ".claude/settings.json",
    ".claude/settings.local.json",
)
"""A folder's own hook settings (Gemini CLI's and Claude Code's format; loaded only when
it is trusted)."""

WORKSPACE_SKILL_DIRS = (".claude/skills", ".gemini/skills", ".agents/skills")
"""A folder's own Agent Skills (instructions the model follows; loaded only when trusted)."""


def _has_hooks(path: Path) -> bool:
    try:
        if path.exists() and not path.is_file():  # a FIFO would block the start forever
            return True
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return False
    except (OSError, UnicodeDecodeError, ValueError):
        return True  # unreadable: say so rather than skip the question
    return isinstance(data, dict) and bool(data.get("hooks"))


def _count_files(folder: Path, pattern: str) -> int:
    try:
        return sum(1 for _ in folder.rglob(pattern)) if folder.is_dir() else 0
    except OSError:
        return 0


def workspace_overrides(workspace: Path) -> WorkspaceOverrides | None:
    """What ``workspace``'s ``.gemtui/`` files would change, or None when it has none."""
    files: list[str] = []
    keys: list[str] = []
    details: list[str] = []
    rules: int | None = 0
    settings_path = workspace_config_file(workspace)
    data, problem = _read_raw(settings_path, "settings")
    if data or problem is not None:  # an empty file changes nothing: no question
        files.append(".gemtui/config.toml")
    if data:
        keys, details = _settings_details(data)
    elif problem:
        details.append(f".gemtui/config.toml: {problem}")
    policy_data, problem = _read_raw(workspace_policy_file(workspace), "policy")
    if policy_data or problem is not None:
        files.append(".gemtui/policy.toml")
    if policy_data is not None:
        policy_lines = _policy_details(policy_data)
        rules = sum(1 for line in policy_lines if line.startswith("policy rule "))
        details.extend(policy_lines)
    elif problem:
        rules = None
        details.append(f".gemtui/policy.toml: {problem}")
    for folder in WORKSPACE_COMMAND_DIRS:  # custom commands may run shell lines: asked too
        pattern = "*.md" if folder.startswith(".claude/") else "*.toml"
        count = _count_files(workspace / folder, pattern)
        if count:
            files.append(folder)
            details.append(f"{folder}: {count} custom command file(s) (may run shell commands)")
    for folder in WORKSPACE_AGENT_DIRS:  # agents are prompts with tools: asked too
        count = _count_files(workspace / folder, "*.md")
        if count:
            files.append(folder)
            details.append(f"{folder}: {count} agent definition(s) (prompts the model can run)")
    for name in WORKSPACE_HOOK_FILES:  # hooks run commands on every event: asked too
        if _has_hooks(workspace / name):
            files.append(name)
            details.append(f"{name}: hooks (commands run on the agent's events)")
    for folder in WORKSPACE_SKILL_DIRS:  # a skill's body is instructions the model follows
        count = _count_files(workspace / folder, "*/SKILL.md")
        if count:
            files.append(folder)
            details.append(f"{folder}: {count} skill(s) (instructions the model may follow)")
    if not files:
        return None
    return WorkspaceOverrides(workspace, tuple(keys), rules, tuple(details), tuple(files))


@dataclass(frozen=True)
class WorkspaceTrust:
    """Whether a folder's own settings apply this run, and whether the person must be asked."""

    trusted: bool
    overrides: WorkspaceOverrides | None
    """What the folder's files would change; None when it has none (nothing to decide)."""
    undecided: bool
    """Neither the flag nor the list decided, or a trusted folder's content changed: the
    TUI asks, headless runs ignore the folder's settings."""
    changes: tuple[str, ...] = ()
    """A trusted folder's files added, changed or removed since it was trusted (one line
    each); its settings do not apply until the person accepts them."""
    content: tuple[tuple[str, str], ...] = ()
    """The hashes of what the person is shown: what a "trust" answer records."""

    @property
    def ignored(self) -> WorkspaceOverrides | None:
        """The settings this run leaves out, if any."""
        return None if self.trusted else self.overrides

    def notice(self, how_to_trust: str) -> str | None:
        """What this run leaves out and why, on one line; None when nothing is."""
        if self.ignored is None:
            return None
        if self.changes:
            return (
                "ignored this folder's own settings: what can run code in it changed since "
                f"you trusted it ({'; '.join(self.changes)}). {how_to_trust}"
            )
        return self.ignored.ignored_notice(how_to_trust)


def workspace_trust(
    workspace: Path, *, flag: bool = False, store: TrustStore | None = None
) -> WorkspaceTrust:
    """The trust decision for ``workspace``; a broken trusted-folders file exits 52.

    ``flag`` (``--trust-workspace``) trusts the folder as it is now and records its
    content, so a later run trusted by the list does not ask about it again.
    """
    overrides = workspace_overrides(workspace)
    store = store or TrustStore()
    if overrides is None and not flag:  # nothing to apply: no need to read the list or ask
        return WorkspaceTrust(False, None, False)
    content = trusted_content(workspace)
    shown = tuple(sorted(content.items()))
    if flag:
        with suppress(OSError):  # the flag trusts this run whether or not it is remembered
            store.remember_content(workspace, content)
        return WorkspaceTrust(True, overrides, False, content=shown)
    decision = store.is_trusted(workspace)
    if decision is True:
        changes = content_changes(store.recorded_content(workspace), content)
        if changes:
            return WorkspaceTrust(False, overrides, True, changes, shown)
    return WorkspaceTrust(decision is True, overrides, decision is None, content=shown)
