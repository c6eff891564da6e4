"""No key typed as text answers a question that loosens consent (issue 33, item 5).

A person who starts a sentence while a question is on screen — a call arriving in the
approval queue, the yolo or auto_edit confirmation after a stray Ctrl+Y or Shift+Tab, the
folder-trust question at start-up — must find the sentence whole in the prompt and
nothing decided: "3 things" must not allow a call always, "1. use" must not run it, "yes"
must not turn yolo on, "tell me" must not trust the folder. Each is typed at a person's
pace (keys 120 ms apart: pacing, not synchronisation) and as one burst; each ends with
the on-purpose path (F8) proving the same key does answer when meant.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from gemtui.bus.events import AgentFinished
from gemtui.config.trust import TrustStore
from gemtui.testing.mockllm import MockLLMServer
from gemtui.tui.app import GemtuiApp
from gemtui.tui.screens.dialogs import ConfirmScreen
from gemtui.tui.screens.trust import TrustScreen
from gemtui.tui.widgets.approval_queue import ApprovalQueue
from tests.tui.conftest import make_app, make_session
from tests.tui.helpers import Messages, turns_done

PACES = ["person", "burst"]
"""Keys 120 ms apart, as a person types them, and all at once."""


async def _type(pilot: Pilot[Any], text: str, pace: str) -> None:
    if pace == "burst":
        await pilot.press(*text)
        return
    for key in text:
        await pilot.press(key)
        await pilot.pause(0.12)  # a person's pace between keys, not a wait for anything


def _command_waiting(mock_llm: MockLLMServer, workspace: Path) -> Path:
    """The model asks to run a command that leaves a file behind if it runs."""
    marker = workspace / "ran.txt"
    call = {"name": "run_shell_command", "args": {"command": "touch ran.txt"}}
    mock_llm.enqueue({"function_calls": [call]}, {"text": "ok"})
    return marker


def _saved_rules(app: GemtuiApp) -> list[str]:
    assert app.session is not None
    return [r.summary() for r in app.session.policy.rules() if r.source != "builtin"]


async def _queue_took_the_focus(app: GemtuiApp, pilot: Pilot[Any], seen: Messages) -> None:
    await pilot.press(*"go", "enter")
    await seen.wait_approvals(1)
    await pilot.pause()
    assert isinstance(app.focused, ApprovalQueue), "a call arriving at an idle prompt"
    assert not app.main.approvals.on_purpose


@pytest.mark.parametrize("pace", PACES)
@pytest.mark.parametrize(
    "sentence", ["3 things to check", "1. use the other file", "2 more", "4 of them", "8 ways"]
)
async def test_a_sentence_starting_with_a_digit_is_a_sentence(
    sentence: str, pace: str, mock_llm: MockLLMServer, workspace: Path
) -> None:
    marker = _command_waiting(mock_llm, workspace)
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await _queue_took_the_focus(app, pilot, seen)
        before = _saved_rules(app)
        await _type(pilot, sentence, pace)
        await pilot.pause()
        assert app.main.prompt.text == sentence, "every key landed in the prompt, in order"
        assert not any(isinstance(m, ApprovalQueue.Decided) for m in seen.seen)
        assert len(app.main.approvals.pending()) == 1, "the call still waits"
        assert _saved_rules(app) == before, "no rule saved"
        assert not marker.exists(), "the command did not run"
        # Control: the same digit, with the queue focused on purpose, answers.
        await pilot.press("f8", "1")
        await seen.wait_event(AgentFinished)
        await turns_done(app)
    assert marker.exists()


@pytest.mark.parametrize("pace", PACES)
async def test_one_dot_use_then_enter_queues_the_prompt_and_runs_nothing(
    pace: str, mock_llm: MockLLMServer, workspace: Path
) -> None:
    marker = _command_waiting(mock_llm, workspace)
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await _queue_took_the_focus(app, pilot, seen)
        await _type(pilot, "1. use make", pace)
        await pilot.press("enter")
        await pilot.pause()
        assert list(app.queued) == ["1. use make"], "sent as a prompt, waiting its turn"
        assert len(app.main.approvals.pending()) == 1
        assert not marker.exists()
        assert app.session is not None
        app.session.cancel()
        await turns_done(app)
    assert not marker.exists()


async def test_three_allows_always_only_after_f8(mock_llm: MockLLMServer, workspace: Path) -> None:
    """The control for "3 things": on purpose, 3 saves the rule (so the guard is real)."""
    marker = _command_waiting(mock_llm, workspace)
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await _queue_took_the_focus(app, pilot, seen)
        keys = str(app.main.approvals.query_one("#approval-keys").render())
        assert keys.startswith("F8 then 1 allow"), "the keys line says how to answer"
        await pilot.press("ctrl+a")  # an editing key in the wrong place answers nothing
        assert len(app.main.approvals.pending()) == 1
        await pilot.press("f8")
        keys = str(app.main.approvals.query_one("#approval-keys").render())
        assert "F8" not in keys
        assert "always" in keys
        await pilot.press("3")
        await seen.wait_event(AgentFinished)
        await turns_done(app)
        assert _saved_rules(app) == ["touch"]
    assert marker.exists()


@pytest.mark.parametrize("pace", PACES)
@pytest.mark.parametrize(("key", "mode"), [("ctrl+y", "yolo"), ("shift+tab", "auto_edit")])
async def test_yes_typed_after_a_mode_shortcut_goes_to_the_prompt(
    key: str, mode: str, pace: str, mock_llm: MockLLMServer, workspace: Path
) -> None:
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    async with app.run_test(size=(120, 40)) as pilot:
        await _type(pilot, "fix it, ", pace)
        await pilot.press(key)  # meant as redo / back-tab: the question opens
        assert isinstance(app.screen, ConfirmScreen)
        await _type(pilot, "y", pace)
        await _type(pilot, "es and go on", pace)
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen), "typing answered nothing"
        assert app.session is not None
        assert app.session.approval_mode == "default"
        assert app.main.prompt.text == "fix it, yes and go on"
        await pilot.press("backspace", "backspace", "escape")  # Esc always says no
        assert app.screen is app.main
        assert app.main.prompt.text == "fix it, yes and go "
        assert app.session.approval_mode == "default"
        # On purpose: the question a shortcut opens (Shift+Tab now steps past the mode
        # just declined, so ask for it as the shortcut does), then F8, then y.
        app.request_approval_mode(mode)
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("f8", "y")
        assert app.session.approval_mode == mode
        assert app.main.status.approval_mode == mode


async def test_a_paste_into_the_question_goes_to_the_prompt(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    from textual import events

    app = make_app(make_session(mock_llm.url, workspace), workspace)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("ctrl+y")
        assert isinstance(app.screen, ConfirmScreen)
        app.post_message(events.Paste("yes, all of it"))
        await pilot.pause()
        assert app.main.prompt.text == "yes, all of it"
        assert app.session is not None
        assert app.session.approval_mode == "default"


async def test_a_click_on_the_question_lets_its_letters_answer(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("ctrl+y")
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.click(".dialog-title")
        await pilot.press("y")
        assert app.session is not None
        assert app.session.approval_mode == "yolo"


@pytest.fixture
def hostile_folder(
    monkeypatch: pytest.MonkeyPatch, mock_llm: MockLLMServer, workspace: Path
) -> None:
    """A folder whose own settings would switch yolo on, once trusted."""
    monkeypatch.setenv("GEMINI_API_KEY", "user-key")
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", mock_llm.url)
    (workspace / ".gemtui").mkdir()
    (workspace / ".gemtui" / "config.toml").write_text('[general]\napproval_mode = "yolo"\n')


def _trust_app(workspace: Path) -> GemtuiApp:
    from gemtui.agent.assembly import RunOptions
    from gemtui.config.settings import load_settings
    from gemtui.config.trust import workspace_trust
    from gemtui.tui.launch import build_app

    trust = workspace_trust(workspace)
    app = build_app(
        load_settings(workspace, trusted=trust.trusted),
        RunOptions(workspace=workspace),
        trust=trust,
    )
    assert isinstance(app, GemtuiApp)
    return app


@pytest.mark.usefixtures("hostile_folder")
@pytest.mark.parametrize("pace", PACES)
@pytest.mark.parametrize("sentence", ["tell me about this", "no idea, start"])
async def test_a_first_prompt_typed_over_the_trust_question_answers_nothing(
    sentence: str, pace: str, workspace: Path
) -> None:
    app = _trust_app(workspace)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, TrustScreen)
        await _type(pilot, sentence, pace)
        await pilot.pause()
        assert isinstance(app.screen, TrustScreen), "neither t nor n answered"
        assert app.main.prompt.text == sentence
        assert TrustStore().is_trusted(workspace) is None, "nothing remembered"
        assert app.session is None, "nothing started before the answer"
        await pilot.press("f8", "t")  # on purpose: now t trusts
        while app.session is None:  # handed over (its thread goes on: a prompt is written)
            await pilot.pause()
        assert app.session.approval_mode == "yolo"
        assert app.main.prompt.text == sentence, "the first prompt is still there"
    app.close_store()
    assert TrustStore().is_trusted(workspace) is True


@pytest.mark.parametrize("pace", PACES)
async def test_tab_is_typing_so_it_never_arms_an_answer(
    pace: str, mock_llm: MockLLMServer, workspace: Path
) -> None:
    """Tab completes ``@paths`` in the prompt: reaching the queue with it, or pressing it
    over a question, leaves the answer keys unbound."""
    marker = _command_waiting(mock_llm, workspace)
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await _queue_took_the_focus(app, pilot, seen)
        await _type(pilot, "@nothing", pace)
        assert app.focused is app.main.prompt
        for _ in range(6):  # Tab on until the focus is in the queue again
            await pilot.press("tab")
            if isinstance(app.focused, ApprovalQueue):
                break
        assert isinstance(app.focused, ApprovalQueue)
        await _type(pilot, "3 as is", pace)
        assert app.main.prompt.text == "@nothing3 as is"
        assert len(app.main.approvals.pending()) == 1
        assert not marker.exists()
        await pilot.press("ctrl+y")  # nothing to redo: the yolo question
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("tab")
        await _type(pilot, "y", pace)
        assert app.session is not None
        assert app.session.approval_mode == "default"
        assert app.main.prompt.text == "@nothing3 as isy"
        await pilot.press("f8", "x")  # on purpose; a key that answers nothing is still text
        assert app.main.prompt.text == "@nothing3 as isyx"
        await pilot.press("n")
        assert app.screen is app.main
        assert app.session.approval_mode == "default"
        app.session.cancel()
        await turns_done(app)
    assert not marker.exists()
