"""Non-streaming calls, model lists, token counts and HTTP errors of the new adapters."""

from __future__ import annotations

import pytest

from gemtui.errors import ApiError, ModelNotFoundError
from gemtui.providers.anthropic import AnthropicGenerator
from gemtui.providers.http import make_client
from gemtui.providers.openai_compat import OpenAICompatGenerator
from gemtui.testing import MockLLMServer
from gemtui.wire import Content, GenerateContentRequest

REQ = GenerateContentRequest(contents=[Content.user("hi there")])


async def test_openai_generate_models_and_estimate(mock_llm: MockLLMServer) -> None:
    gen = OpenAICompatGenerator(make_client(), f"{mock_llm.url}/v1", "k")
    mock_llm.enqueue(
        {"text": "whole", "thought": "t", "function_calls": [{"name": "f", "args": {"a": 1}}]}
    )
    resp = await gen.generate(REQ, model="qwen3-coder")
    parts = resp.candidates[0].content.parts
    assert [p.text for p in parts if p.thought] == ["t"]
    assert parts[-1].function_call is not None
    assert parts[-1].function_call.args == {"a": 1}
    assert mock_llm.requests[-1].json["stream"] is False
    assert next(m.name for m in await gen.list_models()) == "mock-model"
    assert await gen.count_tokens([Content.user("x" * 40)], model="m") == 10
    await gen.aclose()


async def test_openai_error_message_and_class(mock_llm: MockLLMServer) -> None:
    gen = OpenAICompatGenerator(make_client(), f"{mock_llm.url}/v1", "k")
    mock_llm.enqueue({"error": {"status": 404, "message": "The model `x` does not exist"}})
    with pytest.raises(ModelNotFoundError, match="does not exist"):
        [c async for c in gen.stream(REQ, model="x")]
    await gen.aclose()


async def test_anthropic_generate_models_and_count(mock_llm: MockLLMServer) -> None:
    gen = AnthropicGenerator(make_client(), mock_llm.url, "k")
    mock_llm.enqueue(
        {"text": "whole", "thought": "t", "function_calls": [{"name": "f", "args": {"a": 1}}]}
    )
    resp = await gen.generate(REQ, model="claude-sonnet-4-5")
    parts = resp.candidates[0].content.parts
    assert parts[0].thought
    assert parts[0].thought_signature
    assert parts[-1].function_call.args == {"a": 1}
    assert next(m.name for m in await gen.list_models()) == "claude-sonnet-4-5"
    mock_llm.enqueue({"count_tokens": 42})
    assert await gen.count_tokens([Content.user("hello")], model="claude-sonnet-4-5") == 42
    assert mock_llm.requests[-1].path == "/v1/messages/count_tokens"
    mock_llm.enqueue({"error": {"status": 400, "message": "messages: roles must alternate"}})
    with pytest.raises(ApiError, match="roles must alternate"):
        [c async for c in gen.stream(REQ, model="m")]
    await gen.aclose()
