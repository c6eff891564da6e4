"""The first prompt's groundwork is done while the person types it, not after Enter.

Before a first prompt the session asks a local server for its context window and
gathers the environment (``git status``, the listing): a round trip and a subprocess
that used to sit between Enter and the request. The TUI starts them as soon as the
session is in place; the prompt then only waits for what is not done yet.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from gemtui.agent.provider_choice import resolve_provider
from gemtui.agent.session import Session, SessionOptions
from gemtui.bus.events import AgentFinished, TerminateReason
from gemtui.config.settings import ProviderSettings, Settings
from gemtui.providers.http import PRECONNECT_PATH
from gemtui.testing import MockLLMServer
from tests.tui.conftest import make_app, make_session
from tests.tui.helpers import Messages


def _local_session(base_url: str, workspace: Path) -> Session:
    """A session on a local OpenAI-compatible server, whose window it must ask for."""
    local = ProviderSettings(kind="openai", base_url=base_url, default_model="mock-model")
    settings = Settings(providers={"local": local})
    return Session(
        settings, resolve_provider(settings, provider="local"), SessionOptions(workspace=workspace)
    )


def _paths(srv: MockLLMServer) -> list[str]:
    return [r.path for r in srv.requests]


async def test_the_server_is_asked_before_the_prompt_and_not_again(
    workspace: Path, mock_llm: MockLLMServer
) -> None:
    mock_llm.local_server.kind = "llama.cpp"
    mock_llm.local_server.context_window = 8192
    (workspace / "pelican-notes.txt").write_text("Pelicans nest on islands.\n")
    session = _local_session(f"{mock_llm.url}/v1", workspace)
    app = make_app(session, workspace)
    mock_llm.enqueue({"text": "Noted."})
    seen = Messages()
    async with app.run_test(size=(120, 30), message_hook=seen) as pilot:
        for _ in range(500):  # no prompt typed: the app alone asks the server
            if "/props" in _paths(mock_llm):
                break
            await pilot.pause()
        assert "/props" in _paths(mock_llm), "the window is learned before any prompt"
        assert not any(p.endswith("/chat/completions") for p in _paths(mock_llm))
        await session.prepare()  # the groundwork the app started (done once, then kept)
        asked = _paths(mock_llm)
        await pilot.press(*"hello", "enter")
        await seen.wait_event(AgentFinished)
    assert _paths(mock_llm) == [*asked, "/v1/chat/completions"], "the prompt asked nothing more"
    [chat] = [r.json for r in mock_llm.requests if r.path.endswith("/chat/completions")]
    system = chat["messages"][0]["content"]
    assert "pelican-notes.txt" in system  # the environment gathered early is in the prompt
    assert f"Workspace root: {workspace}" in system
    assert session.provider.context_window == 8192


async def test_esc_while_the_groundwork_waits_ends_the_prompt_at_once(
    workspace: Path,
) -> None:
    """A local server that accepts and never answers (one still loading its model, say)
    holds the groundwork for seconds per probe; Esc must not wait for them."""
    asked = asyncio.Event()

    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        asked.set()
        await reader.read()  # until the client hangs up; never a byte back
        writer.close()

    server = await asyncio.start_server(silent, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    session = _local_session(f"http://127.0.0.1:{port}/v1", workspace)
    app = make_app(session, workspace)
    seen = Messages()
    try:
        async with app.run_test(size=(120, 30), message_hook=seen) as pilot:
            await asyncio.wait_for(asked.wait(), 10)  # the groundwork is waiting on it
            await pilot.press(*"hello", "enter")
            # The prompt can be cancelled as soon as it waits, long before the first probe
            # could give up (3 s): a few idle rounds of the app, not the probe's time.
            for _ in range(100):
                if session.cancel_event is not None:
                    break
                await pilot.pause()
            assert session.cancel_event is not None, "a prompt waiting for the groundwork"
            await pilot.press("escape")
            # Within the wait's 15 s: the probes alone would take 3 s each, and the model
            # call after them would wait out the read timeout.
            done = await seen.wait_event(AgentFinished)
            assert done.reason == TerminateReason.ABORTED
            await pilot.pause()
            assert ("user", "hello") in app.main.transcript.messages()  # what was typed stays
    finally:
        server.close()


async def test_the_connection_is_open_before_the_prompt_and_carries_it(
    workspace: Path, mock_llm: MockLLMServer
) -> None:
    """While the person types, the session opens its connection to the model's server
    (a ``GET`` of a page no server has, no key): Enter then sends on it, without a connect (and, on a
    real server, without a name lookup or a TLS handshake)."""
    session = make_session(mock_llm.url, workspace)
    app = make_app(session, workspace)
    mock_llm.enqueue({"text": "Connected."})
    seen = Messages()
    async with app.run_test(size=(120, 30), message_hook=seen) as pilot:
        await session.prepare()  # what the app started at hand-over: done once connected
        [early] = mock_llm.early
        assert not mock_llm.requests, "no API call before the prompt"
        await pilot.press(*"hello", "enter")
        await seen.wait_event(AgentFinished)
    [request] = [r for r in mock_llm.requests if r.path.endswith(":streamGenerateContent")]
    assert (early.method, early.path, early.query) == ("GET", PRECONNECT_PATH, {})
    assert "x-goog-api-key" not in early.headers
    assert "authorization" not in early.headers
    assert request.headers["x-goog-api-key"] == "k"
    assert request.connection == early.connection == 1 == mock_llm.connections


async def test_a_prompt_sent_as_the_connection_opens_waits_for_it(
    workspace: Path, mock_llm: MockLLMServer
) -> None:
    """A prompt queued while the engine started is sent the moment it is handed over,
    while the early connection is still being opened: it goes on that connection, not on
    a second one of its own."""
    session = make_session(mock_llm.url, workspace)
    mock_llm.enqueue({"text": "One connection."})
    session.prepare()
    finished = await session.send("hello")
    assert finished.reason is TerminateReason.GOAL
    [early] = mock_llm.early
    [request] = mock_llm.requests
    assert request.connection == early.connection == 1 == mock_llm.connections
    await session.aclose()
