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
* A shell command is read with bash's grammar (``gemtui.tools.shell_syntax``) into every
  simple command it runs, wherever it stands. A deny rule applies when any one of them
  matches it; an allow rule only when every one is allowed and nothing is hidden (a
  parse error, a name from an expansion, text evaluated later). A hidden part makes the
  call ask — in ``yolo`` too when a deny rule on commands could match it. Setting a
  variable outside a short safe list (``PATH``, ``GIT_CONFIG_*``…) keeps a command rule
  from allowing the call. Redirection turns an allow into ask unless the allowing rule
  says ``allowRedirection = true`` (except in ``yolo``).
* Path arguments are matched as the workspace-relative path they name (``policy_paths``),
  and a write into ``.git/``, ``.gemtui/`` or gemtui's config dir asks in every mode but
  ``yolo``, whatever allowed it.
"""

from __future__ import annotations

import json
import logging
import os
import re
import shlex
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
from gemtui.scheduler.policy_paths import normalise_path_args, protected_target
from gemtui.tools.base import Tool, ToolKind
from gemtui.tools.shell_syntax import ShellAnalysis, SimpleCommand, analyze, rule_prefixes

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


def _matches_call(rule: PolicyRule, tool: Tool, args: dict[str, Any], mode: str) -> bool:
    """Every condition of ``rule`` except the command ones."""
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
    return True


def _has_command_condition(rule: PolicyRule) -> bool:
    return bool(rule.command_prefix or rule.command_regex)


@lru_cache(maxsize=512)
def _prefix_words(prefix: str) -> tuple[str, ...]:
    try:
        words = shlex.split(prefix)
    except ValueError:
        words = prefix.split()
    if words:
        words[0] = os.path.basename(words[0]) or words[0]
    return tuple(words)


def _command_matches(rule: PolicyRule, command: SimpleCommand) -> bool:
    """Whether ``rule``'s command conditions hold for one simple command.

    An allow or ask rule needs every word it names to be that literal word; a deny rule
    also matches where a word could be it (its value comes from an expansion).
    """
    deny = rule.decision is PolicyDecision.DENY
    if rule.command_prefix and not any(
        _prefix_matches(_prefix_words(p), command, deny) for p in rule.command_prefix
    ):
        return False
    if rule.command_regex:
        if not deny and not all(command.literal):
            return False
        if not _regex(rule.command_regex).match(command.text):
            return False
    return True


def _prefix_matches(prefix: tuple[str, ...], command: SimpleCommand, deny: bool) -> bool:
    if not prefix or len(command.words) < len(prefix):
        return False
    for want, word, literal in zip(prefix, command.words, command.literal, strict=False):
        if literal and word != want:
            return False
        if not literal and not deny:
            return False
    return True


def _matches(rule: PolicyRule, tool: Tool, args: dict[str, Any], mode: str) -> bool:
    """A rule for a whole call: command conditions never match a call without a command."""
    return _matches_call(rule, tool, args, mode) and not _has_command_condition(rule)


def _applies(rule: PolicyRule, command: SimpleCommand) -> bool:
    return not _has_command_condition(rule) or _command_matches(rule, command)


class PolicyEngine:
    """Decides allow / deny / ask for each call, and remembers what a person allowed."""

    def __init__(
        self,
        rules: Iterable[PolicyRule] = (),
        user_policy_file: Path | None = None,
        *,
        workspace_root: Path | None = None,
        protected_dirs: Iterable[Path] = (),
    ) -> None:
        self._root = workspace_root
        self._protected = tuple(protected_dirs)
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
        if tool.server is None:
            args = normalise_path_args(args, self._root)
        command = _command_of(tool, args)
        verdict = (
            self._decide_shell(tool, args, command, mode)
            if command is not None
            else self._verdict(self._best(tool, args, mode), tool.name)
        )
        if (
            mode != "yolo"
            and tool.kind is ToolKind.EDIT
            and verdict.decision is PolicyDecision.ALLOW
            and (target := protected_target(args, self._root, self._protected)) is not None
        ):
            verdict = PolicyVerdict(
                PolicyDecision.ASK,
                verdict.rule,
                f"{target} is a protected path (git config and hooks, gemtui settings run "
                "code): writing there always needs approval outside yolo mode.",
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
        """Deny when any command matches a deny rule; allow only when all are allowed.

        ``whole`` is the best rule that does not look at the command (the mode's default,
        or a rule for the tool as such); it decides a call whose commands are not all
        visible, unless a deny rule on commands could match what is hidden.
        """
        rules = [r for r in self._sorted if _matches_call(r, tool, args, mode)]
        whole = next((r for r in rules if not _has_command_condition(r)), None)
        analysis = analyze(command)
        checked = [(c, next((r for r in rules if _applies(r, c)), None)) for c in analysis.commands]
        for _cmd, rule in checked:
            if rule is not None and rule.decision is PolicyDecision.DENY:
                return self._verdict(rule, tool.name)
        for rule in rules:
            if (
                rule.decision is PolicyDecision.DENY
                and rule.command_regex
                and _regex(rule.command_regex).search(command)
            ):
                return self._verdict(rule, tool.name)
        if analysis.hidden:
            return self._hidden_verdict(rules, whole, analysis, tool.name)
        if not checked:
            return self._verdict(whole, tool.name)
        for cmd, rule in checked:
            if rule is None or rule.decision is PolicyDecision.ASK:
                reason = self._verdict(rule, tool.name).reason
                if len(checked) > 1 or cmd.text != command.strip():
                    reason = f"{cmd.text!r} is not allowed on its own: {reason}"
                return PolicyVerdict(PolicyDecision.ASK, rule, reason)
        allowing = [r for _c, r in checked if r is not None]
        if analysis.unsafe_assignments and any(_has_command_condition(r) for r in allowing):
            names = ", ".join(analysis.unsafe_assignments)
            return PolicyVerdict(
                PolicyDecision.ASK,
                allowing[0],
                f"The command sets {names}, which can change what an allowed program runs.",
            )
        if mode != "yolo" and analysis.redirection:
            flagged = [(c, r) for c, r in checked if c.redirection] or checked
            for cmd, rule in flagged:
                if rule is not None and not rule.allow_redirection:
                    return PolicyVerdict(
                        PolicyDecision.ASK, rule, f"{cmd.text!r} redirects input or output."
                    )
        return self._verdict(checked[0][1], tool.name)

    def _hidden_verdict(
        self,
        rules: list[PolicyRule],
        whole: PolicyRule | None,
        analysis: ShellAnalysis,
        tool_name: str,
    ) -> PolicyVerdict:
        why = analysis.hidden[0]
        if whole is not None and whole.decision is PolicyDecision.DENY:
            return self._verdict(whole, tool_name)
        could_deny = [
            r for r in rules if r.decision is PolicyDecision.DENY and _has_command_condition(r)
        ]
        if whole is not None and whole.decision is PolicyDecision.ALLOW and not could_deny:
            return self._verdict(whole, tool_name)
        reason = f"gemtui cannot see every command this runs ({why}); asking."
        if could_deny:
            reason = (
                f"gemtui cannot see every command this runs ({why}), and a deny rule "
                f"({could_deny[0].label()}) might match what it cannot see; asking."
            )
        return PolicyVerdict(PolicyDecision.ASK, whole, reason)

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

        A shell command gets one prefix rule per visible simple command's root (``git
        status``, ``npm test``, ``ls``; never an assignment such as ``CI=1``), exactly the
        prefixes the approval preview lists; any other tool gets a rule for its name.
        """
        command = _command_of(tool, args or {})
        if command is None:
            return [PolicyRule(PolicyDecision.ALLOW, tool_name=tool.name, mcp_name=tool.server)]
        return [
            PolicyRule(PolicyDecision.ALLOW, tool_name=tool.name, command_prefix=(prefix,))
            for prefix in rule_prefixes(command)
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
