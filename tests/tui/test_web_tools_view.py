"""What the web tools show: the search's sources in the card, each URL a link to open."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.style import Style

from gemtui.bus.events import AgentFinished, ToolCallSnapshot, ToolCallState
from gemtui.testing.mockllm import MockLLMServer
from gemtui.tui.widgets.transcript_blocks import RenderContext, ToolBlock
from tests.tui.conftest import make_app, make_session
from tests.tui.helpers import Messages
from tests.tui.test_transcript import screen_text, settle

GROUNDING = {
    "groundingChunks": [{"web": {"uri": "https://docs.example/release", "title": "Release notes"}}],
    "groundingSupports": [{"segment": {"endIndex": 18}, "groundingChunkIndices": [0]}],
}


def test_urls_in_a_tool_card_are_links() -> None:
    snapshot = ToolCallSnapshot(
        call_id="c1",
        name="google_web_search",
        args={"query": "q"},
        state=ToolCallState.SUCCESS,
        output='Search results for "q" returned.\n[1] Release notes (https://docs.example/release).',
    )
    ctx = RenderContext(console=Console(), width=100, style=lambda name: Style())
    segments = [seg for strip in ToolBlock(snapshot).render(ctx) for seg in strip]
    linked = {seg.text: seg.style.link for seg in segments if seg.style and seg.style.link}
    assert linked == {"https://docs.example/release": "https://docs.example/release"}


async def test_a_search_in_the_app_shows_its_sources(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    mock_llm.enqueue(
        {"function_calls": [{"name": "google_web_search", "args": {"query": "gemtui 2.0"}}]},
        {"text": "gemtui 2.0 is out.", "grounding": GROUNDING},
        {"text": "It is out [1]."},
    )
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await pilot.press(*"what is new", "enter")
        await seen.wait_event(AgentFinished)
        await settle(pilot, app.main.transcript)
        shown = screen_text(app.main.transcript)
        assert 'Search results for "gemtui 2.0" returned.' in shown
        assert "[1] Release notes (https://docs.example/release)" in shown
    output = mock_llm.requests[2].json["contents"][-1]["parts"][0]["functionResponse"]
    assert "gemtui 2.0 is out.[1]" in output["response"]["output"]
