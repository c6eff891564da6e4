"""MCP servers in the TUI: a server that never starts leaves the app responsive and says
why in /mcp; a killed server comes back with /mcp restart; exit leaves no server behind."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

from gemtui.agent.provider_choice import ResolvedProvider
from gemtui.agent.session import Session, SessionOptions
from gemtui.config.settings import McpServerSettings, Settings
from gemtui.mcp.manager import ServerStatus
from gemtui.providers.replay import ReplayGenerator
from gemtui.testing.mockllm import MockLLMServer
from gemtui.tui.app import GemtuiApp
from gemtui.tui.screens.mcp import McpScreen
from tests.integration.test_mcp_servers import _server_pids

BIN = Path(sys.executable).parent


def _app(workspace: Path) -> GemtuiApp:
    never = McpServerSettings(command=sys.executable, args=["-c", "import time; time.sleep(60)"])
    never.timeout = 500  # milliseconds, as in Gemini CLI
    settings = Settings(
        mcpServers={"time": McpServerSettings(command=str(BIN / "mcp-server-time")), "never": never}
    )
    provider = ResolvedProvider(
        "replay", "replay", ReplayGenerator([]), "gemini-2.5-flash", 1_048_576
    )
    session = Session(settings, provider, SessionOptions(workspace=workspace))
    return GemtuiApp(settings=settings, session=session, workspace=workspace, raise_errors=True)  # type: ignore[arg-type]


def _view_text(view: McpScreen) -> str:
    return "\n".join(str(w.render()) for w in view.query(".mcp-server"))


def _notes(app: GemtuiApp) -> str:
    return "\n".join(str(n.message) for n in app._notifications)


async def test_mcp_states_restart_and_exit(workspace: Path) -> None:
    app = _app(workspace)
    async with app.run_test() as pilot:
        await pilot.press(*"hello")  # usable while the servers start
        assert app.main.prompt.text == "hello"
        assert app.session is not None
        assert app.session.mcp is not None
        manager = app.session.mcp.manager
        await manager.wait_ready(30)
        await pilot.pause()
        assert app.main.status.mcp == "MCP 1/2 ✗1"
        assert app.main.status.mcp_trouble
        app.run_slash("/mcp")
        await pilot.pause()
        view = app.screen
        assert isinstance(view, McpScreen)
        shown = _view_text(view)
        assert "time  stdio  ready  2 tools" in shown
        assert "get_current_time  Get current time in a specific timezone" in shown
        assert "never  stdio  failed" in shown
        assert "no answer within 0.5s" in shown
        (pid,) = _server_pids()
        os.kill(pid, signal.SIGKILL)
        await pilot.press("r")  # the selected server (time) restarts
        for worker in [w for w in view.workers if w.group == "mcp"]:
            await worker.wait()
        await manager.wait_ready(30)
        state = manager.state("time")
        assert state is not None
        assert state.status is ServerStatus.READY
        await pilot.press("d")
        for worker in [w for w in view.workers if w.group == "mcp"]:
            await worker.wait()
        await pilot.pause()
        assert "time  stdio  disabled" in _view_text(view)
        assert "get_current_time" not in app.session.registry
        await pilot.press("d")  # enabled again
        for worker in [w for w in view.workers if w.group == "mcp"]:
            await worker.wait()
        await manager.wait_ready(30)
        await pilot.pause()
        assert "time  stdio  ready" in _view_text(view)
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, McpScreen)
        app.run_slash("/mcp restart time")
        for worker in [w for w in app.workers if w.group == "mcp"]:
            await worker.wait()
        assert "MCP server time: ready" in _notes(app)
        assert "get_current_time" in app.session.registry
    app.session.close_background()  # what tui.launch does once the app has ended
    assert not _server_pids()


async def test_allowing_a_whole_server_always_covers_its_other_tools(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    from gemtui.bus.events import AgentFinished, ToolCallState, ToolCallStateChanged
    from gemtui.config.paths import config_dir
    from gemtui.providers.gemini import GeminiGenerator
    from gemtui.providers.http import make_client
    from tests.tui.helpers import Messages

    time_server = McpServerSettings(
        command=str(BIN / "mcp-server-time"), args=["--local-timezone", "UTC"]
    )
    settings = Settings(mcpServers={"time": time_server})
    provider = ResolvedProvider(
        "gemini",
        "gemini",
        GeminiGenerator(make_client(), "k", mock_llm.url),
        "gemini-2.5-flash",
        1 << 20,
    )
    session = Session(settings, provider, SessionOptions(workspace=workspace))
    convert = {"source_timezone": "UTC", "time": "12:00", "target_timezone": "Europe/Paris"}
    mock_llm.enqueue(
        {"function_calls": [{"name": "get_current_time", "args": {"timezone": "UTC"}}]},
        {"function_calls": [{"name": "convert_time", "args": convert}]},
        {"text": "Done."},
    )
    app = GemtuiApp(settings=settings, session=session, workspace=workspace, raise_errors=True)  # type: ignore[arg-type]
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await session.wait_mcp()
        await pilot.press(*"time?", "enter")
        await seen.wait_approvals(1)
        await pilot.pause()
        await pilot.press("f8")  # on purpose: the answer keys show and act
        assert "server" in str(app.main.approvals.query_one("#approval-keys").render())
        await pilot.press("7")
        await seen.wait_event(AgentFinished)
        await pilot.pause()
    asked = [
        m.event.call.name
        for m in seen.seen
        if isinstance(getattr(m, "event", None), ToolCallStateChanged)
        and m.event.call.state is ToolCallState.AWAITING_APPROVAL
    ]
    assert asked == ["get_current_time"]  # convert_time ran without asking
    policy = (config_dir() / "policy.toml").read_text()
    assert 'mcpName = "time"' in policy
    session.close_background()
    assert not _server_pids()
