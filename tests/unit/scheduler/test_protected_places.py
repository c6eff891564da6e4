"""Every place that runs code later (``RUN_LATER_NAMES``) is a protected path for every tool.

A write there asks in every mode but yolo whatever allowed it: ``auto_edit``, a rule, an
"allow always", through ``..``, an absolute path, a symlink, another root, an MCP tool's
own argument names, or a shell command that names it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from fake_tools import make_tool

from gemtui.scheduler import PolicyDecision, PolicyEngine, PolicyRule
from gemtui.scheduler.policy_scopes import RememberScope
from gemtui.tools.base import Tool, ToolKind
from gemtui.tools.run_later import RUN_LATER_NAMES

ALLOW, DENY, ASK = PolicyDecision.ALLOW, PolicyDecision.DENY, PolicyDecision.ASK

WRITE = make_tool("write_file", ToolKind.EDIT)
REPLACE = make_tool("replace", ToolKind.EDIT)
SHELL = make_tool("run_shell_command", ToolKind.EXECUTE)
MCP_WRITE = make_tool("write_file", ToolKind.OTHER, server="fs")
MCP_MOVE = make_tool("move_file", ToolKind.OTHER, server="fs")


def _forms(root: Path, extra: Path, name: str) -> list[str]:
    """Every way of naming ``name/settings.json`` a tool may be given."""
    (root / "sub").mkdir(exist_ok=True)
    link = root / f"cfg{name}"
    link.symlink_to(root / name)  # dangling until something creates the place
    return [
        f"{name}/settings.json",
        f"./{name}/settings.json",
        f"sub/../{name}/settings.json",
        f"{name.upper()}/settings.json",
        f"{name}",
        f"deep/nested/{name}/x",
        str(root / name / "settings.json"),
        f"{link.name}/settings.json",
        str(extra / name / "settings.json"),
    ]


@pytest.mark.parametrize("name", RUN_LATER_NAMES)
@pytest.mark.parametrize("edit", [WRITE, REPLACE], ids=["write_file", "replace"])
def test_every_form_of_every_place_asks_outside_yolo(tmp_path: Path, name: str, edit: Tool) -> None:
    root, extra = tmp_path / "ws", tmp_path / "other-root"
    root.mkdir()
    extra.mkdir()
    rules = [PolicyRule(ALLOW, tool_name=edit.name)]
    engine = PolicyEngine(rules, workspace_root=root)
    builtin = PolicyEngine(workspace_root=root)
    for path in _forms(root, extra, name):
        args = {"file_path": path, "content": "x"}
        for mode in ("default", "auto_edit"):
            verdict = engine.decide(edit, args, mode)
            assert verdict.decision is ASK, (path, mode, verdict.reason)
            assert "protected path" in verdict.reason
        assert builtin.decide(edit, args, "auto_edit").decision is ASK, path
        assert engine.decide(edit, args, "plan").decision is DENY
        assert engine.decide(edit, args, "yolo").decision is ALLOW


@pytest.mark.parametrize("name", RUN_LATER_NAMES)
def test_allow_always_and_plan_rules_do_not_reach_into_a_place(tmp_path: Path, name: str) -> None:
    policy = tmp_path / "policy.toml"
    engine = PolicyEngine(user_policy_file=policy, workspace_root=tmp_path)
    args = {"file_path": f"{name}/settings.json", "content": "x"}
    scopes: tuple[RememberScope, ...] = ("file", "folder", "every")
    for scope in scopes:
        engine.allow_always(WRITE, args, scope=scope)
        engine.allow_for_session(WRITE, args, scope=scope)
    assert engine.decide(WRITE, args, "default").decision is ASK
    planner = PolicyEngine(
        [PolicyRule(ALLOW, tool_name="write_file", modes=("plan",))], workspace_root=tmp_path
    )
    assert planner.decide(WRITE, args, "plan").decision is ASK


def test_look_alikes_are_not_protected(tmp_path: Path) -> None:
    engine = PolicyEngine([PolicyRule(ALLOW, tool_name="write_file")], workspace_root=tmp_path)
    for path in (
        ".gitignore",
        ".github/workflows/ci.yml",
        "docs/.claude.md",
        "x.gemini",
        "a.vscode",
    ):
        assert engine.decide(WRITE, {"file_path": path}, "auto_edit").decision is ALLOW, path


@pytest.mark.parametrize("name", RUN_LATER_NAMES)
def test_an_allowed_mcp_tool_asks_whatever_its_argument_is_called(
    tmp_path: Path, name: str
) -> None:
    engine = PolicyEngine(
        [PolicyRule(ALLOW, tool_name="*", mcp_name="fs")], workspace_root=tmp_path
    )
    target = f"{name}/settings.json"
    assert engine.decide(MCP_WRITE, {"path": target, "content": "x"}, "default").decision is ASK
    move = {"source": "a.json", "destination": target}
    assert engine.decide(MCP_MOVE, move, "auto_edit").decision is ASK
    assert engine.decide(MCP_WRITE, {"paths": ["ok.txt", target]}, "default").decision is ASK
    assert (
        engine.decide(MCP_WRITE, {"path": "ok.txt", "content": name}, "default").decision is ALLOW
    )


@pytest.mark.parametrize("name", RUN_LATER_NAMES)
def test_an_allowed_shell_command_naming_a_place_asks(tmp_path: Path, name: str) -> None:
    """``allowRedirection = true`` lets ``echo`` write files, never into these places."""
    (tmp_path / "cfg").symlink_to(tmp_path / name)
    loose = PolicyRule(
        ALLOW, tool_name="run_shell_command", command_prefix=("echo", "cp"), allow_redirection=True
    )
    engine = PolicyEngine([loose], workspace_root=tmp_path)
    quoted = '"' + name[:3] + '""' + name[3:] + '"'
    commands = [
        f"echo x > {name}/settings.json",
        f"echo x >> ./sub/../{name}/settings.json",
        f"echo x > {quoted}/settings.json",
        f"echo x > ~/{name}/settings.json",
        "echo x > cfg/settings.json",
        f"cp evil.json {name}/settings.json",
        f"cp evil.json {name[:3]}*/settings.json",
    ]
    for command in commands:
        for mode in ("default", "auto_edit"):
            verdict = engine.decide(SHELL, {"command": command}, mode)
            assert verdict.decision is ASK, (command, mode, verdict.reason)
        assert engine.decide(SHELL, {"command": command}, "yolo").decision is ALLOW
    assert engine.decide(SHELL, {"command": "echo x > out.txt"}, "auto_edit").decision is ALLOW


def test_shell_in_auto_edit_asks_and_redirection_needs_its_own_allowance(tmp_path: Path) -> None:
    """auto_edit allows edits, never commands; an ``echo`` rule does not cover ``>``."""
    command = {"command": "echo x > .gemini/settings.json"}
    assert PolicyEngine(workspace_root=tmp_path).decide(SHELL, command, "auto_edit").decision is ASK
    echo = PolicyRule(ALLOW, tool_name="run_shell_command", command_prefix=("echo",))
    verdict = PolicyEngine([echo], workspace_root=tmp_path).decide(SHELL, command, "auto_edit")
    assert verdict.decision is ASK
    git = PolicyRule(ALLOW, tool_name="run_shell_command", command_prefix=("git",))
    engine = PolicyEngine([git], workspace_root=tmp_path)
    for plain in ("git status", "git show HEAD", "git add .gitignore"):
        assert engine.decide(SHELL, {"command": plain}, "auto_edit").decision is ALLOW, plain
