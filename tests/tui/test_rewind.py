"""`/rewind` in the TUI: an edit, a shell `rm` and a replace in one prompt, then code
only, conversation only or both, each checked byte for byte; Esc Esc opens it; the
preview shows what the code rewind would change. Real session, real files, real git."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.widgets import OptionList, Static

from gemtui.bus.events import AgentFinished
from gemtui.testing.mockllm import MockLLMServer
from gemtui.tui.screens.rewind import RewindScreen
from tests.tui.conftest import make_app, make_session
from tests.tui.helpers import Messages

ORIGINAL = {"app.py": b"print('one')\n", "keep.txt": b"keep\r\nme\n"}
CHANGED = {"app.py": b"print('two')\n", "new.py": b"N\n"}


def _enqueue(mock: MockLLMServer) -> None:
    replace = {
        "file_path": "app.py",
        "instruction": "two",
        "old_string": "one",
        "new_string": "two",
    }
    write = {"file_path": "new.py", "content": "N\n"}
    mock.enqueue(
        {"text": "first answer"},
        {"function_calls": [{"name": "write_file", "args": write}]},
        {"function_calls": [{"name": "run_shell_command", "args": {"command": "rm keep.txt"}}]},
        {"function_calls": [{"name": "replace", "args": replace}]},
        {"text": "all changed"},
    )


def _files(ws: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(ws.iterdir()) if p.is_file()}


async def _two_prompts(pilot: Any, seen: Messages) -> None:
    await pilot.press(*"hello", "enter")
    await seen.wait_event(AgentFinished)
    mark = len(seen.seen)
    await pilot.press(*"change things", "enter")
    await seen.wait_event(AgentFinished, after=mark)
    await pilot.pause()


async def _choose(pilot: Any, app: Any, mode: int) -> str:
    """Pick the one prompt that changed files, then mode 0 both, 1 conversation, 2 code;
    the preview shown between the two steps is returned."""
    screen = app.screen
    assert isinstance(screen, RewindScreen)
    listing = screen.query_one("#rewind-list", OptionList)
    assert listing.option_count == 1
    assert "change things" in str(listing.get_option_at_index(0).prompt)
    listing.focus()
    listing.highlighted = 0
    await pilot.press("enter")
    await pilot.pause()
    preview = str(screen.query_one("#rewind-diff", Static).render())
    listing.highlighted = mode
    await pilot.press("enter")
    await pilot.pause()
    return preview


@pytest.mark.parametrize(
    ("mode", "files_after", "conversation_cut"),
    [(0, ORIGINAL, True), (1, CHANGED, True), (2, ORIGINAL, False)],
    ids=["both", "conversation-only", "code-only"],
)
async def test_rewind_code_conversation_or_both(
    mock_llm: MockLLMServer,
    workspace: Path,
    mode: int,
    files_after: dict[str, bytes],
    conversation_cut: bool,
) -> None:
    for name, data in ORIGINAL.items():
        (workspace / name).write_bytes(data)
    _enqueue(mock_llm)
    session = make_session(mock_llm.url, workspace, approval_mode="yolo")
    app = make_app(session, workspace)
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await _two_prompts(pilot, seen)
        assert _files(workspace) == CHANGED
        full = list(session.chat.history)
        await pilot.press("escape", "escape")  # Esc Esc on the empty prompt opens it
        await pilot.pause()
        preview = await _choose(pilot, app, mode)
        assert "remove      new.py" in preview
        assert "restore     keep.txt" in preview
        assert "-print('two')" in preview
        assert "+print('one')" in preview
        assert _files(workspace) == files_after
        history = session.chat.history
        if conversation_cut:
            assert len(history) == 2  # "hello" and its answer stay
            assert history[0].parts[0].text == "hello"
            assert app.main.prompt.text == "change things"
        else:
            assert history == full
            assert app.main.prompt.text == ""


async def test_slash_rewind_with_nothing_to_rewind_says_so(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press(*"/rewind", "enter")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, RewindScreen)
        listing = screen.query_one("#rewind-list", OptionList)
        assert "No prompt of this session" in str(listing.get_option_at_index(0).prompt)
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, RewindScreen)


async def test_a_sandboxed_session_shows_it_on_the_status_line_and_the_approval_card(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    mock_llm.enqueue(
        {"function_calls": [{"name": "run_shell_command", "args": {"command": "ls"}}]},
        {"text": "ok"},
    )
    app = make_app(make_session(mock_llm.url, workspace, sandbox=True), workspace)
    seen = Messages()
    async with app.run_test(size=(140, 40), message_hook=seen) as pilot:
        await pilot.press(*"list", "enter")
        await seen.wait_approvals(1)
        await pilot.pause()
        assert "⛨ sandbox" in str(app.main.status.render())
        assert "sandboxed" in str(app.main.approvals.render()) or any(
            "sandboxed" in str(w.render()) for w in app.main.approvals.query(Static)
        )
        await pilot.press("f8", "1")
        await seen.wait_event(AgentFinished)


async def test_resume_after_a_conversation_rewind_continues_from_the_cut(
    mock_llm: MockLLMServer, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The rewind is one published history change: the recorder stores it, the old turns
    stay in the store as an earlier epoch, and a resume continues from the cut."""
    from gemtui.agent.assembly import RunOptions
    from gemtui.config.settings import Settings
    from gemtui.store import SessionStore
    from gemtui.tui.app import GemtuiApp
    from gemtui.tui.launch import build_app
    from tests.tui.helpers import engine_started, turns_done

    monkeypatch.setenv("GEMINI_API_KEY", "k")
    settings = Settings.model_validate(
        {
            "general": {"provider": "mock", "approval_mode": "yolo"},
            "providers": {"mock": {"kind": "gemini", "base_url": mock_llm.url}},
            "network": {"max_attempts": 1, "stream_retry_delays": []},
        }
    )
    for name, data in ORIGINAL.items():
        (workspace / name).write_bytes(data)
    _enqueue(mock_llm)
    app = build_app(settings, RunOptions(workspace=workspace))
    assert isinstance(app, GemtuiApp)
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await engine_started(app, seen)
        await _two_prompts(pilot, seen)
        await pilot.press(*"/rewind", "enter")
        await pilot.pause()
        await _choose(pilot, app, 0)
        await turns_done(app)
        assert app.session is not None
        sid = app.session.id
    app.close_store()
    assert _files(workspace) == ORIGINAL
    with SessionStore() as store:
        epochs = store.history_epochs(sid)
        assert any(len(e) > 2 for e in epochs)  # the old branch is kept
        assert [c.parts[0].text for c in store.load_history(sid)] == ["hello", "first answer"]
    mock_llm.enqueue({"text": "fresh answer"})
    app2 = build_app(settings, RunOptions(workspace=workspace, resume="latest"))
    assert isinstance(app2, GemtuiApp)
    seen2 = Messages()
    async with app2.run_test(size=(120, 40), message_hook=seen2) as pilot:
        await engine_started(app2, seen2)
        await pilot.press(*"again", "enter")
        await seen2.wait_event(AgentFinished)
        await turns_done(app2)
    app2.close_store()
    contents = mock_llm.requests[-1].json["contents"]
    assert [c["parts"][0]["text"] for c in contents] == ["hello", "first answer", "again"]


