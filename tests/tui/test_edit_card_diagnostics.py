"""The edit card shows what the language server found in the edit, folded or not: a real
session in a trusted folder with python-lsp-server, the mock model asking for a replace
that breaks a name, driven through Pilot."""

from __future__ import annotations

import sys
from pathlib import Path

from gemtui.agent.provider_choice import ResolvedProvider
from gemtui.agent.session import Session, SessionOptions
from gemtui.bus.events import AgentFinished
from gemtui.config.settings import LspServerSettings, Settings, ToolSettings
from gemtui.providers.gemini import GeminiGenerator
from gemtui.providers.http import make_client
from gemtui.testing.mockllm import MockLLMServer
from tests.tui.conftest import make_app
from tests.tui.helpers import Messages, turns_done
from tests.tui.test_transcript import screen_text, settle

GREET = 'def greet(name):\n    return "Hello " + name\n'


def _session(url: str, workspace: Path) -> Session:
    """As ``make_session``, in a trusted folder with pylsp set up (a generous bound: this
    test is about what the card shows, not how fast)."""
    settings = Settings(
        tools=ToolSettings(diagnostics_wait=120, find_language_servers=False),
        lsp={
            "pylsp": LspServerSettings(
                command=[sys.executable, "-m", "pylsp"], languages=["python"]
            )
        },
    )
    provider = ResolvedProvider(
        "gemini", "gemini", GeminiGenerator(make_client(), "k", url), "gemini-2.5-flash", 1_048_576
    )
    options = SessionOptions(
        workspace=workspace,
        approval_mode="auto_edit",
        stream_retry_delays=(0.0,),
        trusted_workspace=True,
    )
    return Session(settings, provider, options)


async def test_a_folded_edit_card_shows_the_error_the_edit_introduced(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    (workspace / "greet.py").write_text(GREET)
    edit = {
        "name": "replace",
        "args": {
            "file_path": "greet.py",
            "instruction": "Greet politely",
            "old_string": '    return "Hello " + name',
            "new_string": '    return "Hello " + title + name',
        },
    }
    mock_llm.enqueue({"function_calls": [edit]}, {"text": "Done."})
    session = _session(mock_llm.url, workspace)
    app = make_app(session, workspace)
    seen = Messages()
    async with app.run_test(size=(120, 30), message_hook=seen) as pilot:
        await pilot.press(*"greet politely", "enter")
        await seen.wait_event(AgentFinished)
        await turns_done(app)
        transcript = app.main.transcript
        await settle(pilot, transcript)
        folded = screen_text(transcript)
        assert "this edit introduced 1 error" in folded
        assert "greet.py:2:23 error undefined name 'title'" in folded
        await pilot.press("ctrl+o")
        await settle(pilot, transcript)
        whole = screen_text(transcript)
        assert "--- a/greet.py" in whole
        assert "greet.py:2:23 error undefined name 'title'" in whole
    await session.aclose()  # the TUI leaves its session to the launcher: pylsp ends here
