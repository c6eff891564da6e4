"""One conformance suite every adapter passes, driven through the engine against the mock.

Each test runs a real ``Session`` (chat, turn, executor, scheduler, tools) over one adapter
wrapped in a fast ``RetryingGenerator``, then checks the events and the requests the mock
recorded, which must be valid for that adapter's API. A new adapter gets the suite by
adding a ``Harness``.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from gemtui.agent.provider_choice import ResolvedProvider
from gemtui.agent.session import Session, SessionOptions
from gemtui.auth.refresh import TokenSource
from gemtui.bus import (
    ContentDelta,
    Event,
    RequestRetrying,
    StreamRetried,
    TerminateReason,
    ThoughtDelta,
    ToolOutput,
    TurnFinished,
)
from gemtui.config.settings import Settings
from gemtui.providers.anthropic import AnthropicGenerator
from gemtui.providers.base import ContentGenerator
from gemtui.providers.code_assist import CodeAssistGenerator
from gemtui.providers.gemini import GeminiGenerator
from gemtui.providers.http import make_client
from gemtui.providers.openai_compat import OpenAICompatGenerator
from gemtui.providers.retry import RetryingGenerator, RetryPolicy
from gemtui.providers.text_tools import TextToolsGenerator
from gemtui.providers.vertex import VertexGenerator
from gemtui.testing import MockLLMServer, RecordedRequest
from gemtui.wire.cancel_note import CANCELLED_NOTE, is_cancel_note

FAST = RetryPolicy(max_attempts=3, initial_delay=0.01, max_delay=0.02)
ADAPTERS = [
    "gemini",
    "code_assist",
    "vertex",
    "openai_compat",
    "anthropic",
    "text_tools",
    "text_tools_gemini",
    "text_tools_anthropic",
]
"""``text_tools`` wraps the OpenAI-compatible adapter; the other two text-tools harnesses
run the same wrapper over the Gemini and Anthropic wires; ``code_assist`` speaks Gemini's
body inside the Code Assist envelope; ``vertex`` speaks Gemini's body on Vertex AI's
project path with a Bearer token."""
GENERATION_PATHS = (":streamGenerateContent", ":generateContent", "/chat/completions", "/messages")
GEMINI_ONLY = {
    "contents",
    "parts",
    "functionCall",
    "functionResponse",
    "function_call",
    "function_response",
    "thoughtSignature",
    "thought_signature",
    "thought",
    "generationConfig",
    "systemInstruction",
    "inlineData",
    "toolConfig",
    "functionDeclarations",
}


@dataclass
class Harness:
    adapter: str
    srv: MockLLMServer
    thinking_budget: int = 0
    """Anthropic: the provider's ``thinking_budget`` setting."""
    model_name: str | None = None

    @property
    def wire(self) -> str:
        """The API spoken on the wire: gemini, anthropic or openai."""
        base = self.adapter.removeprefix("text_tools_")
        wires = {"gemini": "gemini", "code_assist": "gemini", "vertex": "gemini"}
        wires["anthropic"] = "anthropic"
        return wires.get(base, "openai")

    @property
    def text_tools(self) -> bool:
        return self.adapter.startswith("text_tools")

    @property
    def kind(self) -> str:
        kinds = {"code_assist": "code-assist", "vertex": "vertex"}
        return kinds.get(self.adapter, self.wire)

    @property
    def model(self) -> str:
        return self.model_name or {
            "gemini": "gemini-2.5-pro",
            "anthropic": "claude-sonnet-4-5",
        }.get(self.wire, "qwen3-coder")

    def generator(self, read_timeout: float | None = 5.0) -> ContentGenerator:
        client = make_client(read_timeout)
        url = self.srv.url
        inner: ContentGenerator
        if self.adapter == "code_assist":
            self.srv.account.require_token = True  # every request must carry a live token
            inner = CodeAssistGenerator(client, TokenSource(self.srv.account.grant()), endpoint=url)
        elif self.adapter == "vertex":  # the mock refuses a project path without a live token
            tokens = TokenSource(self.srv.account.grant())
            inner = VertexGenerator(
                client, tokens=tokens, project="p1", location="europe-west4", base_url=url
            )
        elif self.wire == "gemini":
            inner = GeminiGenerator(client, "gem-key", url)
        elif self.wire == "anthropic":
            inner = AnthropicGenerator(client, url, "ant-key", thinking_budget=self.thinking_budget)
        else:
            inner = OpenAICompatGenerator(client, f"{url}/v1", "oai-key")
        return TextToolsGenerator(inner) if self.text_tools else inner

    def calls_step(self, calls: list[tuple[str, dict[str, Any]]], **kw: Any) -> dict[str, Any]:
        """A step answering with these calls, natively or as text for text_tools."""
        if not self.text_tools:
            fcs = [{"name": n, "args": a, "id": f"call-{i}"} for i, (n, a) in enumerate(calls)]
            return {"function_calls": fcs, **kw}
        blocks = [
            "```json\n" + json.dumps({"tool_call": {"name": n, "arguments": a}}) + "\n```"
            for n, a in calls
        ]
        return {"text": "I will look.\n" + "\n".join(blocks), "chunks": 5, **kw}

    def generation_requests(self) -> list[RecordedRequest]:
        return [r for r in self.srv.requests if r.path.endswith(GENERATION_PATHS)]


