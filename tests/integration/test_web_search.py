"""google_web_search end to end: the model calls it, the mock answers with grounding."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

from gemtui.agent.provider_choice import ResolvedProvider
from gemtui.agent.session import Session, SessionOptions
from gemtui.bus import Event, TerminateReason, ToolCallState, ToolCallStateChanged
from gemtui.config.settings import Settings
from gemtui.providers.http import make_client
from gemtui.providers.openai_compat import OpenAICompatGenerator
from gemtui.testing import MockLLMServer

from .conftest import SessionFactory
from .helpers import gemtui_env, run_gemtui, write_fast_config

ANSWER = "今天北京天气晴朗，最高温度25度 🌤️，适合户外活动。"
FIRST = "今天北京天气晴朗"
SECOND = "，最高温度25度 🌤️"


def _b(text: str) -> int:
    return len(text.encode("utf-8"))


GROUNDING: dict[str, Any] = {
    "webSearchQueries": ["北京天气"],
    "groundingChunks": [
        {"web": {"uri": "https://weather.example/beijing", "title": "中国天气网"}},
        {"web": {"uri": "https://cma.example"}},
    ],
    "groundingSupports": [
        {"segment": {"endIndex": _b(FIRST), "text": FIRST}, "groundingChunkIndices": [0]},
        {
            "segment": {"startIndex": _b(FIRST), "endIndex": _b(FIRST + SECOND)},
            "groundingChunkIndices": [0, 1],
            "confidenceScores": [0.9, 0.8],
        },
    ],
}


def _declared(request_json: dict[str, Any]) -> list[str]:
    return [d["name"] for t in request_json.get("tools", []) for d in t["functionDeclarations"]]


async def test_model_searches_and_gets_marked_text_with_sources(
    mock_llm: MockLLMServer, make_session: SessionFactory
) -> None:
    mock_llm.enqueue(
        {
            "function_calls": [
                {"name": "google_web_search", "args": {"query": "北京天气"}, "id": "s1"}
            ]
        },
        # the grounded answer streams in four chunks; supports index the whole of it
        {"text": ANSWER, "thought": "Searching.", "chunks": 4, "grounding": GROUNDING},
        {"text": "It is sunny in Beijing [1]."},
    )
    session = make_session()
    done = await session.send("What's the weather in Beijing?")
    assert done.reason == TerminateReason.GOAL
    assert done.text == "It is sunny in Beijing [1]."

    first, search, last = (r.json for r in mock_llm.requests)
    assert "google_web_search" in _declared(first)
    # the search is a separate request: the query alone, Google Search the only tool
    assert search["tools"] == [{"googleSearch": {}}]
    assert search["contents"] == [{"role": "user", "parts": [{"text": "北京天气"}]}]
    assert mock_llm.requests[1].path.endswith(":streamGenerateContent")

    response = last["contents"][-1]["parts"][0]["functionResponse"]
    assert response["id"] == "s1"
    assert response["response"]["output"] == (
        'Web search results for "北京天气":\n\n'
        "今天北京天气晴朗[1]，最高温度25度 🌤️[1][2]，适合户外活动。\n\n"
        "Sources:\n"
        "[1] 中国天气网 (https://weather.example/beijing)\n"
        "[2] Untitled (https://cma.example)"
    )


async def test_not_offered_without_grounding(mock_llm: MockLLMServer, workspace: Path) -> None:
    mock_llm.enqueue({"text": "hello"})
    gen = OpenAICompatGenerator(make_client(2.0), mock_llm.url + "/v1", "k")
    provider = ResolvedProvider("openai", "openai", gen, "qwen", 32_000)
    session = Session(Settings(), provider, SessionOptions(workspace=workspace, interactive=False))
    try:
        await session.send("hi")
        chat = next(r for r in mock_llm.requests if r.path.endswith("/chat/completions"))
        names = [t["function"]["name"] for t in chat.json["tools"]]  # after the window probe
        assert "read_file" in names
        assert "google_web_search" not in names
    finally:
        await session.aclose()


async def test_a_call_anyway_is_refused_with_a_clear_error(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    mock_llm.enqueue(
        {"function_calls": [{"name": "google_web_search", "args": {"query": "x"}, "id": "c1"}]},
        {"text": "ok"},
    )
    gen = OpenAICompatGenerator(make_client(2.0), mock_llm.url + "/v1", "k")
    provider = ResolvedProvider("openai", "openai", gen, "qwen", 32_000)
    session = Session(Settings(), provider, SessionOptions(workspace=workspace, interactive=False))
    try:
        await session.send("search")
        chats = [r for r in mock_llm.requests if r.path.endswith("/chat/completions")]
        assert len(chats) == 2  # no extra search request went out (only the window probe)
        tool_msg = next(m for m in chats[1].json["messages"] if m["role"] == "tool")
        assert "grounding" in tool_msg["content"]
    finally:
        await session.aclose()


def _search_response(request_json: dict[str, Any]) -> dict[str, Any]:
    [part] = request_json["contents"][-1]["parts"]
    response: dict[str, Any] = part["functionResponse"]
    return response


def test_a_500_from_search_reaches_the_model_as_a_search_error_without_a_traceback(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)  # three attempts, quick backoff
    failure = {"error": {"status": 500, "message": "Internal error encountered."}}
    mock_llm_thread.enqueue(
        {"function_calls": [{"name": "google_web_search", "args": {"query": "q"}, "id": "s1"}]},
        failure,
        failure,
        failure,
        {"text": "I could not search."},
    )
    proc = run_gemtui(
        ["-p", "search q", "--yolo"],
        env=gemtui_env(isolated_home, mock_llm_thread.url),
        cwd=workspace,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "I could not search."
    searches = [r for r in mock_llm_thread.requests if "tools" in (r.json or {})]
    assert sum(r.json["tools"] == [{"googleSearch": {}}] for r in searches) == 3  # retried
    response = _search_response(mock_llm_thread.requests[-1].json)
    assert response["id"] == "s1"
    error = response["response"]["error"]
    assert error.startswith("search failed: 500 Internal error encountered.")
    assert "unexpectedly" not in error
    log = isolated_home / "logs" / "gemtui.log"
    logged = log.read_text(encoding="utf-8") if log.exists() else ""
    assert "Traceback" not in logged
    assert "Traceback" not in proc.stderr


def test_a_search_cut_off_mid_answer_is_a_search_error_too(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    """The connection drops after the first chunk (no retry once a stream has begun)."""
    write_fast_config(isolated_home)
    mock_llm_thread.enqueue(
        {"function_calls": [{"name": "google_web_search", "args": {"query": "q"}, "id": "s1"}]},
        {"text": "partial grounded answer", "chunks": 3, "fault": "reset_after", "after_chunks": 1},
        {"text": "ok"},
    )
    proc = run_gemtui(
        ["-p", "search q", "--yolo"],
        env=gemtui_env(isolated_home, mock_llm_thread.url),
        cwd=workspace,
    )
    assert proc.returncode == 0, proc.stderr
    error = _search_response(mock_llm_thread.requests[-1].json)["response"]["error"]
    assert error.startswith("search failed: "), error
    log = isolated_home / "logs" / "gemtui.log"
    assert "Traceback" not in (log.read_text(encoding="utf-8") if log.exists() else "")


class _Records(logging.Handler):
    """Keeps every record it is handed."""

    def __init__(self) -> None:
        super().__init__()
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


async def test_a_search_cancelled_while_it_waits_is_answered_as_cancelled_without_a_traceback(
    mock_llm: MockLLMServer, make_session: SessionFactory
) -> None:
    mock_llm.enqueue(
        {"function_calls": [{"name": "google_web_search", "args": {"query": "q"}, "id": "s1"}]},
        {"text": "late results", "fault": "stall", "seconds": 30},  # the search hangs
    )
    session = make_session(approval_mode="yolo")

    def on_event(ev: Event) -> None:
        if isinstance(ev, ToolCallStateChanged) and ev.call.state == ToolCallState.EXECUTING:
            asyncio.get_running_loop().call_soon(session.cancel)

    session.bus.subscribe(on_event)
    handler = _Records()
    logger = logging.getLogger("gemtui")  # its own handler: the log file's may not propagate
    logger.addHandler(handler)
    try:
        done = await asyncio.wait_for(session.send("search q"), timeout=20)
    finally:
        logger.removeHandler(handler)
    assert done.reason == TerminateReason.ABORTED
    responses = [
        p.function_response
        for c in session.chat.history
        for p in c.parts
        if p.function_response is not None
    ]
    assert [r.id for r in responses] == ["s1"]
    assert responses[0].response["error"].startswith("Cancelled by the user.")
    assert not [r for r in handler.records if r.exc_info], "no traceback logged"
