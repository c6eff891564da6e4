"""Agents side by side: a ``Fleet`` of full sessions and its one approval queue.

Each agent is a session built the one way (``RunOptions``), on its own mock server, its
own workspace. Their calls wait in one queue; a decision names the agent and reaches
only that agent's session. The attack: two agents ask for the *same* tool with the *same*
arguments and the *same* call id at the same moment; deciding one must run that one only
(real bash writes its file in that agent's workspace alone) while the other still waits.
The control in the same test: the other's own decision does run its command, so the
command really would have written had the decision leaked.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from gemtui.agent.assembly import RunOptions, trusted_run
from gemtui.agent.fleet import (
    AgentRemoved,
    AgentState,
    ApprovalsChanged,
    Fleet,
    FleetEvent,
    FleetLimitReached,
    FrontChanged,
    PendingApproval,
)
from gemtui.bus import ApprovalDecision, Decision, ErrorOccurred, Event, SessionStarted
from gemtui.config.settings import Settings
from gemtui.testing import MockLLMServer

from .test_background_subagents import _route
from .test_subagents import _call, _done
from .test_two_sessions_apart import _configure, _shell, user_config_file

SAME = "echo ran > ran.txt"
"""The one command both agents ask for (relative: it lands in the asking agent's folder)."""


async def until(fleet: Fleet, holds: Callable[[], bool]) -> None:
    """Wait (on fleet events, never on a clock) until ``holds()`` is true."""
    if holds():
        return
    hit = asyncio.Event()

    def check(_event: FleetEvent) -> None:
        if holds():
            hit.set()

    off = fleet.subscribe(check)
    try:
        await hit.wait()
    finally:
        off()


def _folders(tmp_path: Path) -> tuple[Path, Path]:
    ws_a, ws_b = tmp_path / "ws-a", tmp_path / "ws-b"
    ws_a.mkdir()
    ws_b.mkdir()
    return ws_a, ws_b


def _options(ws: Path, provider: str, **kw: object) -> RunOptions:
    model = {"beta": "m-beta"}.get(provider)
    return RunOptions(ws, provider=provider, model=model, **kw)  # type: ignore[arg-type]


def _item(fleet: Fleet, agent_id: str) -> PendingApproval:
    (item,) = [p for p in fleet.approvals() if p.agent_id == agent_id]
    return item


async def test_a_decision_reaches_only_the_agent_that_asked(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", "key-a")
    ws_a, ws_b = _folders(tmp_path)
    async with MockLLMServer() as alpha, MockLLMServer() as beta:
        _configure(alpha.url, beta.url)
        alpha.enqueue(_shell(SAME, "c1"), {"text": "a done"})
        beta.enqueue(_shell(SAME, "c1"), {"text": "b done"})
        fleet = Fleet(Settings())
        seen: list[tuple[PendingApproval, ...]] = []
        fleet.subscribe(
            lambda e: seen.append(e.pending) if isinstance(e, ApprovalsChanged) else None
        )
        try:
            a = fleet.start("write in a", _options(ws_a, "alpha"), name="fixer")
            b = fleet.start("write in b", _options(ws_b, "beta"), name="tester")
            await until(fleet, lambda: len(fleet.approvals()) == 2)
            item_a, item_b = _item(fleet, a), _item(fleet, b)
            # the same call, labelled apart: agent, task and workspace
            assert item_a.call.call_id == item_b.call.call_id == "c1"
            assert item_a.call.args == item_b.call.args == {"command": SAME}
            assert (item_a.agent_name, item_a.task, item_a.workspace) == (
                "fixer",
                "write in a",
                ws_a.resolve(),
            )
            assert (item_b.agent_name, item_b.workspace) == ("tester", ws_b.resolve())
            assert {fleet.get(a).state, fleet.get(b).state} == {AgentState.WAITING_FOR_YOU}
            assert fleet.counts().waiting == 2
            # an answer naming one agent with the other's request is dropped, not rerouted
            assert not fleet.decide(a, item_b.correlation_id, Decision(ApprovalDecision.ALLOW_ONCE))
            assert not fleet.decide(b, item_a.correlation_id, Decision(ApprovalDecision.ALLOW_ONCE))
            assert fleet.decide(a, item_a.correlation_id, Decision(ApprovalDecision.ALLOW_ONCE))
            info_a = await fleet.wait(a)
            assert info_a.state is AgentState.DONE
            assert (ws_a / "ran.txt").read_text() == "ran\n"
            assert not (ws_b / "ran.txt").exists()  # the other one still waits...
            assert fleet.get(b).state is AgentState.WAITING_FOR_YOU
            assert [p.key for p in fleet.approvals()] == [item_b.key]
            # ...and its own decision (the control) does run the very same command
            assert fleet.decide(b, item_b.correlation_id, Decision(ApprovalDecision.ALLOW_ONCE))
            assert (await fleet.wait(b)).state is AgentState.DONE
            assert (ws_b / "ran.txt").read_text() == "ran\n"
            assert fleet.approvals() == []
            assert seen[-1] == ()
        finally:
            await fleet.aclose()


async def test_allow_for_the_session_is_that_agents_session_only(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", "key-a")
    ws_a, ws_b = _folders(tmp_path)
    async with MockLLMServer() as alpha, MockLLMServer() as beta:
        _configure(alpha.url, beta.url)
        for server, name in ((alpha, "a"), (beta, "b")):
            server.enqueue(
                _shell("touch one.txt", "c1"),
                _shell("touch two.txt", "c2"),
                {"text": f"{name} done"},
            )
        fleet = Fleet(Settings())
        try:
            a = fleet.start("twice in a", _options(ws_a, "alpha"))
            b = fleet.start("twice in b", _options(ws_b, "beta"))
            await until(fleet, lambda: len(fleet.approvals()) == 2)
            first_a, first_b = _item(fleet, a), _item(fleet, b)
            fleet.decide(a, first_a.correlation_id, Decision(ApprovalDecision.ALLOW_SESSION))
            fleet.decide(b, first_b.correlation_id, Decision(ApprovalDecision.ALLOW_ONCE))
            assert (await fleet.wait(a)).state is AgentState.DONE  # its second call: not asked
            assert (ws_a / "two.txt").exists()
            await until(fleet, lambda: [p.agent_id for p in fleet.approvals()] == [b])
            second_b = _item(fleet, b)  # B allowed once only: asked again
            assert second_b.call.call_id == "c2"
            assert not (ws_b / "two.txt").exists()
            fleet.decide(b, second_b.correlation_id, Decision(ApprovalDecision.REJECT))
            assert (await fleet.wait(b)).state is AgentState.DONE
            assert not (ws_b / "two.txt").exists()
            assert (ws_b / "one.txt").exists()
        finally:
            await fleet.aclose()


async def test_max_parallel_refuses_one_more_with_a_clear_line(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", "key-a")
    ws_a, ws_b = _folders(tmp_path)
    assert Settings().agents.max_parallel == 4
    async with MockLLMServer() as alpha:
        _configure(alpha.url, alpha.url)
        alpha.enqueue(_shell(SAME, "c1"))
        fleet = Fleet(max_parallel=1)
        events: list[FleetEvent] = []
        fleet.subscribe(events.append)
        try:
            a = fleet.start("first", _options(ws_a, "alpha"), name="first")
            await until(fleet, lambda: fleet.get(a).state is AgentState.WAITING_FOR_YOU)
            with pytest.raises(FleetLimitReached) as refused:
                fleet.start("second", _options(ws_b, "alpha"))
            assert str(refused.value) == (
                "Not started: the limit of 1 working agents ([agents] max_parallel) is "
                "reached. Stop one or wait for one to finish, then start this one again."
            )
            assert [i.id for i in fleet.agents()] == [a]  # nothing half-started
            assert fleet.stop(a)
            assert (await fleet.wait(a)).state is AgentState.CANCELLED
            assert not (ws_a / "ran.txt").exists()
            assert fleet.approvals() == []
            alpha.enqueue(_shell(SAME, "c1"), {"text": "b done"})
            b = fleet.start("second", _options(ws_b, "alpha", approval_mode="yolo"))
            assert (await fleet.wait(b)).state is AgentState.DONE
            assert (ws_b / "ran.txt").exists()
            await fleet.remove(a)
            assert [i.id for i in fleet.agents()] == [b]
            assert fleet.front == b
        finally:
            await fleet.aclose()


WORKER = """---
name: worker
description: Runs commands for you.
tools: [run_shell_command]
---
You are WORKER-PROMPT.
"""


async def test_a_background_subagent_is_listed_and_its_approval_queued_under_its_agent(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The subagent shows in the fleet while it works; its call waits in the one queue
    labelled with its name, and the decision reaches it through its agent's session."""
    monkeypatch.setenv("GEMINI_API_KEY", "key-a")
    monkeypatch.setenv("HOME", str(tmp_path / "person"))
    agents_dir = tmp_path / "person" / ".gemini" / "agents"
    agents_dir.mkdir(parents=True)
    (agents_dir / "worker.md").write_text(WORKER, encoding="utf-8")
    ws_a, _ = _folders(tmp_path)
    async with MockLLMServer() as alpha:
        _configure(alpha.url, alpha.url)
        parent = [
            _call("worker", {"task": "touch it", "background": True}, "p1"),
            {"text": "worker started"},
            {"text": "worker reported"},
        ]
        child = [_shell("touch child.txt", "c1"), _done("CHILD-REPORT")]
        order = _route(alpha, parent, child, child_marker="WORKER-PROMPT")
        fleet = Fleet(Settings())
        try:
            a = fleet.start("delegate", _options(ws_a, "alpha"))
            sub = f"{a}/p1"
            await until(fleet, lambda: len(fleet.approvals()) == 1)
            (item,) = fleet.approvals()
            assert (item.agent_id, item.agent_name, item.call.call_id) == (a, "worker", "p1/c1")
            assert fleet.get(sub).parent == a
            assert fleet.get(sub).state is AgentState.WAITING_FOR_YOU
            assert not (ws_a / "child.txt").exists()
            assert fleet.decide(a, item.correlation_id, Decision(ApprovalDecision.ALLOW_ONCE))
            assert (await fleet.wait(a)).state is AgentState.DONE
            assert fleet.get(sub).state is AgentState.DONE
            assert (ws_a / "child.txt").exists()
            assert order.count("parent") == 3
            assert "CHILD-REPORT" in json.dumps(alpha.requests[-1].json["contents"][-1])
            # both are saved for `gemtui agents` in another terminal
            store = fleet.store(a)
            assert store is not None
            session_id = fleet.get(a).session_id
            rows = {r.id: r for r in store.agents(str(ws_a.resolve()))}
            assert rows[session_id].state == "done"
            assert rows[session_id].task == "delegate"
            assert rows[f"{session_id}/p1"].state == "done"
            assert rows[f"{session_id}/p1"].parent == session_id
        finally:
            await fleet.aclose()


async def test_a_front_end_adopts_its_own_session_and_sends_it_prompts(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The TUI's own session joins the fleet as it is (started once, not twice), takes
    prompt after prompt, and leaves it when removed."""
    monkeypatch.setenv("GEMINI_API_KEY", "key-a")
    ws_a, _ = _folders(tmp_path)
    async with MockLLMServer() as alpha:
        _configure(alpha.url, alpha.url)
        alpha.enqueue({"text": "one"}, {"text": "two"})
        built = trusted_run(_options(ws_a, "alpha")).build()
        started: list[Event] = []
        built.session.bus.subscribe(
            lambda e: started.append(e) if isinstance(e, SessionStarted) else None
        )
        built.record()
        built.session.start()
        fleet = Fleet(Settings())
        events: list[FleetEvent] = []
        fleet.subscribe(events.append)
        try:
            a = fleet.adopt(built, name="front", start=False)
            assert (fleet.front, fleet.get(a).state) == (a, AgentState.IDLE)
            await fleet.send(a, "first")
            assert fleet.get(a).state is AgentState.DONE
            await fleet.send(a, "second")
            assert (fleet.get(a).state, fleet.get(a).task) == (AgentState.DONE, "second")
            assert fleet.get(a).tokens > 0
            assert len(started) == 1
            await fleet.remove(a)
            assert fleet.agents() == []
            assert events[-2:] == [AgentRemoved(a), FrontChanged(None)]
        finally:
            await fleet.aclose()


async def test_stopping_a_background_subagent_tells_its_agent(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Stop on a listed subagent ends it (its held answer is never used); its agent hears
    why in the report message and finishes its own prompt."""
    monkeypatch.setenv("GEMINI_API_KEY", "key-a")
    monkeypatch.setenv("HOME", str(tmp_path / "person"))
    agents_dir = tmp_path / "person" / ".gemini" / "agents"
    agents_dir.mkdir(parents=True)
    (agents_dir / "worker.md").write_text(WORKER, encoding="utf-8")
    ws_a, _ = _folders(tmp_path)
    async with MockLLMServer() as alpha:
        _configure(alpha.url, alpha.url)
        parent = [
            _call("worker", {"task": "wait", "background": True}, "p1"),
            {"text": "worker started"},
            {"text": "worker was stopped"},
        ]
        child = [{**_done("never"), "fault": "hold"}]
        _route(alpha, parent, child, child_marker="WORKER-PROMPT")
        fleet = Fleet(Settings())
        try:
            a = fleet.start("delegate", _options(ws_a, "alpha"))
            sub = f"{a}/p1"
            await until(fleet, lambda: sub in {i.id for i in fleet.agents()})
            assert fleet.get(sub).state is AgentState.WORKING
            assert fleet.stop(sub)
            assert (await fleet.wait(sub)).state is AgentState.CANCELLED
            assert (await fleet.wait(a)).state is AgentState.DONE
            last = json.dumps(alpha.requests[-1].json["contents"][-1])
            assert "stopped without a report" in last
        finally:
            alpha.release()
            await fleet.aclose()


_DAILY_QUOTA = {
    "status": 429,
    "message": "Quota exceeded for quota metric 'Generate requests' per day.",
    "quota_id": "GenerateRequestsPerDayPerProjectPerModel",
}


@pytest.mark.parametrize("guarded", [True, False], ids=["fleet-start", "control-unguarded"])
async def test_a_background_agent_never_switches_models_unasked(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, guarded: bool
) -> None:
    """``--fallback`` once made every fleet agent switch silently when its quota ran out.
    An agent started in the fleet ends with the error naming the fallback instead; the
    control adopts the same options built without the fleet's guard, and it switches."""
    monkeypatch.setenv("GEMINI_API_KEY", "key-a")
    ws, _ = _folders(tmp_path)
    async with MockLLMServer() as alpha, MockLLMServer() as beta:
        _configure(alpha.url, beta.url)
        config = user_config_file()
        config.write_text(config.read_text() + 'fallback = ["gemini-2.5-flash"]\n')
        alpha.enqueue({"error": _DAILY_QUOTA}, {"text": "flash answers"})
        options = RunOptions(ws, provider="alpha", model="gemini-2.5-pro", fallback=True)
        fleet = Fleet(Settings())
        try:
            if guarded:
                agent = fleet.start("go", options)
            else:
                agent = fleet.adopt(trusted_run(options).build(None), start=True)
                fleet.send(agent, "go")
            hints: list[str] = []  # subscribed before the task's first step runs
            fleet.session(agent).bus.subscribe(
                lambda e: hints.append(e.hint or "") if isinstance(e, ErrorOccurred) else None
            )
            info = await fleet.wait(agent)
        finally:
            await fleet.aclose()
    models = [r.path.rsplit("/", 1)[-1].split(":")[0] for r in alpha.requests]
    if guarded:
        assert models == ["gemini-2.5-pro"]
        assert info.state is AgentState.FAILED
        assert any("would have switched to gemini-2.5-flash" in h for h in hints), hints
    else:
        assert models == ["gemini-2.5-pro", "gemini-2.5-flash"]