@dataclass
class Run:
    session: Session
    events: list[Event]

    def of(self, cls: type[Any]) -> list[Any]:
        return [e for e in self.events if isinstance(e, cls)]

    def text(self) -> str:
        return "".join(e.text for e in self.of(ContentDelta))


@pytest.fixture(params=ADAPTERS)
def harness(request: pytest.FixtureRequest, mock_llm: MockLLMServer) -> Harness:
    return Harness(request.param, mock_llm)


def make_run(h: Harness, workspace: Path, *, read_timeout: float | None = 5.0) -> Run:
    gen = RetryingGenerator(h.generator(read_timeout), FAST)
    provider = ResolvedProvider(h.adapter, h.kind, gen, h.model, 128_000)
    options = SessionOptions(
        workspace=workspace, interactive=False, approval_mode="yolo", stream_retry_delays=(0, 0, 0)
    )
    session = Session(Settings(), provider, options)
    events: list[Event] = []
    session.bus.subscribe(events.append)
    return Run(session, events)


# -- reading recorded requests back, per API --------------------------------------------


def gemini_body(h: Harness, body: dict[str, Any]) -> dict[str, Any]:
    """The Gemini request itself (Code Assist sends it inside ``request``)."""
    return body["request"] if h.adapter == "code_assist" else body


def conversation(h: Harness, body: dict[str, Any]) -> list[tuple[str, str]]:
    """(role, text) of each message, roles as user/model, tool traffic left out."""
    out: list[tuple[str, str]] = []
    body = gemini_body(h, body)
    if h.wire == "gemini":
        for c in body["contents"]:
            text = "".join(p.get("text", "") for p in c["parts"] if not p.get("thought"))
            if text:
                out.append((c["role"], text))
        return out
    for m in body["messages"]:
        if m["role"] not in ("user", "assistant"):
            continue
        content = m.get("content")
        if isinstance(content, list):
            content = "".join(b.get("text", "") for b in content if b.get("type") == "text")
        if content:
            out.append(("model" if m["role"] == "assistant" else "user", content))
    return out


