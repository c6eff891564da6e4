"""The TUI against a local server that is not running: the status line says what is being
tried while it retries, and within 3 s the conversation says it failed and why."""

from __future__ import annotations

import socket
from pathlib import Path

from gemtui.agent.provider_choice import resolve_provider
from gemtui.agent.session import Session, SessionOptions
from gemtui.bus.events import AgentFinished, ErrorOccurred, RequestRetrying
from gemtui.config.settings import ProviderSettings, Settings
from gemtui.tui.bridge import BusEvent
from tests.tui.conftest import make_app
from tests.tui.helpers import Messages
from tests.tui.test_transcript import screen_text, settle


def _dead_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def test_a_dead_local_port_shows_what_is_tried_and_fails_in_under_3s(
    workspace: Path,
) -> None:
    port = _dead_port()
    local = ProviderSettings(
        kind="openai", base_url=f"http://127.0.0.1:{port}/v1", default_model="qwen"
    )
    settings = Settings(providers={"local": local})  # the default network settings
    provider = resolve_provider(settings, provider="local")
    session = Session(settings, provider, SessionOptions(workspace=workspace))
    app = make_app(session, workspace)
    seen = Messages()
    async with app.run_test(size=(120, 30), message_hook=seen) as pilot:
        mark = len(seen.seen)
        await pilot.press(*"hello", "enter")
        retrying = await seen.wait_event(RequestRetrying)
        assert retrying.target == f"nothing on 127.0.0.1:{port}"
        status = app.main.status.busy
        assert status.startswith("retrying")
        assert f"nothing on 127.0.0.1:{port}" in status
        error = await seen.wait_event(ErrorOccurred)
        await seen.wait_event(AgentFinished)
        # under 3 s by construction: a refused connect waits for nothing, and the two
        # waits between the three attempts are the short local ones
        waits = [
            m.event.wait
            for m in seen.seen[mark:]
            if isinstance(m, BusEvent) and isinstance(m.event, RequestRetrying)
        ]
        assert waits == [0.5, 1.0]
        assert f"nothing is listening on 127.0.0.1:{port}" in error.message
        assert "tried 3 times" in error.message
        await settle(pilot, app.main.transcript)
        shown = " ".join(screen_text(app.main.transcript).split())
        assert f"nothing is listening on 127.0.0.1:{port}" in shown
        assert app.main.status.busy == ""
