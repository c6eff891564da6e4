"""A cancelled prompt stays cancelled (issue 33, item 9).

Esc on a prompt keeps it in the conversation, marked as cancelled, and whatever the model
had already said; the next request tells the model it was cancelled, so the model never
answers it again together with the next prompt (it used to: the two prompts went out as
one user turn). Typed at a person's pace and as one burst; the cancel lands while the
mock model's stream is held open (or its command runs), found by the events or the
mock's own record, never by a sleep. The resumed session shows the prompt as cancelled
too, and the model still knows.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from textual.geometry import Region
from textual.pilot import Pilot

from gemtui.agent.assembly import RunOptions
from gemtui.bus.events import AgentFinished, ContentDelta, TerminateReason, ToolOutput
from gemtui.store import SessionStore
from gemtui.testing.mockllm import MockLLMServer
from gemtui.tui.app import GemtuiApp
from gemtui.tui.launch import build_app
from gemtui.tui.widgets.conversation_preview import ConversationPreview
from gemtui.wire.cancel_note import CANCELLED_NOTE
from tests.tui.helpers import Messages, engine_started, turns_done
from tests.tui.test_resume_shows_what_happened import _settings_for
from tests.tui.test_sessions_screen import BrowserApp
from tests.tui.test_transcript import screen_text, settle

PROMPT_A = "write the release notes"
PROMPT_B = "what is two plus two"
PROMPT_C = "and three plus three"
PARTIAL = "Draft one"
"""What the model says before the cancel: the first of two chunks (split by words)."""
HELD = {"text": f"{PARTIAL} never sent", "chunks": 2, "fault": "stall", "after_chunks": 1}
"""A's answer: its first words, then the stream held open until the cancel."""
PACES = {"a person's pace": 0.12, "one burst": None}
"""Seconds between keys (about a person's), or every key pressed at once."""

Started = Callable[[MockLLMServer, Messages, Pilot[Any]], Awaitable[None]]
"""Waits until prompt A is under way, the way one case needs."""


@pytest.fixture(autouse=True)
def api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", "k")


async def _type(pilot: Pilot[Any], keys: list[str], pace: float | None) -> None:
    if pace is None:
        await pilot.press(*keys)
        return
    for key in keys:
        await pilot.press(key)
        await pilot.pause(pace)  # the pace of typing, not a wait for anything


def _user_texts(body: dict[str, Any]) -> list[str]:
    """Every text the request sends in the person's turns, in order (stripped)."""
    return [
        part["text"].strip()
        for content in body["contents"]
        if content["role"] == "user"
        for part in content["parts"]
        if "text" in part
    ]


def _assert_told_cancelled(body: dict[str, Any], last: str = PROMPT_B) -> None:
    """The request asks ``last`` and says A was cancelled: A is never an open question."""
    texts = _user_texts(body)
    assert texts[-1] == last
    assert PROMPT_A in texts, "the cancelled prompt stays in the conversation"
    after_a = texts[texts.index(PROMPT_A) + 1 :]
    assert after_a[0] == CANCELLED_NOTE, f"A is followed by the cancel note, not B: {texts}"
    assert texts.count(CANCELLED_NOTE) == 1, "only the cancelled prompt is marked"
    roles = [c["role"] for c in body["contents"]]
    assert all(a != b for a, b in pairwise(roles)), f"alternating: {roles}"


async def _cancel_then_ask_again(
    mock_llm: MockLLMServer,
    workspace: Path,
    pace: float | None,
    started: Started,
    shown_before: str | None = None,
    **options: Any,
) -> str:
    """Prompt A, Esc once ``started`` says A is under way, then prompt B, typed at
    ``pace``; A is shown cancelled (``shown_before``, what was on screen, still is).
    Returns the session's id."""
    app = build_app(_settings_for(mock_llm.url), RunOptions(workspace=workspace, **options))
    assert isinstance(app, GemtuiApp)
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await engine_started(app, seen)
        await _type(pilot, [*PROMPT_A, "enter"], pace)
        await started(mock_llm, seen, pilot)
        mark = len(seen.seen)
        await _type(pilot, ["escape", *PROMPT_B, "enter"], pace)
        await seen.wait_event(AgentFinished, after=mark, reason=TerminateReason.ABORTED)
        await seen.wait_event(AgentFinished, after=mark, reason=TerminateReason.GOAL)
        await turns_done(app)
        transcript = app.main.transcript
        await settle(pilot, transcript)
        shown = screen_text(transcript)
        assert f"{PROMPT_A}  ⊘ cancelled" in shown, shown
        assert f"{PROMPT_B}  ⊘" not in shown
        assert "Four." in shown
        if shown_before is not None:
            assert shown_before in shown, "what arrived before the cancel stays shown"
        assert app.session is not None
        session_id: str = app.session.id
    app.close_store()
    return session_id