def tool_exchange(
    h: Harness, body: dict[str, Any]
) -> tuple[list[str], list[tuple[str, str, bool]]]:
    """Ids of the last model turn's calls, and (id, result text, is_error) of the results."""
    body = gemini_body(h, body)
    if h.text_tools:
        return _text_tool_exchange(h, body)
    if h.wire == "gemini":
        calls = [
            p["functionCall"]["id"] for p in body["contents"][-2]["parts"] if "functionCall" in p
        ]
        results = []
        for p in body["contents"][-1]["parts"]:
            fr = p["functionResponse"]
            resp = fr["response"]
            results.append((fr["id"], str(resp.get("output", resp.get("error"))), "error" in resp))
        return calls, results
    if h.wire == "anthropic":
        msgs = body["messages"]
        calls = [b["id"] for b in msgs[-2]["content"] if b["type"] == "tool_use"]
        results = [
            (b["tool_use_id"], b["content"], bool(b.get("is_error")))
            for b in msgs[-1]["content"]
            if b["type"] == "tool_result"
        ]
        return calls, results
    msgs = body["messages"]
    last_assistant = max(i for i, m in enumerate(msgs) if m["role"] == "assistant")
    calls = [tc["id"] for tc in msgs[last_assistant]["tool_calls"]]
    tools = [m for m in msgs[last_assistant + 1 :] if m["role"] == "tool"]
    return calls, [
        (m["tool_call_id"], m["content"], m["content"].startswith("Error")) for m in tools
    ]


def _text_tool_exchange(
    h: Harness, body: dict[str, Any]
) -> tuple[list[str], list[tuple[str, str, bool]]]:
    """Text tools: results come back as the last user message's text, naming the call's id."""
    last_user = conversation(h, body)[-1][1]
    results = []
    for chunk in last_user.split("Tool result for ")[1:]:
        head, _, rest = chunk.partition("): ")
        call_id = head.split("(", 1)[1]
        results.append((call_id, rest.strip(), rest.startswith("Error")))
    return [r[0] for r in results], results


def _keys(obj: Any) -> set[str]:
    if isinstance(obj, dict):
        return set(obj) | {k for v in obj.values() for k in _keys(v)}
    if isinstance(obj, list):
        return {k for v in obj for k in _keys(v)}
    return set()


def assert_valid_requests(h: Harness) -> None:
    """Every generation request is valid for the adapter's API."""
    for req in h.generation_requests():
        body = req.json
        assert isinstance(body, dict)
        if h.text_tools:
            _assert_text_tools(h, body)
        if h.adapter == "code_assist":
            _assert_code_assist(h, req, body)
            continue
        if h.adapter == "vertex":
            _assert_vertex(h, req, body)
            continue
        if h.wire == "gemini":
            assert req.headers["x-goog-api-key"] == "gem-key"
            _assert_gemini(body)
            continue
        leaked = _keys(body) & GEMINI_ONLY
        assert not leaked, f"Gemini-only fields in a {h.adapter} request: {leaked}"
        if h.wire == "anthropic":
            _assert_anthropic(req, body)
        else:
            _assert_openai(h, req, body)


def _assert_text_tools(h: Harness, body: dict[str, Any]) -> None:
    """No tool traffic on the wire: declarations in the system text, calls and results as
    plain text in alternating turns."""
    if h.wire == "gemini":
        assert "tools" not in body or all("functionDeclarations" not in t for t in body["tools"])
        system = "".join(p.get("text", "") for p in body["systemInstruction"]["parts"])
        parts = [p for c in body["contents"] for p in c["parts"]]
        assert all(set(p) <= {"text", "thought"} for p in parts), parts
    elif h.wire == "anthropic":
        assert "tools" not in body
        raw = body["system"]
        system = raw if isinstance(raw, str) else "".join(b.get("text", "") for b in raw)
        blocks = [
            b for m in body["messages"] if isinstance(m["content"], list) for b in m["content"]
        ]
        assert all(b["type"] == "text" for b in blocks), blocks
    else:
        assert "tools" not in body
        msgs = body["messages"]
        assert all(m["role"] != "tool" and "tool_calls" not in m for m in msgs)
        assert msgs[0]["role"] == "system"
        system = msgs[0]["content"]
    assert "Available tools" in system


def _assert_gemini(body: dict[str, Any]) -> None:
    """Roles are user/model; each functionCall is answered, by id, in the next content."""
    contents = body["contents"]
    assert all(c["role"] in ("user", "model") for c in contents)
    for i, c in enumerate(contents):
        calls = [p["functionCall"]["id"] for p in c["parts"] if "functionCall" in p]
        if not calls:
            continue
        nxt = contents[i + 1] if i + 1 < len(contents) else {"role": "", "parts": []}
        answered = [p["functionResponse"]["id"] for p in nxt["parts"] if "functionResponse" in p]
        assert nxt["role"] == "user", (calls, nxt)
        assert sorted(answered) == sorted(calls), (calls, nxt)


