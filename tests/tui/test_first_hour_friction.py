"""The first hour, as a newcomer meets it (issue 38, item 5): reports stay in the
conversation, ``/theme`` is a picker with a preview, the approval keys fit 80 columns
and say what the reach is, the welcome screen neither quits on one Esc nor loses a key
where no keyring can keep it, the empty conversation teaches, the demo ends cleanly and
``/help`` names every way of typing it knows. Real session, mock model over the wire."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import keyring
import pytest
from keyring.backends import fail
from textual import events
from textual.containers import VerticalScroll
from textual.widgets import Input, Static

from gemtui.agent.assembly import RunOptions
from gemtui.bus.events import AgentFinished
from gemtui.config.paths import user_config_file
from gemtui.config.secrets import get_secret
from gemtui.testing.mockllm import MockLLMServer
from gemtui.tui.launch import build_app
from gemtui.tui.screens.main import MainScreen
from gemtui.tui.screens.welcome import DEMO_SCRIPT, WelcomeScreen
from gemtui.tui.widgets.key_hints import KeyHints
from tests.tui.conftest import make_app, make_session
from tests.tui.helpers import Messages, transcript_notices, turns_done
from tests.tui.test_welcome_first_keys import _dead_port

WELCOME = "No model provider is configured."


def _toasts(app: Any) -> list[str]:
    return [str(n.message) for n in app._notifications]


# -- 1. lists and reports live in the conversation ------------------------------------------


async def test_commands_and_stats_are_written_into_the_conversation(
    mock_llm: MockLLMServer, workspace: Path, isolated_home: Path
) -> None:
    """A toast vanishes before a list is read: /commands and /stats go to the transcript."""
    commands = isolated_home / "config" / "commands"  # the user's own commands
    commands.mkdir(parents=True)
    (commands / "hello.toml").write_text('prompt = "hi"\n')
    mock_llm.enqueue({"text": "an answer"})
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    seen = Messages()
    async with app.run_test(size=(80, 24), message_hook=seen) as pilot:
        await pilot.press(*"hello", "enter")
        await seen.wait_event(AgentFinished)
        await turns_done(app)
        await pilot.press(*"/commands", "enter")
        await pilot.press(*"/stats", "enter")
        await pilot.pause()
        notes = transcript_notices(app)
        assert any(n.startswith("Custom commands:\n/hello (") for n in notes), notes
        assert any("1 model turns: in " in n for n in notes), notes
        assert not any("Custom commands" in t or "model turns" in t for t in _toasts(app))


async def test_theme_alone_opens_a_picker_that_previews_and_esc_puts_back(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    async with app.run_test(size=(80, 24)) as pilot:
        before = app.theme
        await pilot.press(*"/theme", "enter")
        await pilot.pause()
        from gemtui.tui.screens.theme_picker import ThemePicker

        picker = app.screen
        assert isinstance(picker, ThemePicker)
        names = picker.names
        assert len(names) > 5
        assert before in names
        assert not any("Available:" in t for t in _toasts(app))  # no 27 names in a toast
        await pilot.press("down")
        await pilot.pause()
        previewed = names[names.index(before) + 1]
        assert app.theme == previewed  # the highlighted theme is shown live
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, MainScreen)
        assert app.theme == before  # Esc: the previous theme back, nothing saved
        assert not user_config_file().exists()
        await pilot.press(*"/theme", "enter")
        await pilot.pause()
        await pilot.press("down", "enter")
        await pilot.pause()
        assert isinstance(app.screen, MainScreen)
        assert app.theme == previewed  # Enter keeps it, and it is remembered
    assert tomllib.loads(user_config_file().read_text())["ui"]["theme"] == previewed


@pytest.mark.parametrize("mode", [0, 2], ids=["both", "code-only"])
async def test_the_rewind_result_and_its_undo_id_stay_in_the_conversation(
    mock_llm: MockLLMServer, workspace: Path, mode: int
) -> None:
    """The undo id is what gets the files back: a toast lost it in seconds."""
    from tests.tui.test_rewind import ORIGINAL, _choose, _enqueue, _two_prompts

    for name, data in ORIGINAL.items():
        (workspace / name).write_bytes(data)
    _enqueue(mock_llm)
    app = make_app(make_session(mock_llm.url, workspace, approval_mode="yolo"), workspace)
    seen = Messages()
    async with app.run_test(size=(80, 24), message_hook=seen) as pilot:
        await _two_prompts(pilot, seen)
        await pilot.press("escape", "escape")
        await pilot.pause()
        await _choose(pilot, app, mode)
        said = [n for n in transcript_notices(app) if n.startswith("Rewind: ")]
        assert len(said) == 1, transcript_notices(app)
        assert "file(s) put back (undo: gemtui rewind " in said[0]
        assert not any(t.startswith("Rewind: ") for t in _toasts(app))


# -- 2. the approval keys at 80 columns --------------------------------------------------------


async def test_the_approval_keys_fit_80_columns_and_say_what_the_reach_is(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    args = {"file_path": "src/app.py", "content": "x = 1\n"}
    mock_llm.enqueue({"function_calls": [{"name": "write_file", "args": args}]}, {"text": "ok"})
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    seen = Messages()
    async with app.run_test(size=(80, 24), message_hook=seen) as pilot:
        await pilot.press(*"write it", "enter")
        await seen.wait_approvals(1)
        await pilot.pause()
        hints = app.main.approvals.query_one("#approval-keys", KeyHints)
        waiting = "\n".join(line.plain for line in hints.lines(hints.size.width))
        assert "^a" in waiting, waiting
        assert "8 reach: file/folder/all" in waiting, waiting
        await pilot.press("f8")
        await pilot.pause()
        width = hints.size.width
        assert width <= 80
        lines = [line.plain for line in hints.lines(width)]
        shown = "\n".join(lines)
        assert all(len(line) <= width for line in lines)
        assert "^a all edits" in shown, shown  # dropped at 80 columns before
        assert "w reach: file/folder/all" in shown, shown
        remembers = app.main.approvals.query(".preview-remembers").first(Static)
        said = str(remembers.render())
        assert "8 changes the reach: [this file] / its folder / every call" in said, said
        assert "reach 1 of 3" not in said
        await pilot.press("8")  # the choice moves, in words
        await pilot.pause()
        remembers = app.main.approvals.query(".preview-remembers").first(Static)
        assert "this file / [its folder] / every call" in str(remembers.render())
        await pilot.press("a")
        await seen.wait_event(AgentFinished)


# -- 3. the welcome screen ---------------------------------------------------------------------


async def test_one_esc_on_the_welcome_screen_asks_and_a_second_quits(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(WelcomeScreen, "PORTS", (_dead_port(),))
    app = make_app(None, workspace, welcome_reason=WELCOME)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, WelcomeScreen)
        await pilot.press("escape")  # a reflex: the app stays
        await pilot.pause()
        assert app.return_code is None
        assert isinstance(app.screen, WelcomeScreen)
        assert "Esc again quits" in str(app.screen.query_one("#message", Static).render())
        await pilot.press("tab", "escape")  # moved on: the next Esc asks again
        await pilot.pause()
        assert app.return_code is None
        await pilot.press("escape")
        await pilot.pause()
    assert app.return_code == 0


async def test_every_welcome_focus_stop_is_a_control_that_shows_its_focus(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The scrolling frame took a Tab stop and showed nothing focused on it."""
    monkeypatch.setattr(WelcomeScreen, "PORTS", (_dead_port(),))
    app = make_app(None, workspace, welcome_reason=WELCOME)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await app.screen.workers.wait_for_complete()
        chain = app.screen.focus_chain
        assert chain, "the welcome screen has controls to reach"
        assert not [w for w in chain if isinstance(w, VerticalScroll)]
        ids = [w.id for w in chain]
        assert ids == ["key-kind", "key", "use-key", "local-url", "google", "vertex", "demo"]


