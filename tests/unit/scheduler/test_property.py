"""Properties of any batch in default mode, whatever the calls and the person's answers.

* No mutating tool starts unless an approving decision was published before it started
  (for this call, or "allow for this session" for an earlier call of the same tool).
* A rejected call never starts; a mutating call never overlaps another call.
* Every call ends terminal, and the responses come back in the model's order.
"""

from __future__ import annotations

import asyncio
import tempfile
from dataclasses import dataclass

from fake_tools import FakeInvocation, FakeRegistry, make_tool, start_approver
from hypothesis import given, settings
from hypothesis import strategies as st

from gemtui.bus import ApprovalDecision, Decision, EventBus, ToolCallSnapshot
from gemtui.scheduler import PolicyEngine, ToolScheduler
from gemtui.tools.base import MUTATING_KINDS, ToolContext, ToolKind, ToolResult
from gemtui.tools.workspace import Workspace
from gemtui.wire import FunctionCall

D = ApprovalDecision
TOOL_KINDS = {
    "read": ToolKind.READ,
    "search": ToolKind.SEARCH,
    "think": ToolKind.THINK,
    "fetch": ToolKind.FETCH,
    "edit": ToolKind.EDIT,
    "edit2": ToolKind.EDIT,
    "exec": ToolKind.EXECUTE,
    "delete": ToolKind.DELETE,
}
DECISIONS = [D.ALLOW_ONCE, D.ALLOW_SESSION, D.REJECT, D.REJECT_WITH_FEEDBACK, D.MODIFY]


@dataclass(frozen=True)
class Step:
    tool: str
    decision: ApprovalDecision
    work: float


steps = st.lists(
    st.builds(
        Step,
        tool=st.sampled_from(sorted(TOOL_KINDS)),
        decision=st.sampled_from(DECISIONS),
        work=st.sampled_from([0.0, 0.001, 0.003]),
    ),
    min_size=1,
    max_size=8,
)


async def run_batch(batch: list[Step]) -> None:
    log: list[tuple[str, str, str]] = []  # (what, call_id, detail), in the order it happened

    async def run(inv: FakeInvocation, _ctx: ToolContext) -> ToolResult:
        call_id = inv.args["id"]
        log.append(("start", call_id, inv.tool.name))
        await asyncio.sleep(inv.args["work"])
        log.append(("end", call_id, inv.tool.name))
        return ToolResult(llm_content=call_id)

    tools = [make_tool(name, kind, run) for name, kind in TOOL_KINDS.items()]
    bus = EventBus("prop")
    plan = {f"c{i}": step for i, step in enumerate(batch)}

    def answer(snap: ToolCallSnapshot) -> Decision:
        decision = plan[snap.call_id].decision
        log.append(("decide", snap.call_id, f"{snap.name}:{decision.value}"))
        return Decision(decision, feedback="no", modified="changed")

    approver = start_approver(bus, answer)
    ctx = ToolContext(workspace=Workspace(tempfile.gettempdir()))
    scheduler = ToolScheduler(FakeRegistry(tools), bus, PolicyEngine(), ctx)
    calls = [
        FunctionCall(id=cid, name=step.tool, args={"id": cid, "work": step.work})
        for cid, step in plan.items()
    ]
    result = await asyncio.wait_for(scheduler.run(calls), 10)
    approver.cancel()

    # Responses: one per call, in the model's order.
    got = [p.function_response.id for p in result.parts if p.function_response is not None]
    assert got == list(plan)
    assert all(s.state.terminal for s in result.snapshots)

    approved: set[str] = set()
    session_tools: set[str] = set()
    active: set[str] = set()
    for what, call_id, detail in log:
        step = plan[call_id]
        mutating = TOOL_KINDS[step.tool] in MUTATING_KINDS
        if what == "decide":
            name, decision = detail.split(":")
            if ApprovalDecision(decision).allows:
                approved.add(call_id)
            if decision == D.ALLOW_SESSION.value:
                session_tools.add(name)
        elif what == "start":
            if mutating:
                assert call_id in approved or step.tool in session_tools, (call_id, log)
                assert not active, f"{call_id} started while {active} ran"
            assert not any(TOOL_KINDS[plan[a].tool] in MUTATING_KINDS for a in active)
            active.add(call_id)
        else:
            active.discard(call_id)

    started = {cid for what, cid, _ in log if what == "start"}
    for cid, snap in zip(plan, result.snapshots, strict=True):
        decided = [d for w, c, d in log if w == "decide" and c == cid]
        if decided and not ApprovalDecision(decided[0].split(":")[1]).allows:
            assert cid not in started
            assert snap.error
            assert "rejected" in snap.error
        assert (cid in started) == (snap.state.value == "success")


@settings(max_examples=75, deadline=None)
@given(batch=steps)
def test_no_mutation_without_approval_and_results_in_order(batch: list[Step]) -> None:
    asyncio.run(run_batch(batch))
