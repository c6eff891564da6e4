"""What "allow for session / always" remembers reaches no further than the person chose:
an interpreter keeps what it ran, an edit its file or folder (issue 28 item 12)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from fake_tools import make_tool

from gemtui.scheduler import PolicyDecision, PolicyEngine
from gemtui.tools.base import ToolKind

ALLOW, ASK = PolicyDecision.ALLOW, PolicyDecision.ASK
WRITE = make_tool("write_file", ToolKind.EDIT)
REPLACE = make_tool("replace", ToolKind.EDIT)
SHELL = make_tool("run_shell_command", ToolKind.EXECUTE)


def sh(engine: PolicyEngine, command: str) -> PolicyDecision:
    return engine.decide(SHELL, {"command": command}, "default").decision


def write(engine: PolicyEngine, path: str, content: str = "x") -> PolicyDecision:
    return engine.decide(WRITE, {"file_path": path, "content": content}, "default").decision


@pytest.mark.parametrize(
    ("command", "remembered"),
    [
        ("python3 -m pytest -q", ["python3 -m pytest"]),
        ("python -m pip install -e .", ["python -m pip"]),
        ("node build.js --prod", ["node build.js"]),
        ("python3 -c 'print(1)'", ["python3 -c 'print(1)'"]),
        ("perl -e 'unlink glob q(*)'", ["perl -e 'unlink glob q(*)'"]),
        ("python3", []),  # reads its code from stdin: no rule could be narrow enough
        ("python3 -V", []),  # a later -c would extend the prefix
        ("python3 -W ignore", []),  # is "ignore" a value or a script? unknown: no rule
        ("python3 -u -c 'x'", []),
        ("git status -s", ["git status"]),
    ],
)
def test_an_interpreter_is_never_remembered_bare(command: str, remembered: list[str]) -> None:
    engine = PolicyEngine()
    assert [r.summary() for r in engine.suggested_rules(SHELL, {"command": command})] == remembered


def test_allowing_pytest_for_the_session_does_not_allow_other_python() -> None:
    engine = PolicyEngine()
    engine.allow_for_session(SHELL, {"command": "python3 -m pytest -q"})
    assert sh(engine, "python3 -m pytest tests/unit") is ALLOW
    assert sh(engine, "python3 -c 'import os; os.system(\"rm -rf ~\")'") is ASK
    assert sh(engine, "python3 evil.py") is ASK
    assert sh(engine, "python3 -m http.server") is ASK
    assert sh(engine, "python3") is ASK
    assert sh(engine, "python3 -W ignore -m pytest") is ASK
    assert sh(engine, "python3 -m pytest; python3 -c 'x'") is ASK


def test_an_edit_remembers_its_file_by_default(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    engine = PolicyEngine(workspace_root=tmp_path)
    engine.allow_for_session(WRITE, {"file_path": "src/app.py", "content": "a"})
    assert write(engine, "src/app.py") is ALLOW
    assert write(engine, "./src/app.py") is ALLOW  # the same file, named another way
    assert write(engine, str(tmp_path / "src" / "app.py")) is ALLOW
    assert write(engine, "src/app.py.bak") is ASK
    assert write(engine, "src/other.py") is ASK
    assert write(engine, "README.md") is ASK
    # the path inside the content is no path argument
    assert write(engine, "evil.py", '{"file_path":"src/app.py"}') is ASK
    assert write(engine, "evil.py", ',"file_path":"src/app.py"}') is ASK
    # another edit tool is another rule
    assert engine.decide(REPLACE, {"file_path": "src/app.py"}, "default").decision is ASK


def test_a_folder_reach_covers_the_folder_and_below_and_nothing_outside(tmp_path: Path) -> None:
    (tmp_path / "src" / "deep").mkdir(parents=True)
    outside = tmp_path.parent / f"{tmp_path.name}-outside"
    outside.mkdir()
    os.symlink(outside, tmp_path / "src" / "link")
    engine = PolicyEngine(workspace_root=tmp_path)
    engine.allow_for_session(WRITE, {"file_path": "src/app.py"}, "folder")
    assert write(engine, "src/new.py") is ALLOW
    assert write(engine, "src/deep/x.py") is ALLOW
    assert write(engine, "src/../evil.py") is ASK
    assert write(engine, "src/deep/../../evil.py") is ASK
    assert write(engine, "src/link/x.py") is ASK  # a link out of the workspace
    assert write(engine, "srcx/a.py") is ASK
    assert write(engine, "/etc/passwd") is ASK
    assert write(engine, str(outside / "x.py")) is ASK
    # a protected place inside the folder still asks, whatever allowed it
    assert write(engine, "src/.git/config") is ASK


def test_a_top_level_file_reaches_the_workspace_not_beyond(tmp_path: Path) -> None:
    engine = PolicyEngine(workspace_root=tmp_path)
    labels = engine.remember_scopes(WRITE, {"file_path": "README.md"})
    assert labels == (
        ("file", "write_file of README.md"),
        ("folder", "write_file anywhere in the workspace"),
        ("every", "every write_file call"),
    )
    engine.allow_for_session(WRITE, {"file_path": "README.md"}, "folder")
    assert write(engine, "docs/a.md") is ALLOW
    assert write(engine, "../escape.md") is ASK
    assert write(engine, "/tmp/x.md") is ASK
    engine.allow_for_session(WRITE, {"file_path": "README.md"}, "every")
    assert write(engine, "/tmp/x.md") is ALLOW


def test_no_reach_to_choose_outside_the_workspace(tmp_path: Path) -> None:
    engine = PolicyEngine(workspace_root=tmp_path)
    assert engine.remember_scopes(WRITE, {"file_path": "/etc/hosts"}) == ()
    assert engine.remember_scopes(SHELL, {"command": "ls -la"}) == ()


def _shell(engine: PolicyEngine, command: str, where: str | None = None) -> PolicyDecision:
    args = {"command": command} | ({"dir_path": where} if where else {})
    return engine.decide(SHELL, args, "default").decision


def test_a_destructive_command_remembers_the_exact_command_unless_widened(
    tmp_path: Path,
) -> None:
    """Reproduced: "always" on ``rm -f README.md`` allowed every ``rm``."""
    (tmp_path / "src").mkdir()
    engine = PolicyEngine(workspace_root=tmp_path)
    call = {"command": "rm -f README.md"}
    assert [s for s, _ in engine.remember_scopes(SHELL, call)] == ["file", "folder", "every"]
    engine.allow_always(SHELL, call)
    assert _shell(engine, "rm -f README.md") is ALLOW
    for other in ("rm -rf src", "rm -f README.md src", "rm -f README.md; rm -rf src"):
        assert _shell(engine, other) is ASK, other
    assert _shell(engine, "rm -f README.md", "src") is ASK  # another folder, another file
    engine.allow_for_session(SHELL, call, "folder")
    assert _shell(engine, "rm -rf src") is ALLOW
    assert _shell(engine, "rm -rf x", "src") is ASK  # another folder
    engine.allow_for_session(SHELL, call, "every")
    assert _shell(engine, "rm -rf x", "src") is ALLOW


def test_always_on_a_destructive_command_with_a_hidden_word_allows_no_other(
    tmp_path: Path,
) -> None:
    engine = PolicyEngine(workspace_root=tmp_path)
    engine.allow_always(SHELL, {"command": "rm -f $(cat list)"})
    for other in ("rm -f $(cat list)", "rm -rf src", "rm x"):
        assert _shell(engine, other) is ASK, other


def test_a_harmless_command_still_remembers_its_name_by_default(tmp_path: Path) -> None:
    engine = PolicyEngine(workspace_root=tmp_path)
    assert engine.remember_scopes(SHELL, {"command": "ls -la"}) == ()
    engine.allow_for_session(SHELL, {"command": "ls -la"})
    assert _shell(engine, "ls src") is ALLOW


def test_an_always_reach_is_saved_and_holds_after_a_restart(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    (root / "src").mkdir(parents=True)
    policy = tmp_path / "policy.toml"
    first = PolicyEngine(user_policy_file=policy, workspace_root=root)
    first.allow_always(WRITE, {"file_path": "src/app.py"}, scope="folder")
    assert "argsPattern" in policy.read_text()
    again = PolicyEngine(user_policy_file=policy, workspace_root=root)
    assert write(again, "src/b.py") is ALLOW
    assert write(again, "lib/b.py") is ASK
    assert write(again, "src/../b.py") is ASK
