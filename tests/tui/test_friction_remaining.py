"""The rest of the first hour's friction: reports that stayed in toasts, the welcome
screen after the demo, and dialogs a screen reader did not say."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gemtui.testing.mockllm import MockLLMServer
from tests.tui.conftest import make_app, make_session
from tests.tui.helpers import transcript_notices


def _toasts(app: Any) -> list[str]:
    return [str(n.message) for n in app._notifications]


async def test_agents_list_and_memory_show_are_written_into_the_conversation(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    """A toast vanishes before a list is read: /agents and /memory show stay in the
    transcript, and no toast repeats them."""
    (workspace / "GEMINI.md").write_text("Use tabs.\n")
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    async with app.run_test(size=(120, 40)) as pilot:
        app.run_slash("/agents list")
        app.run_slash("/memory show")
        await pilot.pause()
        notes = transcript_notices(app)
        assert any(n.startswith("Agents (the model delegates") for n in notes), notes
        assert any("GEMINI.md" in n for n in notes), notes
        assert not any("Agents (" in t or "GEMINI.md" in t for t in _toasts(app))
