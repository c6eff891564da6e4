"""``/model auto`` in the TUI: the router's choice and reason show in the transcript."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

from gemtui.bus.events import AgentFinished, ModelRouted, TerminateReason
from gemtui.testing.mockllm import MockLLMServer
from gemtui.tui.screens.dialogs import FallbackScreen
from gemtui.tui.widgets.transcript_blocks import NoticeBlock
from tests.tui.conftest import make_app, make_session
from tests.tui.helpers import Messages, group_done, turns_done


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


async def _until_requests(srv: MockLLMServer, n: int) -> None:
    """Poll the mock's request log (an interval, not a synchronising sleep)."""
    deadline = time.monotonic() + 15
    while len(srv.requests) < n:
        assert time.monotonic() < deadline, f"only {len(srv.requests)} requests came"
        await asyncio.sleep(0.01)


async def test_esc_while_the_classifier_hangs_ends_the_turn_at_once(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    verdict = {"text": json.dumps({"reasoning": "late", "model_choice": "flash"})}
    mock_llm.enqueue({**verdict, "fault": "hold"}, {"text": "never"})  # the verdict never comes
    session = make_session(mock_llm.url, workspace, model="gemini-2.5-pro")
    app = make_app(session, workspace)
    seen = Messages()
    async with app.run_test(size=(110, 40), message_hook=seen) as pilot:
        app.run_slash("/model auto")
        await group_done(app, "model")
        await pilot.press(*"rename x to y", "enter")
        await _until_requests(mock_llm, 1)
        await pilot.press("escape")
        finished = await seen.wait_event(AgentFinished)  # Esc alone ends it: nothing else will
        assert finished.reason == TerminateReason.ABORTED
        await turns_done(app)
        assert not [m for m in seen.seen if isinstance(getattr(m, "event", None), ModelRouted)]
    assert [r.path for r in mock_llm.requests] == [
        "/v1beta/models/gemini-2.5-flash-lite:generateContent"
    ], "no model turn after the cancel"


async def test_a_model_out_of_quota_is_not_routed_to_again(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    daily = "GenerateRequestsPerDayPerProjectPerModel"
    mock_llm.enqueue(
        {"text": json.dumps({"reasoning": "Hard.", "model_choice": "pro"})},
        {"error": {"status": 429, "message": "Quota exceeded", "quota_id": daily}},
        {"text": "flash took over"},
        {"text": "flash again"},
    )
    app = make_app(make_session(mock_llm.url, workspace, model="gemini-2.5-pro"), workspace)
    seen = Messages()
    async with app.run_test(size=(110, 40), message_hook=seen) as pilot:
        app.run_slash("/model auto")
        await group_done(app, "model")
        await pilot.press(*"redesign it", "enter")
        # never silently (issue 37): the switch to flash is asked first
        await seen.wait_for(lambda m: isinstance(app.screen, FallbackScreen))
        await pilot.press("f8", "s")
        await seen.wait_event(AgentFinished)
        await turns_done(app)
        mark = len(seen.seen)
        await pilot.press(*"and now", "enter")
        routed = await seen.wait_event(ModelRouted, after=mark)
        done = await seen.wait_event(AgentFinished, after=mark)
        assert routed.model == "gemini-2.5-flash"
        assert routed.reason == "gemini-2.5-pro's quota is spent"
        assert done.text == "flash again"
    assert [r.path.rsplit("/", 1)[1] for r in mock_llm.requests] == [
        "gemini-2.5-flash-lite:generateContent",
        "gemini-2.5-pro:streamGenerateContent",
        "gemini-2.5-flash:streamGenerateContent",
        "gemini-2.5-flash:streamGenerateContent",  # no classifier call: one model is left
    ]
