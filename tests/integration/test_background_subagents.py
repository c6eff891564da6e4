"""Background subagents and the spawn limit, through the real ``gemtui -p``.

``scout(task, background=true)`` answers at once; the parent's next request goes out
while the child's answer is still held by the mock (so "at once" is proven, not timed);
the child's report then arrives in the parent conversation as a message, and the run
ends only after it was read. Requests are told apart by their system prompt: the mock
answers the parent's and the child's from two scripts.
"""

from __future__ import annotations

import json
import signal
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gemtui.testing import MockLLMServer
from gemtui.testing.mock_http import RecordedRequest

from .helpers import popen_gemtui, run_gemtui
from .test_agents_cli import write_patient_config
from .test_subagents import SCOUT, _call, _done, _env, _responses, _system, _user_agent


def _route(
    server: MockLLMServer,
    parent: list[dict[str, Any]],
    child: list[dict[str, Any]],
    on_parent: Callable[[int], None] = lambda n: None,
    child_marker: str = "SCOUT-PROMPT",
) -> list[str]:
    """Answer each generation request from the parent's or the child's script (the
    child's system prompt holds ``child_marker``); the order they came in."""
    order: list[str] = []

    def on_request(req: RecordedRequest) -> None:
        if "GenerateContent" not in req.path:
            return
        who = "child" if child_marker in _system(req) else "parent"
        order.append(who)
        script = child if who == "child" else parent
        server.enqueue(script.pop(0))
        if who == "parent":
            on_parent(order.count("parent"))

    server.on_request = on_request
    return order


def _texts(request: RecordedRequest) -> str:
    return "".join(p.get("text", "") for p in request.json["contents"][-1]["parts"])


def test_a_background_subagent_reports_as_a_message_after_the_parent_went_on(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_patient_config(isolated_home)
    _user_agent(isolated_home, "scout", SCOUT)
    parent = [
        _call("scout", {"task": "Find the notes.", "background": True}, "p1"),
        {"text": "Scout is looking; I wait for its report."},
        {"text": "The scout says REPORT-XYZ."},
    ]
    child = [{**_done("Found REPORT-XYZ."), "fault": "hold"}]
    # the child's answer is let go only once the parent's second request is out
    order = _route(
        mock_llm_thread,
        parent,
        child,
        lambda n: mock_llm_thread.release() if n == 2 else None,
    )
    proc = run_gemtui(
        ["-p", "find the notes", "--approval-mode", "yolo"],
        env=_env(isolated_home, mock_llm_thread.url),
        cwd=workspace,
    )
    assert proc.returncode == 0, proc.stderr
    assert "The scout says REPORT-XYZ." in proc.stdout
    assert order == ["parent", "child", "parent", "parent"]
    first, _child, second, third = mock_llm_thread.requests
    started = json.dumps(_responses(second)["p1"])
    assert "in the background" in started
    assert "REPORT-XYZ" not in json.dumps(second.json)
    # the report arrives as a message of the conversation, before the next request
    assert third.json["contents"][-1]["role"] == "user"
    assert "Found REPORT-XYZ." in _texts(third)
    assert "background agent scout" in _texts(third)
    assert "background" in json.dumps(first.json["tools"])


def test_a_foreground_call_still_waits_for_the_report(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    """The control: without ``background`` the call's result *is* the report."""
    write_patient_config(isolated_home)
    _user_agent(isolated_home, "scout", SCOUT)
    parent = [_call("scout", {"task": "Find the notes."}, "p1"), {"text": "ok"}]
    child = [_done("Found REPORT-XYZ.")]
    order = _route(mock_llm_thread, parent, child)
    proc = run_gemtui(
        ["-p", "find the notes", "--approval-mode", "yolo"],
        env=_env(isolated_home, mock_llm_thread.url),
        cwd=workspace,
    )
    assert proc.returncode == 0, proc.stderr
    assert order == ["parent", "child", "parent"]
    assert "REPORT-XYZ" in json.dumps(_responses(mock_llm_thread.requests[2])["p1"])


def test_max_spawns_says_the_limit_when_reached(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_patient_config(isolated_home, "[agents]\nmax_spawns = 1\n")
    _user_agent(isolated_home, "scout", SCOUT)
    parent = [
        _call("scout", {"task": "first"}, "p1"),
        _call("scout", {"task": "second"}, "p2"),
        {"text": "ok"},
    ]
    child = [_done("first report")]
    order = _route(mock_llm_thread, parent, child)
    proc = run_gemtui(
        ["-p", "twice", "--approval-mode", "yolo"],
        env=_env(isolated_home, mock_llm_thread.url),
        cwd=workspace,
    )
    assert proc.returncode == 0, proc.stderr
    assert order == ["parent", "child", "parent", "parent"]
    refused = _responses(mock_llm_thread.requests[3])["p2"]
    assert refused["error"] == (
        "scout was not started: this session reached its limit of 1 subagents "
        "([agents] max_spawns). Do the task yourself."
    )
    assert "first report" in json.dumps(_responses(mock_llm_thread.requests[2])["p1"])
    # the person hears it too, once (the TUI shows the same warning as a line)
    assert proc.stderr.count("warning: scout was not started: this session reached") == 1


def test_ctrl_c_while_a_background_agent_works_ends_both_cleanly(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    """The prompt waits for its background agent; Ctrl-C ends the wait and the agent
    (its held request is dropped), the run exits 130, and its row says cancelled."""
    write_patient_config(isolated_home)
    _user_agent(isolated_home, "scout", SCOUT)
    parent = [
        _call("scout", {"task": "Find the notes.", "background": True}, "p1"),
        {"text": "Scout is looking."},
    ]
    child = [{**_done("never delivered"), "fault": "hold"}]
    waiting = threading.Event()
    _route(mock_llm_thread, parent, child, lambda n: waiting.set() if n == 2 else None)
    run = popen_gemtui(
        ["-p", "find the notes", "--approval-mode", "yolo"],
        env=_env(isolated_home, mock_llm_thread.url),
        cwd=workspace,
    )
    try:
        waiting.wait()
        run.send_signal(signal.SIGINT)
        _out, err = run.communicate()
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()
        mock_llm_thread.release()
    assert run.returncode == 130, err
    assert b"Traceback" not in err
    assert b"Task was destroyed" not in err
    assert b"cancelled" in err
    listed = run_gemtui(["agents", "--json"], env=_env(isolated_home, ""), cwd=workspace)
    (row,) = json.loads(listed.stdout)
    assert row["state"] == "cancelled"