def _assert_code_assist(h: Harness, req: RecordedRequest, body: dict[str, Any]) -> None:
    """The envelope of the seed: bare model id, project, user_prompt_id, the request with
    its session_id; a live Bearer token, never an API key."""
    assert req.path.startswith("/v1internal:")
    assert h.srv.account.authorized(req.headers)
    assert "x-goog-api-key" not in req.headers
    assert req.headers["user-agent"].startswith("gemtui/")
    assert set(body) == {"model", "project", "user_prompt_id", "request"}
    assert body["model"] == h.model
    assert body["project"] == "mock-project"
    assert body["user_prompt_id"]
    assert body["request"]["session_id"]
    _assert_gemini(body["request"])


def _assert_vertex(h: Harness, req: RecordedRequest, body: dict[str, Any]) -> None:
    """The Gemini body itself on the project's publisher path; a live Bearer token, no key."""
    scope = "/v1/projects/p1/locations/europe-west4/publishers/google/models/"
    assert req.path.startswith(scope + h.model + ":")
    assert h.srv.account.authorized(req.headers)
    assert "x-goog-api-key" not in req.headers
    _assert_gemini(body)


def _assert_anthropic(req: RecordedRequest, body: dict[str, Any]) -> None:
    assert req.path == "/v1/messages"
    assert req.headers["x-api-key"] == "ant-key"
    assert req.headers["anthropic-version"] == "2023-06-01"
    assert body["stream"] is True
    assert body["max_tokens"] > 0
    msgs = body["messages"]
    roles = [m["role"] for m in msgs]
    assert roles[0] == "user"
    assert all(a != b for a, b in itertools.pairwise(roles)), roles
    for i, m in enumerate(msgs):
        uses = [b["id"] for b in m["content"] if b["type"] == "tool_use"]
        if not uses:
            continue
        nxt = msgs[i + 1]["content"] if i + 1 < len(msgs) else []
        results = [b["tool_use_id"] for b in nxt if b["type"] == "tool_result"]
        assert results == uses
        assert [b["type"] for b in nxt[: len(results)]] == ["tool_result"] * len(results)
    for tool in body.get("tools", []):
        assert set(tool) == {"name", "description", "input_schema"}
    if "thinking" in body:  # extended thinking: the shape and limits the API enforces
        thinking = body["thinking"]
        assert thinking["type"] == "enabled"
        assert thinking["budget_tokens"] >= 1024
        assert body["max_tokens"] > thinking["budget_tokens"]
        assert "temperature" not in body
        assert "top_p" not in body
        assert body.get("tool_choice", {}).get("type") not in ("any", "tool")
        for m in msgs:  # a model turn that called tools starts with its signed thinking
            blocks = m["content"]
            if m["role"] == "assistant" and any(b["type"] == "tool_use" for b in blocks):
                assert blocks[0]["type"] == "thinking", blocks
                assert blocks[0]["signature"]


def _assert_openai(h: Harness, req: RecordedRequest, body: dict[str, Any]) -> None:
    assert req.path == "/v1/chat/completions"
    assert req.headers["authorization"] == "Bearer oai-key"
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
    msgs = body["messages"]
    assert {m["role"] for m in msgs} <= {"system", "user", "assistant", "tool"}
    if h.text_tools:
        return
    for tool in body.get("tools", []):
        assert tool["type"] == "function"
        assert set(tool["function"]) == {
            "name",
            "description",
            "parameters",
        }
        assert tool["function"]["parameters"]["type"] == "object"
    for i, m in enumerate(msgs):
        if not m.get("tool_calls"):
            continue
        ids = [tc["id"] for tc in m["tool_calls"]]
        answered = []
        for follow in msgs[i + 1 :]:
            if follow["role"] != "tool":
                break
            answered.append(follow["tool_call_id"])
        assert answered == ids
        for tc in m["tool_calls"]:
            assert tc["type"] == "function"
            assert isinstance(tc["function"]["arguments"], str)


