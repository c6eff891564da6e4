"""`gemtui --acp`: sessions that resume in a new process, and approval modes as ACP modes."""

from __future__ import annotations

from pathlib import Path

import pytest
from acp import PROTOCOL_VERSION, text_block

from gemtui.testing import MockLLMServer
from gemtui.testing.script import tool_step

from .acp_client import EditorClient, acp_agent, editor_caps
from .helpers import gemtui_env, write_fast_config


def _env(home: Path, url: str) -> dict[str, str]:
    write_fast_config(home)
    return gemtui_env(home, url)


async def test_load_replays_history_in_a_new_process_and_continues(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    env = _env(isolated_home, mock_llm_thread.url)
    mock_llm_thread.enqueue(
        tool_step("read_file", {"file_path": "notes.txt"}),
        {"text": "Noted: the word is pelican."},
        {"text": "You said pelican."},
    )
    (workspace / "notes.txt").write_text("pelican\n", encoding="utf-8")
    first = EditorClient()
    async with acp_agent(first, env=env, cwd=workspace) as (conn, _):
        await conn.initialize(protocol_version=PROTOCOL_VERSION, client_capabilities=editor_caps())
        new = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        await conn.prompt(session_id=new.session_id, prompt=[text_block("remember the word")])
    session_id = new.session_id

    second = EditorClient()
    async with acp_agent(second, env=env, cwd=workspace) as (conn, _):
        init = await conn.initialize(
            protocol_version=PROTOCOL_VERSION, client_capabilities=editor_caps()
        )
        assert init.agent_capabilities is not None
        assert init.agent_capabilities.load_session
        listed = await conn.list_sessions(cwd=str(workspace))
        assert session_id in [s.session_id for s in listed.sessions]
        loaded = await conn.load_session(cwd=str(workspace), session_id=session_id, mcp_servers=[])
        assert loaded is not None
        assert loaded.modes is not None
        assert second.text("user_message_chunk") == "remember the word"
        assert second.text() == "Noted: the word is pelican."
        replayed = second.of_kind("tool_call")
        assert [(c.title, c.status, c.kind) for c in replayed] == [
            ("read_file", "completed", "read")
        ]
        second.updates.clear()
        answer = await conn.prompt(session_id=session_id, prompt=[text_block("which word?")])
    assert answer.stop_reason == "end_turn"
    assert second.text() == "You said pelican."
    contents = mock_llm_thread.requests[-1].json["contents"]
    texts = [p.get("text") for c in contents for p in c["parts"]]
    assert texts[0] == "remember the word"
    assert "Noted: the word is pelican." in texts
    assert texts[-1] == "which word?"


async def test_loading_an_unknown_session_is_an_error(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    from acp import RequestError

    client = EditorClient()
    async with acp_agent(client, env=_env(isolated_home, mock_llm_thread.url), cwd=workspace) as (
        conn,
        _,
    ):
        await conn.initialize(protocol_version=PROTOCOL_VERSION, client_capabilities=editor_caps())
        with pytest.raises(RequestError, match="no-such-session"):
            await conn.load_session(
                cwd=str(workspace), session_id="no-such-session", mcp_servers=[]
            )


async def test_modes_switch_between_plan_and_yolo(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    """Plan mode blocks the write without asking; yolo runs it without asking."""
    mock_llm_thread.enqueue(
        tool_step("write_file", {"file_path": "a.txt", "content": "A"}),
        {"text": "Blocked."},
        tool_step("write_file", {"file_path": "b.txt", "content": "B"}),
        {"text": "Written."},
    )
    client = EditorClient(permission="allow_once")
    async with acp_agent(client, env=_env(isolated_home, mock_llm_thread.url), cwd=workspace) as (
        conn,
        _,
    ):
        await conn.initialize(protocol_version=PROTOCOL_VERSION, client_capabilities=editor_caps())
        new = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        assert new.modes is not None
        assert {m.id for m in new.modes.available_modes} == {"default", "auto_edit", "plan", "yolo"}
        await conn.set_session_mode(session_id=new.session_id, mode_id="plan")
        await conn.prompt(session_id=new.session_id, prompt=[text_block("write a")])
        assert [u.current_mode_id for u in client.of_kind("current_mode_update")] == ["plan"]
        assert client.writes == []
        assert client.of_kind("tool_call_update")[-1].status == "failed"
        await conn.set_session_mode(session_id=new.session_id, mode_id="yolo")
        await conn.prompt(session_id=new.session_id, prompt=[text_block("write b")])
    assert client.permission_requests == []
    assert client.writes == [(str(workspace / "b.txt"), "B")]
    assert [u.current_mode_id for u in client.of_kind("current_mode_update")] == ["plan", "yolo"]


async def test_available_commands_are_offered(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    mock_llm_thread.enqueue({"text": "hi"})
    client = EditorClient()
    async with acp_agent(client, env=_env(isolated_home, mock_llm_thread.url), cwd=workspace) as (
        conn,
        _,
    ):
        await conn.initialize(protocol_version=PROTOCOL_VERSION, client_capabilities=editor_caps())
        new = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        await conn.prompt(session_id=new.session_id, prompt=[text_block("hi")])
        answer = await conn.prompt(session_id=new.session_id, prompt=[text_block("/stats")])
    assert answer.stop_reason == "end_turn"
    offered = client.of_kind("available_commands_update")
    assert offered
    names = {c.name for c in offered[0].available_commands}
    assert {"compress", "memory", "stats", "model"} <= names
    assert "Tokens:" in client.text()
    assert len(mock_llm_thread.requests) == 1  # /stats made no model call


async def test_the_clients_mcp_servers_join_the_session(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    """A stdio server the editor passes in session/new: its tools are offered from the
    first request, and a call of one (not trusted) asks the editor first."""
    import sys

    from acp.schema import McpServerStdio

    server = McpServerStdio(
        name="time",
        command=str(Path(sys.executable).parent / "mcp-server-time"),
        args=["--local-timezone", "UTC"],
        env=[],
    )
    mock_llm_thread.enqueue(
        tool_step("get_current_time", {"timezone": "UTC"}, id="t1"), {"text": "It is now."}
    )
    client = EditorClient(permission="allow_once")
    async with acp_agent(client, env=_env(isolated_home, mock_llm_thread.url), cwd=workspace) as (
        conn,
        _,
    ):
        await conn.initialize(protocol_version=PROTOCOL_VERSION, client_capabilities=editor_caps())
        new = await conn.new_session(cwd=str(workspace), mcp_servers=[server])
        answer = await conn.prompt(session_id=new.session_id, prompt=[text_block("time?")])
    assert answer.stop_reason == "end_turn"
    first = mock_llm_thread.requests[0].json
    offered = {d["name"] for t in first["tools"] for d in t.get("functionDeclarations", [])}
    assert "get_current_time" in offered
    assert len(client.permission_requests) == 1
    assert client.of_kind("tool_call_update")[-1].status == "completed"
    response = mock_llm_thread.requests[-1].json["contents"][-1]["parts"][0]["functionResponse"]
    assert "UTC" in str(response["response"])


async def test_no_key_is_authentication_required(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    from acp import RequestError

    write_fast_config(isolated_home)
    env = gemtui_env(isolated_home, mock_llm_thread.url, key=None)
    client = EditorClient()
    async with acp_agent(client, env=env, cwd=workspace) as (conn, _):
        await conn.initialize(protocol_version=PROTOCOL_VERSION, client_capabilities=editor_caps())
        assert await conn.authenticate(method_id="gemini-api-key") is not None
        with pytest.raises(RequestError) as raised:
            await conn.new_session(cwd=str(workspace), mcp_servers=[])
        assert raised.value.code == -32000
        with pytest.raises(RequestError):
            await conn.authenticate(method_id="no-such-method")
        with pytest.raises(RequestError, match="absolute"):
            await conn.new_session(cwd="relative/dir", mcp_servers=[])
    assert mock_llm_thread.requests == []


async def test_protocol_version_is_negotiated_down_to_1(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    client = EditorClient()
    async with acp_agent(client, env=_env(isolated_home, mock_llm_thread.url), cwd=workspace) as (
        conn,
        _,
    ):
        newer = await conn.initialize(protocol_version=7, client_capabilities=editor_caps())
        older = await conn.initialize(protocol_version=0, client_capabilities=editor_caps())
    assert newer.protocol_version == 1
    assert older.protocol_version == 1
