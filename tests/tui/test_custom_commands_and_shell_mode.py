"""Custom TOML commands and ``!`` shell mode in the real app (Pilot, mock LLM, real bash)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gemtui.bus.events import (
    AgentFinished,
    ErrorOccurred,
    HookRan,
    ToolCallState,
    ToolCallStateChanged,
)
from gemtui.testing.mockllm import MockLLMServer
from gemtui.tui.bridge import BusEvent
from gemtui.tui.screens.dialogs import ConfirmScreen
from tests.tui.conftest import make_app, make_session
from tests.tui.helpers import Messages, engine_started, transcript_notices, turns_done


def _notes(app: Any) -> list[str]:
    return [n.message for n in app._notifications]


def _sent(request: Any) -> str:
    return "".join(p.get("text", "") for p in request.json["contents"][-1]["parts"])


def _command(home: Path, rel: str, text: str) -> Path:
    path = home / "config" / "commands" / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


async def test_command_asks_approval_for_its_shell_line_and_sends_the_expansion(
    mock_llm: MockLLMServer, workspace: Path, isolated_home: Path
) -> None:
    _command(
        isolated_home,
        "git/commit.toml",
        'description = "Commit it"\nprompt = "Commit {{args}}: !{echo STATUS-$((6*7))} @{notes.txt}"\n',
    )
    (workspace / "notes.txt").write_text("NOTES-BODY\n")
    mock_llm.enqueue({"text": "done"})
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await pilot.pause()
        assert "/git:commit" in app.help_text()
        assert app.main.prompt.extra_commands == {"/git:commit": "Commit it"}
        await pilot.press(*"/git:co")
        assert ("/git:commit", "Commit it") in app.main.prompt._suggestions
        app.main.prompt.clear()
        await pilot.press(*"/git:commit the fix", "enter")
        await seen.wait_approvals(1)
        assert mock_llm.requests == []  # nothing goes before the person answers
        await pilot.press("f8", "1")  # allow once
        await seen.wait_event(AgentFinished)
    text = _sent(mock_llm.requests[0])
    assert text.startswith("Commit the fix: STATUS-42")
    assert "NOTES-BODY" in text


async def test_rejected_shell_line_sends_nothing(
    mock_llm: MockLLMServer, workspace: Path, isolated_home: Path
) -> None:
    _command(isolated_home, "mark.toml", 'prompt = "!{touch marked}"\n')
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await pilot.press(*"/mark", "enter")
        await seen.wait_approvals(1)
        await pilot.press("f8", "4")  # reject
        await seen.wait_event(AgentFinished)
        await pilot.pause()
    assert mock_llm.requests == []
    assert not (workspace / "marked").exists()


async def test_reload_picks_up_new_files_and_names_a_broken_one(
    mock_llm: MockLLMServer, workspace: Path, isolated_home: Path
) -> None:
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        app.run_slash("/commands")
        await pilot.pause()
        assert any("No custom commands" in n for n in transcript_notices(app))
        _command(isolated_home, "hello.toml", 'prompt = "hi"\n')
        broken = _command(isolated_home, "bad.toml", "prompt = [")
        app.run_slash("/commands reload")
        await pilot.pause()
        assert any("1 loaded, 1 not loaded" in n for n in _notes(app))
        warning = await seen.wait_event(ErrorOccurred)
        assert str(broken) in warning.message
        assert "invalid TOML" in warning.message
        assert warning.hint == "Fix the file, then /commands reload."
        assert app.main.prompt.extra_commands == {"/hello": "Custom command (user)"}


async def test_bang_runs_without_a_model_call_and_the_next_request_has_the_output(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    (workspace / "alpha-file.txt").write_text("x")
    mock_llm.enqueue({"text": "I see it."})
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await pilot.press(*"!ls -1", "enter")
        await seen.wait_approvals(1)
        await pilot.press("f8", "1")  # allow once
        found = await seen.wait_for(
            lambda m: (
                isinstance(m, BusEvent)
                and isinstance(m.event, ToolCallStateChanged)
                and m.event.call.state == ToolCallState.SUCCESS
            )
        )
        assert isinstance(found, BusEvent)
        done = found.event
        assert "alpha-file.txt" in (done.call.output or "")
        await _answer_offer(pilot, app, "n")  # read-only commands you type: still ask
        await turns_done(app)
        assert mock_llm.requests == []  # no model call for a ! line
        prompt = app.main.prompt
        assert prompt.shell_mode  # "!" on the empty prompt entered shell mode
        assert prompt.border_title == "shell mode (! leaves)"
        await pilot.press("!")  # and leaves it
        assert not prompt.shell_mode
        assert prompt.border_title is None
        await pilot.press(*"what is here?", "enter")
        await seen.wait_event(AgentFinished)
    text = _sent(mock_llm.requests[0])
    assert text.startswith("what is here?")
    assert "I ran the following shell command:\n```sh\nls -1\n```" in text
    assert "alpha-file.txt" in text


async def test_directory_add_lets_tools_reach_the_folder(
    mock_llm: MockLLMServer, workspace: Path, tmp_path: Path
) -> None:
    other = tmp_path / "other-root"
    other.mkdir()
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    async with app.run_test(size=(120, 40)) as pilot:
        session = app.session
        assert session is not None
        assert not session.workspace.contains(str(other))
        app.run_slash(f"/directory add {other}")
        app.run_slash("/directory add missing-folder")
        app.run_slash("/directory show")
        await pilot.pause()
        assert session.workspace.contains(str(other)), _notes(app)
        (other / "shared-notes.md").write_text("x")
        await pilot.press(*"see @../other-root/sha")
        await pilot.pause()
        assert ("../other-root/shared-notes.md", "") in app.main.prompt._suggestions
        assert any("missing-folder is not a directory" in n for n in _notes(app))
        assert any(n.startswith("Workspace roots:") and str(other) in n for n in _notes(app))


async def test_hooks_view_and_the_card_line_show_a_blocked_call(
    mock_llm: MockLLMServer, workspace: Path, isolated_home: Path
) -> None:
    settings = isolated_home / "config" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    hook = {"type": "command", "command": "echo 'not on my watch' >&2; exit 2", "name": "guard"}
    settings.write_text(
        json.dumps({"hooks": {"BeforeTool": [{"matcher": "write_file", "hooks": [hook]}]}})
    )
    mock_llm.enqueue(
        {
            "function_calls": [
                {"name": "write_file", "args": {"file_path": "x.txt", "content": "x"}}
            ]
        },
        {"text": "ok"},
    )
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await pilot.press(*"write it", "enter")
        ran = await seen.wait_event(HookRan)
        await seen.wait_event(AgentFinished)
        app.run_slash("/hooks")
        await pilot.pause()
        # in the conversation, not a toast that vanishes before it is read
        view = next(n for n in transcript_notices(app) if n.startswith("Hooks:\n"))
    assert ran.outcome == "blocked"
    assert ran.summary() == "hook BeforeTool guard blocked: not on my watch"
    assert not (workspace / "x.txt").exists()
    assert "\nBeforeTool write_file -> guard" in view
    assert not any("write_file -> guard" in n for n in _notes(app))
    assert "guard: blocked" in view
    assert "not on my watch" in view


async def test_tasks_lists_and_stops_a_background_sleep(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    from gemtui.tools.background import group_members

    command = "echo started-bg; sleep 300"
    mock_llm.enqueue(
        {
            "function_calls": [
                {"name": "run_shell_command", "args": {"command": command, "is_background": True}}
            ]
        },
        {"text": "started"},
    )
    app = make_app(make_session(mock_llm.url, workspace, approval_mode="yolo"), workspace)
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await pilot.press(*"start it", "enter")
        await seen.wait_event(AgentFinished)
        assert app.session is not None
        [task] = app.session.tool_context.background.tasks.values()
        assert group_members(task.pid)  # the sleep is alive
        app.run_slash("/tasks")
        await pilot.pause()
        listed = next(n for n in transcript_notices(app) if str(task.pid) in n)
        assert f"{task.pid} [running] {command}" in listed
        app.run_slash(f"/tasks stop {task.pid}")
        await pilot.pause()
        assert any(f"Stopped {task.pid}" in n and "stopped" in n for n in _notes(app))
        assert group_members(task.pid) == []
        app.run_slash("/tasks stop 1")
        await pilot.pause()
        assert any("No background task 1" in n for n in _notes(app))


async def test_extensions_view_lists_an_enabled_extension_and_its_command(
    mock_llm: MockLLMServer, workspace: Path, tmp_path: Path
) -> None:
    from gemtui.extensions import ExtensionStore

    source = tmp_path / "ext"
    (source / "commands").mkdir(parents=True)
    (source / "gemini-extension.json").write_text('{"name": "helper", "version": "0.3.0"}')
    (source / "commands" / "greet.toml").write_text('prompt = "Greet {{args}}"\n')
    ExtensionStore().install(str(source))
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    async with app.run_test(size=(120, 40)) as pilot:
        app.run_slash("/extensions")
        await pilot.pause()
        assert "Extensions:\nhelper 0.3.0: MCP none" in "\n".join(transcript_notices(app))
        assert app.main.prompt.extra_commands == {"/greet": "Custom command (extension helper)"}


async def test_a_before_tool_hook_also_guards_commands_that_get_the_terminal(
    mock_llm: MockLLMServer, workspace: Path, isolated_home: Path
) -> None:
    settings = isolated_home / "config" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    hook = {"type": "command", "command": "echo 'no editors here' >&2; exit 2"}
    settings.write_text(
        json.dumps({"hooks": {"BeforeTool": [{"matcher": "run_shell_command", "hooks": [hook]}]}})
    )
    app = make_app(make_session(mock_llm.url, workspace, approval_mode="yolo"), workspace)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press(*"!vim notes.txt", "enter")
        await turns_done(app)
        await pilot.pause()
    assert any(n == "Not run: vim notes.txt - no editors here" for n in _notes(app)), _notes(app)


async def test_a_rejected_bang_line_clears_the_status_and_names_it_as_typed(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    """Reproduced: after "reject" the status line stayed on "waiting for your approval",
    and the notice said ``!{pwd}`` (a custom command's syntax) for ``!pwd``."""
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await pilot.press(*"!pwd", "enter")
        await seen.wait_approvals(1)
        await pilot.pause()
        assert app.main.status.activity == "approval"
        await pilot.press("f8", "4")  # reject
        error = await seen.wait_event(ErrorOccurred)
        await turns_done(app)
        await pilot.pause()
        assert app.main.status.activity == ""
    assert error.message.startswith("!pwd was not run"), error.message
    assert mock_llm.requests == []


async def _answer_offer(pilot: Any, app: Any, key: str) -> None:
    """Answer the offer to let read-only commands you type run unasked (y or n)."""
    for _ in range(50):  # it follows once the card settled
        await pilot.pause()
        if isinstance(app.screen, ConfirmScreen):
            break
    assert isinstance(app.screen, ConfirmScreen)
    await pilot.press("f8", key)


async def _bang(pilot: Any, app: Any, seen: Messages, line: str) -> bool:
    """Type ``!line``; True when it asked for approval (then rejected), False when it ran
    unasked."""
    mark = len(seen.seen)
    await pilot.press(*f"!{line}", "enter")
    found = await seen.wait_for(
        lambda m: (
            isinstance(m, BusEvent)
            and isinstance(m.event, ToolCallStateChanged)
            and m.event.call.state == ToolCallState.AWAITING_APPROVAL
        ),
        after=mark,
    )
    assert isinstance(found, BusEvent)
    # answered for the person, it is no longer pending by the time the view hears of it
    asked = found.event.call.correlation_id in app.session.bus.pending_approvals
    if asked:
        await seen.wait_approvals(1, after=mark)
        await pilot.press("f8", "4")  # reject
    await turns_done(app)
    await pilot.pause()
    if app.main.prompt.shell_mode:
        await pilot.press("!")  # leave shell mode: the next line carries its own "!"
    return asked


async def test_read_only_commands_you_type_can_run_unasked_and_a_write_still_asks(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    """Reproduced: ``!ls`` asked every time. Offered once, allowed: ``ls`` runs unasked;
    a second command, a redirection or a substitution still asks (real bash)."""
    (workspace / "x").write_text("keep me\n")
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await pilot.press(*"!ls", "enter")
        await seen.wait_approvals(1)
        await pilot.press("f8", "1")  # allow once
        await seen.wait_for(
            lambda m: (
                isinstance(m, BusEvent)
                and isinstance(m.event, ToolCallStateChanged)
                and m.event.call.state is ToolCallState.SUCCESS
            )
        )
        await _answer_offer(pilot, app, "y")
        await turns_done(app)
        await pilot.pause()
        await pilot.press("!")  # leave shell mode
        assert app.session is not None
        assert app.session.shell_notes.typed_read_only is True
        assert not await _bang(pilot, app, seen, "ls -la")
        for planted in ("ls; rm x", "ls > f", "cat $(rm x)", "./ls", "ls && rm x"):
            assert await _bang(pilot, app, seen, planted), planted
        assert (workspace / "x").read_text() == "keep me\n"
        assert not (workspace / "f").exists()
    assert mock_llm.requests == []


async def test_control_the_planted_lines_really_write_when_allowed(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    """Control: in yolo mode the same lines run, and they do delete and write."""
    (workspace / "x").write_text("keep me\n")
    app = make_app(make_session(mock_llm.url, workspace, approval_mode="yolo"), workspace)
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await pilot.press(*"!ls > f; cat $(rm x)", "enter")
        await seen.wait_for(
            lambda m: (
                isinstance(m, BusEvent)
                and isinstance(m.event, ToolCallStateChanged)
                and m.event.call.state.terminal
            )
        )
        await turns_done(app)
    assert (workspace / "f").exists()
    assert not (workspace / "x").exists()


async def test_a_resumed_session_shows_bang_lines_as_cards_with_their_fences_whole(
    mock_llm: MockLLMServer, workspace: Path, monkeypatch: Any
) -> None:
    """Reproduced: a resumed session showed the ``!`` line and its output inside the
    next prompt, one raw message whose code fences broke on output holding ```."""
    from gemtui.agent.assembly import RunOptions
    from gemtui.tui.app import GemtuiApp
    from gemtui.tui.launch import build_app
    from gemtui.tui.widgets.transcript_blocks import ToolBlock, UserBlock
    from tests.tui.test_resume_shows_what_happened import _settings_for

    monkeypatch.setenv("GEMINI_API_KEY", "k")
    (workspace / "notes.md").write_text("before\n```py\nx = 1\n```\nafter\n")
    mock_llm.enqueue({"text": "I see it."})
    options = RunOptions(workspace=workspace, approval_mode="yolo")
    app = build_app(_settings_for(mock_llm.url), options)
    assert isinstance(app, GemtuiApp)
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await engine_started(app, seen)
        await pilot.press(*"!cat notes.md", "enter")
        await turns_done(app)
        await pilot.press("!")  # leave shell mode
        await pilot.press(*"what is here?", "enter")
        await seen.wait_event(AgentFinished)
        await turns_done(app)
        assert app.session is not None
        session_id = app.session.id
    app.close_store()
    sent = _sent(mock_llm.requests[0])
    assert "````\nbefore\n```py\nx = 1\n```\nafter\n````" in sent  # a fence the output can't end

    resumed = build_app(
        _settings_for(mock_llm.url),
        RunOptions(workspace=workspace, approval_mode="yolo", resume=session_id),
    )
    assert isinstance(resumed, GemtuiApp)
    seen = Messages()
    async with resumed.run_test(size=(120, 40), message_hook=seen) as pilot:
        await engine_started(resumed, seen)
        for _ in range(3):
            await pilot.pause()
        blocks = list(resumed.main.transcript._blocks.blocks)
    resumed.close_store()
    users = [b.text for b in blocks if isinstance(b, UserBlock)]
    cards = [b.snapshot for b in blocks if isinstance(b, ToolBlock)]
    assert users == ["what is here?"]
    assert [c.args["command"] for c in cards] == ["cat notes.md"]
    assert cards[0].output == "before\n```py\nx = 1\n```\nafter"