# -- the suite ---------------------------------------------------------------------------


async def test_plain_answer(harness: Harness, workspace: Path) -> None:
    harness.srv.enqueue({"text": "Hello there, my friend.", "chunks": 3})
    run = make_run(harness, workspace)
    done = await run.session.send("hi")
    assert done.reason == TerminateReason.GOAL
    assert run.text() == "Hello there, my friend." == done.text
    assert len(run.of(ContentDelta)) >= 2  # streamed, not delivered whole
    (req,) = harness.generation_requests()
    assert conversation(harness, req.json)[-1] == ("user", "hi")
    assert_valid_requests(harness)
    await run.session.aclose()


async def test_multi_turn_sends_history_back(harness: Harness, workspace: Path) -> None:
    harness.srv.enqueue({"text": "answer one"}, {"text": "answer two"})
    run = make_run(harness, workspace)
    await run.session.send("first question")
    done = await run.session.send("second question")
    assert done.text == "answer two"
    second = harness.generation_requests()[-1].json
    assert conversation(harness, second) == [
        ("user", "first question"),
        ("model", "answer one"),
        ("user", "second question"),
    ]
    assert_valid_requests(harness)
    await run.session.aclose()


async def test_parallel_tool_calls_results_in_order(harness: Harness, workspace: Path) -> None:
    (workspace / "a.txt").write_text("alpha content\n")
    (workspace / "b.txt").write_text("beta content\n")
    calls = [("read_file", {"file_path": "a.txt"}), ("read_file", {"file_path": "b.txt"})]
    harness.srv.enqueue(harness.calls_step(calls), {"text": "Both files read."})
    run = make_run(harness, workspace)
    done = await run.session.send("read a and b")
    assert done.reason == TerminateReason.GOAL
    assert done.text.endswith("Both files read.")
    assert "tool_call" not in run.text()  # the call's JSON never shows as text
    reqs = harness.generation_requests()
    assert len(reqs) == 2
    call_ids, results = tool_exchange(harness, reqs[1].json)
    assert [r[0] for r in results] == call_ids
    assert len(call_ids) == 2
    assert "alpha content" in results[0][1]
    assert "beta content" in results[1][1]
    assert not any(r[2] for r in results)
    assert_valid_requests(harness)
    await run.session.aclose()


async def test_tool_error_goes_back_as_error_result(harness: Harness, workspace: Path) -> None:
    harness.srv.enqueue(
        harness.calls_step([("read_file", {"file_path": "missing.txt"})]),
        {"text": "That file does not exist."},
    )
    run = make_run(harness, workspace)
    done = await run.session.send("read missing.txt")
    assert done.reason == TerminateReason.GOAL
    call_ids, results = tool_exchange(harness, harness.generation_requests()[1].json)
    assert len(results) == 1
    assert results[0][0] == call_ids[0]
    assert results[0][2], results
    assert "missing.txt" in results[0][1] or "not" in results[0][1].lower()
    assert_valid_requests(harness)
    await run.session.aclose()


async def test_thoughts_stream_as_thought_events(harness: Harness, workspace: Path) -> None:
    harness.srv.enqueue({"thought": "**Planning** I should greet them", "text": "Hi!", "chunks": 2})
    run = make_run(harness, workspace)
    done = await run.session.send("hello")
    thoughts = "".join(e.text for e in run.of(ThoughtDelta))
    assert "I should greet them" in thoughts
    assert done.text == "Hi!"
    assert "greet" not in run.text()
    assert_valid_requests(harness)
    await run.session.aclose()


@pytest.mark.parametrize("adapter", ["openai_compat", "text_tools"])
async def test_think_tags_become_thoughts(
    adapter: str, mock_llm: MockLLMServer, workspace: Path
) -> None:
    """<think> tags are a convention of OpenAI-compatible local models (Qwen and kin)."""
    harness = Harness(adapter, mock_llm)
    harness.srv.enqueue({"text": "<think>weighing options</think>The answer is 4.", "chunks": 7})
    run = make_run(harness, workspace)
    done = await run.session.send("2+2?")
    assert "weighing options" in "".join(e.text for e in run.of(ThoughtDelta))
    assert done.text == "The answer is 4."
    await run.session.aclose()