async def test_mcp_view_says_servers_run_sandboxed_without_network(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    from gemtui.mcp.manager import McpManager
    from gemtui.tools.sandbox import SandboxConfig
    from gemtui.tui.screens.mcp import McpScreen

    manager = McpManager({})
    manager.sandbox = SandboxConfig(workspace=workspace)
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    async with app.run_test(size=(120, 40)) as pilot:
        app.push_screen(McpScreen(manager))
        await pilot.pause()
        note = str(app.screen.query_one("#mcp-sandbox", Static).render())
        assert "run in the sandbox, without network" in note
        assert "network = true" in note


@pytest.mark.parametrize(
    ("answer", "after"),
    [
        ("y", ORIGINAL),
        ("n", {**ORIGINAL, "app.py": b"print('by hand')\n"}),
        ("escape", {**CHANGED, "app.py": b"print('by hand')\n"}),
    ],
    ids=["restore-too", "keep-them-rewind-the-rest", "esc-cancels"],
)
async def test_a_file_changed_by_hand_since_is_asked_about_first(
    mock_llm: MockLLMServer, workspace: Path, answer: str, after: dict[str, bytes]
) -> None:
    """Reproduced: "n" cancelled the whole rewind; it keeps the hand edit and rewinds the
    rest (the agent's own new file and deletion); only Esc cancels."""
    from gemtui.tui.screens.dialogs import ConfirmScreen

    for name, data in ORIGINAL.items():
        (workspace / name).write_bytes(data)
    _enqueue(mock_llm)
    session = make_session(mock_llm.url, workspace, approval_mode="yolo")
    app = make_app(session, workspace)
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await _two_prompts(pilot, seen)
        (workspace / "app.py").write_bytes(b"print('by hand')\n")
        await pilot.press(*"/rewind", "enter")
        await pilot.pause()
        preview = await _choose(pilot, app, 2)
        assert preview.startswith("changed by hand since, restored too: app.py")
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press(answer)
        await pilot.pause()
        assert not isinstance(app.screen, ConfirmScreen)
        assert _files(workspace) == after


async def test_the_list_leaves_out_prompts_a_conversation_rewind_removed(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    """Reproduced: after rewinding the conversation to before "change things", the list
    still offered it (and its files); the prompt sent again is offered once more."""
    for name, data in ORIGINAL.items():
        (workspace / name).write_bytes(data)
    _enqueue(mock_llm)
    session = make_session(mock_llm.url, workspace, approval_mode="yolo")
    app = make_app(session, workspace)
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await _two_prompts(pilot, seen)
        await pilot.press(*"/rewind", "enter")
        await pilot.pause()
        await _choose(pilot, app, 1)  # the conversation only: the files stay changed
        assert _files(workspace) == CHANGED
        assert app.main.prompt.text == "change things"
        app.main.prompt.text = ""
        await pilot.press(*"/rewind", "enter")
        await pilot.pause()
        assert isinstance(app.screen, RewindScreen)
        listing = app.screen.query_one("#rewind-list", OptionList)
        assert "No prompt of this session" in str(listing.get_option_at_index(0).prompt)
        await pilot.press("escape")
        await pilot.pause()
        mock_llm.enqueue(
            {
                "function_calls": [
                    {"name": "write_file", "args": {"file_path": "again.py", "content": "A\n"}}
                ]
            },
            {"text": "again"},
        )
        mark = len(seen.seen)
        await pilot.press(*"change things", "enter")
        await seen.wait_event(AgentFinished, after=mark)
        await pilot.pause()
        await pilot.press(*"/rewind", "enter")
        await pilot.pause()
        assert isinstance(app.screen, RewindScreen)
        listing = app.screen.query_one("#rewind-list", OptionList)
        assert listing.option_count == 1
        assert "again.py" in str(listing.get_option_at_index(0).prompt)


async def test_the_preview_names_a_file_it_leaves_as_is_and_reads_a_bounded_diff(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    """A file grown past ``[checkpoints] max_file_size`` since the prompt is named in the
    preview and left as it is; a long file's diff stops at the preview's bound and says so."""
    long_text = "".join(f"line {i}\n" for i in range(20_000))  # ~190 KB, under the cap
    (workspace / "grown.txt").write_text("small\n")
    (workspace / "long.txt").write_text(long_text)
    write = {"file_path": "long.txt", "content": "short\n"}
    mock_llm.enqueue({"function_calls": [{"name": "write_file", "args": write}]}, {"text": "done"})
    session = make_session(mock_llm.url, workspace, approval_mode="yolo")
    assert session.checkpoints is not None
    session.checkpoints.book.max_file_size = 1_000_000  # what [checkpoints] max_file_size sets
    app = make_app(session, workspace)
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await pilot.press(*"change things", "enter")
        await seen.wait_event(AgentFinished)
        await pilot.pause()
        grown = b"the person's work\n" * 120_000  # 2.2 MB, past the cap since
        (workspace / "grown.txt").write_bytes(grown)
        await pilot.press(*"/rewind", "enter")
        await pilot.pause()
        preview = await _choose(pilot, app, 2)
        assert "left as is: grown.txt (2.2 MB, over [checkpoints] max_file_size)" in preview
        assert "change back long.txt" in preview
        assert "…truncated: long.txt is longer than the preview reads" in preview
        assert "+line 10\n" in preview
        assert "+line 19999" not in preview
        assert (workspace / "grown.txt").read_bytes() == grown
        assert (workspace / "long.txt").read_text() == long_text
