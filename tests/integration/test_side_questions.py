"""The three JSON side questions keep their own answers to a bad reply, now that they all
ask through ``providers.json_question``: the router names a stray choice and marks a 429'd
classifier spent, the next-speaker check ends the prompt, the edit fixer leaves the edit as
it was. Each is driven through its public entry against the wire-faithful mock."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable

import pytest

from gemtui.agent.next_speaker import NextSpeakerCheck
from gemtui.agent.router import ModelRouter
from gemtui.providers.gemini import GeminiGenerator
from gemtui.providers.http import make_client
from gemtui.testing import MockLLMServer
from gemtui.tools.edit_fixer import EditFix, fix_old_string
from gemtui.wire import Content, GenerateContentRequest, GenerateContentResponse, Part

HISTORY = [Content.user("fix it"), Content.model("Now I'll update the tests.")]


@pytest.fixture
async def gemini(mock_llm: MockLLMServer) -> AsyncIterator[GeminiGenerator]:
    gen = GeminiGenerator(make_client(), "k", mock_llm.url)
    yield gen
    await gen.aclose()


def _usage(output: int) -> dict[str, int]:
    return {"prompt": 20, "output": output}


async def test_the_router_names_a_stray_choice_and_counts_the_call(
    mock_llm: MockLLMServer, gemini: GeminiGenerator
) -> None:
    mock_llm.enqueue(
        {"text": json.dumps({"reasoning": "x", "model_choice": "ultra"}), "usage": _usage(7)}
    )
    decision = await ModelRouter(gemini).choose(HISTORY, [Part(text="and now?")])
    assert (decision.model, decision.reason) == ("gemini-2.5-pro", "the router chose 'ultra'")
    assert decision.fell_back
    assert decision.usage.output == 7


async def test_the_router_takes_a_choice_without_a_reason(
    mock_llm: MockLLMServer, gemini: GeminiGenerator
) -> None:
    """The schema asks for a reason; an answer without one still routes (as before)."""
    mock_llm.enqueue({"text": json.dumps({"model_choice": "flash"}), "usage": _usage(3)})
    decision = await ModelRouter(gemini).choose(HISTORY, [Part(text="what is X?")])
    assert (decision.model, decision.reason, decision.fell_back) == ("gemini-2.5-flash", "", False)
    config = mock_llm.requests[-1].json["generationConfig"]
    assert config["thinkingConfig"] == {"thinkingBudget": 0}
    assert (
        mock_llm.requests[-1].json["systemInstruction"]["parts"][0]["text"].startswith("You route")
    )


async def test_a_classifier_out_of_quota_is_marked_spent(
    mock_llm: MockLLMServer, gemini: GeminiGenerator
) -> None:
    mock_llm.enqueue({"error": {"status": 429, "message": "Quota exceeded"}})
    decision = await ModelRouter(gemini).choose(HISTORY, [Part(text="and now?")])
    assert decision.model == "gemini-2.5-pro"
    assert decision.fell_back
    assert decision.spent == "gemini-2.5-flash-lite"
    assert decision.reason.startswith("the router failed (")
    assert decision.usage.total == 0, "a failed call reported nothing"


@pytest.mark.parametrize(
    ("reply", "counted"),
    [
        ({"text": "model, I guess", "usage": _usage(4)}, 4),
        ({"text": json.dumps({"reasoning": "r", "next_speaker": "both"}), "usage": _usage(5)}, 5),
        ({"error": {"status": 500, "message": "boom"}}, 0),
    ],
)
async def test_a_failed_next_speaker_check_just_ends_the_prompt(
    mock_llm: MockLLMServer, gemini: GeminiGenerator, reply: dict[str, object], counted: int
) -> None:
    mock_llm.enqueue(reply)
    verdict = await NextSpeakerCheck(gemini, model="gemini-2.5-flash").ask(HISTORY, "m")
    assert verdict.speaker is None
    assert verdict.usage.output == counted
    assert verdict.model == "gemini-2.5-flash"


async def test_the_next_speaker_check_reads_model(
    mock_llm: MockLLMServer, gemini: GeminiGenerator
) -> None:
    mock_llm.enqueue({"text": json.dumps({"next_speaker": "model"}), "usage": _usage(2)})
    verdict = await NextSpeakerCheck(gemini).ask(HISTORY, "gemini-2.5-pro")
    assert (verdict.speaker, verdict.model, verdict.usage.output) == ("model", "gemini-2.5-pro", 2)
    assert "thinkingConfig" not in mock_llm.requests[-1].json["generationConfig"]


def _stream(
    gen: GeminiGenerator,
) -> Callable[[GenerateContentRequest], AsyncIterator[GenerateContentResponse]]:
    def stream(request: GenerateContentRequest) -> AsyncIterator[GenerateContentResponse]:
        return gen.stream(request, model="gemini-2.5-flash")

    return stream


async def _fix(gen: GeminiGenerator) -> EditFix | None:
    return await fix_old_string(
        _stream(gen),
        instruction="rename",
        old="def  old():",
        new="def new():",
        error="old_string not found",
        content="def old():\n    pass\n",
    )


async def test_the_fixer_takes_only_a_literal_true_as_no_change_and_drops_an_odd_note(
    mock_llm: MockLLMServer, gemini: GeminiGenerator
) -> None:
    reply = {
        "explanation": 7,
        "search": "def old():",
        "replace": "def new():",
        "noChangesRequired": "yes",
    }
    mock_llm.enqueue({"text": json.dumps(reply), "chunks": 3})
    fix = await _fix(gemini)
    assert fix is not None
    assert (fix.old_string, fix.new_string, fix.explanation) == (
        "def old():",
        "def new():",
        "",
    )


@pytest.mark.parametrize(
    "reply",
    [
        {"text": "search: def old():"},
        {"text": json.dumps({"explanation": "e", "search": 3, "replace": "x"})},
        {
            "text": json.dumps(
                {"explanation": "e", "search": "a", "replace": "b", "noChangesRequired": True}
            )
        },
        {"error": {"status": 500, "message": "boom"}},
    ],
)
async def test_a_fixer_that_fails_leaves_the_edit_as_it_was(
    mock_llm: MockLLMServer, gemini: GeminiGenerator, reply: dict[str, object]
) -> None:
    mock_llm.enqueue(reply)
    assert await _fix(gemini) is None
    assert mock_llm.requests[-1].json["generationConfig"]["responseMimeType"] == "application/json"
