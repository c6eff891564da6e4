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
from gemtui.tui.app import GemtuiApp
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
        app.run_slash("/mcp")
        await pilot.pause()
        notes = _notes(app)
        assert "time (stdio): ready - 2 tools" in notes
        assert "never (stdio): failed - no answer within 0.5s" in notes
        (pid,) = _server_pids()
        os.kill(pid, signal.SIGKILL)
        app.run_slash("/mcp restart time")
        for worker in [w for w in app.workers if w.group == "mcp"]:
            await worker.wait()
        state = manager.state("time")
        assert state is not None
        assert state.status is ServerStatus.READY
        assert "MCP server time: ready" in _notes(app)
        assert "get_current_time" in app.session.registry
    app.session.close_background()  # what tui.launch does once the app has ended
    assert not _server_pids()
