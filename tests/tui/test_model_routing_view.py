"""``/model auto`` in the TUI: the router's choice and reason show in the transcript."""

from __future__ import annotations

import json
from pathlib import Path

from gemtui.bus.events import AgentFinished, ModelRouted
from gemtui.testing.mockllm import MockLLMServer
from gemtui.tui.widgets.transcript_blocks import NoticeBlock
from tests.tui.conftest import make_app, make_session
from tests.tui.helpers import Messages


async def test_model_auto_routes_each_prompt_and_says_why(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    verdict = {"reasoning": "Small rename.", "model_choice": "flash"}
    mock_llm.enqueue({"text": json.dumps(verdict)}, {"text": "Done."})
    app = make_app(make_session(mock_llm.url, workspace, model="gemini-2.5-pro"), workspace)
    seen = Messages()
    async with app.run_test(size=(110, 40), message_hook=seen) as pilot:
        app.run_slash("/model auto")
        for worker in [w for w in app.workers if w.group == "model"]:
            await worker.wait()
        await pilot.press(*"rename x to y", "enter")
        routed = await seen.wait_event(ModelRouted)
        await seen.wait_event(AgentFinished)
        await pilot.pause()
        assert routed.model == "gemini-2.5-flash"
        notices = [b.text for b in app.main.transcript._blocks.blocks if isinstance(b, NoticeBlock)]
        assert "auto chose gemini-2.5-flash: Small rename." in notices
        assert app.main.status.model == "gemini-2.5-flash"
        assert len(app.main.usage.per_turn) == 2  # the router's call is counted
    assert mock_llm.requests[0].path.endswith("gemini-2.5-flash-lite:generateContent")
    assert mock_llm.requests[1].path.endswith("gemini-2.5-flash:streamGenerateContent")
