"""Which tool calls run at once, which are refused and which a person must approve.

Rules use Gemini CLI's TOML keys (``[[rule]]`` with ``toolName``, ``mcpName``,
``argsPattern``, ``commandPrefix``, ``commandRegex``, ``decision``, ``priority``,
``modes``, ``allowRedirection``, ``denyMessage``), so policy files carry over.

How a call is decided:

* Rules sit in tiers by source — built-in below workspace below user and session — so
  any rule someone wrote beats the defaults whatever its priority. Within a tier the
  higher ``priority`` wins; on a tie deny beats ask beats allow. The first rule that
  matches decides; nothing matching means ask.
* Built-in defaults follow Gemini CLI: read, search and think tools are allowed, edit
  tools are allowed in ``auto_edit``, everything is allowed in ``yolo``, everything else
  asks. In ``plan`` a tool that is not read-only is refused (with a message telling the
  model so) unless a rule that names ``plan`` in its ``modes`` allows it.
* A shell command is checked per sub-command (``&&``, ``||``, ``;``, ``|``, ``&``,
  newline): a prefix rule allows ``a && b`` only when every part is allowed. Redirection
  turns an allow into ask unless the allowing rule says ``allowRedirection = true``
  (except in ``yolo``); command substitution does the same for a command-matching rule,
  whose check it could otherwise slip past.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from enum import StrEnum
from fnmatch import fnmatchcase
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from gemtui.scheduler.policy_file import (
    append_policy_rules,
    load_policy_file,
    write_policy_file,
)
from gemtui.scheduler.shell_split import ShellSegment, command_words, root_prefix, split_shell
from gemtui.tools.base import Tool, ToolKind

__all__ = [
    "BUILTIN_RULES",
    "READ_ONLY_KINDS",
    "PolicyDecision",
    "PolicyEngine",
    "PolicyRule",
    "PolicyVerdict",
    "RuleSource",
    "load_policy_file",
    "normalize_mode",
]

log = logging.getLogger(__name__)

RuleSource = Literal["builtin", "workspace", "user", "session"]
_TIER: dict[str, int] = {"builtin": 0, "workspace": 1, "user": 2, "session": 2}

READ_ONLY_KINDS = frozenset({ToolKind.READ, ToolKind.SEARCH, ToolKind.THINK})
"""What plan mode lets run: tools that only look."""

MODES = ("default", "auto_edit", "plan", "yolo")

PLAN_MODE_MESSAGE = (
    "You are in plan mode: only tools that read, search or think may run, and {tool} "
    "would change something, so it was not run. Finish the plan and describe the change "
    "instead; the person will leave plan mode when they want it carried out."
)


class PolicyDecision(StrEnum):
    ALLOW = "allow"
    DENY = "deny"
    ASK = "ask_user"

    @property
    def strictness(self) -> int:
        return {"allow": 0, "ask_user": 1, "deny": 2}[self.value]


@dataclass(frozen=True)
class PolicyRule:
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


@dataclass(frozen=True)
class PolicyVerdict:
    decision: PolicyDecision
    rule: PolicyRule | None
    reason: str


_B = PolicyDecision
BUILTIN_RULES: tuple[PolicyRule, ...] = (
    PolicyRule(_B.ASK, tool_name="*", priority=0, source="builtin"),
    PolicyRule(_B.ALLOW, kinds=tuple(READ_ONLY_KINDS), priority=50, source="builtin"),
    PolicyRule(
        _B.ALLOW, kinds=(ToolKind.EDIT,), priority=15, modes=("auto_edit",), source="builtin"
    ),
    PolicyRule(_B.ALLOW, tool_name="*", priority=998, modes=("yolo",), source="builtin"),
    PolicyRule(
        _B.DENY,
        kinds=tuple(k for k in ToolKind if k not in READ_ONLY_KINDS),
        priority=999,
        modes=("plan",),
        deny_message=PLAN_MODE_MESSAGE,
        source="builtin",
    ),
)
_PLAN_RULE = BUILTIN_RULES[-1]


def normalize_mode(mode: str) -> str:
    """``autoEdit`` / ``auto-edit`` → ``auto_edit``; unknown modes count as default."""
    m = mode.strip().replace("-", "_")
    m = "auto_edit" if m.lower() in ("autoedit", "auto_edit") else m.lower()
    return m if m in MODES else "default"


@lru_cache(maxsize=512)
def _regex(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def _command_of(tool: Tool, args: dict[str, Any]) -> str | None:
    command = args.get("command")
    if tool.kind is ToolKind.EXECUTE and isinstance(command, str):
        return command
    return None


def _name_matches(pattern: str, tool: Tool) -> bool:
    if pattern == "*":
        return True
    names = (tool.name, *tool.aliases)
    if "*" in pattern:
        return any(fnmatchcase(n, pattern) for n in names)
    return pattern in names


def _matches(rule: PolicyRule, tool: Tool, args: dict[str, Any], mode: str) -> bool:
    if rule.modes and mode not in rule.modes:
        return False
    if rule.kinds and tool.kind not in rule.kinds:
        return False
    if rule.tool_name is not None and not _name_matches(rule.tool_name, tool):
        return False
    if rule.mcp_name is not None and (
        tool.server is None if rule.mcp_name == "*" else tool.server != rule.mcp_name
    ):
        return False
    if rule.args_pattern is not None:
        text = json.dumps(args, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        if not _regex(rule.args_pattern).search(text):
            return False
    if rule.command_prefix or rule.command_regex:
        command = _command_of(tool, args)
        if command is None:
            return False
        if rule.command_prefix:
            words = command_words(command)
            prefixes = (command_words(x) for x in rule.command_prefix)
            if not any(p and words[: len(p)] == p for p in prefixes):
                return False
        if rule.command_regex and not _regex(rule.command_regex).match(command.strip()):
            return False
    return True


class PolicyEngine:
    """Decides allow / deny / ask for each call, and remembers what a person allowed."""

    def __init__(
        self, rules: Iterable[PolicyRule] = (), user_policy_file: Path | None = None
    ) -> None:
        self._extra: list[PolicyRule] = list(rules)
        self._file = user_policy_file
        self._saved: list[PolicyRule] = []
        if user_policy_file is not None and user_policy_file.exists():
            self._saved = load_policy_file(user_policy_file)
        self._session: list[PolicyRule] = []
        self._sorted: list[PolicyRule] = []
        self._resort()

    # -- deciding ------------------------------------------------------------------------

    def decide(self, tool: Tool, args: dict[str, Any], mode: str) -> PolicyVerdict:
        """The verdict for one call of ``tool`` with ``args`` in approval ``mode``."""
        mode = normalize_mode(mode)
        args = args or {}
        command = _command_of(tool, args)
        verdict = (
            self._decide_shell(tool, args, command, mode)
            if command is not None
            else self._verdict(self._best(tool, args, mode), tool.name)
        )
        if mode == "plan" and tool.kind not in READ_ONLY_KINDS:
            rule = verdict.rule
            explicit = rule is not None and rule.source != "builtin" and "plan" in rule.modes
            if verdict.decision is not PolicyDecision.DENY and not explicit:
                return PolicyVerdict(
                    PolicyDecision.DENY, _PLAN_RULE, PLAN_MODE_MESSAGE.format(tool=tool.name)
                )
        return verdict

    def _best(self, tool: Tool, args: dict[str, Any], mode: str) -> PolicyRule | None:
        return next((r for r in self._sorted if _matches(r, tool, args, mode)), None)

    def _verdict(self, rule: PolicyRule | None, tool_name: str) -> PolicyVerdict:
        if rule is None:
            return PolicyVerdict(PolicyDecision.ASK, None, "No rule matched; asking.")
        if rule.decision is PolicyDecision.DENY:
            message = rule.deny_message or f"This call was refused by a policy ({rule.label()})."
            return PolicyVerdict(rule.decision, rule, message.replace("{tool}", tool_name))
        verb = "Allowed" if rule.decision is PolicyDecision.ALLOW else "Needs approval"
        return PolicyVerdict(rule.decision, rule, f"{verb} by {rule.label()}.")

    def _decide_shell(
        self, tool: Tool, args: dict[str, Any], command: str, mode: str
    ) -> PolicyVerdict:
        whole = self._best(tool, args, mode)
        if whole is not None and whole.decision is PolicyDecision.DENY:
            return self._verdict(whole, tool.name)
        segments = split_shell(command)
        if not segments:
            if (
                whole is not None
                and whole.decision is PolicyDecision.ALLOW
                and not (whole.command_prefix or whole.command_regex)
            ):
                return self._verdict(whole, tool.name)
            return PolicyVerdict(
                PolicyDecision.ASK, whole, "The command could not be parsed; asking."
            )
        checked: list[tuple[ShellSegment, PolicyRule | None]] = (
            [(segments[0], whole)]
            if len(segments) == 1
            else [(s, self._best(tool, {**args, "command": s.text}, mode)) for s in segments]
        )
        for _seg, rule in checked:
            if rule is not None and rule.decision is PolicyDecision.DENY:
                return self._verdict(rule, tool.name)
        for seg, rule in checked:
            if rule is None or rule.decision is PolicyDecision.ASK:
                reason = self._verdict(rule, tool.name).reason
                if len(checked) > 1:
                    reason = f"{seg.text!r} is not allowed on its own: {reason}"
                return PolicyVerdict(PolicyDecision.ASK, rule, reason)
        if mode != "yolo":
            for seg, rule in checked:
                assert rule is not None
                if seg.redirection and not rule.allow_redirection:
                    return PolicyVerdict(
                        PolicyDecision.ASK, rule, f"{seg.text!r} redirects input or output."
                    )
                if seg.substitution and (rule.command_prefix or rule.command_regex):
                    return PolicyVerdict(
                        PolicyDecision.ASK, rule, f"{seg.text!r} substitutes a command."
                    )
        return self._verdict(checked[0][1], tool.name)

    def denied_tool_names(self, registry_names: Iterable[str], mode: str) -> set[str]:
        """Names a rule refuses whatever the arguments: the model is not even offered them.

        Rules that look at arguments or kinds cannot remove a tool; a conditional rule
        ranked above an unconditional deny may still allow some calls, so it keeps the
        tool offered.
        """
        mode = normalize_mode(mode)
        denied: set[str] = set()
        for name in registry_names:
            for rule in self._sorted:
                if rule.modes and mode not in rule.modes:
                    continue
                if rule.kinds or rule.mcp_name is not None or rule.tool_name is None:
                    continue
                if not (rule.tool_name == "*" or fnmatchcase(name, rule.tool_name)):
                    continue
                if rule.conditional:
                    if rule.decision is PolicyDecision.DENY:
                        continue
                    break
                if rule.decision is PolicyDecision.DENY:
                    denied.add(name)
                break
        return denied

    # -- remembering -------------------------------------------------------------------

    def suggested_rules(self, tool: Tool, args: dict[str, Any]) -> list[PolicyRule]:
        """The allow rules "allow for this session / always" would add for this call.

        A shell command gets one prefix rule per sub-command's root (``git status``,
        ``npm test``, ``ls``); any other tool gets a rule for its name.
        """
        command = _command_of(tool, args or {})
        if command is None:
            return [PolicyRule(PolicyDecision.ALLOW, tool_name=tool.name, mcp_name=tool.server)]
        segments = split_shell(command) or []
        roots: list[str] = []
        for seg in segments:
            root = root_prefix(seg.text)
            if root and root not in roots:
                roots.append(root)
        if not roots:
            roots = [command.strip()]
        return [
            PolicyRule(PolicyDecision.ALLOW, tool_name=tool.name, command_prefix=(root,))
            for root in roots
        ]

    def allow_for_session(self, tool: Tool, args: dict[str, Any]) -> list[PolicyRule]:
        """Allow calls like this one until the process ends; returns the rules added."""
        added = [replace(r, source="session") for r in self.suggested_rules(tool, args)]
        added = [r for r in added if r not in self._session]
        self._session.extend(added)
        self._resort()
        return added

    def allow_always(self, tool: Tool, args: dict[str, Any]) -> list[PolicyRule]:
        """Allow calls like this one from now on, saved to the user policy file.

        Without a policy file the rules live only as long as this engine.
        """
        added = [replace(r, source="user") for r in self.suggested_rules(tool, args)]
        added = [r for r in added if r not in self._saved]
        if not added:
            return []
        self._saved.extend(added)
        self._resort()
        if self._file is None:
            log.warning("no user policy file: 'allow always' lasts for this session only")
        else:
            append_policy_rules(self._file, added)
        return added

    def rules(self, session: bool | None = None) -> list[PolicyRule]:
        """Rules in decision order; ``session=True`` only session ones, False the others."""
        if session is None:
            return list(self._sorted)
        return [r for r in self._sorted if (r.source == "session") is session]

    def remove_rule(self, rule: PolicyRule) -> None:
        """Forget a session rule, or delete a saved one (rewriting the policy file)."""
        if rule in self._session:
            self._session.remove(rule)
        elif rule in self._saved:
            self._saved.remove(rule)
            if self._file is not None:
                write_policy_file(self._file, self._saved)
        elif rule in self._extra:
            self._extra.remove(rule)
        else:
            raise ValueError(f"no such removable rule: {rule.label()}")
        self._resort()

    def _resort(self) -> None:
        every = [*BUILTIN_RULES, *self._extra, *self._saved, *self._session]
        self._sorted = sorted(every, key=PolicyRule.sort_key, reverse=True)
