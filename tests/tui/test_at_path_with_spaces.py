"""``@`` completion of a path with a space: it is inserted escaped (``@docs\\ dir/``), so
the path stays one word, completion goes on inside it, and the file really is attached."""

from __future__ import annotations

from pathlib import Path

from gemtui.bus.events import AgentFinished
from gemtui.testing.mockllm import MockLLMServer
from tests.tui.conftest import make_app, make_session
from tests.tui.helpers import Messages
from tests.tui.test_transcript import screen_text, settle


async def test_a_folder_with_a_space_completes_escaped_and_its_file_is_attached(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    (workspace / "docs dir").mkdir()
    (workspace / "docs dir" / "notes.md").write_text("NOTES-BODY\n")
    (workspace / "docs dir" / "other.md").write_text("")
    mock_llm.enqueue({"text": "Read them."})
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        prompt = app.main.prompt
        await pilot.press(*"read @do", "tab")
        await pilot.pause()
        assert prompt.text == "read @docs\\ dir/"
        await pilot.press("tab")  # the folder's first entry, completion went on
        await pilot.pause()
        assert prompt.text == "read @docs\\ dir/notes.md "
        await pilot.press("enter")
        await seen.wait_event(AgentFinished)
        await settle(pilot, app.main.transcript)
        assert "Attached 1 file(s): docs dir/notes.md" in screen_text(app.main.transcript)
    parts = mock_llm.requests[0].json["contents"][-1]["parts"]
    assert any("NOTES-BODY" in str(p.get("text", "")) for p in parts)


async def test_completion_goes_on_after_a_typed_escaped_space(workspace: Path) -> None:
    (workspace / "docs dir").mkdir()
    (workspace / "docs dir" / "guide.md").write_text("")
    (workspace / "docs").mkdir()  # "@docs" alone must not be what completes
    app = make_app(make_session("http://127.0.0.1:9", workspace), workspace)
    async with app.run_test(size=(120, 40)) as pilot:
        prompt = app.main.prompt
        await pilot.press(*"see @docs\\ d", "tab")
        await pilot.pause()
        assert prompt.text == "see @docs\\ dir/"
        await pilot.press(*"gu", "tab")
        await pilot.pause()
        assert prompt.text == "see @docs\\ dir/guide.md "
        # an unescaped space still ends the word: no completion for plain text after it
        await pilot.press(*"and d")
        await pilot.pause()
        await pilot.press("tab")
        assert prompt.text.startswith("see @docs\\ dir/guide.md and d")
