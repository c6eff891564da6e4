"""A shell card tells how the command ended and, under -s, where its writes went.

A command that exits non-zero ran (the call succeeded) but failed: its card shows ✗ and
``exit N``, sandboxed or not, where it used to show a green ✓. A sandboxed command that
writes to /tmp says on its card that /tmp is thrown away; the same command unsandboxed
(the control) does not, and really keeps its file. A hook's line says where it ran.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gemtui.agent.provider_choice import ResolvedProvider
from gemtui.agent.session import Session, SessionOptions
from gemtui.bus.events import AgentFinished, HookRan
from gemtui.config.settings import Settings
from gemtui.providers.gemini import GeminiGenerator
from gemtui.providers.http import make_client
from gemtui.testing.mockllm import MockLLMServer
from gemtui.tui.bridge import BusEvent
from tests.tui.conftest import make_app, make_session
from tests.tui.helpers import Messages, transcript_notices, turns_done


def _card_lines(app: Any) -> list[str]:
    transcript = app.main.transcript
    return [transcript.render_line(y).text for y in range(transcript.size.height)]


async def _run_command(
    mock_llm: MockLLMServer, workspace: Path, command: str, sandbox: bool
) -> list[str]:
    """The transcript after the model ran ``command`` in yolo mode (``sandbox``: as -s)."""
    call = {"name": "run_shell_command", "args": {"command": command}}
    mock_llm.enqueue({"function_calls": [call]}, {"text": "over"})
    session = make_session(mock_llm.url, workspace, approval_mode="yolo", sandbox=sandbox)
    app = make_app(session, workspace)
    seen = Messages()
    async with app.run_test(size=(140, 40), message_hook=seen) as pilot:
        await pilot.press(*"go", "enter")
        await seen.wait_event(AgentFinished)
        await turns_done(app)
        await pilot.pause()
        return _card_lines(app)


@pytest.fixture(params=[True, False], ids=["sandboxed", "unsandboxed"])
def sandboxed(request: pytest.FixtureRequest) -> bool:
    return bool(request.param)


async def test_a_non_zero_exit_is_marked_failed_on_the_card(
    mock_llm: MockLLMServer, workspace: Path, sandboxed: bool
) -> None:
    lines = await _run_command(mock_llm, workspace, "echo trying; exit 3", sandboxed)
    [card] = [line for line in lines if "run_shell_command" in line]
    assert card.lstrip().startswith("✗"), card
    assert "exit 3" in card, card
    assert "done" not in card, card


async def test_a_zero_exit_is_still_done(
    mock_llm: MockLLMServer, workspace: Path, sandboxed: bool
) -> None:
    """The control: the mark follows the exit code, not the command."""
    lines = await _run_command(mock_llm, workspace, "echo trying; exit 0", sandboxed)
    [card] = [line for line in lines if "run_shell_command" in line]
    assert card.lstrip().startswith("✓"), card
    assert "done" in card, card


async def test_a_write_to_tmp_is_said_to_be_thrown_away_under_the_sandbox(
    mock_llm: MockLLMServer, workspace: Path, tmp_path: Path, sandboxed: bool
) -> None:
    scratch = tmp_path / "scratch"
    lines = await _run_command(
        mock_llm,
        workspace,
        f"mkdir -p {scratch} && echo gone > {scratch}/f && cat {scratch}/f",
        sandboxed,
    )
    shown = " ".join(" ".join(lines).split())
    assert "gone" in shown  # it was written and read back inside the command
    assert ("thrown away when the command ends" in shown) is sandboxed, shown
    assert (scratch / "f").exists() is not sandboxed  # and is gone after it, in the box


def _hook_file(path: Path, marker: Path) -> None:
    hook = {"type": "command", "command": f"echo x > {marker}; echo '{{}}'"}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"hooks": {"SessionStart": [{"hooks": [hook]}]}}))


async def test_each_hook_line_says_where_it_ran(
    mock_llm: MockLLMServer,
    workspace: Path,
    isolated_home: Path,
    tmp_path: Path,
    sandboxed: bool,
) -> None:
    """Under -s the project's hook runs in the sandbox (its write outside fails) and the
    person's own outside; its line and /hooks say which. Without -s nothing is said."""
    outside = tmp_path / "outside"
    outside.mkdir()
    _hook_file(workspace / ".gemini" / "settings.json", outside / "project")
    _hook_file(isolated_home / "config" / "settings.json", outside / "mine")
    provider = ResolvedProvider(
        "gemini", "gemini", GeminiGenerator(make_client(), "k", mock_llm.url), "m", 1_048_576
    )
    options = SessionOptions(workspace=workspace, trusted_workspace=True, sandbox=sandboxed)
    app = make_app(Session(Settings(), provider, options), workspace)
    seen = Messages()

    def ran() -> list[HookRan]:
        return [
            m.event for m in seen.seen if isinstance(m, BusEvent) and isinstance(m.event, HookRan)
        ]

    async with app.run_test(size=(160, 40), message_hook=seen) as pilot:
        await seen.wait_for(lambda m: len(ran()) == 2)
        first, second = ran()
        await pilot.pause()
        shown = " ".join(" ".join(_card_lines(app)).split())
        app.run_slash("/hooks")
        await pilot.pause()
        view = next(n for n in transcript_notices(app) if n.startswith("Hooks:\nSessionStart"))
    assert (outside / "mine").exists()
    assert (outside / "project").exists() is not sandboxed
    lines = {first.summary(), second.summary()}
    if sandboxed:
        assert any("(in the sandbox)" in line and "project" in line for line in lines), lines
        assert any("(your own hook: outside the sandbox)" in line for line in lines), lines
        assert "(in the sandbox)" in shown, shown
        assert "(your own hook: outside the sandbox)" in shown, shown
        assert "in the sandbox)" in view, view
        assert "outside the sandbox)" in view, view
    else:
        assert "sandbox" not in shown + view
