"""F6 and F7 copy the last answer and its last code block while the prompt has focus
(Textual's TextArea binds both keys to selection; the app's keys win on the main screen)."""

from __future__ import annotations

from pathlib import Path

from gemtui.bus.events import AgentFinished
from gemtui.testing.mockllm import MockLLMServer
from tests.tui.conftest import make_app, make_session
from tests.tui.helpers import Messages, turns_done

ANSWER = "Try this:\n\n```python\nprint('hi')\n```\n\nThen run it."


async def test_f6_and_f7_copy_while_the_prompt_has_focus(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    mock_llm.enqueue({"text": ANSWER})
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await pilot.press(*"show me", "enter")
        await seen.wait_event(AgentFinished)
        await turns_done(app)
        await pilot.pause()
        await pilot.press(*"a draft")
        assert app.focused is app.main.prompt
        await pilot.press("f7")
        assert app.clipboard.strip() == "print('hi')"
        await pilot.press("f6")
        assert app.clipboard.startswith("Try this:")
        assert "Then run it." in app.clipboard
        assert app.main.prompt.text == "a draft"
        assert app.main.prompt.selected_text == "", "the keys did not select in the prompt"


async def test_in_the_modify_editor_f7_still_selects(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    from textual.widgets import TextArea

    from gemtui.tui.screens.dialogs import ModifyScreen

    app = make_app(make_session(mock_llm.url, workspace), workspace)
    async with app.run_test(size=(120, 40)) as pilot:
        app.copy_to_clipboard("untouched")
        await app.push_screen(ModifyScreen("one\ntwo", title="edit"))
        await pilot.pause()
        editor = app.screen.query_one(TextArea)
        editor.focus()
        await pilot.pause()
        await pilot.press("f7")
        assert editor.selected_text == "one\ntwo"
        assert app.clipboard == "untouched"
