"""The approval preview says exactly which rule "allow for session / always" will save."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Static

from gemtui.bus.events import AgentFinished
from gemtui.testing.mockllm import MockLLMServer
from gemtui.tui.bridge import BusEvent
from gemtui.tui.widgets.approval_queue import ApprovalQueue
from tests.tui.conftest import make_app, make_session
from tests.tui.helpers import Messages


async def test_allow_for_session_saves_what_the_preview_shows(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    command = "CI=1 npm test 2>/dev/null; echo done"
    mock_llm.enqueue(
        {"function_calls": [{"name": "run_shell_command", "args": {"command": command}}]},
        {"text": "ok"},
    )
    session = make_session(mock_llm.url, workspace)
    app = make_app(session, workspace)
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await pilot.press(*"test it", "enter")
        await seen.wait_approvals(1)
        await pilot.pause()
        queue = app.main.approvals
        shown = str(queue.query_one(".preview-remembers", Static).render())
        assert shown == "session / always remember: npm test, echo"
        await pilot.press("f8", "2")  # allow for session (F8: answer keys act on purpose)
        await seen.wait_event(AgentFinished)
        await pilot.pause()
    saved = [r.summary() for r in session.policy.rules(session=True)]
    assert sorted(saved) == ["echo", "npm test"]
    assert "CI=1" not in " ".join(saved)


async def test_an_interpreter_is_remembered_with_what_it_ran(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    mock_llm.enqueue(
        {
            "function_calls": [
                {"name": "run_shell_command", "args": {"command": "python3 -m pytest -q"}}
            ]
        },
        {"text": "ok"},
    )
    session = make_session(mock_llm.url, workspace)
    app = make_app(session, workspace)
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await pilot.press(*"version", "enter")
        await seen.wait_approvals(1)
        await pilot.pause()
        shown = str(app.main.approvals.query_one(".preview-remembers", Static).render())
        assert shown == "session / always remember: python3 -m pytest"
        await pilot.press("f8", "2")
        await seen.wait_event(AgentFinished)
    run = session.policy.decide
    shell = session.registry.get("run_shell_command")
    assert shell is not None
    assert run(shell, {"command": "python3 -m pytest tests"}, "default").decision.value == "allow"
    assert run(shell, {"command": "python3 -c 'print(1)'"}, "default").decision.value != "allow"


async def test_an_edit_remembers_the_reach_the_person_chose(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    (workspace / "src").mkdir()
    calls = [
        {"name": "write_file", "args": {"file_path": f"{path}", "content": "x\n"}}
        for path in ("src/a.py", "src/b.py", "docs/c.md")
    ]
    mock_llm.enqueue(
        {"function_calls": [calls[0]]},
        {"function_calls": [calls[1]]},
        {"function_calls": [calls[2]]},
        {"text": "done"},
    )
    session = make_session(mock_llm.url, workspace)
    app = make_app(session, workspace)
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await pilot.press(*"write", "enter")
        await seen.wait_approvals(1)
        await pilot.pause()
        queue = app.main.approvals

        def remembered() -> str:
            return str(queue.query_one(".preview-remembers", Static).render())

        assert remembered().startswith("session / always remember: write_file of src/a.py")
        await pilot.press("f8", "8")
        await pilot.pause()
        assert remembered().startswith("session / always remember: write_file in src/")
        await pilot.press("2")  # allow for session, the whole folder
        # src/b.py runs unasked; docs/c.md is outside the folder and asks
        await seen.wait_approvals(1)
        await pilot.pause()
        assert queue.current() is not None
        assert queue.current().args["file_path"] == "docs/c.md"
        assert (workspace / "src" / "b.py").read_text() == "x\n"
        await pilot.press("f8", "4")
        await seen.wait_event(AgentFinished)
    assert not (workspace / "docs" / "c.md").exists()


async def _always_then(
    mock_llm: MockLLMServer, workspace: Path, reach_presses: int
) -> tuple[bool, str]:
    """Approve "always" on ``rm -f README.md`` (widened ``reach_presses`` times), then the
    model runs ``rm -rf src``: (whether it asked, what the first preview remembered)."""
    (workspace / "README.md").write_text("read me\n", encoding="utf-8")
    (workspace / "src").mkdir()
    (workspace / "src" / "app.py").write_text("print(1)\n", encoding="utf-8")
    mock_llm.enqueue(
        {"function_calls": [{"name": "run_shell_command", "args": {"command": "rm -f README.md"}}]},
        {"function_calls": [{"name": "run_shell_command", "args": {"command": "rm -rf src"}}]},
        {"text": "done"},
    )
    session = make_session(mock_llm.url, workspace)
    app = make_app(session, workspace)
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await pilot.press(*"tidy up", "enter")
        await seen.wait_approvals(1)
        await pilot.pause()
        queue = app.main.approvals
        shown = str(queue.query_one(".preview-remembers", Static).render())
        mark = len(seen.seen)
        await pilot.press("f8", *("8" * reach_presses), "3")
        await seen.wait_for(
            lambda m: (
                (isinstance(m, BusEvent) and isinstance(m.event, AgentFinished))
                or (isinstance(m, ApprovalQueue.Changed) and m.count == 1)
            ),
            after=mark,
        )
        await pilot.pause()
        asked = queue.current() is not None
        if asked:
            await pilot.press("f8", "4")
            await seen.wait_event(AgentFinished)
    assert not (workspace / "README.md").exists()  # the approved one really ran (real bash)
    return asked, shown


async def test_always_on_rm_f_readme_still_asks_for_rm_rf_src(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    """Reproduced: "always" on ``rm -f README.md`` remembered every ``rm``."""
    asked, shown = await _always_then(mock_llm, workspace, 0)
    assert shown.startswith("session / always remember: exactly rm -f README.md")
    assert asked
    assert (workspace / "src" / "app.py").exists()


async def test_widened_to_the_command_name_rm_rf_src_runs_unasked(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    """Control: the plant fires when the person widens the reach to every ``rm``."""
    asked, _shown = await _always_then(mock_llm, workspace, 2)
    assert not asked
    assert not (workspace / "src").exists()