async def test_usage_numbers_are_the_servers(harness: Harness, workspace: Path) -> None:
    harness.srv.enqueue({"text": "counted", "usage": {"prompt": 11, "output": 7, "total": 18}})
    run = make_run(harness, workspace)
    await run.session.send("count")
    (finished,) = run.of(TurnFinished)
    assert finished.finish_reason == "STOP"
    assert (finished.usage.input, finished.usage.output, finished.usage.total) == (11, 7, 18)
    await run.session.aclose()


# -- faults ------------------------------------------------------------------------------

RETRIED_BEFORE_FIRST_BYTE: dict[str, dict[str, Any]] = {
    "429": {
        "error": {
            "status": 429,
            "message": "slow down",
            "retry_delay": "0.05s",
            "headers": {"retry-after": "0.05"},
        }
    },
    "500": {"error": {"status": 500, "message": "backend error"}},
    "reset_before": {"fault": "reset_before"},
}


@pytest.mark.parametrize("fault", list(RETRIED_BEFORE_FIRST_BYTE))
async def test_fault_before_first_byte_is_retried(
    harness: Harness, workspace: Path, fault: str
) -> None:
    harness.srv.enqueue(RETRIED_BEFORE_FIRST_BYTE[fault], {"text": "recovered fine"})
    run = make_run(harness, workspace)
    done = await run.session.send("hi")
    assert done.reason == TerminateReason.GOAL
    assert done.text == "recovered fine"
    (notice,) = run.of(RequestRetrying)
    if fault == "429":
        assert notice.wait >= 0.05
        assert "slow down" in notice.message
    assert len(harness.generation_requests()) == 2
    assert_valid_requests(harness)
    await run.session.aclose()


MID_STREAM: dict[str, dict[str, Any]] = {
    "reset_after": {"fault": "reset_after", "after_chunks": 5},
    "malformed_frame": {"fault": "malformed_frame", "at": 5},
    "no_candidates": {"fault": "no_candidates"},
}


@pytest.mark.parametrize("fault", list(MID_STREAM))
async def test_broken_stream_is_retried_and_partial_discarded(
    harness: Harness, workspace: Path, fault: str
) -> None:
    first = {"text": "one two three four five six seven", "chunks": 7, **MID_STREAM[fault]}
    harness.srv.enqueue(first, {"text": "clean second answer"})
    run = make_run(harness, workspace)
    done = await run.session.send("hi")
    assert done.reason == TerminateReason.GOAL
    assert done.text == "clean second answer"
    assert run.of(StreamRetried)
    assert len(harness.generation_requests()) == 2
    assert_valid_requests(harness)
    await run.session.aclose()


async def test_stall_mid_stream_is_retried(harness: Harness, workspace: Path) -> None:
    stall = {
        "text": "a b c d e f g",
        "chunks": 7,
        "fault": "stall",
        "after_chunks": 5,
        "seconds": 3,
    }
    harness.srv.enqueue(stall, {"text": "after the stall"})
    run = make_run(harness, workspace, read_timeout=0.4)
    done = await run.session.send("hi")
    assert done.text == "after the stall"
    assert run.of(StreamRetried)
    await run.session.aclose()


async def test_persistent_stall_ends_in_an_error(harness: Harness, workspace: Path) -> None:
    for _ in range(FAST.max_attempts):
        harness.srv.enqueue({"text": "never", "fault": "stall", "after_chunks": 0, "seconds": 2})
    run = make_run(harness, workspace, read_timeout=0.3)
    done = await run.session.send("hi")
    assert done.reason == TerminateReason.ERROR
    assert done.error
    assert "timeout" in done.error.lower()
    await run.session.aclose()


