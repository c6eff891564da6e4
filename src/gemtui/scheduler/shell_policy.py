"""Policy for shell commands: judged one simple command at a time, as bash will run them.

The command is read by ``gemtui.tools.shell_syntax``. A deny rule applies when any simple
command matches it (a word that comes from an expansion could be the word it names); an
allow rule only when every command is allowed, nothing is hidden and no variable outside
the safe list is set. Something hidden decides by the rule for the call as a whole (the
mode's default), except that any deny rule on commands makes it ask.
"""

from __future__ import annotations

import os
import re
import shlex
from functools import lru_cache

from gemtui.scheduler.policy_rules import (
    PolicyDecision,
    PolicyRule,
    PolicyVerdict,
    regex,
    verdict_for,
)
from gemtui.tools.shell_syntax import ShellAnalysis, SimpleCommand, analyze

__all__ = ["decide_shell", "has_command_condition"]


def has_command_condition(rule: PolicyRule) -> bool:
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
        if not regex(rule.command_regex).match(command.text):
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


def _applies(rule: PolicyRule, command: SimpleCommand) -> bool:
    return not has_command_condition(rule) or _command_matches(rule, command)


def decide_shell(rules: list[PolicyRule], command: str, mode: str, tool_name: str) -> PolicyVerdict:
    """Deny when any command matches a deny rule; allow only when all are allowed.

    ``whole`` is the best rule that does not look at the command (the mode's default,
    or a rule for the tool as such); it decides a call whose commands are not all
    visible, unless a deny rule on commands could match what is hidden.
    """
    whole = next((r for r in rules if not has_command_condition(r)), None)
    analysis = analyze(command)
    checked = [(c, next((r for r in rules if _applies(r, c)), None)) for c in analysis.commands]
    for _cmd, rule in checked:
        if rule is not None and rule.decision is PolicyDecision.DENY:
            return verdict_for(rule, tool_name)
    for rule in rules:
        if (
            rule.decision is PolicyDecision.DENY
            and rule.command_regex
            and regex(rule.command_regex).match(command.strip())
        ):
            return verdict_for(rule, tool_name)
    if analysis.hidden:
        return _hidden_verdict(rules, whole, analysis, tool_name)
    if (named := _denied_in_argument(rules, analysis)) is not None:
        rule, cmd = named
        return PolicyVerdict(
            PolicyDecision.ASK,
            rule,
            f"An argument of {cmd.name!r} names a program that {rule.label()} denies, and "
            "awk, sed, git aliases, tar or an interpreter may run it; asking.",
        )
    if not checked:
        return verdict_for(whole, tool_name)
    for cmd, rule in checked:
        if rule is None or rule.decision is PolicyDecision.ASK:
            reason = verdict_for(rule, tool_name).reason
            if len(checked) > 1 or cmd.text != command.strip():
                reason = f"{cmd.text!r} is not allowed on its own: {reason}"
            return PolicyVerdict(PolicyDecision.ASK, rule, reason)
    allowing = [r for _c, r in checked if r is not None]
    if analysis.unsafe_assignments and any(has_command_condition(r) for r in allowing):
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
    return verdict_for(checked[0][1], tool_name)


def _denied_in_argument(
    rules: list[PolicyRule], analysis: ShellAnalysis
) -> tuple[PolicyRule, SimpleCommand] | None:
    """A deny rule whose program an argument names as code another program may run.

    ``awk 'BEGIN{system("rm -f f")}'``, ``git -c alias.x='!rm -f f' x``, ``sed '1e rm -f
    f'`` and ``tar --checkpoint-action=exec='rm -f f'`` all run ``rm`` through a program
    that reads shell text from its arguments. An argument that is just the word (``git
    rm``) or a longer name (``rm.txt``) does not count.
    """
    for rule in rules:
        if rule.decision is not PolicyDecision.DENY or not rule.command_prefix:
            continue
        prefixes = [_prefix_words(p) for p in rule.command_prefix if _prefix_words(p)]
        for cmd in analysis.commands:
            for word in cmd.words[1:]:
                if any(_names_program(word, prefix) for prefix in prefixes):
                    return rule, cmd
    return None


@lru_cache(maxsize=512)
def _program_pattern(prefix: tuple[str, ...]) -> re.Pattern[str]:
    phrase = r"\s+".join(re.escape(w) for w in prefix)
    return re.compile(rf"(?<![\w.-])(?:[\w./-]*/)?{phrase}(?![\w.-])")


def _names_program(word: str, prefix: tuple[str, ...]) -> bool:
    if word == prefix[0] or prefix[0] not in word:
        return False  # "git rm", "ls rm.txt"
    return _program_pattern(prefix).search(word) is not None


def _hidden_verdict(
    rules: list[PolicyRule],
    whole: PolicyRule | None,
    analysis: ShellAnalysis,
    tool_name: str,
) -> PolicyVerdict:
    why = analysis.hidden[0]
    if whole is not None and whole.decision is PolicyDecision.DENY:
        return verdict_for(whole, tool_name)
    could_deny = [
        r for r in rules if r.decision is PolicyDecision.DENY and has_command_condition(r)
    ]
    if whole is not None and whole.decision is PolicyDecision.ALLOW and not could_deny:
        return verdict_for(whole, tool_name)
    reason = f"gemtui cannot see every command this runs ({why}); asking."
    if could_deny:
        reason = (
            f"gemtui cannot see every command this runs ({why}), and a deny rule "
            f"({could_deny[0].label()}) might match what it cannot see; asking."
        )
    return PolicyVerdict(PolicyDecision.ASK, whole, reason)
