"""Edges found in review: late cancels, empty answers after tool results, provider bugs."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from gemtui.bus import AgentFinished, ErrorOccurred, Event, TerminateReason
from gemtui.chat.history import extract_curated_history
from gemtui.providers.base import Capabilities
from gemtui.wire import Content, FunctionCall, FunctionResponse, GenerateContentResponse, Part
from gemtui.wire.cancel_note import is_cancel_note

from .conftest import SessionFactory, history_is_valid


def _chunk(parts: list[dict[str, Any]], finish: str | None = "STOP") -> GenerateContentResponse:
    cand: dict[str, Any] = {"content": {"role": "model", "parts": parts}}
    if finish:
        cand["finishReason"] = finish
    return GenerateContentResponse.model_validate({"candidates": [cand]})


class _Scripted:
    """A generator whose streams are scripted in-process (hooks run between chunks)."""

    name = "gemini"
    capabilities = Capabilities(thought_signatures=True)

    def __init__(self, *streams: list[Any]) -> None:
        self.streams = list(streams)
        self.requests: list[Any] = []

    async def stream(
        self, request: Any, *, model: str, prompt_id: str = ""
    ) -> AsyncIterator[GenerateContentResponse]:
        self.requests.append(request)
        for item in self.streams.pop(0):
            if callable(item):
                item()
                continue
            yield item

    async def count_tokens(self, contents: list[Content], *, model: str) -> int:
        return 1

    async def aclose(self) -> None:
        return None


def test_tool_results_survive_an_invalid_answer_after_them() -> None:
    call = Part(function_call=FunctionCall(id="c1", name="read_file", args={}))
    result = Part(
        function_response=FunctionResponse(id="c1", name="read_file", response={"output": "x"})
    )
    history = [
        Content.user("read it"),
        Content(role="model", parts=[call]),
        Content(role="user", parts=[result]),
        Content(role="model", parts=[]),  # an empty answer (a safety stop, thinking only)
        Content.user("go on"),
    ]
    curated = extract_curated_history(history)
    assert history_is_valid(curated)
    assert curated[2].parts[0].function_response is not None


async def test_cancel_landing_as_the_stream_ends_still_answers_the_calls(
    make_session: SessionFactory, workspace: Path
) -> None:
    session = make_session()
    last = _chunk(
        [{"functionCall": {"id": "c1", "name": "list_directory", "args": {"dir_path": "."}}}]
    )
    session.chat.generator = _Scripted([last, session.cancel])  # type: ignore[assignment]
    done = await session.send("list")
    assert done.reason == TerminateReason.ABORTED
    assert history_is_valid(session.chat.history)
    *_, responses, note = session.chat.history
    assert is_cancel_note(note), "after the answers, the model is told of the cancel"
    answered = responses.parts[0].function_response
    assert answered is not None
    assert answered.id == "c1"
    assert "error" in answered.response


async def test_a_provider_bug_ends_the_turn_as_an_error_not_a_crash(
    make_session: SessionFactory,
) -> None:
    events: list[Event] = []
    session = make_session(events=events)

    def boom() -> None:
        raise TypeError("int() argument must be a string, not 'NoneType'")

    session.chat.generator = _Scripted([_chunk([{"text": "partial "}], finish=None), boom])  # type: ignore[assignment]
    done = await asyncio.wait_for(session.send("hi"), 10)
    assert done.reason == TerminateReason.ERROR
    assert any(isinstance(e, ErrorOccurred) and "NoneType" in e.message for e in events)
    assert isinstance(events[-1], AgentFinished)


async def test_an_empty_answer_is_not_kept_in_history(make_session: SessionFactory) -> None:
    session = make_session()
    session.chat.generator = _Scripted([_chunk([{"text": ""}], finish="SAFETY")])  # type: ignore[assignment]
    done = await session.send("something unsafe")
    assert done.reason == TerminateReason.GOAL
    assert [c.role for c in session.chat.history] == ["user"]
