"""The fallback question (issue 37, item 4): when the model's quota runs out the TUI asks
before switching, with the new model's price; "switch" goes on with the new model (the
mock sees its name), "stop" ends the prompt; what the person was typing stays in the
prompt either way, and no letter answers before F8 (the question appeared by itself).
A ``[model] fallback`` on another provider is asked about with that provider's price,
and "switch" goes on there."""

from __future__ import annotations

import json
from pathlib import Path

from gemtui.agent.session import Session
from gemtui.bus.events import AgentFinished, ErrorOccurred, ModelChanged, ModelFallback
from gemtui.config.settings import ModelSettings, ProviderSettings, Settings
from gemtui.testing.mockllm import MockLLMServer
from gemtui.tui.screens.dialogs import FallbackScreen
from tests.tui.conftest import make_app, make_session
from tests.tui.helpers import Messages, turns_done

DAILY_QUOTA = {
    "status": 429,
    "message": "Quota exceeded for quota metric 'Generate requests' per day.",
    "quota_id": "GenerateRequestsPerDayPerProjectPerModel",
}


async def _asked(mock_llm: MockLLMServer, workspace: Path, answer: str) -> tuple[Messages, str]:
    """Send a prompt into an exhausted Pro quota, type a draft while the question is up,
    then answer it; the events seen and the prompt's text after."""
    mock_llm.enqueue({"error": DAILY_QUOTA}, {"text": "flash answers"})
    app = make_app(make_session(mock_llm.url, workspace, model="gemini-2.5-pro"), workspace)
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await pilot.press(*"hello", "enter")
        await seen.wait_for(lambda m: isinstance(app.screen, FallbackScreen))
        question = app.screen
        assert isinstance(question, FallbackScreen)
        shown = " ".join(str(s.render()) for s in question.query("Static"))
        assert "Switch from gemini-2.5-pro to gemini-2.5-flash?" in shown
        assert "gemini-2.5-flash costs $0.30 in / $2.50 out per 1M tokens" in shown
        assert "quota exhausted" in shown
        await pilot.press(*"sx draft")  # appeared by itself: letters are text, not answers
        assert app.screen is question
        await pilot.press("f8", answer)
        await seen.wait_event(AgentFinished)
        await turns_done(app)
        await pilot.pause()
        assert not isinstance(app.screen, FallbackScreen)
        return seen, app.main.prompt.text


async def test_switch_goes_on_with_the_fallback_model(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    seen, typed = await _asked(mock_llm, workspace, "s")
    paths = [r.path for r in mock_llm.requests]
    assert paths[0].endswith("/models/gemini-2.5-pro:streamGenerateContent")
    assert paths[1].endswith("/models/gemini-2.5-flash:streamGenerateContent")
    assert await seen.wait_event(ModelFallback, to_model="gemini-2.5-flash")
    assert typed == "sx draft"


async def test_stop_ends_the_prompt_on_the_same_model(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    seen, typed = await _asked(mock_llm, workspace, "x")
    assert len(mock_llm.requests) == 1
    error = await seen.wait_event(ErrorOccurred)
    assert "Quota exhausted for gemini-2.5-pro" in error.message
    assert "You chose not to switch to gemini-2.5-flash." in (error.hint or "")
    assert not any(getattr(m, "event", None).__class__ is ModelFallback for m in seen.seen)
    assert typed == "sx draft"


async def _asked_to_move(
    mock_llm: MockLLMServer, other: MockLLMServer, workspace: Path, answer: str
) -> tuple[Messages, Session]:
    """``[model] fallback = ["openai:some-model"]``: the Gemini quota runs out, the
    question names the other provider's model and its own price; then ``answer``."""
    mock_llm.enqueue({"error": DAILY_QUOTA})
    other.enqueue({"text": "openai answers"})
    openai = ProviderSettings(
        kind="openai", base_url=f"{other.url}/v1", prices={"input": 2.0, "output": 4.0}
    )
    settings = Settings(
        model=ModelSettings(fallback=["openai:some-model"]), providers={"openai": openai}
    )
    session = make_session(mock_llm.url, workspace, model="gemini-2.5-pro", settings=settings)
    app = make_app(session, workspace)
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await pilot.press(*"hello", "enter")
        await seen.wait_for(lambda m: isinstance(app.screen, FallbackScreen))
        shown = " ".join(str(s.render()) for s in app.screen.query("Static"))
        assert "Switch from gemini:gemini-2.5-pro to openai:some-model?" in shown
        assert "openai:some-model costs $2.00 in / $4.00 out per 1M tokens" in shown
        await pilot.press("f8", answer)
        await seen.wait_event(AgentFinished)
        await turns_done(app)
        await pilot.pause()
    return seen, session


async def test_switch_goes_on_at_the_other_provider(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    """ "Switch" sends the same prompt to the OpenAI-compatible server, the conversation
    kept; the status line's provider follows."""
    async with MockLLMServer() as other:
        seen, session = await _asked_to_move(mock_llm, other, workspace, "s")
        [asked] = [r.json for r in other.requests if r.path.endswith("/chat/completions")]
        assert asked["model"] == "some-model"
        assert "hello" in json.dumps(asked["messages"])
        done = await seen.wait_event(AgentFinished)
        assert done.text == "openai answers"
        moved = await seen.wait_event(ModelFallback, to_provider="openai")
        assert moved.target == "openai:some-model"
        assert await seen.wait_event(ModelChanged, to_provider="openai")
        assert session.provider.name == "openai"
        assert len(mock_llm.requests) == 1


async def test_stop_keeps_the_provider_and_asks_nothing_of_the_other(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    """The control: "stop" ends the prompt; the other server hears nothing."""
    async with MockLLMServer() as other:
        seen, session = await _asked_to_move(mock_llm, other, workspace, "x")
        error = await seen.wait_event(ErrorOccurred)
        assert "You chose not to switch to openai:some-model." in (error.hint or "")
        assert other.requests == []
        assert session.provider.name == "gemini"
