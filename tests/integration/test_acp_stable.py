"""`gemtui --acp` at ACP 1.x's stable surface: session/resume, session/close, session/list
pages, additionalDirectories, logout, Vertex AI offered, and the editor's buffers read by
grep, read_many_files and @path."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from acp import PROTOCOL_VERSION, RequestError, text_block
from acp.schema import ClientCapabilities, McpServerStdio

from gemtui.testing import MockLLMServer
from gemtui.testing.script import tool_step
from tests.support.file_keyring import BACKEND, ENV

from .acp_client import EditorClient, acp_agent, editor_caps, logout
from .helpers import gemtui_env, write_fast_config


def _env(home: Path, url: str, **more: str) -> dict[str, str]:
    write_fast_config(home)
    return gemtui_env(home, url) | more


def _texts(request: Any) -> str:
    """Everything the model was sent in one request, as text."""
    return json.dumps(request.json["contents"])


async def test_resume_after_the_agent_restarts_without_replaying(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    env = _env(isolated_home, mock_llm_thread.url)
    mock_llm_thread.enqueue({"text": "Noted: heron."}, {"text": "You said heron."})
    first = EditorClient()
    async with acp_agent(first, env=env, cwd=workspace) as (conn, _):
        await conn.initialize(protocol_version=PROTOCOL_VERSION, client_capabilities=editor_caps())
        new = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        await conn.prompt(session_id=new.session_id, prompt=[text_block("the word is heron")])

    second = EditorClient()
    async with acp_agent(second, env=env, cwd=workspace) as (conn, _):
        init = await conn.initialize(
            protocol_version=PROTOCOL_VERSION, client_capabilities=editor_caps()
        )
        caps = init.agent_capabilities
        assert caps is not None
        assert caps.session_capabilities is not None
        assert caps.session_capabilities.resume is not None
        assert caps.session_capabilities.close is not None
        resumed = await conn.resume_session(session_id=new.session_id, cwd=str(workspace))
        assert resumed.modes is not None
        assert second.of_kind("user_message_chunk") == []  # resume never replays
        assert second.text() == ""
        answer = await conn.prompt(session_id=new.session_id, prompt=[text_block("which?")])
    assert answer.stop_reason == "end_turn"
    assert second.text() == "You said heron."
    sent = _texts(mock_llm_thread.requests[-1])
    assert "the word is heron" in sent
    assert "Noted: heron." in sent


async def test_resuming_an_unknown_session_is_an_error(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    client = EditorClient()
    async with acp_agent(client, env=_env(isolated_home, mock_llm_thread.url), cwd=workspace) as (
        conn,
        _,
    ):
        await conn.initialize(protocol_version=PROTOCOL_VERSION, client_capabilities=editor_caps())
        with pytest.raises(RequestError, match="no-such-session"):
            await conn.resume_session(session_id="no-such-session", cwd=str(workspace))


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie waiting to be reaped has stopped)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text(encoding="utf-8")
    except FileNotFoundError:
        return False
    return "\nState:\tZ" not in status


async def test_close_frees_the_session_and_its_servers(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    pidfile = tmp_path / "server.pid"
    time_server = Path(sys.executable).parent / "mcp-server-time"
    server = McpServerStdio(
        name="time",
        command="/bin/sh",
        args=["-c", f'echo $$ > "{pidfile}"; exec "{time_server}" --local-timezone UTC'],
        env=[],
    )
    mock_llm_thread.enqueue({"text": "Ready."})
    client = EditorClient()
    async with acp_agent(client, env=_env(isolated_home, mock_llm_thread.url), cwd=workspace) as (
        conn,
        _,
    ):
        await conn.initialize(protocol_version=PROTOCOL_VERSION, client_capabilities=editor_caps())
        new = await conn.new_session(cwd=str(workspace), mcp_servers=[server])
        await conn.prompt(session_id=new.session_id, prompt=[text_block("hi")])  # servers up
        pid = int(pidfile.read_text(encoding="utf-8"))
        assert _alive(pid)  # the control: the session's server runs until the close
        assert await conn.close_session(session_id=new.session_id) is not None
        assert not _alive(pid)
        with pytest.raises(RequestError) as gone:
            await conn.prompt(session_id=new.session_id, prompt=[text_block("again")])
        assert gone.value.data == {"sessionId": new.session_id, "reason": "unknown"}
        with pytest.raises(RequestError) as twice:
            await conn.close_session(session_id=new.session_id)
        assert twice.value.data == gone.value.data
        listed = await conn.list_sessions(cwd=str(workspace))  # still stored: resumable
        assert new.session_id in [s.session_id for s in listed.sessions]
    assert len(mock_llm_thread.requests) == 1


async def test_list_filters_by_cwd_and_pages_with_a_cursor(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    from gemtui.store import SessionStore

    other = tmp_path / "other"
    other.mkdir()
    with SessionStore() as store:
        mine = {store.create_session(workspace=str(workspace), created=i) for i in range(1, 61)}
        theirs = store.create_session(workspace=str(other), created=100)
    client = EditorClient()
    async with acp_agent(client, env=_env(isolated_home, mock_llm_thread.url), cwd=workspace) as (
        conn,
        _,
    ):
        await conn.initialize(protocol_version=PROTOCOL_VERSION, client_capabilities=editor_caps())
        first = await conn.list_sessions(cwd=str(workspace))
        assert first.next_cursor is not None
        rest = await conn.list_sessions(cwd=str(workspace), cursor=first.next_cursor)
        assert rest.next_cursor is None
        seen = [s.session_id for s in first.sessions + rest.sessions]
        assert len(seen) == len(set(seen)) == 60
        assert set(seen) == mine
        assert {s.cwd for s in first.sessions + rest.sessions} == {str(workspace)}
        everyone = await conn.list_sessions()  # the control: no filter shows the other one
        assert theirs in [s.session_id for s in everyone.sessions]
        with pytest.raises(RequestError):
            await conn.list_sessions(cursor="not-a-cursor")


async def test_additional_directories_become_readable_roots(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    extra = tmp_path / "extra"
    extra.mkdir()
    secret = extra / "plans.txt"
    secret.write_text("PLAN-IN-THE-EXTRA-ROOT\n", encoding="utf-8")
    read = tool_step("read_file", {"file_path": str(secret)}, id="r1")
    mock_llm_thread.enqueue(read, {"text": "read"}, read, {"text": "read"})
    client = EditorClient()
    async with acp_agent(client, env=_env(isolated_home, mock_llm_thread.url), cwd=workspace) as (
        conn,
        _,
    ):
        init = await conn.initialize(
            protocol_version=PROTOCOL_VERSION, client_capabilities=ClientCapabilities()
        )
        caps = init.agent_capabilities
        assert caps is not None
        assert caps.session_capabilities is not None
        assert caps.session_capabilities.additional_directories is not None
        # the control: without the extra root the same read is refused
        plain = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        await conn.prompt(session_id=plain.session_id, prompt=[text_block("read it")])
        refused = _texts(mock_llm_thread.requests[1])
        assert "PLAN-IN-THE-EXTRA-ROOT" not in refused
        wide = await conn.new_session(
            cwd=str(workspace), mcp_servers=[], additional_directories=[str(extra)]
        )
        await conn.prompt(session_id=wide.session_id, prompt=[text_block("read it")])
        with pytest.raises(RequestError, match="additionalDirectories"):
            await conn.new_session(
                cwd=str(workspace), mcp_servers=[], additional_directories=["relative/dir"]
            )
    assert "PLAN-IN-THE-EXTRA-ROOT" in _texts(mock_llm_thread.requests[3])


def _keyring_env(home: Path, url: str, keyring_file: Path) -> dict[str, str]:
    write_fast_config(home)
    return gemtui_env(home, url, key=None) | {
        "PYTHON_KEYRING_BACKEND": BACKEND,
        ENV: str(keyring_file),
        "PYTHONPATH": os.pathsep.join([str(Path.cwd()), *sys.path]),
    }


async def test_logout_clears_the_credential_of_the_method_in_use(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    keyring_file = tmp_path / "keyring.json"
    stored = {"gemtui/gemini-api-key": "AIzaSTORED", "gemtui/google-oauth": '{"refresh": "r"}'}
    keyring_file.write_text(json.dumps(stored), encoding="utf-8")
    env = _keyring_env(isolated_home, mock_llm_thread.url, keyring_file)
    client = EditorClient()
    async with acp_agent(client, env=env, cwd=workspace) as (conn, _):
        init = await conn.initialize(
            protocol_version=PROTOCOL_VERSION, client_capabilities=editor_caps()
        )
        assert init.agent_capabilities is not None
        assert init.agent_capabilities.auth is not None
        assert init.agent_capabilities.auth.logout is not None
        await conn.authenticate(method_id="gemini-api-key")
        assert await logout(conn) == {}
    left = json.loads(keyring_file.read_text(encoding="utf-8"))
    assert left == {"gemtui/google-oauth": '{"refresh": "r"}'}  # only the method in use

    async with acp_agent(EditorClient(), env=env, cwd=workspace) as (conn, _):
        await conn.initialize(protocol_version=PROTOCOL_VERSION, client_capabilities=editor_caps())
        await logout(conn)  # none chosen: the one sessions would use, the Google sign-in
        with pytest.raises(RequestError) as raised:  # new sessions need authenticate again
            await conn.new_session(cwd=str(workspace), mcp_servers=[])
        assert raised.value.code == -32000
    assert json.loads(keyring_file.read_text(encoding="utf-8")) == {}


async def test_vertex_ai_is_offered_and_checked(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    env = _env(isolated_home, mock_llm_thread.url)
    async with acp_agent(EditorClient(), env=env, cwd=workspace) as (conn, _):
        init = await conn.initialize(
            protocol_version=PROTOCOL_VERSION, client_capabilities=editor_caps()
        )
        vertex = {m.id: m for m in init.auth_methods or []}["vertex-ai"]
        assert "GOOGLE_CLOUD_PROJECT" in (vertex.description or "")
        with pytest.raises(RequestError, match="GOOGLE_CLOUD_LOCATION"):
            await conn.authenticate(method_id="vertex-ai")
    ready = env | {
        "GOOGLE_GENAI_USE_VERTEXAI": "true",
        "GOOGLE_CLOUD_PROJECT": "p",
        "GOOGLE_CLOUD_LOCATION": "us-central1",
    }
    async with acp_agent(EditorClient(), env=ready, cwd=workspace) as (conn, _):
        await conn.initialize(protocol_version=PROTOCOL_VERSION, client_capabilities=editor_caps())
        assert await conn.authenticate(method_id="vertex-ai") is not None


@pytest.mark.parametrize("caps", ["editor", "disk"])
async def test_grep_read_many_files_and_at_path_read_the_editors_buffers(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path, caps: str
) -> None:
    """The editor holds unsaved text the disk lacks; with ``fs.readTextFile`` every
    reading tool sees it (the control: without it, only the disk's text). The disk still
    decides what is read: an ignored file's buffer and a link out are never asked for."""
    notes = workspace / "notes.txt"
    notes.write_text("saved line\n", encoding="utf-8")
    (workspace / ".geminiignore").write_text("secret.env\n", encoding="utf-8")
    secret = workspace / "secret.env"
    secret.write_text("TOKEN=on-disk\n", encoding="utf-8")
    outside = workspace.parent / "elsewhere.txt"
    outside.write_text("far away\n", encoding="utf-8")
    (workspace / "link.txt").symlink_to(outside)
    mock_llm_thread.enqueue(
        tool_step("grep_search", {"pattern": "UNSAVED-EDIT"}, id="g1"),
        tool_step("read_many_files", {"include": ["*.txt", "*.env"]}, id="m1"),
        {"text": "done"},
        {"text": "attached"},
    )
    client = EditorClient()
    client.buffers[str(notes)] = "saved line\nUNSAVED-EDIT in the buffer\n"
    client.buffers[str(secret)] = "TOKEN=BUFFER-SECRET UNSAVED-EDIT\n"
    client.buffers[str(outside)] = "far away UNSAVED-EDIT\n"
    capabilities = editor_caps() if caps == "editor" else ClientCapabilities()
    async with acp_agent(client, env=_env(isolated_home, mock_llm_thread.url), cwd=workspace) as (
        conn,
        _,
    ):
        await conn.initialize(protocol_version=PROTOCOL_VERSION, client_capabilities=capabilities)
        new = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        await conn.prompt(session_id=new.session_id, prompt=[text_block("look")])
        await conn.prompt(
            session_id=new.session_id, prompt=[text_block("see @notes.txt @secret.env")]
        )
    _, grep, many, at_path = (r.json["contents"] for r in mock_llm_thread.requests)

    def answer(contents: list[dict[str, Any]]) -> str:
        return json.dumps(contents[-1])

    seen = [
        "UNSAVED-EDIT in the buffer" in answer(grep),
        "UNSAVED-EDIT in the buffer" in answer(many),
        "UNSAVED-EDIT in the buffer" in answer(at_path),
    ]
    assert seen == ([True] * 3 if caps == "editor" else [False] * 3)
    assert "saved line" in answer(many)
    assert "saved line" in answer(at_path)
    everything = json.dumps([grep, many, at_path])
    assert "BUFFER-SECRET" not in everything
    assert "far away" not in everything
    assert str(secret) not in client.reads
    assert str(outside) not in client.reads


async def test_load_replays_a_subagents_calls_and_words(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    (workspace / "notes.txt").write_text("N\n", encoding="utf-8")
    mock_llm_thread.enqueue(
        {"function_calls": [{"name": "generalist", "args": {"task": "t"}, "id": "p1"}]},
        {
            "text": "CHILD-WORDS",
            "function_calls": [
                {"name": "read_file", "args": {"file_path": "notes.txt"}, "id": "c1"}
            ],
        },
        {"function_calls": [{"name": "complete_task", "args": {"output": {"report": "r"}}}]},
        {"text": "Parent answer."},
    )
    env = _env(isolated_home, mock_llm_thread.url)
    async with acp_agent(EditorClient(), env=env, cwd=workspace) as (conn, _):
        await conn.initialize(protocol_version=PROTOCOL_VERSION, client_capabilities=editor_caps())
        new = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        await conn.prompt(session_id=new.session_id, prompt=[text_block("go")])

    client = EditorClient()
    async with acp_agent(client, env=env, cwd=workspace) as (conn, _):
        await conn.initialize(protocol_version=PROTOCOL_VERSION, client_capabilities=editor_caps())
        await conn.load_session(cwd=str(workspace), session_id=new.session_id, mcp_servers=[])
    starts = {u.tool_call_id: u for u in client.of_kind("tool_call")}
    assert set(starts) >= {"p1", "p1/c1"}
    child = starts["p1/c1"]
    assert child.field_meta == {"gemtui": {"parentToolCallId": "p1"}}
    assert (child.title, child.status, child.kind) == ("read_file", "completed", "read")
    words = [
        c.content.text
        for u in client.of_kind("tool_call_update")
        if u.tool_call_id == "p1"
        for c in u.content or []
    ]
    assert any("CHILD-WORDS" in w for w in words)
    assert "CHILD-WORDS" not in client.text()  # never the agent's own answer
    assert client.text() == "Parent answer."


async def test_close_during_a_prompt_cancels_it(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    """The spec's close cancels the session's work first: the running prompt answers
    ``cancelled`` (its stream was held open until then)."""
    mock_llm_thread.enqueue(
        {"text": "Half an answer never sent", "chunks": 2, "fault": "stall", "after_chunks": 1}
    )
    client = EditorClient()
    async with acp_agent(client, env=_env(isolated_home, mock_llm_thread.url), cwd=workspace) as (
        conn,
        _,
    ):
        await conn.initialize(protocol_version=PROTOCOL_VERSION, client_capabilities=editor_caps())
        new = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        turn = asyncio.create_task(
            conn.prompt(session_id=new.session_id, prompt=[text_block("write it")])
        )
        while not client.of_kind("agent_message_chunk"):
            client.update_arrived.clear()
            await asyncio.wait_for(client.update_arrived.wait(), 20)
        await conn.close_session(session_id=new.session_id)
        assert (await asyncio.wait_for(turn, 20)).stop_reason == "cancelled"


async def test_usage_update_after_each_prompt_with_the_session_cost(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    """Already on main before the 1.x work (kept here as the surface's guard): each
    prompt ends with a ``usage_update`` whose cost adds up over the session."""
    mock_llm_thread.enqueue({"text": "One."}, {"text": "Two."})
    client = EditorClient()
    async with acp_agent(client, env=_env(isolated_home, mock_llm_thread.url), cwd=workspace) as (
        conn,
        _,
    ):
        await conn.initialize(protocol_version=PROTOCOL_VERSION, client_capabilities=editor_caps())
        new = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        await conn.prompt(session_id=new.session_id, prompt=[text_block("one")])
        first = client.of_kind("usage_update")
        await conn.prompt(session_id=new.session_id, prompt=[text_block("two")])
        both = client.of_kind("usage_update")
    assert len(first) == 1
    assert len(both) == 2
    assert 0 < both[-1].used <= both[-1].size
    costs = [u.cost for u in both]
    assert costs[0] is not None
    assert costs[1] is not None
    assert {costs[0].currency, costs[1].currency} == {"USD"}
    assert costs[1].amount > costs[0].amount > 0
