"""The agent loop end to end through Session/Executor against the mock Gemini server."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from gemtui.agent.executor import Executor, ExecutorConfig
from gemtui.bus import (
    AgentFinished,
    ApprovalDecision,
    ContentDelta,
    Decision,
    Event,
    HistoryCompressed,
    LoopDetected,
    ModelFallback,
    StreamRetried,
    TerminateReason,
    ToolCallState,
    ToolCallStateChanged,
    TurnFinished,
    UserMessage,
)
from gemtui.testing import MockLLMServer, filler
from gemtui.wire.cancel_note import is_cancel_note

from .conftest import SessionFactory, history_is_valid


def _responses(request_json: dict[str, Any]) -> list[dict[str, Any]]:
    last = request_json["contents"][-1]
    return [p["functionResponse"] for p in last["parts"] if "functionResponse" in p]


def _states(events: list[Event], call_id: str) -> list[str]:
    return [
        str(e.call.state)
        for e in events
        if isinstance(e, ToolCallStateChanged) and e.call.call_id == call_id
    ]


async def test_several_turns_parallel_reads_and_ordered_results(
    mock_llm: MockLLMServer, make_session: SessionFactory, workspace: Path
) -> None:
    (workspace / "a.txt").write_text("alpha\n")
    (workspace / "b.txt").write_text("beta\n")
    mock_llm.enqueue(
        {
            "function_calls": [
                {"name": "read_file", "args": {"file_path": "a.txt"}, "id": "call-a"},
                {"name": "read_file", "args": {"file_path": "b.txt"}, "id": "call-b"},
            ]
        },
        {
            "function_calls": [
                {"name": "list_directory", "args": {"dir_path": "."}, "id": "call-ls"}
            ]
        },
        {"text": "Both files read.", "usage": {"prompt": 50, "output": 4, "total": 54}},
    )
    events: list[Event] = []
    session = make_session(events=events)
    done = await session.send("read a and b")
    assert done.reason == TerminateReason.GOAL
    assert done.text == "Both files read."
    assert done.turns == 3
    second = mock_llm.requests[1].json
    responses = _responses(second)
    assert [r["id"] for r in responses] == ["call-a", "call-b"]
    assert "alpha" in responses[0]["response"]["output"]
    assert "beta" in responses[1]["response"]["output"]
    assert next(e.__class__.__name__ for e in events) == "UserMessage"
    assert isinstance(events[-1], AgentFinished)
    assert _states(events, "call-a") == ["validating", "scheduled", "executing", "success"]
    assert history_is_valid(session.chat.history)
    seqs = [e.seq for e in events]
    assert seqs == sorted(seqs)
    assert len(set(seqs)) == len(seqs)
    assert all(e.prompt_id == f"{session.id}#1" for e in events)


async def test_failing_tool_and_invalid_argument_go_back_as_errors(
    mock_llm: MockLLMServer, make_session: SessionFactory
) -> None:
    mock_llm.enqueue(
        {
            "function_calls": [
                {"name": "read_file", "args": {"file_path": "missing.txt"}, "id": "c1"},
                {"name": "read_file", "args": {"nope": 1}, "id": "c2"},
                {"name": "no_such_tool", "args": {}, "id": "c3"},
            ]
        },
        {"text": "I see the errors."},
    )
    session = make_session()
    done = await session.send("go")
    assert done.reason == TerminateReason.GOAL
    responses = _responses(mock_llm.requests[1].json)
    assert [r["id"] for r in responses] == ["c1", "c2", "c3"]
    assert all("error" in r["response"] for r in responses)
    assert "not found" in responses[2]["response"]["error"]
    assert history_is_valid(session.chat.history)


async def test_headless_ask_becomes_deny_and_the_file_is_untouched(
    mock_llm: MockLLMServer, make_session: SessionFactory, workspace: Path
) -> None:
    target = workspace / "x.txt"
    target.write_text("old\n")
    mock_llm.enqueue(
        {
            "function_calls": [
                {
                    "name": "write_file",
                    "args": {"file_path": "x.txt", "content": "new\n"},
                    "id": "w1",
                }
            ]
        },
        {"text": "ok"},
    )
    done = await make_session().send("change it")
    assert done.reason == TerminateReason.GOAL
    assert target.read_text() == "old\n"
    assert "needs approval" in _responses(mock_llm.requests[1].json)[0]["response"]["error"]


async def test_interactive_approval_allows_then_rejection_refuses(
    mock_llm: MockLLMServer, make_session: SessionFactory, workspace: Path
) -> None:
    target = workspace / "x.txt"
    target.write_text("old\n")
    mock_llm.enqueue(
        {
            "function_calls": [
                {
                    "name": "replace",
                    "args": {
                        "file_path": "x.txt",
                        "instruction": "i",
                        "old_string": "old",
                        "new_string": "new",
                    },
                    "id": "r1",
                }
            ]
        },
        {
            "function_calls": [
                {
                    "name": "write_file",
                    "args": {"file_path": "x.txt", "content": "evil\n"},
                    "id": "w2",
                }
            ]
        },
        {"text": "done"},
    )
    events: list[Event] = []
    session = make_session(interactive=True, events=events)
    answers = iter(
        [
            Decision(ApprovalDecision.ALLOW_ONCE),
            Decision(ApprovalDecision.REJECT_WITH_FEEDBACK, feedback="not like that"),
        ]
    )

    def approve(ev: Event) -> None:
        if (
            isinstance(ev, ToolCallStateChanged)
            and ev.call.state == ToolCallState.AWAITING_APPROVAL
        ):
            assert ev.call.confirmation is not None
            corr = ev.call.correlation_id
            assert corr is not None
            decision = next(answers)
            asyncio.get_running_loop().call_soon(session.bus.decide, corr, decision)

    session.bus.subscribe(approve)
    done = await session.send("edit")
    assert done.reason == TerminateReason.GOAL
    assert target.read_text() == "new\n"
    diff = next(
        e.call.confirmation.diff
        for e in events
        if isinstance(e, ToolCallStateChanged) and e.call.call_id == "r1" and e.call.confirmation
    )
    assert "-old" in diff
    assert "+new" in diff
    rejected = _responses(mock_llm.requests[2].json)[0]
    assert "not like that" in rejected["response"]["error"]
    # the approval came before execution
    assert _states(events, "r1") == [
        "validating",
        "awaiting_approval",
        "scheduled",
        "executing",
        "success",
    ]


async def test_cancel_mid_tool_kills_it_and_answers_every_call(
    mock_llm: MockLLMServer, make_session: SessionFactory
) -> None:
    mock_llm.enqueue(
        {
            "function_calls": [
                {"name": "run_shell_command", "args": {"command": "sleep 30"}, "id": "s1"},
                {"name": "run_shell_command", "args": {"command": "echo never"}, "id": "s2"},
            ]
        },
    )
    events: list[Event] = []
    session = make_session(approval_mode="yolo", events=events)

    def on_event(ev: Event) -> None:
        if (
            isinstance(ev, ToolCallStateChanged)
            and ev.call.call_id == "s1"
            and ev.call.state == ToolCallState.EXECUTING
        ):
            asyncio.get_running_loop().call_soon(session.cancel)

    session.bus.subscribe(on_event)
    done = await asyncio.wait_for(session.send("run"), timeout=20)
    assert done.reason == TerminateReason.ABORTED
    assert done.exit_code == 130
    assert _states(events, "s1")[-1] == "cancelled"
    assert "executing" not in _states(events, "s2")
    assert history_is_valid(session.chat.history)
    assert len(mock_llm.requests) == 1  # no model call after the cancel


async def test_cancel_mid_stream_keeps_the_partial_answer(
    mock_llm: MockLLMServer, make_session: SessionFactory
) -> None:
    mock_llm.enqueue(
        {"text": " ".join(f"w{i}" for i in range(200)), "chunk_tokens": 1, "tokens_per_second": 50}
    )
    events: list[Event] = []
    session = make_session(events=events)

    def on_event(ev: Event) -> None:
        if isinstance(ev, ContentDelta) and sum(isinstance(e, ContentDelta) for e in events) == 3:
            session.cancel()

    session.bus.subscribe(on_event)
    done = await asyncio.wait_for(session.send("talk"), timeout=20)
    assert done.reason == TerminateReason.ABORTED
    assert done.text.startswith("w0 w1 w2")
    *_, partial, note = session.chat.history
    assert partial.role == "model"
    assert (partial.parts[0].text or "").startswith("w0 w1 w2")
    assert is_cancel_note(note), "then the model is told the prompt was cancelled"


async def test_max_turns_stops_the_loop(
    mock_llm: MockLLMServer, make_session: SessionFactory
) -> None:
    for i in range(3):
        mock_llm.enqueue(
            {
                "function_calls": [
                    {"name": "list_directory", "args": {"dir_path": "."}, "id": f"l{i}"}
                ]
            }
        )
    session = make_session(max_turns=2)
    done = await session.send("loop")
    assert done.reason == TerminateReason.MAX_TURNS
    assert done.exit_code == 53, "the engine classifies the ending once (--max-turns: 53)"
    assert done.turns == 2
    assert history_is_valid(session.chat.history)


async def test_loop_detector_stops_a_repeating_model(
    mock_llm: MockLLMServer, make_session: SessionFactory
) -> None:
    for _ in range(6):
        mock_llm.enqueue(
            {"function_calls": [{"name": "list_directory", "args": {"dir_path": "."}}]}
        )
    events: list[Event] = []
    done = await make_session(events=events).send("loop")
    assert done.reason == TerminateReason.LOOP
    assert any(isinstance(e, LoopDetected) for e in events)


async def test_broken_stream_retried_with_retry_event(
    mock_llm: MockLLMServer, make_session: SessionFactory
) -> None:
    mock_llm.enqueue(
        {"text": "a b c d", "chunks": 4, "fault": "reset_after", "after_chunks": 2},
        {"text": "clean"},
    )
    events: list[Event] = []
    done = await make_session(events=events).send("hi")
    assert done.text == "clean"
    assert any(isinstance(e, StreamRetried) for e in events)


async def test_fallback_model_event(mock_llm: MockLLMServer, make_session: SessionFactory) -> None:
    mock_llm.enqueue(
        {"error": {"status": 429, "message": "capacity", "reason": "MODEL_CAPACITY_EXHAUSTED"}},
        {"text": "ok"},
    )
    events: list[Event] = []
    session = make_session(fallback=["gemini-2.5-flash"], events=events)
    done = await session.send("hi")
    assert done.reason == TerminateReason.GOAL
    fb = [e for e in events if isinstance(e, ModelFallback)]
    assert fb
    assert fb[0].to_model == "gemini-2.5-flash"
    assert session.chat.model == "gemini-2.5-flash"


async def test_compression_keeps_recent_turns_and_pairs_and_reduces_tokens(
    mock_llm: MockLLMServer, make_session: SessionFactory, workspace: Path
) -> None:
    (workspace / "f.txt").write_text("data\n")
    session = make_session(context_window=4000)
    for i in range(6):
        mock_llm.enqueue({"text": f"answer {i} " + filler(120, "lorem"), "usage": {"prompt": 100}})
        await session.send(f"question {i} " + "context " * 40)
    mock_llm.enqueue(
        {
            "function_calls": [{"name": "read_file", "args": {"file_path": "f.txt"}, "id": "rf"}],
            "usage": {"prompt": 100},
        },
        {"text": "final answer", "usage": {"prompt": 100}},
    )
    await session.send("read f")
    before_history = list(session.chat.history)
    events: list[Event] = []
    session.bus.subscribe(events.append)
    mock_llm.enqueue({"text": "SUMMARY of everything"})
    await session.compress()
    done = [e for e in events if isinstance(e, HistoryCompressed)]
    assert done
    assert done[0].tokens_after < done[0].tokens_before
    history = session.chat.history
    assert "SUMMARY of everything" in (history[0].parts[0].text or "")
    # the latest turns are kept verbatim, the call/response pair together
    assert history[-4:] == before_history[-4:]
    assert history_is_valid(history)
    counted = [r for r in mock_llm.requests if r.path.endswith(":countTokens")]
    assert len(counted) == 2


async def test_automatic_compression_when_prompt_passes_the_threshold(
    mock_llm: MockLLMServer, make_session: SessionFactory
) -> None:
    events: list[Event] = []
    session = make_session(context_window=1000, events=events)
    for i in range(4):
        mock_llm.enqueue(
            {"text": f"a{i} " + filler(200, "x"), "usage": {"prompt": 700 if i == 3 else 100}}
        )
        await session.send(f"q{i} " + "y " * 100)
    mock_llm.enqueue({"text": "summary"}, {"text": "after compression"})
    done = await session.send("next")
    assert any(isinstance(e, HistoryCompressed) for e in events)
    assert done.text == "after compression"


class Answer(BaseModel):
    files: list[str]


async def test_task_mode_complete_task_with_validation_retry(
    mock_llm: MockLLMServer, make_session: SessionFactory
) -> None:
    mock_llm.enqueue(
        {
            "function_calls": [
                {"name": "complete_task", "args": {"output": {"files": "not a list"}}, "id": "ct1"}
            ]
        },
        {
            "function_calls": [
                {"name": "complete_task", "args": {"output": {"files": ["a.py"]}}, "id": "ct2"}
            ]
        },
    )
    session = make_session()
    ex = Executor(
        session.chat, session.scheduler, session.bus, ExecutorConfig(output_schema=Answer)
    )
    done = await ex.run("list files")
    assert done.reason == TerminateReason.GOAL
    assert done.output == Answer(files=["a.py"])
    first_error = _responses(mock_llm.requests[1].json)[0]["response"]["error"]
    assert "validation" in first_error


async def test_task_mode_recovery_turn_after_no_complete_task(
    mock_llm: MockLLMServer, make_session: SessionFactory
) -> None:
    mock_llm.enqueue(
        {"text": "I am done (but forgot to call complete_task)."},
        {
            "function_calls": [
                {"name": "complete_task", "args": {"output": {"files": []}}, "id": "ct"}
            ]
        },
    )
    session = make_session()
    ex = Executor(
        session.chat, session.scheduler, session.bus, ExecutorConfig(output_schema=Answer)
    )
    done = await ex.run("go")
    assert done.reason == TerminateReason.GOAL
    assert "complete_task" in mock_llm.requests[1].json["contents"][-1]["parts"][0]["text"]


async def test_timeout_is_a_cancellation_with_its_own_reason(
    mock_llm: MockLLMServer, make_session: SessionFactory
) -> None:
    mock_llm.enqueue({"text": filler(100, "slow"), "chunk_tokens": 1, "tokens_per_second": 20})
    session = make_session()
    ex = Executor(session.chat, session.scheduler, session.bus, ExecutorConfig(timeout=0.3))
    done = await asyncio.wait_for(ex.run("go"), timeout=20)
    assert done.reason == TerminateReason.TIMEOUT


async def test_usage_is_reported_per_turn(
    mock_llm: MockLLMServer, make_session: SessionFactory
) -> None:
    mock_llm.enqueue(
        {"text": "x", "usage": {"prompt": 11, "output": 2, "thoughts": 3, "cached": 4, "total": 16}}
    )
    events: list[Event] = []
    done = await make_session(events=events).send("hi")
    fin = next(e for e in events if isinstance(e, TurnFinished))
    assert (
        fin.usage.input,
        fin.usage.output,
        fin.usage.thoughts,
        fin.usage.cached,
        fin.usage.total,
    ) == (11, 2, 3, 4, 16)
    assert done.usage_by_model["gemini-2.5-pro"].total == 16
    assert isinstance(events[0], UserMessage)


async def test_switching_provider_and_model_keeps_the_conversation(
    mock_llm: MockLLMServer, make_session: SessionFactory
) -> None:
    from gemtui.agent.provider_choice import ResolvedProvider
    from gemtui.providers.http import make_client
    from gemtui.providers.openai_compat import OpenAICompatGenerator
    from gemtui.providers.retry import RetryingGenerator

    session = make_session()
    mock_llm.enqueue({"text": "from gemini"}, {"text": "from qwen"})
    await session.send("first")
    gen = RetryingGenerator(OpenAICompatGenerator(make_client(), f"{mock_llm.url}/v1", None))
    await session.switch_model(
        "qwen3-coder", ResolvedProvider("local", "openai", gen, "qwen3-coder", 32_768)
    )
    done = await session.send("second")
    assert done.text == "from qwen"
    body = mock_llm.requests[-1].json
    assert mock_llm.requests[-1].path == "/v1/chat/completions"
    assert body["model"] == "qwen3-coder"
    convo = [(m["role"], m.get("content")) for m in body["messages"] if m["role"] != "system"]
    assert convo == [("user", "first"), ("assistant", "from gemini"), ("user", "second")]


async def test_fallback_stays_available_after_switching_back(
    mock_llm: MockLLMServer, make_session: SessionFactory
) -> None:
    """The person switches back to the Pro model after a fallback; the next terminal 429
    falls back again (the settings' list is not used up by the first fallback), and the
    session's model is the chat's, wherever it is read."""
    quota = {"error": {"status": 429, "message": "capacity", "reason": "MODEL_CAPACITY_EXHAUSTED"}}
    mock_llm.enqueue(quota, {"text": "first"}, quota, {"text": "second"})
    events: list[Event] = []
    session = make_session(fallback=["gemini-2.5-flash"], events=events)
    assert (await session.send("one")).reason == TerminateReason.GOAL
    assert session.model == session.chat.model == "gemini-2.5-flash"
    await session.switch_model("gemini-2.5-pro")
    assert session.model == "gemini-2.5-pro"
    done = await session.send("two")
    assert done.reason == TerminateReason.GOAL
    assert done.text == "second"
    falls = [e.to_model for e in events if isinstance(e, ModelFallback)]
    assert falls == ["gemini-2.5-flash", "gemini-2.5-flash"]
    models = [r.path.rsplit("/", 1)[-1].split(":")[0] for r in mock_llm.requests]
    assert models == ["gemini-2.5-pro", "gemini-2.5-flash"] * 2
