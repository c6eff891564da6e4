"""run_shell_command: output, exit codes, whole-group kills on timeout and cancel, caps."""

from __future__ import annotations

import asyncio
import os
import re
import time
from pathlib import Path
from typing import Any

import pytest

from gemtui.tools.base import ToolContext, ToolError, ToolInvocation
from gemtui.tools.builtin import RunShellCommandTool
from gemtui.tools.builtin.run_shell_command import (
    OutputCapture,
    terminate_background_processes,
)
from gemtui.tools.shell_rules import rule_prefixes
from gemtui.tools.shell_syntax import has_redirection
from gemtui.tools.workspace import Workspace


def alive(pid: int) -> bool:
    """Running and not a zombie (an unreaped zombie has already been killed)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    except OSError:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True
    return stat[stat.rfind(")") + 2] not in "ZX"


def wait_dead(pid: int, timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not alive(pid):
            return True
        time.sleep(0.01)
    return not alive(pid)


def shell(**args: Any) -> ToolInvocation:
    tool = RunShellCommandTool()
    assert tool.validate(args) is None
    return tool.build(args)


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    (tmp_path / "sub").mkdir()
    return ToolContext(workspace=Workspace(tmp_path), shell_timeout=30)


async def test_output_and_exit_code(ctx: ToolContext, tmp_path: Path) -> None:
    result = await shell(command="echo out; echo err >&2; exit 3").execute(ctx)
    text = str(result.llm_content)
    assert result.error is None
    assert "Command: echo out; echo err >&2; exit 3" in text
    assert "Directory: (root)" in text
    assert "Output: out\nerr" in text
    assert "Exit Code: 3" in text
    assert result.data["exit_code"] == 3


async def test_empty_output_and_dir_path(ctx: ToolContext, tmp_path: Path) -> None:
    result = await shell(command="pwd", dir_path="sub").execute(ctx)
    assert f"Output: {tmp_path / 'sub'}" in str(result.llm_content)
    assert "Directory: sub" in str(result.llm_content)
    quiet = await shell(command="true").execute(ctx)
    assert "Output: (empty)" in str(quiet.llm_content)
    assert "Exit Code: 0" in str(quiet.llm_content)


async def test_live_output(ctx: ToolContext) -> None:
    seen: list[str] = []
    ctx.on_output = seen.append
    await shell(command="printf 'a\\n'; printf 'b\\n'").execute(ctx)
    assert "".join(seen) == "a\nb\n"


async def test_missing_dir_refused(ctx: ToolContext) -> None:
    with pytest.raises(ToolError, match="does not exist"):
        await shell(command="true", dir_path="nope").execute(ctx)


async def test_timeout_kills_the_group(ctx: ToolContext) -> None:
    ctx.shell_timeout = 0.5
    result = await shell(command="sleep 60 & echo child=$!; wait").execute(ctx)
    text = str(result.llm_content)
    match = re.search(r"child=(\d+)", text)
    assert match, text
    child = int(match.group(1))
    assert result.error is not None
    assert "timed out" in result.error
    assert result.data["timed_out"] is True
    assert "Signal: SIGTERM" in text
    assert wait_dead(child), "background child survived the timeout"
    assert wait_dead(result.data["pgid"])


async def test_cancellation_kills_the_group(ctx: ToolContext) -> None:
    started = asyncio.Event()
    out: list[str] = []

    def on_output(text: str) -> None:
        out.append(text)
        if "child=" in "".join(out):
            started.set()

    ctx.on_output = on_output
    task = asyncio.create_task(shell(command="sleep 60 & echo child=$!; wait").execute(ctx))
    await asyncio.wait_for(started.wait(), 10)
    child = int(re.search(r"child=(\d+)", "".join(out)).group(1))  # type: ignore[union-attr]
    assert alive(child)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert wait_dead(child), "background child survived cancellation"


async def test_sigterm_ignoring_child_gets_sigkill(
    ctx: ToolContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gemtui.tools.builtin import run_shell_command as mod

    monkeypatch.setattr(mod, "KILL_GRACE_SECONDS", 0.3)
    ctx.shell_timeout = 0.5
    result = await shell(
        command="bash -c 'trap \"\" TERM; echo child=$$; sleep 60' & wait"
    ).execute(ctx)
    match = re.search(r"child=(\d+)", str(result.llm_content))
    assert match, result.llm_content
    assert wait_dead(int(match.group(1)))


async def test_output_truncation(ctx: ToolContext) -> None:
    ctx.output_limit = 1000
    result = await shell(command="seq 1 20000").execute(ctx)
    text = str(result.llm_content)
    assert "characters left out] ..." in text
    assert "Output: 1\n2\n3\n" in text
    assert "\n20000" in text
    assert len(text) < 1400


def test_output_capture_exact() -> None:
    cap = OutputCapture(10)
    for ch in "abcdefghijklmnopqrstuvwxyz":
        cap.add(ch)
    assert cap.text().startswith("abcde\n... [16 characters left out] ...\nvwxyz\n[Output too")
    small = OutputCapture(10)
    small.add("short")
    assert small.text() == "short"


async def test_background_returns_pid(ctx: ToolContext) -> None:
    result = await shell(command="sleep 60", is_background=True).execute(ctx)
    pid = result.data["pid"]
    assert f"Background PIDs: {pid}" in str(result.llm_content)
    assert alive(pid)
    terminate_background_processes()
    assert wait_dead(pid)


async def test_confirmation_and_modify(ctx: ToolContext, tmp_path: Path) -> None:
    inv = shell(command="git status && npm test > out.txt", dir_path="sub")
    conf = await inv.confirmation(ctx)
    assert conf is not None
    assert conf.kind == "exec"
    assert conf.command == "git status && npm test > out.txt"
    assert conf.root_command == "git status, npm test"
    assert conf.cwd == str(tmp_path / "sub")
    assert conf.has_redirection is True
    inv.modify("echo changed")
    conf2 = await inv.confirmation(ctx)
    assert conf2 is not None
    assert conf2.command == "echo changed"
    assert not conf2.has_redirection
    result = await inv.execute(ctx)
    assert "Output: changed" in str(result.llm_content)
    with pytest.raises(ToolError):
        inv.modify("  ")


def test_validation() -> None:
    tool = RunShellCommandTool()
    assert tool.validate({"command": " "})
    assert tool.validate({})
    assert tool.validate({"command": "ls", "is_background": "yes"})


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("echo hi > out.txt", True),
        ("echo hi >> out.txt", True),
        ("sort < in.txt", True),
        ("make &> log", True),
        ("ls 2>&1", True),
        ("cat <<EOF\nhi\nEOF", True),
        ("cat <<< word", True),
        ("echo $(ls > f)", True),
        ('echo "$(cat < f)"', True),
        ("ls | grep x", False),
        ("ls -la && echo done", False),
        ("echo '>'", False),
        ('echo "a > b"', False),
        ('git log --format="a>b"', False),
        ("echo a\\>b", False),
        ("echo 'unbalanced >", True),
    ],
)
def test_has_redirection(command: str, expected: bool) -> None:
    assert has_redirection(command) is expected


@pytest.mark.parametrize(
    ("command", "roots"),
    [
        ("ls -la", ["ls"]),
        ("git status && npm test | grep x", ["git status", "npm test", "grep"]),
        ("FOO=1 /usr/bin/env python x.py", ["python x.py"]),
        ("CI=1 npm test", ["npm test"]),
        ("echo err >&2; exit 3", ["echo", "exit"]),
        ("(cd a && make)", ["cd", "make"]),
        ("echo 'a; rm -rf /'", ["echo"]),
        ("$x -f f", []),
    ],
)
def test_rule_prefixes(command: str, roots: list[str]) -> None:
    """What the preview lists and "allow for session" saves: never an assignment."""
    assert rule_prefixes(command) == roots