async def test_cancel_mid_stream_keeps_partial(harness: Harness, workspace: Path) -> None:
    words = " ".join(f"w{i}" for i in range(60))
    harness.srv.enqueue({"text": words, "chunks": 60, "tokens_per_second": 40})
    run = make_run(harness, workspace)

    def on_event(ev: Event) -> None:
        if isinstance(ev, ContentDelta):
            run.session.cancel()

    run.session.bus.subscribe(on_event)
    done = await asyncio.wait_for(run.session.send("stream a lot"), 10)
    assert done.reason == TerminateReason.ABORTED
    partial = run.text()
    assert partial
    assert partial != words
    *_, answer, note = run.session.chat.history
    assert is_cancel_note(note), "the model is told the prompt was cancelled"
    assert answer.role == "model"
    kept = "".join(p.text or "" for p in answer.parts if not p.thought)
    assert kept
    assert words.startswith(kept.strip())
    await run.session.aclose()


@pytest.mark.parametrize("when", ["mid_answer", "mid_command"])
async def test_a_cancelled_prompt_is_never_asked_again(
    harness: Harness, workspace: Path, when: str
) -> None:
    """The next prompt's request tells the model the cancelled one was cancelled (it used
    to send both as one open question), in a request the adapter's API accepts: roles
    alternating, the cancelled call answered first."""
    if when == "mid_answer":  # its first words, then the stream held open until the cancel
        words = "Draft one two three four five six"  # past the first text frame on every wire
        first = {"text": words, "chunks": 7, "fault": "stall", "after_chunks": 5}
        cue: type[Event] = ContentDelta
    else:
        command = "echo started; sleep 30; echo never printed"
        first = harness.calls_step([("run_shell_command", {"command": command})])
        cue = ToolOutput
    harness.srv.enqueue(first, {"text": "Four."})
    run = make_run(harness, workspace)

    def on_event(ev: Event) -> None:
        if isinstance(ev, cue):
            run.session.cancel()

    run.session.bus.subscribe(on_event)
    cancelled = await asyncio.wait_for(run.session.send("write the release notes"), 20)
    assert cancelled.reason == TerminateReason.ABORTED
    done = await asyncio.wait_for(run.session.send("what is two plus two"), 20)
    assert done.text == "Four."
    said = conversation(harness, harness.generation_requests()[-1].json)
    asked = [text for role, text in said if role == "user"]
    assert asked[0] == "write the release notes", said
    assert CANCELLED_NOTE in asked[-1], said
    assert asked[-1].rstrip().endswith("what is two plus two")
    assert asked[-1].index(CANCELLED_NOTE) < asked[-1].index("what is two plus two")
    assert_valid_requests(harness)
    await run.session.aclose()


