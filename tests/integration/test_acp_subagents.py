"""`gemtui --acp`: a subagent's calls are marked with the call that started its agent,
and its text stays out of the agent's message."""

from __future__ import annotations

from pathlib import Path

from acp import PROTOCOL_VERSION, text_block

from gemtui.testing import MockLLMServer

from .acp_client import EditorClient, acp_agent, editor_caps
from .helpers import gemtui_env, write_fast_config


async def test_subagent_calls_carry_their_parent_in_meta(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    (workspace / "notes.txt").write_text("N\n")
    mock_llm_thread.enqueue(
        {"function_calls": [{"name": "generalist", "args": {"task": "t"}, "id": "p1"}]},
        {
            "text": "CHILD-CHATTER",
            "function_calls": [
                {"name": "read_file", "args": {"file_path": "notes.txt"}, "id": "c1"}
            ],
        },
        {"function_calls": [{"name": "complete_task", "args": {"output": {"report": "r"}}}]},
        {"text": "Parent answer."},
    )
    client = EditorClient()
    env = gemtui_env(isolated_home, mock_llm_thread.url)
    async with acp_agent(client, env=env, cwd=workspace) as (conn, _):
        await conn.initialize(protocol_version=PROTOCOL_VERSION, client_capabilities=editor_caps())
        new = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        await conn.prompt(session_id=new.session_id, prompt=[text_block("go")])
    starts = {u.tool_call_id: u.field_meta for u in client.of_kind("tool_call")}
    assert starts == {"p1": None, "p1/c1": {"gemtui": {"parentToolCallId": "p1"}}}
    assert "CHILD-CHATTER" not in client.text()
    assert "Parent answer." in client.text()
