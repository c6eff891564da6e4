"""Two sessions in one process stay apart: the ground for agents side by side.

Each is built the one public way (``trusted_run(RunOptions(...)).build()``) with its own
provider (its own mock server, a different wire), approval mode, sandbox and workspace,
and both run a prompt at once. The sandboxed one's command is boxed (its write outside its
workspace never lands), the other's is not (the same write does land: the control); the
yolo one never asks, the other asks and is answered; each writes only in its own folder;
the process environment is the same before and after. Before ``RunOptions`` carried
``-s``, the CLI set ``GEMTUI_SANDBOX`` in ``os.environ``, so one ``-s`` run sandboxed every
session the process built after it (the second test).
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import pytest

from gemtui.agent.assembly import Assembled, RunOptions, build_session, trusted_run
from gemtui.agent.provider_choice import ResolvedProvider
from gemtui.agent.session import Session, SessionOptions
from gemtui.bus import (
    ApprovalDecision,
    Decision,
    Event,
    TerminateReason,
    ToolCallState,
    ToolCallStateChanged,
)
from gemtui.cli import main as cli
from gemtui.config.paths import user_config_file
from gemtui.config.settings import Settings, load_settings
from gemtui.providers.gemini import GeminiGenerator
from gemtui.providers.http import make_client
from gemtui.testing import MockLLMServer

from .helpers import FAST_NETWORK


def _configure(alpha: str, beta: str) -> None:
    """Two providers in the user's settings: Gemini's wire at one mock, OpenAI's at another."""
    config = user_config_file()
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(
        FAST_NETWORK
        + f'[providers.alpha]\nkind = "gemini"\nbase_url = "{alpha}"\n'
        + f'[providers.beta]\nkind = "openai"\nbase_url = "{beta}/v1"\nmodels = ["m-beta"]\n',
        encoding="utf-8",
    )


def _shell(command: str, call_id: str) -> dict[str, Any]:
    call = {"name": "run_shell_command", "args": {"command": command}, "id": call_id}
    return {"function_calls": [call]}


def _writes(own: Path, outside: Path, name: str) -> str:
    """A command that writes in its own folder and plants a file outside it."""
    return f"echo {name} > {own}/{name}.txt; echo {name} > {outside}/{name}-was-here"


def _folders(tmp_path: Path) -> tuple[Path, Path, Path]:
    ws_a, ws_b, outside = tmp_path / "ws-a", tmp_path / "ws-b", tmp_path / "outside"
    for folder in (ws_a, ws_b, outside):
        folder.mkdir()
    return ws_a, ws_b, outside


def _files(folder: Path) -> set[str]:
    return {p.name for p in folder.iterdir()}