async def test_claude_thinking_budget_is_asked_streamed_and_kept(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    (workspace / "a.txt").write_text("alpha content\n")
    h = Harness("anthropic", mock_llm, thinking_budget=2048)
    mock_llm.enqueue(
        {
            "thought": "I should read a.txt first",
            **h.calls_step([("read_file", {"file_path": "a.txt"})]),
        },
        {"thought": "Now I can answer", "text": "It says alpha."},
    )
    run = make_run(h, workspace)
    done = await run.session.send("what is in a.txt?")
    assert done.text == "It says alpha."
    thoughts = "".join(e.text for e in run.of(ThoughtDelta))
    assert "I should read a.txt first" in thoughts
    assert "Now I can answer" in thoughts
    first, second = (r.json for r in h.generation_requests())
    assert first["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    assert first["max_tokens"] >= 2048 + 1024
    assistant = [m for m in second["messages"] if m["role"] == "assistant"][-1]
    assert [b["type"] for b in assistant["content"]] == ["thinking", "tool_use"]
    assert assistant["content"][0]["thinking"] == "I should read a.txt first"
    assert_valid_requests(h)
    await run.session.aclose()


@pytest.mark.parametrize(
    ("model", "asked"),
    [
        ("claude-sonnet-4-5", True),
        ("claude-opus-4-1-20250805", True),
        ("claude-haiku-4-5", True),
        ("claude-3-7-sonnet-20250219", True),
        ("claude-3-5-haiku-latest", False),
        ("claude-3-opus-20240229", False),
    ],
)
async def test_thinking_only_for_models_that_support_it(
    model: str, asked: bool, mock_llm: MockLLMServer, workspace: Path
) -> None:
    h = Harness("anthropic", mock_llm, thinking_budget=1024, model_name=model)
    mock_llm.enqueue({"text": "Hi."})
    run = make_run(h, workspace)
    await run.session.send("hello")
    (req,) = h.generation_requests()
    assert ("thinking" in req.json) is asked
    assert req.json["model"] == model
    assert_valid_requests(h)
    await run.session.aclose()


# -- real MCP servers' tools over every wire ---------------------------------------------


def tool_schemas(h: Harness, body: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Each declared tool's input schema, as this wire carries it."""
    if h.wire == "gemini":
        decls = [
            d for t in gemini_body(h, body).get("tools", []) for d in t["functionDeclarations"]
        ]
        return {d["name"]: d.get("parametersJsonSchema") or d["parameters"] for d in decls}
    if h.adapter == "anthropic":
        return {t["name"]: t["input_schema"] for t in body.get("tools", [])}
    return {t["function"]["name"]: t["function"]["parameters"] for t in body.get("tools", [])}


def assert_schema_accepted(h: Harness, schema: dict[str, Any]) -> None:
    """What each API's request validation asks of a tool schema."""
    import jsonschema

    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["type"] == "object"
    text = json.dumps(schema)
    assert "$ref" not in text
    assert "$defs" not in text
    assert "$schema" not in text
    if h.wire == "gemini":
        from gemtui.wire.schema import GEMINI_KEYWORDS

        nodes = [schema]
        while nodes:
            node = nodes.pop()
            assert set(node) <= GEMINI_KEYWORDS, node
            nodes += list(node.get("properties", {}).values())
            nodes += [
                node[k] for k in ("items", "additionalProperties") if isinstance(node.get(k), dict)
            ]
            nodes += node.get("anyOf", []) + node.get("prefixItems", [])


@pytest.mark.parametrize("adapter", ADAPTERS)
async def test_real_mcp_servers_tools_are_valid_in_every_wire(
    adapter: str, mock_llm: MockLLMServer, workspace: Path
) -> None:
    """mcp-server-time and mcp-server-git (PyPI, stdio): every tool's schema is sent in a
    form the wire format accepts, and a call to one runs through the engine."""
    import subprocess
    import sys

    from gemtui.config.settings import McpServerSettings
    from gemtui.mcp.tools import McpTools

    h = Harness(adapter, mock_llm)
    run = make_run(h, workspace)
    subprocess.run(["git", "init", "-q", str(workspace)], check=True)  # noqa: ASYNC221
    bin_dir = Path(sys.executable).parent
    servers = {
        "time": McpServerSettings(
            command=str(bin_dir / "mcp-server-time"), args=["--local-timezone", "UTC"], trust=True
        ),
        "git": McpServerSettings(
            command=str(bin_dir / "mcp-server-git"), args=["--repository", str(workspace)]
        ),
    }
    tools = McpTools(servers, run.session.registry, run.session.policy)
    tools.start()
    try:
        await tools.manager.wait_ready(30)
        offered = {t.name for s in tools.manager.states() for t in s.tools}
        assert {"get_current_time", "git_status"} <= offered, tools.manager.states()
        mock_llm.enqueue(
            h.calls_step([("get_current_time", {"timezone": "UTC"})]), {"text": "It is now."}
        )
        await run.session.send("what time is it?")
    finally:
        await tools.close()
    assert_valid_requests(h)
    first = h.generation_requests()[0].json
    assert isinstance(first, dict)
    schemas = tool_schemas(h, first) if not h.text_tools else {}
    if h.text_tools:
        assert "git_status" in json.dumps(first)  # described in the prompt instead
    else:
        assert offered <= set(schemas)
        for name in offered:
            assert_schema_accepted(h, schemas[name])
    _, results = tool_exchange(h, h.generation_requests()[-1].json)
    assert results, "the call's result went back to the model"
    assert "UTC" in results[0][1]
    assert not results[0][2]