async def _answer_streams(mock_llm: MockLLMServer, seen: Messages, pilot: Pilot[Any]) -> None:
    await seen.wait_event(ContentDelta)


async def _request_sent(mock_llm: MockLLMServer, seen: Messages, pilot: Pilot[Any]) -> None:
    while not mock_llm.requests:  # the mock holds A's request, not a byte of answer yet
        await pilot.pause()


async def _command_runs(mock_llm: MockLLMServer, seen: Messages, pilot: Pilot[Any]) -> None:
    await seen.wait_event(ToolOutput)


@pytest.mark.parametrize("pace", PACES.values(), ids=PACES.keys())
async def test_esc_while_the_answer_streams_keeps_the_prompt_cancelled(
    mock_llm: MockLLMServer, workspace: Path, pace: float | None
) -> None:
    """The model had begun to answer A: its words stay on screen and in the history, and
    the request for B says A was cancelled after them; so does the resumed session's."""
    mock_llm.enqueue(HELD, {"text": "Four."}, {"text": "Six."})
    session_id = await _cancel_then_ask_again(
        mock_llm, workspace, pace, _answer_streams, shown_before=PARTIAL
    )
    body = mock_llm.requests[-1].json
    _assert_told_cancelled(body)
    said = [p.get("text", "") for c in body["contents"] if c["role"] == "model" for p in c["parts"]]
    assert any(PARTIAL in t for t in said), said
    assert not any("never sent" in t for t in said)
    with SessionStore() as store:  # saved as it happened: two prompts, one cancelled
        info = store.get(session_id)
        markdown = store.export_markdown(session_id)
    assert info is not None
    assert info.turns == 2, "the note is not counted as a prompt"
    assert (
        f"{PROMPT_A}\n\n## Model\n\n{PARTIAL}\n\n_(cancelled before it was finished)_" in markdown
    )
    assert CANCELLED_NOTE not in markdown
    with SessionStore() as store:  # the session browser's preview marks it too
        browser = BrowserApp(store, workspace=str(workspace))
        async with browser.run_test(size=(120, 30)) as pilot:
            await pilot.pause()
            preview = browser.screen.query_one(ConversationPreview)
            lines = preview.render_lines(Region(0, 0, preview.size.width, 20))
    previewed = " ".join(" ".join(line.text for line in lines).split())  # a narrow pane wraps
    assert f"{PROMPT_A} ⊘ cancelled" in previewed, previewed
    assert CANCELLED_NOTE[:30] not in previewed

    app = build_app(
        _settings_for(mock_llm.url),
        RunOptions(workspace=workspace, resume=session_id, model="gemini-2.5-flash"),
    )
    assert isinstance(app, GemtuiApp)
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await engine_started(app, seen)
        transcript = app.main.transcript
        await settle(pilot, transcript)
        shown = screen_text(transcript)
        assert f"{PROMPT_A}  ⊘ cancelled" in shown, shown
        assert CANCELLED_NOTE[:30] not in shown, "the note is for the model, not a prompt"
        assert [t for r, t in transcript.messages() if r == "user"] == [PROMPT_A, PROMPT_B]
        await pilot.press(*PROMPT_C, "enter")
        await seen.wait_event(AgentFinished)
        await turns_done(app)
    app.close_store()
    _assert_told_cancelled(mock_llm.requests[-1].json, last=PROMPT_C)


async def test_esc_before_any_answer_keeps_the_prompt_cancelled(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    """Nothing came back yet: A and the note go out in B's turn, B last."""
    mock_llm.enqueue({"text": "never sent", "fault": "stall", "after_chunks": 0}, {"text": "Four."})
    await _cancel_then_ask_again(mock_llm, workspace, None, _request_sent)
    body = mock_llm.requests[-1].json
    _assert_told_cancelled(body)
    assert [c["role"] for c in body["contents"]] == ["user"]


async def test_esc_while_a_command_runs_answers_the_call_then_says_cancelled(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    """The call cancelled mid-way still gets its response, first in B's turn (every API
    wants the results to lead); the note follows it, then B."""
    command = "echo started; sleep 30; echo never printed"
    mock_llm.enqueue(
        {"function_calls": [{"name": "run_shell_command", "args": {"command": command}}]},
        {"text": "Four."},
    )
    await _cancel_then_ask_again(
        mock_llm, workspace, None, _command_runs, shown_before="started", approval_mode="yolo"
    )
    body = mock_llm.requests[-1].json
    _assert_told_cancelled(body)
    last = body["contents"][-1]["parts"]
    assert "functionResponse" in last[0], last
    assert last[0]["functionResponse"]["response"]["error"].startswith("Cancelled by the user.")
    assert [p.get("text", "").strip() for p in last[1:]] == [CANCELLED_NOTE, PROMPT_B]