async def test_two_sessions_in_one_process_do_not_affect_each_other(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", "key-a")
    ws_a, ws_b, outside = _folders(tmp_path)
    async with MockLLMServer() as alpha, MockLLMServer() as beta:
        _configure(alpha.url, beta.url)
        alpha.enqueue(_shell(_writes(ws_a, outside, "a"), "a1"), {"text": "a done"})
        beta.enqueue(_shell(_writes(ws_b, outside, "b"), "b1"), {"text": "b done"})
        env_before = dict(os.environ)
        a = trusted_run(
            RunOptions(ws_a, provider="alpha", approval_mode="yolo", sandbox=True)
        ).build()
        b = trusted_run(
            RunOptions(ws_b, provider="beta", model="m-beta", approval_mode="default")
        ).build()
        asked: dict[str, list[str]] = {"a": [], "b": []}

        def answer(name: str, built: Assembled) -> None:
            def on_event(event: Event) -> None:
                call = getattr(event, "call", None)
                if not isinstance(event, ToolCallStateChanged) or call is None:
                    return
                if call.state is ToolCallState.AWAITING_APPROVAL and call.correlation_id:
                    asked[name].append(call.name)
                    built.session.bus.decide(
                        call.correlation_id, Decision(ApprovalDecision.ALLOW_ONCE)
                    )

            built.session.bus.subscribe(on_event)

        answer("a", a)
        answer("b", b)
        try:
            done_a, done_b = await asyncio.gather(
                a.session.send("write in a"), b.session.send("write in b")
            )
        finally:
            for built in (a, b):
                await built.session.aclose()
                built.close()
    assert (done_a.reason, done_a.text) == (TerminateReason.GOAL, "a done")
    assert (done_b.reason, done_b.text) == (TerminateReason.GOAL, "b done")
    # each provider answered its own session only, on its own wire
    sent_a = [r for r in alpha.requests if r.path.endswith(":streamGenerateContent")]
    sent_b = [r for r in beta.requests if r.path == "/v1/chat/completions"]  # (and probes)
    assert len(sent_a) == len(alpha.requests) == 2  # Gemini's wire, nothing else
    assert len(sent_b) == 2  # OpenAI's wire
    assert {r.json["model"] for r in sent_b} == {"m-beta"}
    # approvals: yolo ran without asking; default asked once for the command
    assert (a.session.approval_mode, b.session.approval_mode) == ("yolo", "default")
    assert asked == {"a": [], "b": ["run_shell_command"]}
    # each wrote only in its own workspace
    assert _files(ws_a) == {"a.txt"}
    assert _files(ws_b) == {"b.txt"}
    # the sandboxed command could not reach outside its workspace; the other one could
    assert _files(outside) == {"b-was-here"}
    assert dict(os.environ) == env_before


def test_a_sandboxed_run_leaves_the_next_session_in_the_process_unsandboxed(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """``gemtui -s -p`` in-process, then a plain session: only the first is boxed."""
    monkeypatch.setenv("GEMINI_API_KEY", "key-a")
    ws_a, ws_b, outside = _folders(tmp_path)
    env_before = dict(os.environ)
    with MockLLMServer.in_thread() as alpha:
        _configure(alpha.url, "http://127.0.0.1:9")
        alpha.enqueue(_shell(_writes(ws_a, outside, "a"), "a1"), {"text": "a done"})
        monkeypatch.chdir(ws_a)
        argv = ["-s", "--provider", "alpha", "--approval-mode", "yolo", "-p", "write in a"]
        assert cli.main(argv) == 0
        assert dict(os.environ) == env_before  # no flag left behind in the environment
        assert _files(outside) == set()  # the -s run was boxed

        alpha.enqueue(_shell(_writes(ws_b, outside, "b"), "b1"), {"text": "b done"})
        options = RunOptions(ws_b, provider="alpha", approval_mode="yolo", interactive=False)
        built = build_session(load_settings(ws_b), options, trusted=False)

        async def run() -> None:
            try:
                done = await built.session.send("write in b")
                assert done.text == "b done"
            finally:
                await built.session.aclose()
                built.close()

        asyncio.run(run())
    assert _files(ws_b) == {"b.txt"}
    assert _files(outside) == {"b-was-here"}  # the second session was never sandboxed


def _session_in(folder: Path, url: str) -> Session:
    """A session on Gemini's wire at ``url`` whose folder is trusted (its hooks load)."""
    provider = ResolvedProvider(
        "alpha", "gemini", GeminiGenerator(make_client(), "k", url), "gemini-2.5-pro", 1_048_576
    )
    options = SessionOptions(workspace=folder, interactive=False, trusted_workspace=True)
    return Session(Settings(), provider, options)


async def test_closing_one_session_never_waits_for_another_sessions_hooks(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Observing hooks (SubagentStop) still running were one process-wide set, so closing a
    session waited for every session's: B's close hung on A's hook until it timed out.
    A's hook here waits for a FIFO; B closes while it waits, then A's is let go and ends
    ``ok`` (the control: the hook really ran, and really was waiting)."""
    monkeypatch.setenv("HOME", str(tmp_path / "person"))  # no hooks of the person's own
    ws_a, ws_b, _ = _folders(tmp_path)
    gate, marker = tmp_path / "gate", tmp_path / "a-hook-ended"
    os.mkfifo(gate)
    hook = {"type": "command", "command": f"read _ < {gate}; touch {marker}", "timeout": 30_000}
    settings_file = ws_a / ".gemini" / "settings.json"
    settings_file.parent.mkdir()
    settings_file.write_text(json.dumps({"hooks": {"SubagentStop": [{"hooks": [hook]}]}}))
    async with MockLLMServer() as server:
        server.enqueue(
            {"function_calls": [{"name": "generalist", "args": {"task": "say hi"}}]},
            {"function_calls": [{"name": "complete_task", "args": {"output": {"report": "hi"}}}]},
            {"text": "a done"},
        )
        a, b = _session_in(ws_a, server.url), _session_in(ws_b, server.url)
        a.set_approval_mode("yolo")
        try:
            assert (await a.send("hi")).text == "a done"  # A's SubagentStop hook now waits
            await b.aclose()
            assert not [r for r in a.hooks.runs if r.spec.event == "SubagentStop"]
            assert not marker.exists()
            await asyncio.to_thread(gate.write_text, "go\n")  # let A's hook go on
        finally:
            await a.aclose()  # A's own close does wait for A's hook
    assert [r.outcome for r in a.hooks.runs if r.spec.event == "SubagentStop"] == ["ok"]
    assert marker.exists()
