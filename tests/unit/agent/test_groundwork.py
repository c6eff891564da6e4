"""The first prompt's groundwork follows the model and the session it was done for."""

from __future__ import annotations

from pathlib import Path

from gemtui.agent.provider_choice import resolve_provider
from gemtui.agent.session import Session, SessionOptions
from gemtui.config.settings import ProviderSettings, Settings
from gemtui.testing import MockLLMServer
from gemtui.testing.mockllm import RecordedRequest


def _ollama_session(srv: MockLLMServer, workspace: Path) -> Session:
    srv.local_server.kind = "ollama"

    def window_per_model(request: RecordedRequest) -> None:
        if request.path == "/api/show":
            small = (request.json or {}).get("model") == "small"
            srv.local_server.context_window = 4096 if small else 131072

    srv.on_request = window_per_model
    local = ProviderSettings(
        kind="openai", base_url=f"{srv.url}/v1", default_model="big", models=["big", "small"]
    )
    settings = Settings(providers={"local": local})
    return Session(
        settings, resolve_provider(settings, provider="local"), SessionOptions(workspace=workspace)
    )


async def test_a_model_chosen_before_the_first_prompt_gets_its_own_window(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    session = _ollama_session(mock_llm, workspace)
    try:
        session.start()
        await session.prepare()  # done for "big" while the person looked at the screen
        assert session.provider.context_window == 131072
        await session.switch_model("small")  # then /model small, before any prompt
        mock_llm.enqueue({"text": "ok"})
        await session.send("hello")
        shown = [(r.json or {}).get("model") for r in mock_llm.requests if r.path == "/api/show"]
        assert shown[-1] == "small"
        assert session.provider.context_window == 4096
        assert session.executor.config.context_window == 4096
    finally:
        await session.aclose()
