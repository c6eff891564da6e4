"""`gemtui --acp` end to end: the official ACP client drives the real agent process."""

from __future__ import annotations

import asyncio
from pathlib import Path

from acp import PROTOCOL_VERSION, text_block

from gemtui.testing import MockLLMServer
from gemtui.testing.script import tool_step

from .acp_client import EditorClient, acp_agent, editor_caps
from .helpers import gemtui_env, write_fast_config

KEY = "sk-acp-test-secret-4242"


def _env(home: Path, url: str) -> dict[str, str]:
    write_fast_config(home)
    return gemtui_env(home, url, key=KEY)


async def test_initialize_and_streamed_answer_with_thoughts(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    mock_llm_thread.enqueue(
        {
            "text": "Hello from the mock model.",
            "chunks": 4,
            "thought": "**Planning** a greeting",
            "usage": {"prompt": 120, "output": 8, "total": 128},
        }
    )
    client = EditorClient()
    async with acp_agent(client, env=_env(isolated_home, mock_llm_thread.url), cwd=workspace) as (
        conn,
        validator,
    ):
        init = await conn.initialize(
            protocol_version=PROTOCOL_VERSION, client_capabilities=editor_caps()
        )
        assert init.protocol_version == 1
        assert init.agent_info is not None
        assert init.agent_info.name == "gemtui"
        caps = init.agent_capabilities
        assert caps is not None
        assert caps.load_session is True
        assert caps.prompt_capabilities is not None
        assert caps.prompt_capabilities.image
        assert caps.prompt_capabilities.embedded_context
        assert not caps.prompt_capabilities.audio
        assert {m.id for m in init.auth_methods or []} == {
            "gemini-api-key",
            "oauth-personal",
            "vertex-ai",
        }
        new = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        assert new.modes is not None
        assert new.modes.current_mode_id == "default"
        answer = await conn.prompt(session_id=new.session_id, prompt=[text_block("hi")])
    assert answer.stop_reason == "end_turn"
    assert client.text() == "Hello from the mock model."
    assert len(client.of_kind("agent_message_chunk")) >= 2  # streamed, not one block
    assert "a greeting" in client.text("agent_thought_chunk")
    usage = client.of_kind("usage_update")[-1]
    assert usage.used > 0
    assert usage.size > usage.used
    body = mock_llm_thread.requests[-1].json
    assert body["contents"][-1] == {"role": "user", "parts": [{"text": "hi"}]}
    assert not any(KEY in line for line in validator.raw)


async def test_cancel_ends_the_turn_fast(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    mock_llm_thread.enqueue(
        {"text": "words and more words ", "endless": True, "tokens_per_second": 50}
    )
    client = EditorClient()
    async with acp_agent(client, env=_env(isolated_home, mock_llm_thread.url), cwd=workspace) as (
        conn,
        _,
    ):
        await conn.initialize(protocol_version=PROTOCOL_VERSION, client_capabilities=editor_caps())
        new = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        turn = asyncio.create_task(
            conn.prompt(session_id=new.session_id, prompt=[text_block("talk forever")])
        )
        while not client.of_kind("agent_message_chunk"):
            client.update_arrived.clear()
            await asyncio.wait_for(client.update_arrived.wait(), 20)
        await conn.cancel(session_id=new.session_id)
        answer = await asyncio.wait_for(turn, 30)  # the stream is endless: only cancel ends it
    assert answer.stop_reason == "cancelled"


async def test_write_file_asks_permission_and_goes_through_the_editor(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    """A new file: the editor says "resource not found", then gets fs/write_text_file;
    nothing is written to the disk by gemtui itself."""
    mock_llm_thread.enqueue(
        tool_step("write_file", {"file_path": "hello.py", "content": "print('hi')\n"}),
        {"text": "Wrote it."},
    )
    client = EditorClient(permission="allow_once")
    async with acp_agent(client, env=_env(isolated_home, mock_llm_thread.url), cwd=workspace) as (
        conn,
        validator,
    ):
        await conn.initialize(protocol_version=PROTOCOL_VERSION, client_capabilities=editor_caps())
        new = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        answer = await conn.prompt(session_id=new.session_id, prompt=[text_block("write")])
    assert answer.stop_reason == "end_turn"
    target = str(workspace / "hello.py")
    assert client.writes == [(target, "print('hi')\n")]
    assert not (workspace / "hello.py").exists()
    assert len(client.permission_requests) == 1
    asked = client.permission_requests[0]
    assert {o.kind for o in asked.options} == {
        "allow_once",
        "allow_always",
        "reject_once",
        "reject_always",
    }
    assert asked.tool_call.kind == "edit"
    starts = client.of_kind("tool_call")
    assert len(starts) == 1
    assert starts[0].kind == "edit"
    assert starts[0].raw_input == {"file_path": "hello.py", "content": "print('hi')\n"}
    assert starts[0].locations[0].path == target
    statuses = [u.status for u in client.of_kind("tool_call_update") if u.status]
    assert statuses[-1] == "completed"
    assert "in_progress" in statuses
    diffs = [
        c
        for u in client.of_kind("tool_call_update")
        for c in u.content or []
        if getattr(c, "type", "") == "diff"
    ]
    assert diffs
    assert diffs[-1].new_text == "print('hi')\n"
    assert diffs[-1].path == target
    assert not any(KEY in line for line in validator.raw)


async def test_rejected_write_fails_and_the_model_is_told(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    mock_llm_thread.enqueue(
        tool_step("write_file", {"file_path": "nope.txt", "content": "x"}), {"text": "Understood."}
    )
    client = EditorClient(permission="reject_once")
    async with acp_agent(client, env=_env(isolated_home, mock_llm_thread.url), cwd=workspace) as (
        conn,
        _,
    ):
        await conn.initialize(protocol_version=PROTOCOL_VERSION, client_capabilities=editor_caps())
        new = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        answer = await conn.prompt(session_id=new.session_id, prompt=[text_block("write")])
    assert answer.stop_reason == "end_turn"
    assert client.writes == []
    assert not (workspace / "nope.txt").exists()
    assert client.of_kind("tool_call_update")[-1].status == "failed"
    response = mock_llm_thread.requests[-1].json["contents"][-1]["parts"][0]["functionResponse"]
    assert "rejected" in response["response"]["error"]


async def test_read_file_reads_the_editor_buffer(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    (workspace / "notes.txt").write_text("saved on disk\n", encoding="utf-8")
    mock_llm_thread.enqueue(tool_step("read_file", {"file_path": "notes.txt"}), {"text": "ok"})
    client = EditorClient()
    client.buffers[str(workspace / "notes.txt")] = "unsaved edit in the editor\n"
    async with acp_agent(client, env=_env(isolated_home, mock_llm_thread.url), cwd=workspace) as (
        conn,
        _,
    ):
        await conn.initialize(protocol_version=PROTOCOL_VERSION, client_capabilities=editor_caps())
        new = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        await conn.prompt(session_id=new.session_id, prompt=[text_block("read")])
    assert client.permission_requests == []  # reading needs nobody
    response = mock_llm_thread.requests[-1].json["contents"][-1]["parts"][0]["functionResponse"]
    assert "unsaved edit in the editor" in str(response["response"])
    assert client.of_kind("tool_call")[0].kind == "read"


async def test_reading_outside_the_workspace_never_reaches_the_editor(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    """The editor would serve any path; the workspace bounds refuse first."""
    secret = tmp_path / "outside.txt"
    secret.write_text("top secret\n", encoding="utf-8")
    mock_llm_thread.enqueue(
        tool_step("read_file", {"file_path": str(secret)}),
        tool_step("write_file", {"file_path": "../escape.txt", "content": "x"}),
        {"text": "ok"},
    )
    client = EditorClient(permission="allow_once")
    client.buffers[str(secret)] = "top secret\n"
    async with acp_agent(client, env=_env(isolated_home, mock_llm_thread.url), cwd=workspace) as (
        conn,
        _,
    ):
        await conn.initialize(protocol_version=PROTOCOL_VERSION, client_capabilities=editor_caps())
        new = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        await conn.prompt(session_id=new.session_id, prompt=[text_block("go")])
    assert client.reads == []
    assert client.writes == []
    assert not (tmp_path / "escape.txt").exists()
    sent = str(mock_llm_thread.requests[-1].json)
    assert "top secret" not in sent


async def test_plan_from_write_todos(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    todos = [
        {"description": "Read the code", "status": "completed"},
        {"description": "Fix the bug", "status": "in_progress"},
        {"description": "Run the tests", "status": "pending"},
    ]
    mock_llm_thread.enqueue(tool_step("write_todos", {"todos": todos}), {"text": "Planned."})
    client = EditorClient()
    async with acp_agent(client, env=_env(isolated_home, mock_llm_thread.url), cwd=workspace) as (
        conn,
        _,
    ):
        await conn.initialize(protocol_version=PROTOCOL_VERSION, client_capabilities=editor_caps())
        new = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        await conn.prompt(session_id=new.session_id, prompt=[text_block("plan")])
    plans = client.of_kind("plan")
    assert plans
    entries = [(e.content, e.status) for e in plans[-1].entries]
    assert entries == [
        ("Read the code", "completed"),
        ("Fix the bug", "in_progress"),
        ("Run the tests", "pending"),
    ]


async def test_shell_command_runs_in_the_editor_terminal(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    mock_llm_thread.enqueue(
        tool_step("run_shell_command", {"command": "echo from-the-terminal"}), {"text": "Ran."}
    )
    client = EditorClient(permission="allow_once")
    async with acp_agent(client, env=_env(isolated_home, mock_llm_thread.url), cwd=workspace) as (
        conn,
        _,
    ):
        await conn.initialize(
            protocol_version=PROTOCOL_VERSION, client_capabilities=editor_caps(terminal=True)
        )
        new = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        answer = await conn.prompt(session_id=new.session_id, prompt=[text_block("run")])
    assert answer.stop_reason == "end_turn"
    assert len(client.permission_requests) == 1
    assert client.permission_requests[0].tool_call.kind == "execute"
    assert list(client.terminals) == ["term-1"]
    term = client.terminals["term-1"]
    assert (term["command"], term["args"], term["cwd"]) == (
        "bash",
        ["-c", "echo from-the-terminal"],
        str(workspace),
    )
    assert term["released"]
    shown = [
        c.terminal_id
        for u in client.of_kind("tool_call_update")
        for c in u.content or []
        if getattr(c, "type", "") == "terminal"
    ]
    assert "term-1" in shown
    assert client.of_kind("tool_call_update")[-1].status == "completed"
    response = mock_llm_thread.requests[-1].json["contents"][-1]["parts"][0]["functionResponse"]
    assert "from-the-terminal" in str(response["response"])
    assert "Exit Code: 0" in str(response["response"])


async def test_the_api_key_never_reaches_the_editor(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    """The model repeats the key in its answer, its thoughts and a call's arguments."""
    mock_llm_thread.enqueue(
        {"text": f"Your key is {KEY}.", "thought": f"**Leak** the key {KEY}"},
        tool_step("write_file", {"file_path": "leak.txt", "content": f"key={KEY}\n"}),
        {"text": "done"},
    )
    client = EditorClient(permission="reject_once")
    async with acp_agent(client, env=_env(isolated_home, mock_llm_thread.url), cwd=workspace) as (
        conn,
        validator,
    ):
        await conn.initialize(protocol_version=PROTOCOL_VERSION, client_capabilities=editor_caps())
        new = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        await conn.prompt(session_id=new.session_id, prompt=[text_block("tell me")])
        await conn.prompt(session_id=new.session_id, prompt=[text_block("write it")])
    assert "[redacted]" in client.text()
    assert client.permission_requests  # the call was shown, its content masked
    assert validator.raw
    assert not any(KEY in line for line in validator.raw)


async def test_max_turns_is_max_turn_requests(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    (workspace / "a.txt").write_text("a\n", encoding="utf-8")
    mock_llm_thread.enqueue(
        tool_step("read_file", {"file_path": "a.txt"}),
        tool_step("read_file", {"file_path": "a.txt"}),
    )
    client = EditorClient()
    async with acp_agent(
        client,
        env=_env(isolated_home, mock_llm_thread.url),
        cwd=workspace,
        args=("--max-turns", "1"),
    ) as (conn, _):
        await conn.initialize(protocol_version=PROTOCOL_VERSION, client_capabilities=editor_caps())
        new = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        answer = await conn.prompt(session_id=new.session_id, prompt=[text_block("loop")])
    assert answer.stop_reason == "max_turn_requests"


async def test_a_second_prompt_sent_at_once_is_refused_and_the_first_stays_cancellable(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    """Both requests arrive before the first awaits anything: the second must not run the
    same history beside it (and take over its cancel)."""
    from acp import RequestError

    mock_llm_thread.enqueue(
        {"text": "words and more words ", "endless": True, "tokens_per_second": 50}
    )
    client = EditorClient()
    async with acp_agent(client, env=_env(isolated_home, mock_llm_thread.url), cwd=workspace) as (
        conn,
        _,
    ):
        await conn.initialize(protocol_version=PROTOCOL_VERSION, client_capabilities=editor_caps())
        new = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        first, second = (
            asyncio.create_task(conn.prompt(session_id=new.session_id, prompt=[text_block(t)]))
            for t in ("talk forever", "and this too")
        )
        done, _ = await asyncio.wait({first, second}, timeout=20, return_when="FIRST_COMPLETED")
        assert done == {second}
        assert isinstance(second.exception(), RequestError)
        while not client.of_kind("agent_message_chunk"):
            client.update_arrived.clear()
            await asyncio.wait_for(client.update_arrived.wait(), 20)
        await conn.cancel(session_id=new.session_id)
        answer = await asyncio.wait_for(first, 5)
    assert answer.stop_reason == "cancelled"
    chat = [r for r in mock_llm_thread.requests if "generatecontent" in r.path.lower()]
    assert len(chat) == 1
