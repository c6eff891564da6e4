"""MCP resources (list_mcp_resources / read_mcp_resource) and prompts (``/server:prompt``)
from a real ``MCPServer`` over streamable HTTP on 127.0.0.1."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from gemtui.agent.provider_choice import ResolvedProvider
from gemtui.agent.session import Session, SessionOptions
from gemtui.bus.events import AgentFinished
from gemtui.config.settings import McpServerSettings, Settings
from gemtui.mcp.tools import McpTools
from gemtui.providers.gemini import GeminiGenerator
from gemtui.providers.http import make_client
from gemtui.testing import MockLLMServer
from gemtui.tools.base import ToolContext, ToolError
from gemtui.tools.registry import ToolRegistry
from gemtui.tools.workspace import Workspace
from tests.support.mcp_http import serving


@pytest.fixture
async def notes_server() -> AsyncIterator[str]:
    """A server with one resource and one prompt, listening before the test connects."""
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("notes")

    @server.resource("notes://today", name="today", description="Today's notes")
    def today() -> str:
        return "buy milk; call Ada"

    @server.prompt(description="Summarise notes on a topic")
    def summarize(topic: str) -> str:
        return f"Summarise everything about {topic} in three bullet points."

    async with serving(server) as url:
        yield url


async def test_resources_are_listed_and_read(notes_server: str, tmp_path: Path) -> None:
    registry = ToolRegistry()
    tools = McpTools({"notes": McpServerSettings(httpUrl=notes_server)}, registry)
    assert "list_mcp_resources" not in registry  # no server publishes any yet
    tools.start()
    try:
        await tools.manager.wait_ready(30)
        ctx = ToolContext(workspace=Workspace(tmp_path))
        listing = registry.get("list_mcp_resources")
        reader = registry.get("read_mcp_resource")
        assert listing is not None, tools.manager.states()
        assert reader is not None
        listed = await listing.build({}).execute(ctx)
        assert "notes  notes://today  today - Today's notes" in str(listed.llm_content)
        read = await reader.build({"server": "notes", "uri": "notes://today"}).execute(ctx)
        assert read.llm_content == "buy milk; call Ada"
        with pytest.raises(ToolError, match="publishes no resource"):
            await reader.build({"server": "notes", "uri": "file:///etc/passwd"}).execute(ctx)
        assert [p.name for _, p in tools.prompts()] == ["summarize"]
        await tools.manager.disable("notes")
        assert "list_mcp_resources" not in registry  # withdrawn with the server
    finally:
        await tools.close()


async def test_a_server_prompt_is_a_slash_command(
    notes_server: str, mock_llm: MockLLMServer, workspace: Path
) -> None:
    from gemtui.tui.app import GemtuiApp
    from tests.tui.helpers import Messages

    settings = Settings(mcpServers={"notes": McpServerSettings(httpUrl=notes_server)})
    generator = GeminiGenerator(make_client(), "k", mock_llm.url)
    provider = ResolvedProvider("gemini", "gemini", generator, "gemini-2.5-flash", 1 << 20)
    session = Session(settings, provider, SessionOptions(workspace=workspace))
    mock_llm.enqueue({"text": "- cats sleep"})
    app = GemtuiApp(settings=settings, session=session, workspace=workspace, raise_errors=True)  # type: ignore[arg-type]
    seen = Messages()
    async with app.run_test(message_hook=seen) as pilot:
        await session.wait_mcp()
        app.run_slash("/notes:summarize cats")
        await seen.wait_event(AgentFinished)
        await pilot.pause()
        app.run_slash("/notes:summarize")  # the required argument is missing: said, not sent
        await pilot.pause()
        assert any("needs topic" in str(n.message) for n in app._notifications)
    sent = mock_llm.requests[-1].json
    assert sent["contents"][-1]["parts"][0]["text"] == (
        "Summarise everything about cats in three bullet points."
    )
    assert len(mock_llm.requests) == 1
    session.close_background()
