"""`gemtui --acp`: a prompt the editor cancels (``session/cancel``) stays cancelled (issue
33, item 9). ACP runs the same Session as the TUI, so the next prompt's request must say
the cancelled one was cancelled instead of sending both as one open question; a session
loaded in a new process keeps knowing it, and the editor is never shown the note as
something the person typed."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from acp import PROTOCOL_VERSION, text_block

from gemtui.testing import MockLLMServer
from gemtui.wire.cancel_note import CANCELLED_NOTE

from .acp_client import EditorClient, acp_agent, editor_caps
from .helpers import gemtui_env, write_fast_config

PROMPT_A = "write the release notes"
PROMPT_B = "what is two plus two"
PROMPT_C = "and three plus three"


def _user_texts(body: dict[str, Any]) -> list[str]:
    return [
        part["text"].strip()
        for content in body["contents"]
        if content["role"] == "user"
        for part in content["parts"]
        if "text" in part
    ]


def _assert_told_cancelled(body: dict[str, Any], last: str) -> None:
    texts = _user_texts(body)
    assert texts[-1] == last
    assert texts[texts.index(PROMPT_A) + 1] == CANCELLED_NOTE, texts
    assert texts.count(CANCELLED_NOTE) == 1, "only the cancelled prompt is marked"


async def test_a_prompt_cancelled_by_the_editor_is_never_asked_again(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    env = gemtui_env(isolated_home, mock_llm_thread.url)
    mock_llm_thread.enqueue(
        # the first words of A's answer, then the stream is held open until the cancel
        {"text": "Draft one never sent", "chunks": 2, "fault": "stall", "after_chunks": 1},
        {"text": "Four."},
        {"text": "Six."},
    )
    first = EditorClient()
    async with acp_agent(first, env=env, cwd=workspace) as (conn, _):
        await conn.initialize(protocol_version=PROTOCOL_VERSION, client_capabilities=editor_caps())
        new = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        turn = asyncio.create_task(
            conn.prompt(session_id=new.session_id, prompt=[text_block(PROMPT_A)])
        )
        while not first.of_kind("agent_message_chunk"):
            first.update_arrived.clear()
            await asyncio.wait_for(first.update_arrived.wait(), 20)
        await conn.cancel(session_id=new.session_id)
        assert (await asyncio.wait_for(turn, 20)).stop_reason == "cancelled"
        answer = await conn.prompt(session_id=new.session_id, prompt=[text_block(PROMPT_B)])
        assert answer.stop_reason == "end_turn"
    body = mock_llm_thread.requests[-1].json
    _assert_told_cancelled(body, PROMPT_B)
    said = [p.get("text", "") for c in body["contents"] if c["role"] == "model" for p in c["parts"]]
    assert said == ["Draft one "], "what the model said before the cancel, and no more"

    second = EditorClient()
    async with acp_agent(second, env=env, cwd=workspace) as (conn, _):
        await conn.initialize(protocol_version=PROTOCOL_VERSION, client_capabilities=editor_caps())
        await conn.load_session(cwd=str(workspace), session_id=new.session_id, mcp_servers=[])
        assert second.text("user_message_chunk") == PROMPT_A + PROMPT_B, "no note as typed"
        answer = await conn.prompt(session_id=new.session_id, prompt=[text_block(PROMPT_C)])
        assert answer.stop_reason == "end_turn"
    _assert_told_cancelled(mock_llm_thread.requests[-1].json, PROMPT_C)
