"""A change of model or provider is an event, and the executor's config a value replaced
whole (issue 34): views follow ``ModelChanged`` instead of reading the session again, and
no half-patched config is ever read."""

from __future__ import annotations

import pytest

from gemtui.agent.provider_choice import ResolvedProvider
from gemtui.agent.run_state import ExecutorConfig
from gemtui.bus import Event, ModelChanged, ModelFallback, TerminateReason
from gemtui.testing.mockllm import MockLLMServer
from tests.integration.conftest import SessionFactory

QUOTA = {"error": {"status": 429, "message": "capacity", "reason": "MODEL_CAPACITY_EXHAUSTED"}}


async def test_a_switch_says_which_model_and_provider_it_left_and_took(
    mock_llm: MockLLMServer, make_session: SessionFactory
) -> None:
    from gemtui.providers.http import make_client
    from gemtui.providers.openai_compat import OpenAICompatGenerator
    from gemtui.providers.retry import RetryingGenerator

    events: list[Event] = []
    session = make_session(events=events)
    await session.switch_model("gemini-2.5-flash")
    gen = RetryingGenerator(OpenAICompatGenerator(make_client(), f"{mock_llm.url}/v1", None))
    local = ResolvedProvider("local", "openai", gen, "qwen3-coder", 32_768)
    await session.switch_model("qwen3-coder", local)
    changes = [e for e in events if isinstance(e, ModelChanged)]
    assert [
        (e.from_model, e.to_model, e.from_provider, e.to_provider, e.context_window)
        for e in changes
    ] == [
        ("gemini-2.5-pro", "gemini-2.5-flash", "gemini", "gemini", 1_048_576),
        ("gemini-2.5-flash", "qwen3-coder", "gemini", "local", 32_768),
    ]
    assert changes[0].priced
    assert not changes[1].priced  # nobody priced the local model
    assert all(e.session_id == session.id for e in changes)
    assert session.model == "qwen3-coder"
    assert session.context_window == 32_768


async def test_choosing_the_model_in_use_is_no_change(make_session: SessionFactory) -> None:
    """The control: the event means a change, not a command."""
    events: list[Event] = []
    session = make_session(events=events)
    await session.switch_model("gemini-2.5-pro")
    assert not [e for e in events if isinstance(e, ModelChanged)]


async def test_a_quota_fallback_is_a_model_change_too(
    mock_llm: MockLLMServer, make_session: SessionFactory
) -> None:
    mock_llm.enqueue(QUOTA, {"text": "ok"})
    events: list[Event] = []
    session = make_session(fallback=["gemini-2.5-flash"], events=events)
    assert (await session.send("hi")).reason == TerminateReason.GOAL
    fell = next(i for i, e in enumerate(events) if isinstance(e, ModelFallback))
    changed = [(i, e) for i, e in enumerate(events) if isinstance(e, ModelChanged)]
    assert len(changed) == 1
    at, event = changed[0]
    assert at > fell  # announced after the notice that says why
    assert (event.from_model, event.to_model) == ("gemini-2.5-pro", "gemini-2.5-flash")
    assert event.from_provider == event.to_provider == "gemini"


async def test_a_switch_hands_the_executor_a_new_config_and_leaves_the_old_one_be(
    mock_llm: MockLLMServer, make_session: SessionFactory
) -> None:
    session = make_session(fallback=["gemini-2.5-flash"])
    before = session.executor.config
    with pytest.raises(AttributeError, match="immutable"):
        before.context_window = 1  # type: ignore[misc]
    await session.switch_model("gemini-2.5-flash")
    after = session.executor.config
    assert after is not before
    assert isinstance(after, ExecutorConfig)
    assert before.fallback == ("gemini-2.5-flash",)  # the value first handed over is kept
    assert after.max_turns == before.max_turns
    assert after.context_window == before.context_window
