"""Vertex AI speaks the Gemini API's wire, checked against Google's own types.

google-genai's pydantic models (``extra="forbid"``) are the SDK Google ships for this
wire: every body ``gemtui -p`` sends on the Vertex path (system instruction, contents
with a tool call and its response, tools, generation config) and every SSE chunk the mock
answers with (thoughts, a function call, grounding, usage) must validate there. A field
spelled our own way would be refused by them, as it would be by the real server.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from google.genai import types

from gemtui.testing import MockLLMServer
from gemtui.testing.script import tool_step
from tests.integration.helpers import gemtui_env, run_gemtui, write_fast_config

EXPRESS_PATH = "/v1/publishers/google/models/"
GROUNDING = {
    "webSearchQueries": ["tide tables"],
    "groundingChunks": [{"web": {"uri": "https://example.com/tides", "title": "Tides"}}],
    "groundingSupports": [
        {
            "segment": {"startIndex": 0, "endIndex": 9, "text": "High tide"},
            "groundingChunkIndices": [0],
        }
    ],
}


def _request_parts(body: dict[str, Any]) -> None:
    """Each part of a generateContent body, validated by the SDK's type for it."""
    assert set(body) <= {
        "contents",
        "systemInstruction",
        "tools",
        "toolConfig",
        "generationConfig",
        "safetySettings",
        "cachedContent",
        "labels",
    }, sorted(body)
    for content in body["contents"]:
        types.Content.model_validate(content)
    if "systemInstruction" in body:
        types.Content.model_validate(body["systemInstruction"])
    for tool in body.get("tools", []):
        types.Tool.model_validate(tool)
    if "toolConfig" in body:
        types.ToolConfig.model_validate(body["toolConfig"])
    if "generationConfig" in body:
        types.GenerationConfig.model_validate(body["generationConfig"])


def _sse_chunks(text: str) -> list[dict[str, Any]]:
    return [json.loads(line[5:]) for line in text.splitlines() if line.startswith("data:")]


def test_what_gemtui_sends_on_the_vertex_path_is_the_sdks_wire(
    mock_llm_thread: MockLLMServer, tmp_path: Path, workspace: Path
) -> None:
    srv = mock_llm_thread
    home = tmp_path / "gemtui-home"
    write_fast_config(home)
    (workspace / "notes.txt").write_text("alpha beta\n", encoding="utf-8")
    srv.enqueue(
        tool_step("read_file", {"file_path": "notes.txt"}, thought="Read it first."),
        {"text": "It says alpha."},
    )
    env = gemtui_env(home, key=None) | {
        "HOME": str(tmp_path / "user"),
        "NO_GCE_CHECK": "True",
        "GOOGLE_GENAI_USE_VERTEXAI": "true",
        "GOOGLE_VERTEX_BASE_URL": srv.url,
        "GOOGLE_API_KEY": "express-key",
    }

    run = run_gemtui(["-p", "what does notes.txt say?", "-y"], env=env, cwd=workspace)

    assert run.returncode == 0, run.stderr
    calls = [r for r in srv.requests if r.path.startswith(EXPRESS_PATH)]
    assert len(calls) == 2
    for call in calls:
        _request_parts(call.json)
    # the second body carries the model's call and the tool's response, SDK-shaped
    turn = [types.Content.model_validate(c) for c in calls[1].json["contents"]]
    assert any(p.function_call and p.function_call.name == "read_file" for p in turn[1].parts or [])
    assert any(p.function_response for c in turn for p in c.parts or [])


def test_a_field_the_sdk_does_not_know_is_refused() -> None:
    """Control: the SDK's types do refuse a misspelt field (else the checks above prove
    nothing)."""
    with pytest.raises(ValueError, match="functionCal"):
        types.Content.model_validate({"role": "model", "parts": [{"functionCal": {}}]})


async def test_what_the_mock_answers_on_the_vertex_path_is_the_sdks_wire(
    mock_llm: MockLLMServer,
) -> None:
    srv = mock_llm
    srv.enqueue(
        tool_step("read_file", {"file_path": "a.txt"}, thought="Look first."),
        {"text": "High tide is at noon.", "thought": "Checked.", "grounding": GROUNDING},
    )
    url = f"{srv.url}{EXPRESS_PATH}gemini-2.5-flash:streamGenerateContent?alt=sse"
    body = {"contents": [{"role": "user", "parts": [{"text": "tides?"}]}]}
    headers = {"x-goog-api-key": "express-key"}
    chunks: list[dict[str, Any]] = []
    async with httpx.AsyncClient() as client:
        for _ in range(2):
            answer = await client.post(url, json=body, headers=headers)
            assert answer.status_code == 200, answer.text
            chunks += _sse_chunks(answer.text)

    parsed = [types.GenerateContentResponse.model_validate(c) for c in chunks]

    parts = [p for r in parsed for c in r.candidates or [] for p in c.content.parts or []]  # type: ignore[union-attr]
    assert any(p.thought and p.text for p in parts)
    assert any(p.function_call and p.function_call.name == "read_file" for p in parts)
    grounded = [c.grounding_metadata for r in parsed for c in r.candidates or []]
    assert any(g and g.web_search_queries == ["tide tables"] for g in grounded)
    assert any(r.usage_metadata and r.usage_metadata.total_token_count for r in parsed)
