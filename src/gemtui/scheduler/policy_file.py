"""Reading and writing policy files in Gemini CLI's TOML shape (``[[rule]]`` tables).

A broken policy file must stop start-up with a message naming the file, never be half
applied: a deny rule silently skipped is a hole. Writing is plain string building (the
standard library reads TOML but does not write it); only the keys a rule uses are
written, so saved files stay short and readable.
"""

from __future__ import annotations

import json
import logging
import os
import re
import warnings
from pathlib import Path
from typing import Any

from gemtui.config.toml_file import read_toml_file
from gemtui.errors import FatalConfigError
from gemtui.scheduler.policy_rules import (
    MODES,
    PolicyDecision,
    PolicyRule,
    RuleSource,
    normalize_mode,
)

__all__ = [
    "append_policy_rules",
    "load_policy_file",
    "parse_policy",
    "rule_to_toml",
    "write_policy_file",
]

log = logging.getLogger(__name__)

_KEYS = {
    "toolName", "mcpName", "argsPattern", "commandPrefix", "commandRegex", "decision",
    "priority", "modes", "allowRedirection", "denyMessage",
}  # fmt: skip
_IGNORED = {"interactive", "subagent", "toolAnnotations", "source"}
"""Gemini CLI keys gemtui does not use; tolerated so its files still load."""
_SHELL_TOOL = "run_shell_command"


def load_policy_file(path: Path, source: RuleSource = "user") -> list[PolicyRule]:
    """The rules of a policy file; a missing file has none, a broken one is fatal."""
    data = read_toml_file(path, "policy")
    if data is None:
        return []
    try:
        return parse_policy(data, source)
    except ValueError as e:
        raise FatalConfigError(f"Policy file {path}: {e}") from e


def parse_policy(data: dict[str, Any], source: RuleSource = "user") -> list[PolicyRule]:
    """Rules from parsed TOML; raises ValueError saying which rule is wrong and why."""
    tables = data.get("rule", [])
    if not isinstance(tables, list) or not all(isinstance(t, dict) for t in tables):
        raise ValueError("'rule' must be an array of tables ([[rule]])")
    rules: list[PolicyRule] = []
    for index, table in enumerate(tables, start=1):
        try:
            rules.extend(_parse_rule(table, source))
        except ValueError as e:
            raise ValueError(f"rule {index}: {e}") from None
    return rules


def _str_list(table: dict[str, Any], key: str) -> tuple[str, ...]:
    value = table.get(key)
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise ValueError(f"{key} must be a string or a list of strings")


def _opt_str(table: dict[str, Any], key: str) -> str | None:
    value = table.get(key)
    if value is not None and not isinstance(value, str):
        raise ValueError(f"{key} must be a string")
    return value


def _parse_rule(table: dict[str, Any], source: RuleSource) -> list[PolicyRule]:
    unknown = set(table) - _KEYS - _IGNORED
    if unknown:
        raise ValueError(f"unknown key(s) {', '.join(sorted(unknown))}")
    if set(table) & _IGNORED:
        log.info("policy keys %s are not used by gemtui", sorted(set(table) & _IGNORED))
    try:
        decision = PolicyDecision(str(table.get("decision")))
    except ValueError:
        raise ValueError("decision must be one of allow, deny, ask_user") from None
    priority = table.get("priority", 0)
    if isinstance(priority, bool) or not isinstance(priority, int | float):
        raise ValueError("priority must be a number")
    prefixes = _str_list(table, "commandPrefix")
    command_regex = _opt_str(table, "commandRegex")
    mcp_name = _opt_str(table, "mcpName")
    names = _str_list(table, "toolName")
    if not names:
        if prefixes or command_regex:
            names = (_SHELL_TOOL,)
        elif mcp_name:
            names = ("*",)
        else:
            raise ValueError('toolName is required (use "*" for every tool)')
    for key in ("argsPattern", "commandRegex"):
        pattern = _opt_str(table, key)
        if pattern is not None:
            try:
                with warnings.catch_warnings():  # `[[a]`: re's FutureWarning stays off screen
                    warnings.simplefilter("ignore", FutureWarning)
                    re.compile(pattern)  # cached by re: the engine's compile parses no more
            except re.error as e:
                raise ValueError(f"{key} is not a valid regular expression: {e}") from None
    modes = _str_list(table, "modes")
    for mode in modes:
        if normalize_mode(mode) == "default" and mode.strip().lower() != "default":
            raise ValueError(f"unknown mode {mode!r} (use {', '.join(MODES)})")
    redirection = table.get("allowRedirection", False)
    if not isinstance(redirection, bool):
        raise ValueError("allowRedirection must be true or false")
    return [
        PolicyRule(
            decision,
            tool_name=name,
            mcp_name=mcp_name,
            args_pattern=_opt_str(table, "argsPattern"),
            command_prefix=prefixes,
            command_regex=command_regex,
            priority=priority,
            modes=tuple(normalize_mode(m) for m in modes),
            allow_redirection=redirection,
            deny_message=_opt_str(table, "denyMessage"),
            source=source,
        )
        for name in names
    ]


def _toml_str(value: str) -> str:
    # JSON string escapes are all valid TOML basic-string escapes; TOML also wants DEL.
    return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")


def rule_to_toml(rule: PolicyRule) -> str:
    """One ``[[rule]]`` table holding only the keys the rule uses."""
    lines = ["[[rule]]"]
    if rule.tool_name is not None:
        lines.append(f"toolName = {_toml_str(rule.tool_name)}")
    if rule.mcp_name is not None:
        lines.append(f"mcpName = {_toml_str(rule.mcp_name)}")
    if rule.args_pattern is not None:
        lines.append(f"argsPattern = {_toml_str(rule.args_pattern)}")
    if len(rule.command_prefix) == 1:
        lines.append(f"commandPrefix = {_toml_str(rule.command_prefix[0])}")
    elif rule.command_prefix:
        items = ", ".join(_toml_str(p) for p in rule.command_prefix)
        lines.append(f"commandPrefix = [{items}]")
    if rule.command_regex is not None:
        lines.append(f"commandRegex = {_toml_str(rule.command_regex)}")
    lines.append(f"decision = {_toml_str(rule.decision.value)}")
    if rule.priority:
        lines.append(f"priority = {rule.priority!r}")
    if rule.modes:
        lines.append(f"modes = [{', '.join(_toml_str(m) for m in rule.modes)}]")
    if rule.allow_redirection:
        lines.append("allowRedirection = true")
    if rule.deny_message is not None:
        lines.append(f"denyMessage = {_toml_str(rule.deny_message)}")
    return "\n".join(lines) + "\n"


_HEADER = "# gemtui policy rules (Gemini CLI format); 'allow always' adds rules here.\n"


def append_policy_rules(path: Path, rules: list[PolicyRule]) -> None:
    """Add rules at the end of the file, leaving what a person wrote (comments too)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        existing = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        existing = _HEADER
    if existing and not existing.endswith("\n"):
        existing += "\n"
    body = "\n".join(rule_to_toml(r) for r in rules)
    _write_atomically(path, existing + "\n" + body)


def _write_atomically(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def write_policy_file(path: Path, rules: list[PolicyRule]) -> None:
    """Replace the file with ``rules`` (atomically: a crash leaves the old file whole).

    Comments in a hand-written file do not survive a rewrite.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    body = "\n".join(rule_to_toml(r) for r in rules)
    _write_atomically(path, _HEADER + "\n" + body)
