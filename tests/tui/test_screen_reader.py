"""The screen-reader mode: the whole session as plain lines in order, nothing drawn that a
screen reader reads as noise (box drawing, block elements, spinner frames), approvals
answered by the one letter the log names, after F8 — never by a digit."""

from __future__ import annotations

from pathlib import Path

import pytest

from gemtui.bus.events import AgentFinished
from gemtui.config.settings import Settings, UiSettings
from gemtui.config.ui_choice import UiChoice, read_ui_choice
from gemtui.testing.mockllm import MockLLMServer
from gemtui.tui.app import GemtuiApp
from gemtui.tui.widgets.spoken_log import SpokenLog
from gemtui.tui.widgets.transcript_blocks import SPINNER
from tests.tui.conftest import make_app, make_session
from tests.tui.helpers import Messages, turns_done

NOISE = {chr(c) for c in range(0x2500, 0x25A0)} | set(SPINNER)
"""Box drawing (U+2500–U+257F), block elements (U+2580–U+259F) and spinner frames."""


def drawn(app: GemtuiApp) -> str:
    """Every character on the screen now, as the terminal gets it."""
    strips = app.screen._compositor.render_strips()
    return "\n".join(strip.text for strip in strips)


def _touch_then_answer(mock_llm: MockLLMServer) -> None:
    call = {"name": "run_shell_command", "args": {"command": "touch planted"}}
    mock_llm.enqueue({"function_calls": [call]}, {"text": "All set.\nThe file is there."})


async def _session_lines(
    mock_llm: MockLLMServer, workspace: Path, app: GemtuiApp
) -> tuple[list[str], list[str], bool]:
    """Run one prompt whose shell call is approved: the log's lines, the screens drawn
    (while the call waits, and at the end), and whether a digit had decided it."""
    seen = Messages()
    screens: list[str] = []
    async with app.run_test(size=(80, 24), message_hook=seen) as pilot:
        await pilot.press(*"make the file", "enter")
        await seen.wait_approvals(1)
        await pilot.pause()
        screens.append(drawn(app))
        await pilot.press("f8", "1")  # a digit: never an answer in this mode
        await pilot.pause()
        digit_decided = (workspace / "planted").exists() or not app.main.approvals.pending()
        assert digit_decided or app.main.prompt.text == "1", "the digit is kept as text"
        await pilot.press("f8", "a")  # the digit went to the prompt as text: F8 again
        await seen.wait_event(AgentFinished)
        await turns_done(app)
        await pilot.pause()
        screens.append(drawn(app))
        logs = list(app.main.query(SpokenLog).results())
        said = logs[0].said if logs else []
    return said, screens, digit_decided


