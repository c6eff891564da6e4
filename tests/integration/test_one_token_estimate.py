"""Every size gemtui guesses is guessed by ``wire.token_estimate``, and they agree.

Before: the OpenAI-compatible count (rounded up, JSON arguments), the engine's estimate
(``str`` of the arguments plus 32), the replay provider's (its JSON), a cancelled call's
output and ``/memory show`` (rounded up) each had a copy of "four characters a token", so
one conversation had several sizes. Each site is driven through its public entry and
compared with the one estimate, where the old copies differed on inputs that show it.
"""

from __future__ import annotations

from pathlib import Path

from gemtui.agent.context_files import ContextFile
from gemtui.agent.token_estimate import estimate_request_tokens
from gemtui.bus import ContentDelta, Event, TurnFinished
from gemtui.providers.http import make_client
from gemtui.providers.openai_compat import OpenAICompatGenerator
from gemtui.providers.replay import ReplayGenerator
from gemtui.testing import MockLLMServer
from gemtui.wire import Content, FunctionCall, FunctionResponse, Part
from gemtui.wire.token_estimate import estimate_tokens, tokens_for_chars

from .conftest import SessionFactory

HISTORY = [
    Content.user("Read it."),  # 8 characters
    Content(role="model", parts=[Part(function_call=FunctionCall(name="read", args={"p": "a"}))]),
    Content(
        role="user",
        parts=[Part(function_response=FunctionResponse(name="read", response={"o": "xyz"}))],
    ),
    Content.model("OK"),
]
"""Calls, results and text: the old copies each counted these differently."""


def test_the_rule_is_four_characters_a_token_rounded_down() -> None:
    assert [tokens_for_chars(n) for n in (0, 3, 4, 7, 8, 9)] == [0, 0, 1, 1, 2, 2]
    assert estimate_tokens([Content.user("abcdefg")]) == 1


async def test_the_openai_compatible_count_is_the_one_estimate(mock_llm: MockLLMServer) -> None:
    gen = OpenAICompatGenerator(make_client(), f"{mock_llm.url}/v1", None)
    try:
        assert await gen.count_tokens(HISTORY, model="m") == estimate_tokens(HISTORY)
    finally:
        await gen.aclose()
    assert mock_llm.requests == [], "no count endpoint: nothing is asked"


async def test_the_replay_count_is_the_one_estimate() -> None:
    gen = ReplayGenerator([])
    assert await gen.count_tokens(HISTORY, model="m") == estimate_tokens(HISTORY)


def test_memory_show_counts_a_context_file_by_the_one_estimate(tmp_path: Path) -> None:
    text = "# Rules\nUse tabs.\n"  # 18 characters
    assert ContextFile(tmp_path / "GEMTUI.md", "project", text).tokens == tokens_for_chars(18)


async def test_before_any_usage_the_prompt_size_is_the_next_request_estimated(
    make_session: SessionFactory,
) -> None:
    """Nothing reported yet (a new or switched session): the threshold's figure is the
    whole next request, system instruction and tools included, as the line shows."""
    session = make_session()
    session.chat.replace_history(list(HISTORY), "test")
    assert session.executor.prompt_tokens() == estimate_request_tokens(session.chat)
    assert estimate_request_tokens(session.chat) > estimate_tokens(HISTORY), "with overhead"


async def test_a_call_cut_short_counts_its_output_by_the_one_estimate(
    mock_llm: MockLLMServer, make_session: SessionFactory
) -> None:
    """A cancelled call was billed for what came: the streamed text, by the one rule."""
    mock_llm.enqueue(
        {"text": "Draft one never sent", "chunks": 2, "fault": "stall", "after_chunks": 1}
    )
    session = make_session()
    streamed: list[str] = []
    finished: list[TurnFinished] = []

    def watch(ev: Event) -> None:
        if isinstance(ev, ContentDelta):
            streamed.append(ev.text)
            session.cancel()
        elif isinstance(ev, TurnFinished):
            finished.append(ev)

    session.bus.subscribe(watch)
    await session.send("write it")
    (cut,) = finished
    assert cut.finish_reason == "CANCELLED"
    chars = len("".join(streamed))
    assert cut.usage.output == tokens_for_chars(chars)
