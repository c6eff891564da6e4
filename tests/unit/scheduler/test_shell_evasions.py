"""The evasion corpus against the policy engine, each case first proven live by real bash.

Allow side: the single rule ``git status`` in default mode must not let any case through
(each would ``touch marker``), while ``git status`` itself stays allowed. Deny side: a deny
rule on ``rm`` under yolo refuses every form that names ``rm`` and at least asks for the
rest (each would delete ``victim``).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from fake_tools import make_tool
from tests.shell_evasions import ALLOW_SIDE, DENY_SIDE, Case, run_bash, scratch_repo

from gemtui.scheduler import PolicyDecision, PolicyEngine, PolicyRule
from gemtui.tools.base import ToolKind

SHELL = make_tool("run_shell_command", ToolKind.EXECUTE)
ALLOW_GIT_STATUS = PolicyRule(
    PolicyDecision.ALLOW, tool_name="run_shell_command", command_prefix=("git status",)
)
DENY_RM = PolicyRule(PolicyDecision.DENY, tool_name="run_shell_command", command_prefix=("rm",))


def test_the_corpus_is_big_enough() -> None:
    assert len(ALLOW_SIDE) + len(DENY_SIDE) >= 40
    assert len(ALLOW_SIDE) >= 40
    assert len(DENY_SIDE) >= 40


def test_the_plain_allowed_command_is_still_allowed_and_runs(tmp_path: Path) -> None:
    repo = scratch_repo(tmp_path / "repo")
    engine = PolicyEngine([ALLOW_GIT_STATUS])
    for command in ("git status", "git status -s", "git status --short -- src"):
        verdict = engine.decide(SHELL, {"command": command}, "default")
        assert verdict.decision is PolicyDecision.ALLOW, (command, verdict.reason)
    assert run_bash("git status", repo).returncode == 0
    deny = PolicyEngine([DENY_RM])
    assert deny.decide(SHELL, {"command": "ls -la"}, "yolo").decision is PolicyDecision.ALLOW


@pytest.mark.parametrize("case", ALLOW_SIDE, ids=[f"allow{i}" for i in range(len(ALLOW_SIDE))])
def test_allow_side_evasion_runs_in_bash_but_is_not_allowed(case: Case, tmp_path: Path) -> None:
    repo = scratch_repo(tmp_path / "repo")
    run_bash(case.command, repo)
    assert (repo / "marker").exists(), f"vacuous case: bash did not create the marker: {case}"
    verdict = PolicyEngine([ALLOW_GIT_STATUS]).decide(SHELL, {"command": case.command}, "default")
    assert verdict.decision is not PolicyDecision.ALLOW, (case.command, verdict.reason)


@pytest.mark.parametrize("case", DENY_SIDE, ids=[f"deny{i}" for i in range(len(DENY_SIDE))])
def test_deny_side_evasion_deletes_in_bash_but_is_refused(case: Case, tmp_path: Path) -> None:
    repo = scratch_repo(tmp_path / "repo")
    run_bash(case.command, repo)
    assert not (repo / "victim").exists(), f"vacuous case: bash kept the victim: {case}"
    verdict = PolicyEngine([DENY_RM]).decide(SHELL, {"command": case.command}, "yolo")
    assert verdict.decision is not PolicyDecision.ALLOW, (case.command, verdict.reason)
    if case.visible:
        assert verdict.decision is PolicyDecision.DENY, (case.command, verdict.reason)
