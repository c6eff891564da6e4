"""A runaway guard says so in the TUI too (issue 37, item 3): the search past
``[tools] max_web_searches`` is refused and the transcript shows a warning line; with
room under the cap (the control) the same search runs and no such line appears."""

from __future__ import annotations

from pathlib import Path

import pytest

from gemtui.agent.provider_choice import ResolvedProvider
from gemtui.agent.session import Session, SessionOptions
from gemtui.bus.events import AgentFinished
from gemtui.config.settings import Settings, ToolSettings
from gemtui.providers.gemini import GeminiGenerator
from gemtui.providers.http import make_client
from gemtui.testing.mockllm import MockLLMServer
from gemtui.tui.widgets.transcript_blocks import NoticeBlock
from tests.tui.conftest import make_app
from tests.tui.helpers import Messages, turns_done


@pytest.mark.parametrize("cap", [0, 1])
async def test_the_search_cap_shows_a_warning_line(
    mock_llm: MockLLMServer, workspace: Path, cap: int
) -> None:
    search = {"name": "google_web_search", "args": {"query": "news"}, "id": "s1"}
    steps = [{"function_calls": [search]}, *([{"text": "found"}] if cap else []), {"text": "ok"}]
    mock_llm.enqueue(*steps)
    generator = GeminiGenerator(make_client(), "k", mock_llm.url)
    provider = ResolvedProvider("gemini", "gemini", generator, "gemini-2.5-flash", 1_048_576)
    settings = Settings(tools=ToolSettings(max_web_searches=cap))
    session = Session(
        settings,
        provider,
        SessionOptions(workspace=workspace, approval_mode="yolo", stream_retry_delays=(0.0,)),
    )
    app = make_app(session, workspace)
    seen = Messages()
    async with app.run_test(size=(110, 40), message_hook=seen) as pilot:
        await pilot.press(*"search", "enter")
        await seen.wait_event(AgentFinished)
        await turns_done(app)
        await pilot.pause()
        notices = [b.text for b in app.main.transcript._blocks.blocks if isinstance(b, NoticeBlock)]
    said = [n for n in notices if "limit of 0 web searches ([tools] max_web_searches)" in n]
    assert len(said) == (1 if cap == 0 else 0), notices
    assert len(mock_llm.requests) == (2 if cap == 0 else 3)
