"""The context line and the compression threshold measure the same request.

Before one estimator, a compression showed the compressed size on the context line while
the engine still measured the threshold by the last call's pre-compression prompt: the
next prompt paid a countTokens call (and could compress again) although the line showed
the conversation far below the threshold.
"""

from __future__ import annotations

from pathlib import Path

from gemtui.agent.provider_choice import ResolvedProvider
from gemtui.agent.session import Session, SessionOptions
from gemtui.bus.events import AgentFinished, HistoryCompressed
from gemtui.config.settings import Settings
from gemtui.providers.gemini import GeminiGenerator
from gemtui.providers.http import make_client
from gemtui.testing import filler
from gemtui.testing.mockllm import MockLLMServer
from tests.tui.conftest import make_app
from tests.tui.helpers import Messages, turns_done

WINDOW = 60_000
"""Half of it (the default threshold) is 30,000: the first call's 40,000 is over it."""


def _session(url: str, workspace: Path) -> Session:
    provider = ResolvedProvider(
        "gemini", "gemini", GeminiGenerator(make_client(), "k", url), "gemini-2.5-flash", WINDOW
    )
    options = SessionOptions(workspace=workspace, stream_retry_delays=(0.0,))
    return Session(Settings(), provider, options)


def _counts(mock_llm: MockLLMServer, since: int) -> list[str]:
    return [r.path for r in mock_llm.requests[since:] if r.path.endswith(":countTokens")]


async def test_after_compress_the_threshold_measures_what_the_context_line_shows(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    """/compress leaves the line at the compressed size; the next prompt is measured by
    that same figure, so it is under the threshold and asks for no count."""
    mock_llm.enqueue(
        {"text": filler(40, "first"), "usage": {"prompt": 40_000, "output": 30}},
        {"count_tokens": 35_000},
        {"text": "SUMMARY: the person asked once."},
        {"count_tokens": 100},
        {"text": "Second answer."},
    )
    session = _session(mock_llm.url, workspace)
    app = make_app(session, workspace)
    seen = Messages()
    async with app.run_test(size=(120, 30), message_hook=seen) as pilot:
        await pilot.press(*"tell me at length", "enter")
        await seen.wait_event(AgentFinished)
        await turns_done(app)
        assert app.main.usage.last_prompt_tokens == 40_000
        app.run_slash("/compress")
        done = await seen.wait_event(HistoryCompressed)
        compressing = [w for w in app.workers if w.group == "compress"]
        if compressing:
            await app.workers.wait_for_complete(compressing)
        shown = app.main.usage.last_prompt_tokens
        assert shown == done.tokens_after < WINDOW // 2
        assert session.executor.prompt_tokens() == shown, "the figure the threshold uses"
        mark, finished = len(mock_llm.requests), len(seen.seen)
        await pilot.press(*"and now?", "enter")
        await seen.wait_event(AgentFinished, after=finished)
        await turns_done(app)
    assert _counts(mock_llm, mark) == [], "no compression check: the line says it is small"
    assert "SUMMARY" in str(mock_llm.requests[-1].json["contents"]), "sent on the summary"


async def test_control_over_the_threshold_the_next_prompt_checks_with_a_count(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    """Control: without the compression, the same 40,000 on the line does make the next
    prompt ask for a count, so the test above would see one if the figures disagreed."""
    mock_llm.enqueue(
        {"text": filler(40, "first"), "usage": {"prompt": 40_000, "output": 30}},
        {"count_tokens": 100},
        {"text": "Second answer."},
    )
    session = _session(mock_llm.url, workspace)
    app = make_app(session, workspace)
    seen = Messages()
    async with app.run_test(size=(120, 30), message_hook=seen) as pilot:
        await pilot.press(*"tell me at length", "enter")
        await seen.wait_event(AgentFinished)
        await turns_done(app)
        assert session.executor.prompt_tokens() == app.main.usage.last_prompt_tokens == 40_000
        mark, finished = len(mock_llm.requests), len(seen.seen)
        await pilot.press(*"and now?", "enter")
        await seen.wait_event(AgentFinished, after=finished)
        await turns_done(app)
    assert len(_counts(mock_llm, mark)) == 1


async def test_the_live_streaming_figure_is_the_one_estimate(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    """The usage pane's "streaming ~N tokens" while an answer arrives uses the same rule."""
    from textual.widgets import Static

    from gemtui.wire.token_estimate import tokens_for_chars

    app = make_app(_session(mock_llm.url, workspace), workspace)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        app.main.usage.record_streamed("x" * 4_001)
        numbers = str(app.main.usage.query_one("#usage-numbers", Static).render())
    assert f"streaming ~{tokens_for_chars(4_001):,} tokens" in numbers
