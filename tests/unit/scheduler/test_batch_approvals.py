"""A batch's approvals are offered together, and no diff is approved that is not the one
written: an edit an earlier call could still change is asked at its turn; policy is
asked again at each turn (a session rule or plan mode given meanwhile counts)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, Literal

import pytest
from fake_tools import FakeRegistry, record_events, snapshots_of, start_approver

from gemtui.bus import ApprovalDecision, Decision, EventBus, ToolCallSnapshot, ToolCallState
from gemtui.scheduler import REJECTED_MESSAGE, PolicyEngine, ToolScheduler
from gemtui.tools.base import Tool, ToolContext
from gemtui.tools.builtin.replace import ReplaceTool
from gemtui.tools.builtin.run_shell_command import RunShellCommandTool
from gemtui.tools.workspace import Workspace
from gemtui.wire import FunctionCall

S = ToolCallState
D = ApprovalDecision


@pytest.fixture
def bus() -> EventBus:
    return EventBus("sess")


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(workspace=Workspace(tmp_path))


def _scheduler(bus: EventBus, ctx: ToolContext, mode: list[str] | None = None) -> ToolScheduler:
    tools: list[Tool] = [ReplaceTool(), RunShellCommandTool()]
    modes = mode or ["default"]
    return ToolScheduler(
        FakeRegistry(tools), bus, PolicyEngine(), ctx, approval_mode=lambda: modes[0]
    )


def _edit(call_id: str, path: str, old: str, new: str) -> FunctionCall:
    args = {"file_path": path, "instruction": "i", "old_string": old, "new_string": new}
    return FunctionCall(id=call_id, name="replace", args=args)


class Requests:
    """Which calls await approval at each moment (``seen``: the set after each request)."""

    def __init__(self, bus: EventBus) -> None:
        self.waiting: dict[str, ToolCallSnapshot] = {}
        self.seen: list[list[str]] = []
        self._changed = asyncio.Event()
        self._bus = bus
        bus.subscribe(self._track)

    def _track(self, event: Any) -> None:
        call = getattr(event, "call", None)
        if call is None:
            return
        if call.state is S.AWAITING_APPROVAL:
            self.waiting[call.call_id] = call
            self.seen.append(sorted(self.waiting))
        else:
            self.waiting.pop(call.call_id, None)
        self._changed.set()

    async def until(self, count: int) -> None:
        """Resolve once ``count`` calls await approval together."""

        async def wait() -> None:
            while len(self.waiting) < count:
                self._changed.clear()
                await self._changed.wait()

        await asyncio.wait_for(wait(), 10)

    def answer(
        self,
        call_id: str,
        decision: ApprovalDecision,
        scope: Literal["file", "folder", "every"] | None = None,
    ) -> None:
        correlation = self.waiting[call_id].correlation_id
        assert correlation is not None
        assert self._bus.decide(correlation, Decision(decision, scope=scope))


async def test_edits_of_different_files_are_offered_together(
    bus: EventBus, ctx: ToolContext, tmp_path: Path
) -> None:
    for name in "abc":
        (tmp_path / f"{name}.txt").write_text(f"{name} old\n")
    requests = Requests(bus)
    calls = [_edit(n, f"{n}.txt", "old", "new") for n in "abc"]
    run = asyncio.create_task(_scheduler(bus, ctx).run(calls))
    await requests.until(3)
    assert requests.seen[-1] == ["a", "b", "c"], "all three wait together"
    assert (tmp_path / "a.txt").read_text() == "a old\n", "nothing ran before the answers"
    # answered in reverse order: c rejected, b and a allowed
    for call_id, decision in (("c", D.REJECT), ("b", D.ALLOW_ONCE), ("a", D.ALLOW_ONCE)):
        requests.answer(call_id, decision)
    result = await run
    assert [s.state for s in result.snapshots] == [S.SUCCESS, S.SUCCESS, S.ERROR]
    assert result.snapshots[2].error == REJECTED_MESSAGE
    assert (tmp_path / "a.txt").read_text() == "a new\n"
    assert (tmp_path / "c.txt").read_text() == "c old\n"
    assert bus.pending_approvals == []


async def test_a_second_edit_of_the_same_file_is_asked_after_the_first_ran(
    bus: EventBus, ctx: ToolContext, tmp_path: Path
) -> None:
    (tmp_path / "f.txt").write_text("one two\n")
    previews: dict[str, str] = {}

    def answer(snap: ToolCallSnapshot) -> Decision:
        assert snap.confirmation is not None
        previews[snap.call_id] = snap.confirmation.original or ""
        return Decision(D.ALLOW_ONCE)

    events = record_events(bus)
    approver = start_approver(bus, answer)
    calls = [_edit("1", "f.txt", "one", "ONE"), _edit("2", "./f.txt", "two", "TWO")]
    await _scheduler(bus, ctx).run(calls)
    approver.cancel()
    assert previews["2"] == "ONE two\n", "the diff shown is against the file as it will be"
    states = [s.state for s in snapshots_of(events, "2")]
    assert states[:2] == [S.VALIDATING, S.AWAITING_APPROVAL]
    first_done = next(
        i
        for i, e in enumerate(events)
        if getattr(e, "call", None) and e.call.call_id == "1" and e.call.state is S.SUCCESS
    )
    asked = next(
        i
        for i, e in enumerate(events)
        if getattr(e, "call", None)
        and e.call.call_id == "2"
        and e.call.state is S.AWAITING_APPROVAL
    )
    assert asked > first_done
    assert (tmp_path / "f.txt").read_text() == "ONE TWO\n"


async def test_an_edit_behind_a_command_waits_for_the_command(
    bus: EventBus, ctx: ToolContext, tmp_path: Path
) -> None:
    (tmp_path / "g.txt").write_text("alpha\n")
    requests = Requests(bus)

    def answer(snap: ToolCallSnapshot) -> Decision:
        return Decision(D.ALLOW_ONCE)

    approver = start_approver(bus, answer)
    shell = FunctionCall(id="sh", name="run_shell_command", args={"command": "echo beta > g.txt"})
    result = await _scheduler(bus, ctx).run([shell, _edit("e", "g.txt", "beta", "gamma")])
    approver.cancel()
    assert all(len(ids) == 1 for ids in requests.seen), requests.seen  # never together
    assert [s.state for s in result.snapshots] == [S.SUCCESS, S.SUCCESS]
    assert (tmp_path / "g.txt").read_text() == "gamma\n"


async def test_allow_for_session_withdraws_the_offers_it_covers(
    bus: EventBus, ctx: ToolContext, tmp_path: Path
) -> None:
    for name in "ab":
        (tmp_path / f"{name}.txt").write_text("old\n")
    events = record_events(bus)
    requests = Requests(bus)
    run = asyncio.create_task(
        _scheduler(bus, ctx).run([_edit(n, f"{n}.txt", "old", "new") for n in "ab"])
    )
    await requests.until(2)
    requests.answer("a", D.ALLOW_SESSION, "every")
    result = await run
    assert [s.state for s in result.snapshots] == [S.SUCCESS, S.SUCCESS]
    b_states = [s.state for s in snapshots_of(events, "b")]
    assert b_states == [S.VALIDATING, S.AWAITING_APPROVAL, S.SCHEDULED, S.EXECUTING, S.SUCCESS]
    assert result.snapshots[1].decision is None, "nobody answered b: the rule allowed it"
    assert bus.pending_approvals == []


async def test_allow_for_session_of_one_file_leaves_the_other_file_asked(
    bus: EventBus, ctx: ToolContext, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    for name in "ab":
        (tmp_path / f"{name}.txt").write_text("old\n")
    requests = Requests(bus)
    run = asyncio.create_task(
        _scheduler(bus, ctx).run([_edit(n, f"{n}.txt", "old", "new") for n in "ab"])
    )
    await requests.until(2)
    requests.answer("a", D.ALLOW_SESSION)  # no reach chosen: this file only
    await requests.until(1)
    assert list(requests.waiting) == ["b"], "b.txt was never allowed"
    requests.answer("b", D.REJECT)
    result = await run
    assert [s.state for s in result.snapshots] == [S.SUCCESS, S.ERROR]
    assert (tmp_path / "b.txt").read_text() == "old\n"


async def test_plan_mode_switched_on_meanwhile_wins_over_an_earlier_yes(
    bus: EventBus, ctx: ToolContext, tmp_path: Path
) -> None:
    for name in "ab":
        (tmp_path / f"{name}.txt").write_text("old\n")
    modes = ["default"]
    requests = Requests(bus)
    run = asyncio.create_task(
        _scheduler(bus, ctx, modes).run([_edit(n, f"{n}.txt", "old", "new") for n in "ab"])
    )
    await requests.until(2)
    requests.answer("b", D.ALLOW_ONCE)  # b answered first, then the person switches mode
    modes[0] = "plan"
    requests.answer("a", D.ALLOW_ONCE)
    result = await run
    assert [s.state for s in result.snapshots] == [S.ERROR, S.ERROR]
    assert (tmp_path / "b.txt").read_text() == "old\n"
    assert "plan" in (result.snapshots[1].error or "")


async def test_cancel_withdraws_every_offer(
    bus: EventBus, ctx: ToolContext, tmp_path: Path
) -> None:
    for name in "abc":
        (tmp_path / f"{name}.txt").write_text("old\n")
    cancel = asyncio.Event()
    requests = Requests(bus)
    calls = [_edit(n, f"{n}.txt", "old", "new") for n in "abc"]
    run = asyncio.create_task(_scheduler(bus, ctx).run(calls, cancel=cancel))
    await requests.until(3)
    cancel.set()
    result = await run
    assert [s.state for s in result.snapshots] == [S.CANCELLED] * 3
    assert all(s.correlation_id is None for s in result.snapshots)
    assert bus.pending_approvals == []
    assert all((tmp_path / f"{n}.txt").read_text() == "old\n" for n in "abc")