def _files_holding(root: Path, secret: str) -> list[Path]:
    return [
        p
        for p in root.rglob("*")
        if p.is_file() and secret.encode() in p.read_bytes()  # logs, config, the store
    ]


@pytest.mark.parametrize("has_keyring", [False, True], ids=["no-keyring", "keyring"])
async def test_without_a_keyring_the_note_comes_first_and_the_key_serves_this_run(
    workspace: Path, isolated_home: Path, monkeypatch: pytest.MonkeyPatch, has_keyring: bool
) -> None:
    """No keyring: said before the paste; the pasted key starts the session from memory and
    no file holds it. The control (a keyring) stores it there: the file scan is real."""
    from gemtui.config import secrets

    monkeypatch.setattr(secrets, "_THIS_RUN", {}, raising=False)  # this test's keys only
    if not has_keyring:  # the memory_keyring fixture puts its own back afterwards
        keyring.set_keyring(fail.Keyring())
    monkeypatch.setattr(WelcomeScreen, "PORTS", (_dead_port(),))
    key = "AIzaPastedKey-0123456789abcdef"
    app = make_app(None, workspace, welcome_reason=WELCOME)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, WelcomeScreen)
        notes = screen.query("#no-keyring")
        assert bool(notes) is not has_keyring  # up front, before any key
        if notes:
            assert "for this run only" in str(notes.first(Static).render())
        assert app.focused is screen.query_one("#key", Input)
        app.post_message(events.Paste(key))
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert app.session is not None, str(screen.query_one("#message", Static).render())
        assert app.session.provider.name == "gemini"
        assert get_secret("gemini-api-key") == key
    assert _files_holding(isolated_home, key) == []
    assert _files_holding(workspace, key) == []
    assert tomllib.loads(user_config_file().read_text())["general"]["provider"] == "gemini"
    stored = keyring.get_password(secrets.SERVICE, "gemini-api-key") if has_keyring else None
    assert stored == (key if has_keyring else None)


