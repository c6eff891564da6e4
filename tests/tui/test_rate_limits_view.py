"""The TUI shows the limits left as the provider says them (issue 37, item 1): the status
line carries the figures of the latest answer, ``/stats`` lists them, and a limit about
to be spent is said once in the conversation, not at every call."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gemtui.agent.session import Session, SessionOptions
from gemtui.bus.events import AgentFinished
from gemtui.config.settings import Settings
from gemtui.testing.mockllm import MockLLMServer
from gemtui.tui.widgets.transcript_blocks import NoticeBlock
from tests.tui.conftest import make_app
from tests.tui.helpers import Messages, turns_done
from tests.tui.test_app_wire_formats import _provider

WARNING = "limit is nearly spent"


def _headers(requests_left: int) -> dict[str, str]:
    return {
        "x-ratelimit-limit-requests": "50",
        "x-ratelimit-remaining-requests": str(requests_left),
        "x-ratelimit-reset-requests": "20s",
        "x-ratelimit-limit-tokens": "40000",
        "x-ratelimit-remaining-tokens": "8000",
        "x-ratelimit-reset-tokens": "6m0s",
    }


def _read(requests_left: int) -> dict[str, Any]:
    call = {"name": "read_file", "args": {"file_path": "a.txt"}}
    return {"function_calls": [call], "headers": _headers(requests_left)}


def _notices(app: Any) -> list[str]:
    return [b.text for b in app.main.transcript._blocks.blocks if isinstance(b, NoticeBlock)]


@pytest.mark.parametrize(("left", "warnings"), [(5, 1), (45, 0)])
async def test_status_line_shows_the_limits_and_a_near_limit_is_said_once(
    left: int, warnings: int, mock_llm: MockLLMServer, workspace: Path
) -> None:
    """With 5 of 50 requests left two calls are near the limit: one warning. With 45 left
    (the control) none: the warning comes from the figures, not from every call."""
    (workspace / "a.txt").write_text("alpha\n")
    mock_llm.enqueue(
        _read(left), _read(left - 1), {"text": "Read twice.", "headers": _headers(left - 2)}
    )
    session = Session(
        Settings(),
        _provider("openai", mock_llm.url),
        SessionOptions(workspace=workspace, stream_retry_delays=(0.0,), approval_mode="yolo"),
    )
    app = make_app(session, workspace)
    seen = Messages()
    async with app.run_test(size=(160, 40), message_hook=seen) as pilot:
        await pilot.press(*"read a.txt twice", "enter")
        await seen.wait_event(AgentFinished)
        await turns_done(app)
        await pilot.pause()
        status = str(app.main.status.render())
        assert f"req {left - 2}/50 · tok 8k/40k · resets 20s" in status, status
        said = [n for n in _notices(app) if WARNING in n]
        assert len(said) == warnings, _notices(app)
        if warnings:
            assert (
                said[0]
                == "openai's requests limit is nearly spent: 5 of 50 left; it resets in 20s."
            )
        app.run_slash("/stats")
        await pilot.pause()
        stats = [n for n in _notices(app) if "model turns" in n]  # a block, not a toast
        assert f"openai requests: {left - 2} of 50 left, resets in 20s" in stats[-1], stats
