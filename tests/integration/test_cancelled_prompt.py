"""A cancelled prompt stays cancelled, below the TUI (issue 33, item 9).

The engine: a prompt cancelled before any model call (the cancel came while it waited
for the groundwork, the router, a hook) is kept too, with the note, so the history says
what the person asked and the model is told it was cancelled. Headless: Ctrl-C on
``-p`` ends with 130, and ``--resume`` then tells the model the prompt was cancelled
instead of sending it again with the new one.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import Any

from gemtui.bus import ContentDelta, Event, TerminateReason, UserMessage
from gemtui.testing import MockLLMServer, filler
from gemtui.wire import Content
from gemtui.wire.cancel_note import CANCELLED_NOTE, is_cancel_note

from .conftest import SessionFactory
from .helpers import gemtui_env, popen_gemtui, run_gemtui, write_fast_config

PROMPT_A = "write the release notes"
PROMPT_B = "what is two plus two"


def _user_texts(body: dict[str, Any]) -> list[str]:
    return [
        part["text"].strip()
        for content in body["contents"]
        if content["role"] == "user"
        for part in content["parts"]
        if "text" in part
    ]


async def test_a_prompt_cancelled_before_any_model_call_is_kept_and_marked(
    mock_llm: MockLLMServer, make_session: SessionFactory
) -> None:
    mock_llm.enqueue({"text": "Four."})
    session = make_session()

    def cancel_at_once(ev: Event) -> None:
        if isinstance(ev, UserMessage) and ev.text == PROMPT_A:
            session.cancel()

    session.bus.subscribe(cancel_at_once)
    cancelled = await session.send(PROMPT_A)
    assert cancelled.reason == TerminateReason.ABORTED
    assert not mock_llm.requests, "cancelled before its first model call"
    prompt, note = session.chat.history
    assert prompt == Content.user(PROMPT_A), "what the person asked stays in the history"
    assert is_cancel_note(note)
    done = await session.send(PROMPT_B)
    assert done.text == "Four."
    body = mock_llm.requests[-1].json
    assert [c["role"] for c in body["contents"]] == ["user"]
    assert _user_texts(body) == [PROMPT_A, CANCELLED_NOTE, PROMPT_B]


def test_ctrl_c_on_a_headless_prompt_is_told_as_cancelled_on_resume(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    env = gemtui_env(isolated_home, mock_llm_thread.url)
    mock_llm_thread.enqueue(
        # the first words, then the stream is held open until Ctrl-C
        {"text": "Draft one never sent", "chunks": 2, "fault": "stall", "after_chunks": 1},
        {"text": "Four."},
    )
    proc = popen_gemtui(["-p", PROMPT_A], env=env, cwd=workspace)
    try:
        assert proc.stdout is not None
        assert os.read(proc.stdout.fileno(), 1), "the answer has begun"
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130

    resumed = run_gemtui(["--resume", "latest", "-p", PROMPT_B], env=env, cwd=workspace)
    assert resumed.returncode == 0, resumed.stderr
    assert resumed.stdout.strip() == "Four."
    body = mock_llm_thread.requests[-1].json
    assert _user_texts(body) == [PROMPT_A, CANCELLED_NOTE, PROMPT_B]
    said = [p.get("text", "") for c in body["contents"] if c["role"] == "model" for p in c["parts"]]
    assert said == ["Draft one "], "what the model said before Ctrl-C, and no more"


async def test_a_compression_keeps_the_note_apart_from_the_next_prompt(
    mock_llm: MockLLMServer, make_session: SessionFactory
) -> None:
    """The turns a compression keeps are the history's own, not the request's merged
    messages: the note stays a message of its own (views and the store know it by that),
    and the next request still says A was cancelled."""
    mock_llm.enqueue(
        {"text": filler(300, "first")},  # a long first answer: the older part summarised
        {"text": "Draft one never sent", "chunks": 2, "fault": "stall", "after_chunks": 1},
        {"text": "Four."},
        {"count_tokens": 5000},
        {"text": "SUMMARY: the person asked for a long text."},
        {"count_tokens": 100},
        {"text": "Six."},
    )
    session = make_session()

    def cancel_mid_answer(ev: Event) -> None:
        if isinstance(ev, ContentDelta) and ev.text.startswith("Draft"):
            session.cancel()

    session.bus.subscribe(cancel_mid_answer)
    await session.send("write a long text")
    assert (await session.send(PROMPT_A)).reason == TerminateReason.ABORTED
    await session.send(PROMPT_B)
    await session.compress()
    history = session.chat.history
    assert "SUMMARY" in (history[0].parts[0].text or ""), "compressed"
    texts = [c.parts[0].text for c in history]
    assert texts[2:] == [PROMPT_A, "Draft one ", history[4].parts[0].text, PROMPT_B, "Four."]
    assert is_cancel_note(history[4]), "the note is still a message of its own"
    done = await session.send("and three plus three")
    assert done.text == "Six."
    asked = _user_texts(mock_llm.requests[-1].json)
    assert asked[asked.index(PROMPT_A) + 1] == CANCELLED_NOTE, asked