async def test_a_session_is_read_as_plain_lines_in_order(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    _touch_then_answer(mock_llm)
    app = make_app(
        make_session(mock_llm.url, workspace), workspace, ui=UiChoice(screen_reader=True)
    )
    said, screens, digit_decided = await _session_lines(mock_llm, workspace, app)
    assert said[0].startswith("gemtui, screen-reader mode. Type a prompt and press Enter.")
    asked = next(i for i, line in enumerate(said) if line.startswith("Approval asked:"))
    assert said[asked - 1] == "You: make the file"
    assert "run_shell_command: touch planted" in said[asked]
    assert "press F8, then a allow once" in said[asked], "the keys are said with the question"
    rest = said[asked + 1 :]
    assert rest[0] == "You allowed once: run_shell_command: touch planted."
    done = rest.index("Tool run_shell_command: touch planted: done.")
    answer = rest.index("Answer: All set.")
    assert done < answer
    assert rest[answer + 1] == "The file is there."
    assert rest[-1] == "Done. Type your next prompt."
    assert (workspace / "planted").exists()
    assert not digit_decided, "a digit answered the approval"
    for screen in screens:
        assert "make the file" in screen or "All set." in screen
        assert not NOISE & set(screen), sorted(NOISE & set(screen))


async def test_control_the_usual_screen_draws_boxes_and_a_digit_answers(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    """The same session without the mode: the checks above do see boxes and spinners,
    and a digit after F8 does decide (so the mode is what keeps them away)."""
    _touch_then_answer(mock_llm)
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    said, screens, digit_decided = await _session_lines(mock_llm, workspace, app)
    assert said == []
    assert NOISE & set(screens[0])
    assert digit_decided


@pytest.mark.parametrize(
    ("toml", "env", "on"),
    [
        ("[ui.accessibility]\nscreenReader = true\n", None, True),
        ("[ui.accessibility]\nscreen_reader = true\n", None, True),
        ("", "1", True),
        ("[ui.accessibility]\nscreenReader = true\n", "0", False),
        ("", None, False),
    ],
)
def test_the_setting_names_gemini_cli_uses_turn_it_on(
    workspace: Path,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    toml: str,
    env: str | None,
    on: bool,
) -> None:
    """Gemini CLI's ``ui.accessibility.screenReader`` (and ``GEMTUI_SCREEN_READER``) is
    read for the first frame and validates in the full settings."""
    from gemtui.config.settings import load_settings

    home = tmp_path / "home"
    monkeypatch.setenv("GEMTUI_HOME", str(home))
    if env is None:
        monkeypatch.delenv("GEMTUI_SCREEN_READER", raising=False)
    else:
        monkeypatch.setenv("GEMTUI_SCREEN_READER", env)
    from gemtui.config.paths import user_config_file

    user_config_file().parent.mkdir(parents=True, exist_ok=True)
    user_config_file().write_text(toml)
    assert read_ui_choice(workspace, trusted=False).screen_reader is on
    settings = load_settings(workspace)
    assert settings.ui.accessibility.screen_reader is ("screen" in toml)


async def test_the_setting_opens_the_plain_screen(mock_llm: MockLLMServer, workspace: Path) -> None:
    settings = Settings(ui=UiSettings.model_validate({"accessibility": {"screenReader": True}}))
    app = GemtuiApp(
        settings=settings,
        session=make_session(mock_llm.url, workspace),
        workspace=workspace,
        raise_errors=True,
    )
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert app.main.query(SpokenLog)
        assert not NOISE & set(drawn(app))


def test_the_flag_reaches_the_run_options(workspace: Path) -> None:
    from gemtui.cli.main import build_parser, run_options

    args = build_parser().parse_args(["--screen-reader"])
    assert run_options(args, workspace, prompt=None).screen_reader is True


async def test_errors_and_mode_changes_are_lines_not_boxes(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    """An error of the model call and a mode change (a toast in the usual screen) are
    said in the log, in order, and no toast draws its box."""
    mock_llm.enqueue({"error": {"status": 400, "message": "The request was malformed here."}})
    app = make_app(
        make_session(mock_llm.url, workspace), workspace, ui=UiChoice(screen_reader=True)
    )
    seen = Messages()
    async with app.run_test(size=(80, 24), message_hook=seen) as pilot:
        await pilot.press(*"hello", "enter")
        await seen.wait_event(AgentFinished)
        await turns_done(app)
        await pilot.press(*"/approval-mode plan", "enter")
        await pilot.pause()
        await pilot.press(*"keep this", "home", "ctrl+f")  # no find bar over plain lines
        await pilot.pause()
        assert app.main.prompt.text == "keep this", "Ctrl+F deleted none of the prompt"
        said = app.main.query_one(SpokenLog).said
        error = next(i for i, line in enumerate(said) if "malformed here" in line)
        assert said[error].startswith("Error: ")
        mode = next(i for i, line in enumerate(said) if "Approval mode: plan" in line)
        assert error < mode
        assert said[mode] == "Note: Approval mode: plan. Only tools that look are offered."
        assert said[-1].startswith("Note: Find: use your screen reader's own search")
        assert not app._notifications, "no toast: the line is the notification"
        assert not NOISE & set(drawn(app))


async def test_a_resumed_session_is_read_from_its_start(
    mock_llm: MockLLMServer, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--resume`` draws the saved story without events: the log says it too, in
    order, before anything new."""
    from gemtui.agent.assembly import RunOptions
    from gemtui.tui.launch import build_app
    from tests.tui.helpers import engine_started

    monkeypatch.setenv("GEMINI_API_KEY", "k")
    settings = Settings.model_validate(
        {
            "general": {"provider": "mock"},
            "providers": {"mock": {"kind": "gemini", "base_url": mock_llm.url}},
            "network": {"max_attempts": 1, "stream_retry_delays": []},
        }
    )
    mock_llm.enqueue({"text": "Alpha.\n\nBeta."})
    first = build_app(settings, RunOptions(workspace=workspace))
    assert isinstance(first, GemtuiApp)
    seen = Messages()
    async with first.run_test(size=(80, 24), message_hook=seen) as pilot:
        await engine_started(first, seen)
        await pilot.press(*"say two words", "enter")
        await seen.wait_event(AgentFinished)
        await turns_done(first)
        assert first.session is not None
        session_id = first.session.id
    first.close_store()

    options = RunOptions(workspace=workspace, resume=session_id, screen_reader=True)
    again = build_app(settings, options)  # the flag alone, as ``--screen-reader``
    assert isinstance(again, GemtuiApp)
    seen = Messages()
    async with again.run_test(size=(80, 24), message_hook=seen) as pilot:
        await engine_started(again, seen)
        await pilot.pause()
        said = again.main.query_one(SpokenLog).said
        start = said.index("Resumed a saved session: 2 earlier messages follow.")
        assert said[start + 1 :] == [
            "You: say two words",
            "Answer: Alpha.",
            "Beta.",
            "End of the earlier messages. Type your next prompt.",
        ]
    again.close_store()


SECRET = "AIzaSySPOKEN-0123456789abcdefghijklmn"


@pytest.mark.parametrize("registered", [True, False])
async def test_a_secret_in_a_command_awaiting_approval_is_masked_in_the_log(
    mock_llm: MockLLMServer, workspace: Path, monkeypatch: pytest.MonkeyPatch, registered: bool
) -> None:
    """The approval line names the command; a registered key in it is said masked, as
    the transcript shows it. Control: a key not registered is said as it is (the
    line really carries the command)."""
    if registered:
        monkeypatch.setenv("GEMINI_API_KEY", SECRET)
    call = {"name": "run_shell_command", "args": {"command": f"curl -H 'k: {SECRET}' x"}}
    mock_llm.enqueue({"function_calls": [call]}, {"text": "ok"})
    app = make_app(
        make_session(mock_llm.url, workspace), workspace, ui=UiChoice(screen_reader=True)
    )
    seen = Messages()
    async with app.run_test(size=(80, 24), message_hook=seen) as pilot:
        await pilot.press(*"call it", "enter")
        await seen.wait_approvals(1)
        await pilot.pause()
        said = list(app.main.query_one(SpokenLog).said)
        await pilot.press("f8", "r")
        await seen.wait_event(AgentFinished)
    asked = next(line for line in said if line.startswith("Approval asked:"))
    assert "curl -H" in asked
    assert (SECRET in asked) is not registered
    assert ("[redacted]" in asked) is registered


async def test_the_budget_question_is_said_with_its_keys(
    mock_llm: MockLLMServer, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cap's question was never said in the mode (its op said nothing): now the log
    says what stopped and which keys answer, and the answer it names works."""
    from gemtui.agent.assembly import RunOptions
    from gemtui.tui.launch import build_app
    from gemtui.tui.screens.budget import BudgetScreen
    from tests.tui.helpers import engine_started
    from tests.tui.test_budget_dialog import _settings

    monkeypatch.setenv("GEMINI_API_KEY", "k")
    mock_llm.enqueue({"text": "priced at nothing known"})
    options = RunOptions(workspace=workspace, model="no-such-model", max_budget_usd=5.0)
    app = build_app(_settings(mock_llm.url), options, ui=UiChoice(screen_reader=True))
    assert isinstance(app, GemtuiApp)
    seen = Messages()
    async with app.run_test(size=(80, 24), message_hook=seen) as pilot:
        await engine_started(app, seen)
        await pilot.press(*"go", "enter")
        while not isinstance(app.screen, BudgetScreen):
            await pilot.pause()
        said = list(app.main.query_one(SpokenLog).said)
        await pilot.press("f8", "g")
        await seen.wait_event(AgentFinished)
    app.close_store()
    question = next(line for line in said if line.startswith("Question:"))
    assert "no-such-model" in question
    assert "press F8, then g go on without a price" in question
    assert len(mock_llm.requests) == 1, "g, as said, went on"


async def test_the_fallback_question_is_said_with_its_keys(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    from gemtui.tui.screens.dialogs import FallbackScreen

    quota = {
        "status": 429,
        "message": "Quota exceeded for quota metric 'Generate requests' per day.",
        "quota_id": "GenerateRequestsPerDayPerProjectPerModel",
    }
    mock_llm.enqueue({"error": quota}, {"text": "flash answers"})
    app = make_app(
        make_session(mock_llm.url, workspace, model="gemini-2.5-pro"),
        workspace,
        ui=UiChoice(screen_reader=True),
    )
    seen = Messages()
    async with app.run_test(size=(80, 24), message_hook=seen) as pilot:
        await pilot.press(*"hello", "enter")
        await seen.wait_for(lambda m: isinstance(app.screen, FallbackScreen))
        said = list(app.main.query_one(SpokenLog).said)
        await pilot.press("f8", "x")
        await seen.wait_event(AgentFinished)
    question = next(line for line in said if line.startswith("Question:"))
    assert "Switch from gemini-2.5-pro to gemini-2.5-flash?" in question
    assert "press F8, then s switch, x or Escape stop" in question


def test_every_approval_key_is_said() -> None:
    """After F8 the queue also takes m, capital S (an MCP call) and Control A: each is
    named where it acts."""
    from gemtui.bus.events import Confirmation, ToolCallSnapshot
    from gemtui.bus.values import ToolCallState
    from gemtui.tui.view.approval_keys import spoken_keys

    call = ToolCallSnapshot(
        call_id="c1",
        name="mcp_tool",
        args={},
        state=ToolCallState.AWAITING_APPROVAL,
        confirmation=Confirmation(kind="mcp", title="t"),
    )
    said = spoken_keys(call)
    for key in ("m modify", "capital S allow this MCP server", "Control A allow every edit"):
        assert key in said
