"""Building a real Session against the mock server."""

from __future__ import annotations

import shutil
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from gemtui.agent.fallback import switch_always
from gemtui.agent.fallback_attach import attach_fallback
from gemtui.agent.provider_choice import ResolvedProvider
from gemtui.agent.session import Session, SessionOptions
from gemtui.bus import Event
from gemtui.config.settings import Settings
from gemtui.providers.gemini import GeminiGenerator
from gemtui.providers.http import make_client
from gemtui.providers.retry import RetryingGenerator, RetryPolicy
from gemtui.testing import MockLLMServer

SessionFactory = Callable[..., Session]

REPO = Path(__file__).resolve().parents[2]


_FRESH_IN_THE_BOX = (Path("/tmp"), Path("/var/tmp"), Path("/run"), Path.home())
"""Folders the sandbox replaces with its own empty ones."""


def _seen_in_the_box(path: Path) -> bool:
    real = path.resolve()
    return not any(real.is_relative_to(hidden.resolve()) for hidden in _FRESH_IN_THE_BOX)


@pytest.fixture
def outside() -> Iterator[Path]:
    """A folder outside the workspace that the sandbox still sees (read-only): not under
    /tmp, /run or the home folder, whose copies in the sandbox are its own and empty. The
    repository's build/ when the clone is elsewhere, else a folder under /var/lib or /srv."""
    name = f"sandbox-outside-{uuid.uuid4().hex[:8]}"
    for base in (REPO / "build", Path("/var/lib/gemtui-tests"), Path("/srv/gemtui-tests")):
        if not _seen_in_the_box(base):
            continue
        try:
            (base / name).mkdir(parents=True)
        except OSError:
            continue
        yield base / name
        shutil.rmtree(base / name)
        return
    pytest.fail("no writable folder outside /tmp, /run and $HOME for the sandbox tests")


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
        if fallback:  # these sessions test the switch itself: the person allowed it
            attach_fallback(session, switch_always)
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
