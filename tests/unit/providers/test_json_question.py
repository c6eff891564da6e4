"""``ask_json``: one JSON-mode side question over the real wire, and every way it fails.

The router, the next-speaker check and the edit fixer rely on it never raising: a
provider error, an answer that is not JSON and JSON of the wrong shape each come back as
an answer without a value, with the call's usage where the call got that far.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Literal

import pytest
from pydantic import BaseModel

from gemtui.errors import ApiError
from gemtui.providers.gemini import GeminiGenerator
from gemtui.providers.http import make_client
from gemtui.providers.json_question import AnswerProblem, Send, answer_schema, ask_json
from gemtui.providers.openai_compat import OpenAICompatGenerator
from gemtui.testing import MockLLMServer
from gemtui.wire import Content, GenerateContentRequest, GenerateContentResponse, ThinkingConfig


class Verdict(BaseModel):
    """What the test asks for (this docstring is not sent)."""

    reasoning: str
    side: Literal["left", "right"]


QUESTION = [Content.user("Left or right?")]


@pytest.fixture
async def gemini(mock_llm: MockLLMServer) -> AsyncIterator[GeminiGenerator]:
    gen = GeminiGenerator(make_client(), "k", mock_llm.url)
    yield gen
    await gen.aclose()


def _send(gen: GeminiGenerator) -> Send:
    async def send(request: GenerateContentRequest) -> GenerateContentResponse:
        return await gen.generate(request, model="gemini-2.5-flash-lite")

    return send


async def test_a_valid_answer_is_validated_and_its_usage_kept(
    mock_llm: MockLLMServer, gemini: GeminiGenerator
) -> None:
    mock_llm.enqueue(
        {
            "text": json.dumps({"reasoning": "it is", "side": "left"}),
            "usage": {"prompt": 12, "output": 5},
        }
    )
    answer = await ask_json(
        _send(gemini),
        QUESTION,
        Verdict,
        system="Answer in JSON.",
        thinking=ThinkingConfig(thinking_budget=0),
    )
    assert answer.value == Verdict(reasoning="it is", side="left")
    assert answer.problem is None
    assert answer.error is None
    assert answer.usage is not None
    assert (answer.usage.prompt_token_count, answer.usage.candidates_token_count) == (12, 5)
    body = mock_llm.requests[-1].json
    config = body["generationConfig"]
    assert config["responseMimeType"] == "application/json"
    assert config["responseJsonSchema"] == {
        "type": "object",
        "properties": {
            "reasoning": {"type": "string"},
            "side": {"type": "string", "enum": ["left", "right"]},
        },
        "required": ["reasoning", "side"],
    }, "the model's own schema, without pydantic's titles or the docstring"
    assert config["thinkingConfig"] == {"thinkingBudget": 0}
    assert body["systemInstruction"]["parts"] == [{"text": "Answer in JSON."}]


async def test_malformed_json_is_no_answer_with_the_usage_counted(
    mock_llm: MockLLMServer, gemini: GeminiGenerator
) -> None:
    mock_llm.enqueue({"text": "left, I think", "usage": {"prompt": 12, "output": 4}})
    answer = await ask_json(_send(gemini), QUESTION, Verdict)
    assert answer.value is None
    assert answer.problem is AnswerProblem.NOT_JSON
    assert answer.usage is not None
    assert answer.usage.candidates_token_count == 4, "the answer was billed all the same"


@pytest.mark.parametrize(
    "reply",
    [
        {"reasoning": "neither", "side": "up"},  # outside the enum
        {"reasoning": "forgot the side"},  # a required field missing
        ["left"],  # not an object
        {"reasoning": 3, "side": "left"},  # a wrong type
    ],
)
async def test_json_of_the_wrong_shape_is_no_answer(
    mock_llm: MockLLMServer, gemini: GeminiGenerator, reply: object
) -> None:
    mock_llm.enqueue({"text": json.dumps(reply), "usage": {"prompt": 12, "output": 6}})
    answer = await ask_json(_send(gemini), QUESTION, Verdict)
    assert answer.value is None
    assert answer.problem is AnswerProblem.WRONG_SHAPE
    assert answer.usage is not None
    assert answer.usage.candidates_token_count == 6


async def test_a_provider_error_is_no_answer_and_names_the_error(
    mock_llm: MockLLMServer, gemini: GeminiGenerator
) -> None:
    """The provider refused: the caller gets the error itself (the router marks a model
    spent by a 429's status) and no usage, and nothing is raised."""
    mock_llm.enqueue({"error": {"status": 400, "message": "bad schema"}})
    answer = await ask_json(_send(gemini), QUESTION, Verdict)
    assert answer.value is None
    assert answer.usage is None
    assert answer.problem is AnswerProblem.FAILED
    assert isinstance(answer.error, ApiError)
    assert answer.error.status == 400


async def test_thoughts_are_not_part_of_the_answer(
    mock_llm: MockLLMServer, gemini: GeminiGenerator
) -> None:
    mock_llm.enqueue({"thought": "hmm {", "text": json.dumps({"reasoning": "r", "side": "right"})})
    answer = await ask_json(_send(gemini), QUESTION, Verdict)
    assert answer.value is not None
    assert answer.value.side == "right"


async def test_an_openai_compatible_server_gets_the_schema_as_response_format(
    mock_llm: MockLLMServer,
) -> None:
    gen = OpenAICompatGenerator(make_client(), f"{mock_llm.url}/v1", "k")
    mock_llm.enqueue({"text": json.dumps({"reasoning": "r", "side": "left"})})
    try:
        answer = await ask_json(lambda r: gen.generate(r, model="qwen3-coder"), QUESTION, Verdict)
    finally:
        await gen.aclose()
    assert answer.value is not None
    assert answer.value.side == "left"
    wanted = mock_llm.requests[-1].json["response_format"]
    assert wanted["type"] == "json_schema"
    assert wanted["json_schema"]["schema"] == answer_schema(Verdict)
