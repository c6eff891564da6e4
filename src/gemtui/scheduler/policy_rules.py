"""The rule and verdict types policy speaks in, shared by the engine and its shell part."""

from __future__ import annotations

import re
from enum import StrEnum
from functools import lru_cache
from typing import Literal

from msgspec import Struct

from gemtui.modes import ApprovalMode
from gemtui.tools.base import ToolKind

__all__ = [
    "MODES",
    "PolicyDecision",
    "PolicyRule",
    "PolicyVerdict",
    "RuleSource",
    "normalize_mode",
    "regex",
    "verdict_for",
]

MODES = tuple(ApprovalMode)


def normalize_mode(mode: str) -> str:
    """``autoEdit`` / ``auto-edit`` → ``auto_edit``; unknown modes count as default."""
    m = mode.strip().replace("-", "_")
    m = ApprovalMode.AUTO_EDIT if m.lower() in ("autoedit", "auto_edit") else m.lower()
    return m if m in MODES else "default"


RuleSource = Literal["builtin", "workspace", "user", "session"]
_TIER: dict[str, int] = {"builtin": 0, "workspace": 1, "user": 2, "session": 2}


class PolicyDecision(StrEnum):
    """What a policy rule says of a call: allow, ask or deny."""

    ALLOW = "allow"
    DENY = "deny"
    ASK = "ask_user"

    @property
    def strictness(self) -> int:
        return {"allow": 0, "ask_user": 1, "deny": 2}[self.value]


class PolicyRule(Struct, frozen=True):
    """One allow / deny / ask rule; every condition set must hold for it to match."""

    decision: PolicyDecision
    tool_name: str | None = None
    """Exact name (or alias), ``*`` for all, or a glob such as ``mcp_github_*``."""
    mcp_name: str | None = None
    args_pattern: str | None = None
    """Regex searched in the args as JSON with sorted keys and no spaces."""
    command_prefix: tuple[str, ...] = ()
    """Word-wise command prefixes; any one matching is enough."""
    command_regex: str | None = None
    priority: float = 0
    modes: tuple[str, ...] = ()
    allow_redirection: bool = False
    deny_message: str | None = None
    kinds: tuple[ToolKind, ...] = ()
    """Built-in rules match tool kinds rather than names."""
    source: RuleSource = "user"

    @property
    def conditional(self) -> bool:
        """Whether the rule looks at arguments (so it cannot remove a tool outright)."""
        return bool(self.args_pattern or self.command_prefix or self.command_regex or self.kinds)

    def sort_key(self) -> tuple[int, float, int]:
        return (_TIER[self.source], self.priority, self.decision.strictness)

    def summary(self) -> str:
        """What the rule covers, in the words an approval preview uses."""
        if self.command_prefix:
            return " | ".join(self.command_prefix)
        what = "every call" if self.tool_name in (None, "*") else f"every {self.tool_name} call"
        return what + (f" (server {self.mcp_name})" if self.mcp_name else "")

    def label(self) -> str:
        """A short description for messages and the rule list."""
        what = [self.tool_name or "*"]
        if self.kinds:
            what = ["kind " + "/".join(k.value for k in self.kinds)]
        if self.mcp_name:
            what.append(f"server {self.mcp_name}")
        if self.command_prefix:
            what.append("command " + " | ".join(repr(p) for p in self.command_prefix))
        if self.command_regex:
            what.append(f"command ~ {self.command_regex!r}")
        if self.args_pattern:
            what.append(f"args ~ {self.args_pattern!r}")
        if self.modes:
            what.append("in " + ", ".join(self.modes))
        return f"{self.source} rule: {' '.join(what)} → {self.decision.value}"


class PolicyVerdict(Struct, frozen=True):
    """The decision for one call, the rule that gave it and why, in words."""

    decision: PolicyDecision
    rule: PolicyRule | None
    reason: str


@lru_cache(maxsize=512)
def regex(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def verdict_for(rule: PolicyRule | None, tool_name: str) -> PolicyVerdict:
    """The verdict a matching rule (or none) gives, with a message a person can read."""
    if rule is None:
        return PolicyVerdict(PolicyDecision.ASK, None, "No rule matched; asking.")
    if rule.decision is PolicyDecision.DENY:
        message = rule.deny_message or f"This call was refused by a policy ({rule.label()})."
        return PolicyVerdict(rule.decision, rule, message.replace("{tool}", tool_name))
    verb = "Allowed" if rule.decision is PolicyDecision.ALLOW else "Needs approval"
    return PolicyVerdict(rule.decision, rule, f"{verb} by {rule.label()}.")
