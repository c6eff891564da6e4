"""The scheduler: order, concurrency, validation, approvals, headless mode and cancel."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from fake_tools import (
    FakeInvocation,
    FakeRegistry,
    FakeTool,
    make_tool,
    record_events,
    snapshots_of,
    start_approver,
)

from gemtui.bus import (
    ApprovalDecision,
    Decision,
    EventBus,
    TodosUpdated,
    ToolCallSnapshot,
    ToolCallState,
    ToolOutput,
)
from gemtui.scheduler import (
    CANCELLED_MESSAGE,
    HEADLESS_APPROVAL_MESSAGE,
    REJECTED_MESSAGE,
    PolicyEngine,
    ScheduleResult,
    ToolScheduler,
)
from gemtui.tools.base import ToolContext, ToolError, ToolKind, ToolResult
from gemtui.tools.workspace import Workspace
from gemtui.wire import Blob, FunctionCall, Part

S = ToolCallState
D = ApprovalDecision


@pytest.fixture
def bus() -> EventBus:
    return EventBus("sess")


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(workspace=Workspace(tmp_path))


def scheduler(
    bus: EventBus,
    ctx: ToolContext,
    *tools: FakeTool,
    interactive: bool = True,
    mode: str = "default",
) -> ToolScheduler:
    return ToolScheduler(
        FakeRegistry(tools), bus, PolicyEngine(), ctx, approval_mode=mode, interactive=interactive
    )


def call(name: str, call_id: str | None = None, **args: Any) -> FunctionCall:
    return FunctionCall(id=call_id, name=name, args=args)


def responses(result: ScheduleResult) -> list[dict[str, Any]]:
    return [p.function_response.response for p in result.parts if p.function_response]


def ids(result: ScheduleResult) -> list[str | None]:
    return [p.function_response.id for p in result.parts if p.function_response]


def always(decision: Decision) -> Any:
    return lambda _snap: decision


# -- order and concurrency ----------------------------------------------------------------


async def test_results_keep_the_model_order_when_calls_finish_in_reverse(
    bus: EventBus, ctx: ToolContext
) -> None:
    n = 5
    finished_gates = [asyncio.Event() for _ in range(n)]
    completion: list[int] = []

    async def run(inv: FakeInvocation, _ctx: ToolContext) -> ToolResult:
        i = inv.args["i"]
        if i + 1 < n:  # wait for the next call to finish first: only possible in parallel
            await finished_gates[i + 1].wait()
        completion.append(i)
        finished_gates[i].set()
        return ToolResult(llm_content=f"r{i}")

    tool = make_tool("read", ToolKind.READ, run)
    async with asyncio.timeout(5):
        result = await scheduler(bus, ctx, tool).run([call("read", f"c{i}", i=i) for i in range(n)])
    assert completion == list(reversed(range(n)))
    assert ids(result) == [f"c{i}" for i in range(n)]
    assert responses(result) == [{"output": f"r{i}"} for i in range(n)]
    assert not result.cancelled
    assert [s.state for s in result.snapshots] == [S.SUCCESS] * n


async def test_read_only_calls_run_concurrently(bus: EventBus, ctx: ToolContext) -> None:
    """Each call waits until all ten are running: one at a time, the first never ends."""
    running = 0
    all_running = asyncio.Event()

    async def run(_inv: FakeInvocation, _ctx: ToolContext) -> ToolResult:
        nonlocal running
        running += 1
        if running == 10:
            all_running.set()
        await all_running.wait()
        return ToolResult(llm_content="ok")

    tool = make_tool("read", ToolKind.READ, run)
    async with asyncio.timeout(30):  # a hang guard: in turn, the calls would wait forever
        result = await scheduler(bus, ctx, tool).run([call("read") for _ in range(10)])
    assert len(result.parts) == 10


async def test_a_mutating_call_runs_alone_and_in_order(bus: EventBus, ctx: ToolContext) -> None:
    log: list[str] = []
    active: set[str] = set()
    overlaps: list[tuple[str, frozenset[str]]] = []

    async def run(inv: FakeInvocation, _ctx: ToolContext) -> ToolResult:
        me = inv.args["tag"]
        if (inv.tool.mutating and active) or any(t.startswith("w") for t in active):
            overlaps.append((me, frozenset(active)))
        active.add(me)
        log.append(f"start {me}")
        await asyncio.sleep(0.01)
        active.discard(me)
        log.append(f"end {me}")
        return ToolResult(llm_content=me)

    read = make_tool("read", ToolKind.READ, run)
    edit = make_tool("edit", ToolKind.EDIT, run)
    approver = start_approver(bus, always(Decision(D.ALLOW_ONCE)))
    calls = [call("read", tag="r1"), call("read", tag="r2"), call("edit", tag="w1"),
             call("edit", tag="w2"), call("read", tag="r3")]  # fmt: skip
    result = await scheduler(bus, ctx, read, edit).run(calls)
    approver.cancel()
    assert overlaps == []
    assert log.index("start w1") > max(log.index("end r1"), log.index("end r2"))
    assert log.index("start w2") > log.index("end w1")
    assert log.index("start r3") > log.index("end w2")
    assert responses(result) == [{"output": t} for t in ("r1", "r2", "w1", "w2", "r3")]


# -- validation ---------------------------------------------------------------------------


async def test_unknown_tool_is_an_error_with_suggestions(bus: EventBus, ctx: ToolContext) -> None:
    tool = make_tool("read_file", ToolKind.READ)
    result = await scheduler(bus, ctx, tool).run([call("read_fille", "x1")])
    (response,) = responses(result)
    assert response["error"].startswith('Tool "read_fille" not found in registry.')
    assert "'read_file'" in response["error"]
    assert ids(result) == ["x1"]
    assert result.snapshots[0].state is S.ERROR


async def test_invalid_arguments_never_run(bus: EventBus, ctx: ToolContext) -> None:
    ran: list[str] = []

    async def run(_inv: FakeInvocation, _ctx: ToolContext) -> ToolResult:
        ran.append("ran")
        return ToolResult()

    schema = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}
    tool = make_tool("read", ToolKind.READ, run, parameters=schema)
    result = await scheduler(bus, ctx, tool).run([call("read", path=3), call("read")])
    assert ran == []
    assert all("Invalid arguments" in r["error"] for r in responses(result))


async def test_tool_errors_and_crashes_become_error_text(bus: EventBus, ctx: ToolContext) -> None:
    async def refuse(_inv: FakeInvocation, _ctx: ToolContext) -> ToolResult:
        raise ToolError("File not found: a.txt")

    async def crash(_inv: FakeInvocation, _ctx: ToolContext) -> ToolResult:
        raise KeyError("boom")

    async def failed(_inv: FakeInvocation, _ctx: ToolContext) -> ToolResult:
        return ToolResult(llm_content="partial", error="exit code 2")

    tools = [
        make_tool(n, ToolKind.READ, f) for n, f in (("a", refuse), ("b", crash), ("c", failed))
    ]
    result = await scheduler(bus, ctx, *tools).run([call("a"), call("b"), call("c")])
    errors = [r["error"] for r in responses(result)]
    assert errors[0] == "File not found: a.txt"
    assert "boom" in errors[1]
    assert "Traceback" not in errors[1]
    assert errors[2] == "exit code 2"


async def test_binary_results_follow_the_response(bus: EventBus, ctx: ToolContext) -> None:
    blob = Part(inline_data=Blob(mime_type="image/png", data="AAAA"))

    async def run(_inv: FakeInvocation, _ctx: ToolContext) -> ToolResult:
        return ToolResult(llm_content=[blob])

    result = await scheduler(bus, ctx, make_tool("read", ToolKind.READ, run)).run(
        [call("read", "i")]
    )
    first, second = result.parts
    assert first.function_response is not None
    assert first.function_response.response == {"output": "Binary content provided (1 item(s))."}
    assert second.inline_data is not None


async def test_live_output_and_todos_are_published(bus: EventBus, ctx: ToolContext) -> None:
    events = record_events(bus)

    async def run(_inv: FakeInvocation, c: ToolContext) -> ToolResult:
        assert c.on_output is not None
        c.on_output("line 1\n")
        return ToolResult(
            llm_content="ok", data={"todos": [{"description": "x", "status": "pending"}]}
        )

    await scheduler(bus, ctx, make_tool("todo", ToolKind.THINK, run)).run([call("todo", "t")])
    assert [e.text for e in events if isinstance(e, ToolOutput) and e.call_id == "t"] == [
        "line 1\n"
    ]
    (todos,) = [e for e in events if isinstance(e, TodosUpdated)]
    assert todos.todos == ({"description": "x", "status": "pending"},)


async def test_generated_ids_are_unique_and_answered(bus: EventBus, ctx: ToolContext) -> None:
    calls = [call("read"), call("read"), call("read", "dup"), call("read", "dup"), call("nope")]
    result = await scheduler(bus, ctx, make_tool("read", ToolKind.READ)).run(calls)
    got = ids(result)
    assert all(got)
    assert len(set(got)) == 5
    assert got[2] == "dup"
    assert got == [c.id for c in calls]  # written back so history's calls match
    assert got[0] is not None
    assert got[0].startswith("read-")


async def test_events_per_call_follow_the_state_machine(bus: EventBus, ctx: ToolContext) -> None:
    events = record_events(bus)
    approver = start_approver(bus, always(Decision(D.ALLOW_ONCE)))
    tools = (make_tool("read", ToolKind.READ), make_tool("edit", ToolKind.EDIT))
    await scheduler(bus, ctx, *tools).run([call("read", "r"), call("edit", "e"), call("gone", "g")])
    approver.cancel()
    states = {cid: [s.state for s in snapshots_of(events, cid)] for cid in "reg"}
    assert states["r"] == [S.VALIDATING, S.SCHEDULED, S.EXECUTING, S.SUCCESS]
    assert states["e"] == [S.VALIDATING, S.AWAITING_APPROVAL, S.SCHEDULED, S.EXECUTING, S.SUCCESS]
    assert states["g"] == [S.VALIDATING, S.ERROR]
    seqs = [e.seq for e in events]
    assert seqs == sorted(seqs)


# -- approvals ----------------------------------------------------------------------------


def edit_tool(ran: list[dict[str, Any]]) -> FakeTool:
    async def run(inv: FakeInvocation, _ctx: ToolContext) -> ToolResult:
        ran.append(dict(inv.args))
        return ToolResult(llm_content="written")

    return make_tool("write_file", ToolKind.EDIT, run)


@pytest.mark.parametrize(
    ("decision", "ran_args", "response"),
    [
        (Decision(D.ALLOW_ONCE), [{"content": "a"}], {"output": "written"}),
        (Decision(D.REJECT), [], {"error": REJECTED_MESSAGE}),
        (
            Decision(D.REJECT_WITH_FEEDBACK, feedback="use tabs"),
            [],
            {"error": f"{REJECTED_MESSAGE} Their feedback: use tabs"},
        ),
        (Decision(D.MODIFY, modified="b"), [{"content": "b"}], {"output": "written"}),
    ],
)
async def test_approval_decisions(
    bus: EventBus, ctx: ToolContext, decision: Decision, ran_args: list[Any], response: Any
) -> None:
    ran: list[dict[str, Any]] = []
    seen: list[ToolCallSnapshot] = []

    def answer(snap: ToolCallSnapshot) -> Decision:
        seen.append(snap)
        return decision

    approver = start_approver(bus, answer)
    result = await scheduler(bus, ctx, edit_tool(ran)).run([call("write_file", "w", content="a")])
    approver.cancel()
    assert ran == ran_args
    assert responses(result) == [response]
    (request,) = seen
    assert request.correlation_id
    assert request.confirmation is not None
    assert result.snapshots[0].decision is decision.decision


async def test_allow_for_session_covers_later_calls_of_the_batch(
    bus: EventBus, ctx: ToolContext
) -> None:
    asked: list[str] = []

    def answer(snap: ToolCallSnapshot) -> Decision:
        asked.append(snap.call_id)
        return Decision(D.ALLOW_SESSION)

    approver = start_approver(bus, answer)
    ran: list[dict[str, Any]] = []
    calls = [call("write_file", "w1", content="a"), call("write_file", "w2", content="b")]
    await scheduler(bus, ctx, edit_tool(ran)).run(calls)
    approver.cancel()
    assert asked == ["w1"]
    assert len(ran) == 2


async def test_headless_ask_becomes_an_error_and_nothing_runs(
    bus: EventBus, ctx: ToolContext
) -> None:
    ran: list[dict[str, Any]] = []
    sched = scheduler(bus, ctx, edit_tool(ran), make_tool("read", ToolKind.READ), interactive=False)
    result = await sched.run([call("write_file", "w", content="a"), call("read", "r")])
    assert ran == []
    assert responses(result)[0] == {"error": HEADLESS_APPROVAL_MESSAGE}
    assert "not run" in HEADLESS_APPROVAL_MESSAGE
    assert result.snapshots[0].error == HEADLESS_APPROVAL_MESSAGE
    assert result.snapshots[1].state is S.SUCCESS
    assert bus.pending_approvals == []


async def test_plan_mode_refuses_with_the_reason(bus: EventBus, ctx: ToolContext) -> None:
    ran: list[dict[str, Any]] = []
    result = await scheduler(bus, ctx, edit_tool(ran), mode="plan").run([call("write_file", "w")])
    assert ran == []
    assert "plan mode" in responses(result)[0]["error"]


# -- cancellation -------------------------------------------------------------------------


async def test_cancel_while_awaiting_approval(bus: EventBus, ctx: ToolContext) -> None:
    cancel = asyncio.Event()
    ran: list[dict[str, Any]] = []

    def answer(_snap: ToolCallSnapshot) -> None:
        cancel.set()  # the person presses Esc instead of answering
        return None

    approver = start_approver(bus, answer)
    calls = [call("write_file", "w", content="a"), call("read", "r")]
    result = await scheduler(bus, ctx, edit_tool(ran), make_tool("read", ToolKind.READ)).run(
        calls, cancel=cancel
    )
    approver.cancel()
    assert result.cancelled
    assert ran == []
    assert [s.state for s in result.snapshots] == [S.CANCELLED, S.CANCELLED]
    assert responses(result) == [{"error": CANCELLED_MESSAGE}] * 2
    assert ids(result) == ["w", "r"]
    assert bus.pending_approvals == []


async def test_cancel_while_executing_cancels_the_running_tool(
    bus: EventBus, ctx: ToolContext
) -> None:
    cancel = asyncio.Event()
    started = asyncio.Event()
    saw_cancel: list[bool] = []
    later_started: list[str] = []

    async def slow(_inv: FakeInvocation, _ctx: ToolContext) -> ToolResult:
        started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            saw_cancel.append(True)
            raise
        return ToolResult()

    async def later(inv: FakeInvocation, _ctx: ToolContext) -> ToolResult:
        later_started.append(inv.tool.name)
        return ToolResult()

    tools = (
        make_tool("shell", ToolKind.EXECUTE, slow),
        make_tool("read", ToolKind.READ, later),
        make_tool("edit", ToolKind.EDIT, later),
    )
    sched = ToolScheduler(FakeRegistry(tools), bus, PolicyEngine(), ctx, approval_mode="yolo")
    task = asyncio.create_task(
        sched.run([call("shell"), call("read"), call("edit")], cancel=cancel)
    )
    await started.wait()
    cancel.set()
    result = await asyncio.wait_for(task, 5)
    assert saw_cancel == [True]
    assert later_started == []
    assert result.cancelled
    assert [s.state for s in result.snapshots] == [S.CANCELLED] * 3
    assert len(responses(result)) == 3


async def test_no_tool_starts_once_cancel_is_set(bus: EventBus, ctx: ToolContext) -> None:
    cancel = asyncio.Event()
    started: list[str] = []

    async def run(inv: FakeInvocation, _ctx: ToolContext) -> ToolResult:
        started.append(inv.args["tag"])
        if inv.args["tag"] == "w1":
            cancel.set()  # cancel arrives while the first call runs; it still finishes
        return ToolResult(llm_content="ok")

    tools = (make_tool("read", ToolKind.READ, run), make_tool("edit", ToolKind.EDIT, run))
    sched = ToolScheduler(FakeRegistry(tools), bus, PolicyEngine(), ctx, approval_mode="yolo")
    calls = [call("edit", tag="w1"), call("read", tag="r1"), call("edit", tag="w2")]
    result = await sched.run(calls, cancel=cancel)
    assert started == ["w1"]
    assert result.cancelled
    assert [s.state for s in result.snapshots] == [S.SUCCESS, S.CANCELLED, S.CANCELLED]

    already = asyncio.Event()
    already.set()
    started.clear()
    result = await sched.run([call("read", tag="x")], cancel=already)
    assert started == []
    assert responses(result) == [{"error": CANCELLED_MESSAGE}]


async def test_cancelling_the_run_itself_leaves_no_call_open(
    bus: EventBus, ctx: ToolContext
) -> None:
    events = record_events(bus)
    started = asyncio.Event()

    async def slow(_inv: FakeInvocation, _ctx: ToolContext) -> ToolResult:
        started.set()
        await asyncio.Event().wait()
        return ToolResult()

    sched = scheduler(bus, ctx, make_tool("read", ToolKind.READ, slow))
    task = asyncio.create_task(sched.run([call("read", "r")]))
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert snapshots_of(events, "r")[-1].state is S.CANCELLED
