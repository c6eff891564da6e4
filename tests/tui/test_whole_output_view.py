"""A tool output longer than the model's share: the card shows the preview and names the
saved file, and Ctrl+G opens it in the pager (here, where the terminal cannot be handed
over, it says where the file is)."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.console import Console
from rich.style import Style

from gemtui.bus.events import AgentFinished, ToolCallSnapshot, ToolCallState
from gemtui.testing.mockllm import MockLLMServer
from gemtui.tui.pager import pager_command
from gemtui.tui.widgets.transcript_blocks import RenderContext, ToolBlock
from tests.tui.conftest import make_app, make_session
from tests.tui.helpers import Messages
from tests.tui.test_transcript import screen_text, settle


def _read(path: str) -> str:
    return Path(path).read_text()


def test_a_card_names_its_saved_output_and_the_key() -> None:
    snapshot = ToolCallSnapshot(
        call_id="c1",
        name="run_shell_command",
        args={"command": "seq 1 100000"},
        state=ToolCallState.SUCCESS,
        output="1\n2\n... [588,800 characters left out] ...\n100000",
        output_file="/data/tool-outputs/s/c1.txt",
    )
    ctx = RenderContext(console=Console(), width=100, style=lambda name: Style())
    lines = ["".join(seg.text for seg in strip) for strip in ToolBlock(snapshot).render(ctx)]
    assert any("⤓ whole output: /data/tool-outputs/s/c1.txt · ctrl+g to open" in x for x in lines)


def test_the_pager_is_pager_or_less(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAGER", "cat -n")
    assert pager_command("/f") == ["cat", "-n", "/f"]
    monkeypatch.setenv("PAGER", "no-such-pager-here")
    assert pager_command("/f") is None


async def test_a_huge_shell_output_shows_a_preview_and_ctrl_g_names_the_file(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    command = "seq -f '%09g' 0 99999"
    mock_llm.enqueue(
        {"function_calls": [{"name": "run_shell_command", "args": {"command": command}}]},
        {"text": "printed"},
    )
    app = make_app(make_session(mock_llm.url, workspace, approval_mode="yolo"), workspace)
    seen = Messages()
    notes: list[str] = []
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        original = app.notify

        def notify(message: str, **kw: object) -> None:
            notes.append(message)
            original(message, **kw)  # type: ignore[arg-type]

        app.notify = notify  # type: ignore[method-assign]
        await pilot.press(*"print", "enter")
        await seen.wait_event(AgentFinished)
        await settle(pilot, app.main.transcript)
        shown = screen_text(app.main.transcript)
        path = app.main.transcript.last_output_file()
        assert path is not None
        assert "ctrl+g to open" in shown
        await pilot.press("ctrl+g")
        await pilot.pause()
    assert any(path in note for note in notes), notes
    assert _read(path) == "".join(f"{i:09d}\n" for i in range(100_000))