# -- 4. the first minute and the demo ----------------------------------------------------------


async def test_the_empty_conversation_shows_a_tip_until_the_first_prompt(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    mock_llm.enqueue({"text": "hi"})
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await pilot.pause()
        tip = str(app.main.query_one("#first-tip", Static).render())
        for taught in ("F8", "@file", "!cmd", "/help"):
            assert taught in tip
        thoughts = app.main.thoughts
        assert "Thoughts:" in str(thoughts.render())  # the empty pane says what it is
        await pilot.press(*"hello", "enter")
        await seen.wait_event(AgentFinished)
        await turns_done(app)
        await pilot.pause()
        assert not app.main.query("#first-tip")


async def test_a_resumed_conversation_shows_no_tip_over_it(
    mock_llm: MockLLMServer, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The tip is for an empty conversation; a resumed one is drawn without it."""
    from tests.tui.helpers import engine_started
    from tests.tui.test_resume_shows_what_happened import _settings_for

    monkeypatch.setenv("GEMINI_API_KEY", "k")
    mock_llm.enqueue({"text": "first answer"})
    settings = _settings_for(mock_llm.url)
    app = build_app(settings, RunOptions(workspace=workspace))
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await engine_started(app, seen)
        assert app.main.query("#first-tip")  # a new conversation: the tip is there
        await pilot.press(*"remember me", "enter")
        await seen.wait_event(AgentFinished)
        await turns_done(app)
        session_id = app.session.id
    resumed = build_app(settings, RunOptions(workspace=workspace, resume=session_id))
    seen = Messages()
    async with resumed.run_test(size=(120, 40), message_hook=seen) as pilot:
        await engine_started(resumed, seen)
        for _ in range(3):
            await pilot.pause()
        assert ("user", "remember me") in resumed.main.transcript.messages()
        assert not resumed.main.query("#first-tip")


def _demo_app(workspace: Path, script: Path) -> Any:
    app = build_app(None, RunOptions(workspace=workspace, fake_responses=str(script)))
    assert not isinstance(app, Exception)
    app.raise_errors = True  # type: ignore[attr-defined]
    return app


async def _play_the_demo(pilot: Any, app: Any, seen: Messages) -> None:
    while app.session is None:
        await pilot.pause()
    await pilot.press(*"hi", "enter")
    await seen.wait_approvals(1)
    await pilot.press("f8", "a")
    await seen.wait_event(AgentFinished)
    await turns_done(app)


@pytest.mark.parametrize("demo", [True, False], ids=["the-demo", "a-test-recording"])
async def test_after_the_demo_a_prompt_opens_the_welcome_screen_not_an_error(
    workspace: Path, tmp_path: Path, demo: bool
) -> None:
    """The control plays the same recording from another file: running out of it stays
    the error it was (the guard is the demo's own)."""
    script = DEMO_SCRIPT
    if not demo:
        script = tmp_path / "recorded.jsonl"
        script.write_bytes(DEMO_SCRIPT.read_bytes())
    app = _demo_app(workspace, script)
    app.raise_errors = False
    seen = Messages()
    async with app.run_test(size=(80, 24), message_hook=seen) as pilot:
        await _play_the_demo(pilot, app, seen)
        await pilot.press(*"now for real", "enter")
        await pilot.pause()
        await turns_done(app)
        await pilot.pause()
        said = _toasts(app) + transcript_notices(app)
        failed = [t for t in said if "no response left" in t]
        if not demo:
            assert failed, "without the guard the demo's end is an error"
            return
        assert not failed
        assert "To start for real" in app.main.transcript.messages()[-1][1]
        assert isinstance(app.screen, WelcomeScreen)
        assert app.main.prompt.text == "now for real"  # what was typed is kept
        assert any("The demo is over" in n for n in transcript_notices(app))
        await pilot.press("escape")  # from the demo's end, Esc goes back
        await pilot.pause()
        assert isinstance(app.screen, MainScreen)
        assert app.return_code is None
        assert app.main.prompt.text == "now for real"


# -- 5. /help ----------------------------------------------------------------------------------


def test_help_names_shell_mode_files_agents_esc_esc_and_ctrl_o() -> None:
    from gemtui.tui.help_text import HELP_TEXT

    for named in ("!  on an empty prompt: shell mode", "@path", "@agent", "Esc Esc", "Ctrl+O"):
        assert named in HELP_TEXT, named


def test_every_key_help_names_is_bound() -> None:
    """A key in /help that does nothing teaches the wrong thing: each is bound somewhere."""
    from gemtui.tui.app import GemtuiApp
    from gemtui.tui.widgets.approval_queue import ApprovalQueue
    from gemtui.tui.widgets.prompt_input import PromptInput

    bound: set[str] = {"enter", "up", "down", "ctrl+z", "home", "end"}  # TextArea's own keys
    for owner in (GemtuiApp, MainScreen, PromptInput, ApprovalQueue):
        for binding in owner.BINDINGS:
            bound.update(binding.key.split(","))
    bound.add(GemtuiApp.COMMAND_PALETTE_BINDING)
    named = "escape ctrl+c ctrl+j shift+enter pageup pagedown ctrl+home ctrl+end ctrl+o"
    named += " ctrl+shift+z ctrl+y shift+tab f1 f2 f3 f4 f5 f6 f7 f8 ctrl+p ctrl+a"
    named += " 1 2 3 4 5 6 8 a s A r f m w j k d"
    missing = [key for key in named.split() if key not in bound]
    assert missing == []


# -- how it looks --------------------------------------------------------------------------------


def _snap_app(tmp_path: Path) -> Any:
    from gemtui.agent.provider_choice import ResolvedProvider
    from gemtui.agent.session import Session, SessionOptions
    from gemtui.config.settings import Settings
    from gemtui.providers.replay import ReplayGenerator

    provider = ResolvedProvider(
        "gemini", "gemini", ReplayGenerator([]), "gemini-2.5-flash", 1_048_576
    )
    workspace = tmp_path / "ws"
    workspace.mkdir(exist_ok=True)
    session = Session(Settings(), provider, SessionOptions(workspace=workspace))
    return make_app(session, workspace)


def _edit_asking() -> list[Any]:
    from gemtui.bus import events as ev
    from gemtui.tools.base import Confirmation

    scopes = (
        ("file", "write_file of src/greet.py"),
        ("folder", "write_file in src/"),
        ("every", "every write_file call"),
    )
    diff = "--- a/src/greet.py\n+++ b/src/greet.py\n@@ -0,0 +1 @@\n+print('hi')\n"
    call = ev.ToolCallSnapshot(
        call_id="c1",
        name="write_file",
        args={"file_path": "src/greet.py", "content": "print('hi')\n"},
        state=ev.ToolCallState.AWAITING_APPROVAL,
        description="write src/greet.py",
        kind="edit",
        correlation_id="corr-1",
        confirmation=Confirmation(
            kind="edit",
            title="Write src/greet.py",
            file_path="src/greet.py",
            diff=diff,
            remembers=(scopes[0][1],),
            scopes=scopes,
        ),
    )
    return [
        ev.UserMessage(text="Add a greeting", prompt_id="s#1"),
        ev.ToolCallStateChanged(call=call, prompt_id="s#1"),
    ]


SIZES = [(80, 24), (120, 40)]
SIZE_IDS = ["80x24", "120x40"]


class TestFirstHourSnapshots:
    """The screens this friction list changed, at 80×24 and 120×40."""

    @pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
    def test_empty_conversation_with_its_tip(
        self, snap_compare: Any, tmp_path: Path, size: tuple[int, int]
    ) -> None:
        """An empty transcript with one muted tip above the prompt ("Tip: Enter sends ·
        tool calls wait for you (F8, then 1 allows) · @file … · !cmd … · /help (F1) …");
        at 120 columns the side pane's top says "Thoughts: the model's thinking shows
        here (F2 hides)" instead of an untitled blank."""

        async def run_before(pilot: Any) -> None:
            await pilot.pause()
            await pilot.pause()

        assert snap_compare(_snap_app(tmp_path), terminal_size=size, run_before=run_before)

    @pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
    def test_approval_keys_and_reach_in_words(
        self, snap_compare: Any, tmp_path: Path, size: tuple[int, int]
    ) -> None:
        """The queue focused with F8: under the diff, "session / always remember:
        write_file of src/greet.py" and "8 changes the reach: [this file] / its folder /
        every call"; the keys on two lines when one is too short, ending in "^a all
        edits" (no key dropped)."""
        from gemtui.tui.bridge import BusEvent

        async def run_before(pilot: Any) -> None:
            for event in _edit_asking():
                pilot.app.main.on_bus_event(BusEvent(event))
            await pilot.pause()
            await pilot.press("f8")
            await pilot.pause()
            await pilot.pause()

        assert snap_compare(_snap_app(tmp_path), terminal_size=size, run_before=run_before)

    @pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
    def test_theme_picker_previews_the_highlighted_theme(
        self, snap_compare: Any, tmp_path: Path, size: tuple[int, int]
    ) -> None:
        """/theme alone: a list on the right titled "Theme (now gemtui)", the row after
        gemtui highlighted and the whole screen already drawn in that theme; the keys
        line "↑↓ preview · Enter keep · Esc back"."""

        async def run_before(pilot: Any) -> None:
            await pilot.pause()
            await pilot.press(*"/theme", "enter")
            await pilot.pause()
            await pilot.press("down")
            await pilot.pause()
            await pilot.pause()

        assert snap_compare(_snap_app(tmp_path), terminal_size=size, run_before=run_before)

    def test_welcome_without_a_keyring_says_so_first(
        self, snap_compare: Any, workspace: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """80×24, no keyring: "1. Paste an API key (for this run only)" and under it the
        muted note that the key is kept in memory for this run only, and which variable
        keeps it; the key field focused; every choice still on screen."""
        from gemtui.tui.screens import welcome

        async def probe(ports: tuple[int, ...] = ()) -> list[welcome.LocalServer]:
            return []

        monkeypatch.setattr(welcome, "probe_local_servers", probe)
        keyring.set_keyring(fail.Keyring())  # the memory_keyring fixture puts its own back

        async def run_before(pilot: Any) -> None:
            await pilot.app.screen.workers.wait_for_complete()
            await pilot.pause()
            await pilot.pause()

        app = make_app(None, workspace, welcome_reason=WELCOME)
        assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)
