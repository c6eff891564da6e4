"""/memory show | refresh | add in the real app (add writes the fact the person typed),
and ``@path`` attaching a file from the prompt."""

from __future__ import annotations

from pathlib import Path

from gemtui.agent.context_files import MEMORY_HEADING
from gemtui.agent.provider_choice import ResolvedProvider
from gemtui.agent.session import Session, SessionOptions
from gemtui.bus.events import AgentFinished
from gemtui.config.settings import Settings
from gemtui.providers.replay import ReplayGenerator
from gemtui.testing.mockllm import MockLLMServer
from gemtui.tui.widgets.diff_view import DiffView
from tests.tui.conftest import make_app, make_session
from tests.tui.helpers import Messages, transcript_notices
from tests.tui.test_transcript import screen_text, settle


def _session(workspace: Path) -> Session:
    provider = ResolvedProvider(
        "replay", "replay", ReplayGenerator([]), "gemini-2.5-flash", 1_048_576
    )
    return Session(Settings(), provider, SessionOptions(workspace=workspace))


def _shown(app: object) -> list[str]:
    """/memory show's report: written into the conversation (a toast vanishes)."""
    return transcript_notices(app)


def _notes(app: object) -> list[str]:
    return [n.message for n in app._notifications]  # type: ignore[attr-defined]


async def test_show_refresh_and_add(workspace: Path, isolated_home: Path) -> None:
    (workspace / "GEMINI.md").write_text("Use tabs.")
    session = _session(workspace)
    memories = isolated_home / "config" / "GEMINI.md"
    app = make_app(session, workspace)
    async with app.run_test() as pilot:
        app.run_slash("/memory show")
        await pilot.pause()
        assert any(str(workspace / "GEMINI.md") in t and "tokens" in t for t in _shown(app))

        (workspace / "AGENTS.md").write_text("Run the tests.")
        app.run_slash("/memory refresh")
        await pilot.pause()
        assert any("2 loaded" in t for t in _notes(app))
        assert "Run the tests." in (session.chat.system_instruction or "")

        app.run_slash("/memory add ")
        await pilot.pause()
        assert not memories.exists(), "no fact, nothing written"
        app.run_slash("/memory add the build uses make")  # typed by the person: consent
        await pilot.pause()
        assert app.screen is app.main, "no editor to swallow the next keys"
        assert memories.read_text() == f"{MEMORY_HEADING}\n\n- the build uses make\n"
        assert "- the build uses make" in (session.chat.system_instruction or "")
        assert any("/memory show" in t for t in _notes(app))
        app.run_slash("/memory show")
        await pilot.pause()
        assert any("Saved memories" in t and "- the build uses make" in t for t in _shown(app))

        app.run_slash("/memory bogus")
        await pilot.pause()
        assert any("Usage: /memory" in t for t in _notes(app))


async def test_at_path_attaches_the_file_and_the_transcript_says_so(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    (workspace / "src").mkdir()
    (workspace / "src" / "main.py").write_text("print('MAIN-BODY')\n")
    mock_llm.enqueue({"text": "It prints."})
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await pilot.press(*"explain @src/main.py please", "enter")
        await seen.wait_event(AgentFinished)
        await settle(pilot, app.main.transcript)
        assert ("user", "explain @src/main.py please") in app.main.transcript.messages()
        assert "Attached 1 file(s): src/main.py" in screen_text(app.main.transcript)
    parts = mock_llm.requests[0].json["contents"][-1]["parts"]
    assert parts[0]["text"] == "explain @src/main.py please"
    assert "print('MAIN-BODY')" in parts[2]["text"]


async def test_the_models_memory_waits_for_approval_then_shows(
    mock_llm: MockLLMServer, workspace: Path, isolated_home: Path
) -> None:
    """save_memory asks with the diff of GEMINI.md; after "allow once" the fact is in
    the file, in the next request's prompt and in /memory show."""
    memories = isolated_home / "config" / "GEMINI.md"
    fact = {"fact": "The user's name is Ada."}
    mock_llm.enqueue(
        {"function_calls": [{"name": "save_memory", "args": fact}]}, {"text": "Noted."}
    )
    session = make_session(mock_llm.url, workspace)
    app = make_app(session, workspace)
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await pilot.press(*"call me Ada", "enter")
        await seen.wait_approvals(1)
        await pilot.pause()
        assert not memories.exists(), "nothing written before the person decides"
        diff = app.main.approvals.query_one(DiffView).diff
        assert "+- The user's name is Ada." in diff
        await pilot.press("f8", "1")
        await seen.wait_event(AgentFinished)
        await pilot.pause()
        assert memories.read_text() == f"{MEMORY_HEADING}\n\n- The user's name is Ada.\n"
        app.run_slash("/memory show")
        await pilot.pause()
        assert any("- The user's name is Ada." in t for t in _shown(app))
    system = mock_llm.requests[1].json["systemInstruction"]["parts"][0]["text"]
    assert "- The user's name is Ada." in system
