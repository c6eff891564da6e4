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
  tools are allowed in ``auto_edit`` (but ``save_memory``, whose fact joins every later
  session's prompt), everything is allowed in ``yolo``, everything else asks. In
  ``plan`` a tool that is not read-only is refused (with a message telling the model
  so) unless a rule that names ``plan`` in its ``modes`` allows it.
* A shell command is read with bash's grammar (``gemtui.tools.shell_syntax``) into every
  simple command it runs, wherever it stands. A deny rule applies when any one of them
  matches it; an allow rule only when every one is allowed and nothing is hidden (a
  parse error, a name from an expansion, text evaluated later). A hidden part makes the
  call ask — in ``yolo`` too when a deny rule on commands could match it. Setting a
  variable outside a short safe list (``PATH``, ``GIT_CONFIG_*``…) keeps a command rule
  from allowing the call. Redirection turns an allow into ask unless the allowing rule
  says ``allowRedirection = true`` (except in ``yolo``).
* Path arguments are matched as the workspace-relative path they name (``policy_paths``),
  and a write into a place that runs code later (``.git/``, ``.gemtui/``, ``.gemini/``,
  ``.agents/``, ``.claude/``, ``.vscode/``: ``tools.run_later``) or gemtui's config dir
  asks in every mode but ``yolo``, whatever allowed it — by any tool that is not
  read-only, an MCP tool's path-like arguments and a shell command naming one included.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any, Protocol

from msgspec.structs import replace

from gemtui.redact import redact
from gemtui.scheduler.policy_file import (
    append_policy_rules,
    load_policy_file,
    rule_to_toml,
    write_policy_file,
)
from gemtui.scheduler.policy_paths import (
    normalise_path_args,
    protected_in_command,
    protected_target,
)
from gemtui.scheduler.policy_rules import (
    PolicyDecision,
    PolicyRule,
    PolicyVerdict,
    RuleSource,
    normalize_mode,
    regex,
    verdict_for,
)
from gemtui.scheduler.policy_scopes import RememberScope, scope_label, scope_rule, scopes_for
from gemtui.scheduler.shell_policy import decide_shell, has_command_condition
from gemtui.scheduler.shell_scopes import shell_remember_rules, shell_remember_scopes
from gemtui.tools.base import Tool, ToolKind

__all__ = [
    "BUILTIN_RULES",
    "READ_ONLY_KINDS",
    "PolicyDecision",
    "PolicyEngine",
    "PolicyRule",
    "PolicyVerdict",
    "RuleBook",
    "RuleSource",
    "load_policy_file",
    "normalize_mode",
]

log = logging.getLogger(__name__)


READ_ONLY_KINDS = frozenset({ToolKind.READ, ToolKind.SEARCH, ToolKind.THINK})
"""What plan mode lets run: tools that only look."""


PLAN_MODE_MESSAGE = (
    "You are in plan mode: only tools that read, search or think may run, and {tool} "
    "would change something, so it was not run. Finish the plan and describe the change "
    "instead; the person will leave plan mode when they want it carried out."
)


_B = PolicyDecision
BUILTIN_RULES: tuple[PolicyRule, ...] = (
    PolicyRule(_B.ASK, tool_name="*", priority=0, source="builtin"),
    PolicyRule(_B.ALLOW, kinds=tuple(READ_ONLY_KINDS), priority=50, source="builtin"),
    PolicyRule(
        _B.ALLOW, kinds=(ToolKind.EDIT,), priority=15, modes=("auto_edit",), source="builtin"
    ),
    # a memory joins every later session's prompt: auto_edit still asks (yolo does not)
    PolicyRule(
        _B.ASK, tool_name="save_memory", priority=16, modes=("auto_edit",), source="builtin"
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
        if not regex(rule.args_pattern).search(text):
            return False
    return True


def _matches(rule: PolicyRule, tool: Tool, args: dict[str, Any], mode: str) -> bool:
    """A rule for a whole call: command conditions never match a call without a command."""
    return _matches_call(rule, tool, args, mode) and not has_command_condition(rule)


def _holds_secret(rule: PolicyRule) -> bool:
    text = rule_to_toml(rule)
    return redact(text) != text


class RuleBook(Protocol):
    """The rules in force as a person sees them (``/permissions``): list, remove one."""

    def rules(self) -> list[PolicyRule]: ...

    def remove_rule(self, rule: PolicyRule) -> None: ...


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

    def add_rules(self, rules: Iterable[PolicyRule]) -> None:
        """Rules that come from settings rather than a policy file (trusted MCP servers)."""
        self._extra.extend(rules)
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
            decide_shell(
                [r for r in self._sorted if _matches_call(r, tool, args, mode)],
                command,
                mode,
                tool.name,
            )
            if command is not None
            else verdict_for(self._best(tool, args, mode), tool.name)
        )
        if (
            mode != "yolo"
            and verdict.decision is PolicyDecision.ALLOW
            and tool.kind not in READ_ONLY_KINDS
            and (target := self._protected_target(tool, args, command)) is not None
        ):
            verdict = PolicyVerdict(
                PolicyDecision.ASK,
                verdict.rule,
                f"{target} is a protected path (what is written there runs code later: git "
                "config and hooks, gemtui's and other agents' settings, editor tasks, a home's "
                "start-up files): writing "
                "there always needs approval outside yolo mode.",
            )
        if mode == "plan" and tool.kind not in READ_ONLY_KINDS:
            rule = verdict.rule
            explicit = rule is not None and rule.source != "builtin" and "plan" in rule.modes
            if verdict.decision is not PolicyDecision.DENY and not explicit:
                return PolicyVerdict(
                    PolicyDecision.DENY, _PLAN_RULE, PLAN_MODE_MESSAGE.format(tool=tool.name)
                )
        return verdict

    def _protected_target(
        self, tool: Tool, args: dict[str, Any], command: str | None
    ) -> str | None:
        if command is not None:
            # the folder it runs in counts too: ``cp x settings.json`` in ``.gemini``
            where = args.get("dir_path")
            if not isinstance(where, str):
                return protected_in_command(command, self._root, self._protected)
            if found := protected_target({"dir_path": where}, self._root, self._protected):
                return found
            return protected_in_command(command, self._cwd(where), self._protected)
        return protected_target(args, self._root, self._protected, any_key=tool.server is not None)

    def _cwd(self, where: str) -> Path | None:
        """The folder a shell command runs in, so its relative words resolve from there."""
        if self._root is None or "\x00" in where:
            return self._root
        return self._root / where

    def _best(self, tool: Tool, args: dict[str, Any], mode: str) -> PolicyRule | None:
        return next((r for r in self._sorted if _matches(r, tool, args, mode)), None)

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

    def suggested_rules(
        self, tool: Tool, args: dict[str, Any], scope: RememberScope | None = None
    ) -> list[PolicyRule]:
        """The allow rules "allow for this session / always" would add for this call.

        A shell command gets one prefix rule per visible simple command's root (``git
        status``, ``npm test``, ``ls``; never an assignment such as ``CI=1``), exactly the
        prefixes the approval preview lists; a destructive one (``rm``) gets the exact
        command unless ``scope`` widens it (``shell_scopes``). An edit gets a rule for its
        file, its folder or every call (``scope``; the narrowest, the file, when not
        given); any other tool gets a rule for its name.
        """
        args = args or {}
        command = _command_of(tool, args)
        if command is not None:
            return shell_remember_rules(tool.name, command, args, self._root, scope)
        scopes = scopes_for(tool, args, self._root)
        if scopes:
            narrow = scope_rule(tool, args, self._root, scope or scopes[0])
            if narrow is not None:
                return [narrow]
        return [PolicyRule(PolicyDecision.ALLOW, tool_name=tool.name, mcp_name=tool.server)]

    def remember_scopes(self, tool: Tool, args: dict[str, Any]) -> tuple[tuple[str, str], ...]:
        """(scope, what it covers) for each reach an approval of this call may choose,
        the default first; () when the call has one reach only."""
        args = args or {}
        command = _command_of(tool, args)
        if command is not None:
            return shell_remember_scopes(command, args, self._root)
        return tuple(
            (scope, scope_label(tool, args or {}, self._root, scope))
            for scope in scopes_for(tool, args or {}, self._root)
        )

    def allow_for_session(
        self, tool: Tool, args: dict[str, Any], scope: RememberScope | None = None
    ) -> list[PolicyRule]:
        """Allow calls like this one until the process ends; returns the rules added."""
        suggested = self.suggested_rules(tool, args, scope)
        added = [replace(r, source="session") for r in suggested]
        added = [r for r in added if r not in self._session]
        self._session.extend(added)
        self._resort()
        return added

    def allow_always(
        self,
        tool: Tool,
        args: dict[str, Any],
        *,
        whole_server: bool = False,
        scope: RememberScope | None = None,
    ) -> list[PolicyRule]:
        """Allow calls like this one from now on, saved to the user policy file;
        ``whole_server``: every tool of the call's MCP server (``mcpName`` alone).

        Without a policy file the rules live only as long as this engine; so does a rule
        that holds a known secret (a key typed into a command), which no file gets.
        """
        if whole_server and tool.server is None:
            raise ValueError(f"{tool.name} is not an MCP server's tool")
        suggested = (
            [PolicyRule(PolicyDecision.ALLOW, tool_name="*", mcp_name=tool.server)]
            if whole_server
            else self.suggested_rules(tool, args, scope)
        )
        secret = [r for r in suggested if _holds_secret(r)]
        if secret:
            log.warning("an 'allow always' rule holds a secret: it lasts for this session only")
            kept = [replace(r, source="session") for r in secret]
            self._session.extend(r for r in kept if r not in self._session)
            self._resort()
        added = [replace(r, source="user") for r in suggested if r not in secret]
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
