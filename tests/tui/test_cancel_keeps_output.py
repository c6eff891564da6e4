"""Esc on a running shell command keeps what it printed: on its card and for the model,
marked as cut where it stopped ("nothing already received is lost" is then true); the
next prompt joins the cancelled call's response in one user turn, as the wire expects."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gemtui.bus.events import ToolCallState, ToolCallStateChanged, ToolOutput
from gemtui.testing.mockllm import MockLLMServer
from tests.tui.conftest import make_app, make_session
from tests.tui.helpers import Messages, turns_done
from tests.tui.test_transcript import screen_text, settle


def _function_responses(request_json: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        part["functionResponse"]
        for content in request_json["contents"]
        for part in content.get("parts", [])
        if "functionResponse" in part
    ]


async def test_esc_on_a_running_command_keeps_its_output_marked_as_cut(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    command = "echo built step one; echo built step two; sleep 30; echo never printed"
    mock_llm.enqueue(
        {"function_calls": [{"name": "run_shell_command", "args": {"command": command}}]},
        {"text": "Understood."},
    )
    app = make_app(make_session(mock_llm.url, workspace, approval_mode="yolo"), workspace)
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await pilot.press(*"build it", "enter")
        await seen.wait_for(
            lambda m: (
                isinstance(getattr(m, "event", None), ToolOutput) and "step two" in m.event.text
            )  # type: ignore[attr-defined]
        )
        await pilot.press("escape")
        found = await seen.wait_for(
            lambda m: (
                isinstance(getattr(m, "event", None), ToolCallStateChanged)
                and m.event.call.state is ToolCallState.CANCELLED
            )  # type: ignore[attr-defined]
        )
        cancelled = found.event  # type: ignore[attr-defined]
        await turns_done(app)
        await pilot.pause()
        assert "built step one" in (cancelled.call.output or "")
        assert "built step two" in (cancelled.call.output or "")
        assert "cut" in (cancelled.call.output or "")
        await settle(pilot, app.main.transcript)
        shown = screen_text(app.main.transcript)
        assert "built step two" in shown
        assert "cut here" in shown
        assert "never printed" not in shown

        await pilot.press(*"go on", "enter")  # the model reads what was printed
        await turns_done(app)
    contents = mock_llm.requests[-1].json["contents"]
    roles = [c["role"] for c in contents]
    assert roles == ["user", "model", "user"], "turns alternate: one user turn after the cut"
    last = contents[-1]["parts"]
    assert "functionResponse" in last[0], "the cancelled call's response first"
    assert last[-1] == {"text": "go on"}
    [response] = _function_responses(mock_llm.requests[-1].json)
    error = response["response"]["error"]
    assert error.startswith("Cancelled by the user.")
    assert "built step one" in error
    assert "built step two" in error
    assert error.rstrip().endswith("[cut]")
