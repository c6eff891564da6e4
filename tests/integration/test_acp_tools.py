"""`gemtui --acp`: edits on the editor's buffer, "always allow", resource links, refusals."""

from __future__ import annotations

from pathlib import Path

from acp import PROTOCOL_VERSION, resource_link_block, text_block

from gemtui.testing import MockLLMServer
from gemtui.testing.script import tool_step

from .acp_client import EditorClient, acp_agent, editor_caps
from .helpers import gemtui_env, write_fast_config


def _env(home: Path, url: str) -> dict[str, str]:
    write_fast_config(home)
    return gemtui_env(home, url)


async def test_replace_edits_the_buffer_not_the_disk(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    """The person typed in the editor without saving: the edit applies to that text."""
    (workspace / "app.py").write_text("x = 1\n", encoding="utf-8")
    target = str(workspace / "app.py")
    mock_llm_thread.enqueue(
        tool_step(
            "replace",
            {
                "file_path": "app.py",
                "instruction": "bump y",
                "old_string": "y = 2",
                "new_string": "y = 3",
            },
        ),
        {"text": "ok"},
    )
    client = EditorClient(permission="allow_once")
    client.buffers[target] = "x = 1\ny = 2\n"
    async with acp_agent(client, env=_env(isolated_home, mock_llm_thread.url), cwd=workspace) as (
        conn,
        _,
    ):
        await conn.initialize(protocol_version=PROTOCOL_VERSION, client_capabilities=editor_caps())
        new = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        await conn.prompt(session_id=new.session_id, prompt=[text_block("edit")])
    assert client.writes == [(target, "x = 1\ny = 3\n")]
    assert (workspace / "app.py").read_text(encoding="utf-8") == "x = 1\n"
    diff = client.permission_requests[0].tool_call.content[0]
    assert (diff.type, diff.old_text, diff.new_text) == ("diff", "x = 1\ny = 2\n", "x = 1\ny = 3\n")


async def test_allow_always_is_remembered(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    mock_llm_thread.enqueue(
        tool_step("run_shell_command", {"command": "echo one"}),
        tool_step("run_shell_command", {"command": "echo two"}),
        {"text": "ok"},
    )
    client = EditorClient(permission="allow_always")
    async with acp_agent(client, env=_env(isolated_home, mock_llm_thread.url), cwd=workspace) as (
        conn,
        _,
    ):
        await conn.initialize(protocol_version=PROTOCOL_VERSION, client_capabilities=editor_caps())
        new = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        await conn.prompt(session_id=new.session_id, prompt=[text_block("run")])
    assert len(client.permission_requests) == 1
    assert [u.status for u in client.of_kind("tool_call_update")].count("completed") == 2
    saved = (isolated_home / "config" / "policy.toml").read_text(encoding="utf-8")
    assert "echo" in saved


async def test_resource_links_attach_workspace_files_only(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    (workspace / "spec.md").write_text("the spec says blue\n", encoding="utf-8")
    outside = tmp_path / "private.txt"
    outside.write_text("private words\n", encoding="utf-8")
    mock_llm_thread.enqueue({"text": "Blue."})
    client = EditorClient()
    async with acp_agent(client, env=_env(isolated_home, mock_llm_thread.url), cwd=workspace) as (
        conn,
        _,
    ):
        await conn.initialize(protocol_version=PROTOCOL_VERSION, client_capabilities=editor_caps())
        new = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        await conn.prompt(
            session_id=new.session_id,
            prompt=[
                text_block("what colour?"),
                resource_link_block("spec.md", f"file://{workspace}/spec.md"),
                resource_link_block("private.txt", f"file://{outside}"),
            ],
        )
    sent = str(mock_llm_thread.requests[-1].json["contents"])
    assert "the spec says blue" in sent
    assert "private words" not in sent


async def test_a_refusal_is_the_refusal_stop_reason(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    mock_llm_thread.enqueue({"text": "", "finish_reason": "SAFETY"})
    client = EditorClient()
    async with acp_agent(client, env=_env(isolated_home, mock_llm_thread.url), cwd=workspace) as (
        conn,
        _,
    ):
        await conn.initialize(protocol_version=PROTOCOL_VERSION, client_capabilities=editor_caps())
        new = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        answer = await conn.prompt(session_id=new.session_id, prompt=[text_block("bad")])
    assert answer.stop_reason == "refusal"


async def test_without_a_terminal_the_output_streams_into_the_call(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    mock_llm_thread.enqueue(
        tool_step("run_shell_command", {"command": "echo live-line; echo second-line"}),
        {"text": "ok"},
    )
    client = EditorClient(permission="allow_once")
    async with acp_agent(client, env=_env(isolated_home, mock_llm_thread.url), cwd=workspace) as (
        conn,
        _,
    ):
        await conn.initialize(protocol_version=PROTOCOL_VERSION, client_capabilities=editor_caps())
        new = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        await conn.prompt(session_id=new.session_id, prompt=[text_block("run")])
    assert client.terminals == {}
    updates = client.of_kind("tool_call_update")
    live = [
        i
        for i, u in enumerate(updates)
        if u.status is None and u.content and "live-line" in u.content[0].content.text
    ]
    done = [i for i, u in enumerate(updates) if u.status == "completed"]
    assert live
    assert done
    assert live[0] < done[0]
    assert "second-line" in updates[done[0]].content[0].content.text


async def test_an_http_mcp_servers_prompt_is_a_command(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    """The editor passes a streamable-HTTP server; its prompt is offered as
    ``/notes:summarize`` and, run, becomes the prompt the model gets."""
    from acp.schema import HttpMcpServer
    from mcp.server.mcpserver import MCPServer

    from tests.support.mcp_http import serving

    server = MCPServer("notes")

    @server.prompt(description="Summarise notes on a topic")
    def summarize(topic: str) -> str:
        return f"Summarise everything about {topic} in three bullet points."

    mock_llm_thread.enqueue({"text": "- one\n- two\n- three"})
    client = EditorClient()
    async with (
        serving(server) as url,
        acp_agent(client, env=_env(isolated_home, mock_llm_thread.url), cwd=workspace) as (
            conn,
            _,
        ),
    ):
        await conn.initialize(protocol_version=PROTOCOL_VERSION, client_capabilities=editor_caps())
        new = await conn.new_session(
            cwd=str(workspace),
            mcp_servers=[HttpMcpServer(type="http", name="notes", url=url, headers=[])],
        )
        answer = await conn.prompt(
            session_id=new.session_id, prompt=[text_block("/notes:summarize pelicans")]
        )
    assert answer.stop_reason == "end_turn"
    offered = {
        c.name for u in client.of_kind("available_commands_update") for c in u.available_commands
    }
    assert "notes:summarize" in offered
    sent = mock_llm_thread.requests[-1].json["contents"][-1]["parts"][0]["text"]
    assert sent == "Summarise everything about pelicans in three bullet points."
