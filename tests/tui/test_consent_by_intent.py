"""Consent by intent only: no key approves, rejects or loosens the approval mode by accident.

Each test tries what a person does without meaning consent — Ctrl+Y as redo in an editor,
Shift+Tab to go back a field in a dialog, a sentence typed while a call waits — against the
real app, and checks that no call was decided and no mode changed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gemtui.agent.assembly import RunOptions
from gemtui.bus.events import AgentFinished
from gemtui.config.settings import Settings
from gemtui.store import SessionStore
from gemtui.testing.mockllm import MockLLMServer
from gemtui.tui.app import GemtuiApp
from gemtui.tui.screens.dialogs import ConfirmScreen, HelpScreen, ModifyScreen
from gemtui.tui.widgets.approval_queue import ApprovalQueue
from tests.tui.conftest import make_app, make_session
from tests.tui.helpers import Messages, turns_done


def _edit_waiting(mock_llm: MockLLMServer, workspace: Path) -> Path:
    target = workspace / "g.txt"
    target.write_text("hello world\n")
    args = {"file_path": "g.txt", "instruction": "i", "old_string": "world", "new_string": "x"}
    mock_llm.enqueue({"function_calls": [{"name": "replace", "args": args}]}, {"text": "ok"})
    return target


def _notes(app: GemtuiApp) -> list[str]:
    return [n.message for n in app._notifications]


async def test_ctrl_y_in_the_modify_editor_redoes_and_leaves_the_mode_alone(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    _edit_waiting(mock_llm, workspace)
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await pilot.press(*"go", "enter")
        await seen.wait_approvals(1)
        await pilot.press("f8", "m")
        await pilot.pause()
        assert isinstance(app.screen, ModifyScreen)
        area = app.screen.query_one("#modify-text")
        await pilot.press("end", *"!!")
        edited = area.text  # type: ignore[attr-defined]
        await pilot.press("ctrl+z")
        assert area.text != edited  # type: ignore[attr-defined]
        await pilot.press("ctrl+y")  # redo, as in any editor
        await pilot.pause()
        assert area.text == edited  # type: ignore[attr-defined]
        assert isinstance(app.screen, ModifyScreen), "no confirmation, no mode change"
        assert app.session is not None
        assert app.session.approval_mode == "default"
        assert app.main.status.approval_mode == "default"
        await pilot.press("escape")
        await pilot.pause()
        assert len(app.main.approvals.pending()) == 1, "the call still waits"
        app.session.cancel()
        await turns_done(app)


async def test_shift_tab_in_help_and_sessions_moves_focus_back_and_leaves_the_mode(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    store = SessionStore()
    try:
        sid = store.create_session(
            title="old work", workspace=str(workspace), provider="gemini", model="m"
        )
        assert sid
        app = GemtuiApp(
            settings=Settings(),
            session=make_session(mock_llm.url, workspace),
            workspace=workspace,
            raise_errors=True,
            store=store,
        )
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            app.run_slash("/help")
            await pilot.pause()
            assert isinstance(app.screen, HelpScreen)
            await pilot.press("shift+tab", "shift+tab", "ctrl+y")
            await pilot.pause()
            assert isinstance(app.screen, HelpScreen), "no confirmation opened over it"
            assert app.session is not None
            assert app.session.approval_mode == "default"
            await pilot.press("escape")
            await pilot.pause()

            app.run_slash("/sessions")
            await pilot.pause()
            from gemtui.tui.screens.sessions import SessionsScreen

            assert isinstance(app.screen, SessionsScreen)
            first = app.screen.focused
            await pilot.press("shift+tab")
            await pilot.pause()
            assert app.screen.focused is not first, "Shift+Tab moves the focus back"
            await pilot.press("shift+tab", "shift+tab", "ctrl+y")
            await pilot.pause()
            assert isinstance(app.screen, SessionsScreen)
            assert app.session.approval_mode == "default"
            assert app.main.status.approval_mode == "default"
    finally:
        store.close()


async def test_shift_tab_on_the_welcome_screen_moves_focus_back(workspace: Path) -> None:
    from textual.widgets import Input

    from gemtui.tui.screens.welcome import WelcomeScreen

    app = make_app(None, workspace, welcome_reason="No model provider is configured.")
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, WelcomeScreen)
        await app.screen.workers.wait_for_complete()
        app.screen.query_one("#local-url", Input).focus()
        await pilot.pause()
        await pilot.press("shift+tab")
        await pilot.pause()
        assert app.screen.focused is not app.screen.query_one("#local-url")
        assert app.screen.focused is not None
        await pilot.press("tab")
        await pilot.pause()
        assert app.screen.focused is app.screen.query_one("#local-url")


@pytest.mark.parametrize(
    "sentence",
    ["ask first", "so what now", "run the tests too", "fix the failing test", "maybe not"],
)
async def test_a_sentence_typed_while_a_call_waits_goes_whole_to_the_prompt(
    sentence: str, mock_llm: MockLLMServer, workspace: Path
) -> None:
    target = _edit_waiting(mock_llm, workspace)
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await pilot.press(*"go", "enter")
        await seen.wait_approvals(1)
        await pilot.pause()
        assert isinstance(app.focused, ApprovalQueue), "shown while nothing was typed"
        await pilot.press(*sentence)
        await pilot.pause()
        assert app.main.prompt.text == sentence
        assert len(app.main.approvals.pending()) == 1, "no letter decided the call"
        assert not isinstance(app.screen, ModifyScreen)
        assert not any(isinstance(m, ApprovalQueue.Decided) for m in seen.seen)
        await pilot.press("f8", "a")  # on purpose: now the letter decides
        await turns_done(app)
    assert target.read_text() == "hello x\n"


async def test_a_call_arriving_while_the_person_types_leaves_the_focus_in_the_prompt(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    target = _edit_waiting(mock_llm, workspace)
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await pilot.press(*"go", "enter", "x", "backspace")  # typing, then an empty prompt
        await seen.wait_approvals(1)
        await pilot.pause()
        assert app.focused is app.main.prompt
        await pilot.press(*"all right")
        assert app.main.prompt.text == "all right"
        assert len(app.main.approvals.pending()) == 1
        app.session.cancel()  # type: ignore[union-attr]
        await turns_done(app)
    assert target.read_text() == "hello world\n"


async def test_digits_decide_only_in_a_queue_focused_on_purpose(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    target = _edit_waiting(mock_llm, workspace)
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await pilot.press(*"go", "enter")
        await seen.wait_approvals(1)
        await pilot.pause()
        keys = str(app.main.approvals.query_one("#approval-keys").render())
        assert keys.startswith("F8")
        await pilot.press("1")
        assert app.main.prompt.text == "1", "a digit typed is text"
        assert len(app.main.approvals.pending()) == 1
        await pilot.press("f8", "1")
        await seen.wait_event(AgentFinished)
    assert target.read_text() == "hello x\n"


async def test_yolo_is_asked_once_per_session_and_every_change_is_announced(
    workspace: Path, mock_llm: MockLLMServer
) -> None:
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("ctrl+y")
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("f8", "n")
        assert app.session is not None
        assert app.session.approval_mode == "default"
        assert any("stays default" in n for n in _notes(app))
        await pilot.press("shift+tab")  # auto_edit asks too
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("escape")
        await pilot.press("shift+tab")  # declined a moment ago: steps past it to plan
        assert not isinstance(app.screen, ConfirmScreen)
        assert app.session.approval_mode == "plan"
        assert any(n.startswith("Approval mode: plan") for n in _notes(app))
        app.run_slash("/approval-mode yolo")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen), "the slash command asks the same"
        await pilot.press("y")
        assert app.session.approval_mode == "yolo"
        assert any(n.startswith("Approval mode: yolo") for n in _notes(app))


async def test_a_mode_chosen_at_launch_is_not_asked_again(
    workspace: Path, mock_llm: MockLLMServer
) -> None:
    app = make_app(
        make_session(mock_llm.url, workspace),
        workspace,
        run_options=RunOptions(workspace=workspace, approval_mode="default"),
    )
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("ctrl+y")
        assert not isinstance(app.screen, ConfirmScreen)
        assert app.session is not None
        assert app.session.approval_mode == "yolo"


async def test_memory_add_then_typing_at_once_lands_in_the_prompt(
    workspace: Path, isolated_home: Path, mock_llm: MockLLMServer
) -> None:
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press(*"/memory add the build uses make", "enter", *"/memory show")
        await pilot.pause()
        assert app.screen is app.main
        assert app.main.prompt.text == "/memory show"
    memories = isolated_home / "config" / "GEMINI.md"
    assert "- the build uses make" in memories.read_text()
