"""Chat and Turn over a scripted in-process generator: history, retries, events."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest

from gemtui.chat import Chat
from gemtui.chat.history import (
    SKIP_THOUGHT_SIGNATURE,
    consolidate_parts,
    ensure_active_loop_signatures,
    extract_curated_history,
)
from gemtui.chat.turn import (
    CitationEvent,
    ContentEvent,
    FinishedEvent,
    InvalidStreamEvent,
    RetryEvent,
    ThoughtEvent,
    ToolCallRequestEvent,
    Turn,
    UserCancelledEvent,
    parse_thought,
)
from gemtui.errors import StreamError
from gemtui.providers.base import Capabilities
from gemtui.wire import Content, FunctionCall, GenerateContentRequest, GenerateContentResponse, Part


def chunk(
    *parts: dict[str, Any],
    finish: str | None = None,
    usage: dict[str, int] | None = None,
    **cand: Any,
) -> dict[str, Any]:
    c: dict[str, Any] = {"content": {"role": "model", "parts": list(parts)}, **cand}
    if finish:
        c["finishReason"] = finish
    out: dict[str, Any] = {"candidates": [c]}
    if usage:
        out["usageMetadata"] = usage
    return out


class ScriptedGenerator:
    """Each stream() call plays the next script: a list of chunk dicts, or an exception after some."""

    name = "gemini"
    capabilities = Capabilities(thought_signatures=True)

    def __init__(self, *scripts: list[Any]) -> None:
        self.scripts = list(scripts)
        self.requests: list[GenerateContentRequest] = []
        self.gate: asyncio.Event | None = None

    async def stream(
        self, request: GenerateContentRequest, *, model: str, prompt_id: str = ""
    ) -> AsyncIterator[GenerateContentResponse]:
        self.requests.append(request)
        for item in self.scripts.pop(0):
            if isinstance(item, BaseException):
                raise item
            if item == "gate":
                assert self.gate is not None
                await self.gate.wait()
                continue
            yield GenerateContentResponse.model_validate(item)

    async def count_tokens(self, contents: list[Content], *, model: str) -> int:
        return sum(len(c.model_dump_json()) for c in contents) // 4

    async def aclose(self) -> None:
        return None


async def collect(turn: Turn, message: Content) -> list[Any]:
    return [e async for e in turn.run(message)]


async def test_turn_yields_thoughts_content_calls_and_finish() -> None:
    gen = ScriptedGenerator(
        [
            chunk({"text": "**Planning** the answer", "thought": True}),
            chunk({"text": " step by step", "thought": True}),
            chunk({"text": "Hello "}, citationMetadata={"citationSources": [{"uri": "https://x"}]}),
            chunk(
                {"text": "world"},
                {
                    "functionCall": {"name": "read_file", "args": {"file_path": "a"}},
                    "thoughtSignature": "sig==",
                },
            ),
            chunk(
                {"text": ""},
                finish="STOP",
                usage={"promptTokenCount": 5, "candidatesTokenCount": 3, "totalTokenCount": 8},
            ),
        ]
    )
    chat = Chat(gen, model="m", retry_delays=())  # type: ignore[arg-type]
    events = await collect(Turn(chat, "s#1"), Content.user("hi"))
    kinds = [type(e) for e in events]
    assert kinds == [
        ThoughtEvent,
        ThoughtEvent,
        ContentEvent,
        ContentEvent,
        ToolCallRequestEvent,
        CitationEvent,
        FinishedEvent,
    ]
    # the heading is parsed once, here; later parts of the thought keep its subject
    assert (events[0].subject, events[0].text) == ("Planning", "the answer")
    assert (events[1].subject, events[1].text) == ("Planning", " step by step")
    events.pop(1)
    call = events[3].call
    assert call.id
    assert call.id.startswith("read_file-")
    assert events[-1].usage.total == 8
    # history: user, then one model content with merged text and the call (with its signature)
    assert [c.role for c in chat.history] == ["user", "model"]
    parts = chat.history[1].parts
    assert parts[0].text == "Hello world"
    assert parts[1].function_call is not None
    assert parts[1].function_call.id == call.id
    assert parts[1].thought_signature == "sig=="
    assert all(not p.thought for p in parts)


async def test_broken_stream_is_retried_with_temperature_1_and_a_retry_event() -> None:
    gen = ScriptedGenerator(
        [chunk({"text": "partial"}), StreamError("reset")],
        [chunk({"text": "complete"}, finish="STOP")],
    )
    chat = Chat(gen, model="m", retry_delays=(0, 0, 0))  # type: ignore[arg-type]
    events = await collect(Turn(chat, "s#1"), Content.user("hi"))
    assert [type(e) for e in events] == [ContentEvent, RetryEvent, ContentEvent, FinishedEvent]
    assert gen.requests[1].generation_config is not None
    assert gen.requests[1].generation_config.temperature == 1.0
    assert chat.history[-1].parts[0].text == "complete"


@pytest.mark.parametrize(
    "bad",
    [
        [chunk({"text": "no finish reason"})],
        [chunk({"text": ""}, finish="STOP")],
        [chunk({"text": "x"}, finish="MALFORMED_FUNCTION_CALL")],
    ],
)
async def test_invalid_streams_are_retried_up_to_4_attempts(bad: list[Any]) -> None:
    gen = ScriptedGenerator(bad, bad, bad, bad)
    chat = Chat(gen, model="m", retry_delays=(0, 0, 0))  # type: ignore[arg-type]
    events = await collect(Turn(chat, "s#1"), Content.user("hi"))
    assert sum(isinstance(e, RetryEvent) for e in events) == 3
    assert isinstance(events[-1], InvalidStreamEvent)
    assert len(gen.requests) == 4
    # the failed exchange is not part of the curated history
    assert chat.curated_history() == [] or all(c.role == "user" for c in chat.curated_history())


async def test_cancel_mid_stream_keeps_partial_text_but_never_half_a_call() -> None:
    gen = ScriptedGenerator(
        [chunk({"text": "I was saying"}), "gate", chunk({"text": " more"}, finish="STOP")]
    )
    gen.gate = asyncio.Event()
    chat = Chat(gen, model="m", retry_delays=())  # type: ignore[arg-type]
    turn = Turn(chat, "s#1")
    events: list[Any] = []

    async def run() -> None:
        async for e in turn.run(Content.user("hi")):
            events.append(e)
            if isinstance(e, ContentEvent):
                turn.cancel.set()
                gen.gate.set()  # type: ignore[union-attr]

    await run()
    assert isinstance(events[-1], UserCancelledEvent)
    kept = chat.history[-1]
    assert kept.role == "model"
    assert (kept.parts[0].text or "").startswith("I was saying")
    assert all(p.function_call is None for p in kept.parts)


def test_curated_history_drops_invalid_exchanges() -> None:
    history = [
        Content.user("a"),
        Content.model("ok"),
        Content.user("b"),
        Content(role="model", parts=[Part(text="  ")]),
        Content.user("c"),
        Content.model("fine"),
    ]
    assert [c.parts[0].text for c in extract_curated_history(history)] == ["a", "ok", "c", "fine"]


def test_consolidate_merges_text_and_moves_thought_signature() -> None:
    parts = [
        Part(text="think", thought=True, thought_signature="S"),
        Part(text="a"),
        Part(text="b"),
    ]
    out = consolidate_parts(parts)
    assert (len(out) == 1 and out[0].text == "a" and out[0].thought_signature == "S") or (
        out[0].thought_signature == "S"
    )


def test_active_loop_calls_get_a_signature() -> None:
    call = Part(function_call=FunctionCall(id="1", name="f"))
    contents = [
        Content.user("old"),
        Content(role="model", parts=[Part(function_call=FunctionCall(id="0", name="f"))]),
        Content.user("new question"),
        Content(role="model", parts=[call, Part(function_call=FunctionCall(id="2", name="f"))]),
    ]
    out = ensure_active_loop_signatures(contents)
    assert out[1].parts[0].thought_signature is None  # before the last user text: untouched
    assert out[3].parts[0].thought_signature == SKIP_THOUGHT_SIGNATURE
    assert out[3].parts[1].thought_signature is None  # only the first call of the turn


def test_parse_thought_subject() -> None:
    assert parse_thought("**Reading files** I will look") == ("Reading files", "I will look")
    assert parse_thought("no subject") == (None, "no subject")


async def test_finish_reasons_reach_the_user_as_messages() -> None:
    gen = ScriptedGenerator([chunk({"text": "cut"}, finish="MAX_TOKENS")])
    chat = Chat(gen, model="m", retry_delays=())  # type: ignore[arg-type]
    events = await collect(Turn(chat, "s#1"), Content.user("hi"))
    assert isinstance(events[-1], FinishedEvent)
    assert events[-1].message
    assert "maximum output tokens" in events[-1].message


def test_consolidate_keeps_thinking_blocks_when_asked() -> None:
    parts = [
        Part(text="let me ", thought=True),
        Part(text="think", thought=True),
        Part(text="", thought=True, thought_signature="SIG"),
        Part(text="answer"),
    ]
    out = consolidate_parts(parts, keep_thoughts=True)
    assert out[0].thought
    assert out[0].text == "let me think"
    assert out[0].thought_signature == "SIG"
    assert out[1].text == "answer"
    assert not out[1].thought


@pytest.mark.parametrize(
    ("pieces", "kept"),
    [
        (["alpha beta gamma delta epsilon"], "alpha beta gamma"),  # a joined chunk: cut
        (["alpha ", "beta ", "gamma delta"], "alpha beta "),  # crossed by a space
        (["alpha beta g", "amma delta"], "alpha beta g"),  # the word goes on: chunk kept
        (["alpha beta   "], "alpha beta "),
    ],
)
async def test_an_answer_past_the_cap_ends_with_the_word_that_passed_it(
    pieces: list[str], kept: str
) -> None:
    gen = ScriptedGenerator(
        [chunk({"text": p}) for p in pieces] + [chunk({"text": "!"}, finish="STOP")]
    )
    chat = Chat(gen, model="m", retry_delays=(), max_answer_chars=10)  # type: ignore[arg-type]
    events = await collect(Turn(chat, "s#1"), Content.user("hi"))
    shown = "".join(e.text for e in events if isinstance(e, ContentEvent))
    assert shown == kept
    assert chat.history[-1].role == "model"
    assert "".join(p.text or "" for p in chat.history[-1].parts) == kept
