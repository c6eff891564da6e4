"""Background commands belong to the session: ending them is bounded, even if they resist."""

from __future__ import annotations

import time
from pathlib import Path

from gemtui.tools.base import ToolContext
from gemtui.tools.registry import default_registry
from gemtui.tools.workspace import Workspace


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


async def _start(ctx: ToolContext, command: str) -> list[int]:
    tool = default_registry().get("run_shell_command")
    assert tool is not None
    await tool.build({"command": command, "is_background": True}).execute(ctx)
    root = ctx.workspace.root
    deadline = time.monotonic() + 10
    while not all(
        (root / n).exists() and (root / n).read_text().endswith("\n") for n in ("a", "b")
    ):
        assert time.monotonic() < deadline
        time.sleep(0.01)  # polling interval, not synchronisation
    return [int((root / n).read_text()) for n in ("a", "b")]


async def test_a_group_that_ignores_sigterm_is_killed_within_the_grace(tmp_path: Path) -> None:
    ctx = ToolContext(workspace=Workspace(tmp_path))
    pids = await _start(ctx, "trap '' TERM; echo $$ > a; sleep 1000 & echo $! > b; wait")
    assert all(_alive(p) for p in pids)
    ctx.background.terminate(grace=0.2)  # returns: it did not wait for a group ignoring TERM
    deadline = time.monotonic() + 5
    while any(_alive(p) for p in pids):
        assert time.monotonic() < deadline, "SIGKILL did not reach the group"
        time.sleep(0.01)  # polling interval, not synchronisation


async def test_jobs_of_two_sessions_are_ended_separately(tmp_path: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir()
    two.mkdir()
    first = ToolContext(workspace=Workspace(one))
    second = ToolContext(workspace=Workspace(two))
    first_pids = await _start(first, "echo $$ > a; sleep 1000 & echo $! > b; wait")
    second_pids = await _start(second, "echo $$ > a; sleep 1000 & echo $! > b; wait")
    first.background.terminate()
    deadline = time.monotonic() + 5
    while any(_alive(p) for p in first_pids):
        assert time.monotonic() < deadline
        time.sleep(0.01)  # polling interval, not synchronisation
    assert all(_alive(p) for p in second_pids)
    second.background.terminate()
