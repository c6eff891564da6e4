"""Building a real Session against the mock server."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest_asyncio

from gemtui.agent.provider_choice import ResolvedProvider
from gemtui.agent.session import Session, SessionOptions
from gemtui.bus import Event
from gemtui.config.settings import Settings
from gemtui.providers.gemini import GeminiGenerator
from gemtui.providers.http import make_client
from gemtui.providers.retry import RetryingGenerator, RetryPolicy
from gemtui.testing import MockLLMServer

SessionFactory = Callable[..., Session]


@pytest_asyncio.fixture
async def make_session(mock_llm: MockLLMServer, workspace: Path) -> AsyncIterator[SessionFactory]:
    made: list[Session] = []

    def factory(
        *,
        approval_mode: str = "default",
        interactive: bool = False,
        max_turns: int = -1,
        settings: Settings | None = None,
        fallback: list[str] | None = None,
        context_window: int = 1_048_576,
        events: list[Event] | None = None,
    ) -> Session:
        gen = RetryingGenerator(
            GeminiGenerator(make_client(2.0), "k", mock_llm.url),
            RetryPolicy(max_attempts=3, initial_delay=0.01, max_delay=0.02),
        )
        provider = ResolvedProvider("gemini", "gemini", gen, "gemini-2.5-pro", context_window)
        if fallback:
            provider.settings = provider.settings.model_copy(update={"fallback": fallback})
        session = Session(
            settings or Settings(),
            provider,
            SessionOptions(
                workspace=workspace,
                approval_mode=approval_mode,
                interactive=interactive,
                max_turns=max_turns,
                stream_retry_delays=(0.0, 0.0, 0.0),
            ),
        )
        if events is not None:
            session.bus.subscribe(events.append)
        made.append(session)
        return session

    yield factory
    for s in made:
        await s.aclose()


def history_is_valid(history: list[Any]) -> bool:
    """Every functionCall has exactly one functionResponse with its id, right after it."""
    for i, content in enumerate(history):
        ids = [p.function_call.id for p in content.parts if p.function_call is not None]
        if not ids:
            continue
        if i + 1 >= len(history):
            return False
        nxt = history[i + 1]
        answered = [p.function_response.id for p in nxt.parts if p.function_response is not None]
        if nxt.role != "user" or sorted(answered) != sorted(ids):
            return False
    return True
