"""The status line tells what a running turn does; small terminals say they are small;
the approval keys fit one line at 80 columns."""

from __future__ import annotations

from pathlib import Path

import pytest

from gemtui.bus import events as ev
from gemtui.tui.widgets.key_hints import KeyHints
from gemtui.tui.widgets.status_line import StatusLine
from tests.tui.test_snapshots import _app, _awaiting, _conversation_start, _feed


class Clock:
    def __init__(self) -> None:
        self.now = 500.0

    def __call__(self) -> float:
        return self.now


async def test_the_status_line_follows_the_turn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = Clock()
    monkeypatch.setattr(StatusLine, "clock", staticmethod(clock))
    app = _app(tmp_path)
    async with app.run_test(size=(120, 30)) as pilot:
        status = app.main.status

        def shown() -> str:
            return str(status.render())

        _feed(app, ev.TurnStarted(turn=1, model="gemini-2.5-flash", prompt_id="s#1"))
        clock.now += 3
        assert "waiting for the model · 3s" in shown()
        _feed(app, ev.ContentDelta(text="y" * 400, prompt_id="s#1"))  # ~100 tokens
        clock.now += 2
        _feed(app, ev.ContentDelta(text="y" * 400, prompt_id="s#1"))
        assert "streaming · 5s · 100 tok/s" in shown()
        running = ev.ToolCallSnapshot(
            call_id="t1", name="grep_search", args={}, state=ev.ToolCallState.EXECUTING
        )
        _feed(app, ev.ToolCallStateChanged(call=running, prompt_id="s#1"))
        assert "running grep_search · 5s" in shown()
        _feed(app, _awaiting())  # a second call waits for the person: that wins
        assert "waiting for your approval" in shown()
        assert "running" not in shown()
        done = ev.ToolCallSnapshot(
            call_id="c1", name="replace", args={}, state=ev.ToolCallState.SUCCESS
        )
        _feed(app, ev.ToolCallStateChanged(call=done, prompt_id="s#1"))
        assert "running grep_search" in shown()
        _feed(app, ev.AgentFinished(reason=ev.TerminateReason.GOAL, text="", prompt_id="s#1"))
        await pilot.pause()
        assert "waiting" not in shown()
        assert "running" not in shown()
        assert status._ticker is None  # no clock left ticking when idle


async def test_approval_keys_fit_one_line_at_80_columns(tmp_path: Path) -> None:
    app = _app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        _feed(app, *_conversation_start(), _awaiting())
        await pilot.pause()
        hints = app.main.approvals.query_one(KeyHints)
        line = hints.line(hints.size.width)
        assert line.cell_length <= hints.size.width
        for word in ("allow", "session", "always", "reject", "feedback", "modify", "edits"):
            assert word in str(line)


async def test_a_too_small_terminal_says_so_and_recovers(tmp_path: Path) -> None:
    app = _app(tmp_path)
    async with app.run_test(size=(50, 12)) as pilot:
        await pilot.pause()
        assert app.main.has_class("-too-small")
        assert "at least 60×15" in str(app.main.query_one("#too-small").render())
        assert not app.main.transcript.display or not app.main.transcript.region.height
        await pilot.resize_terminal(100, 30)
        await pilot.pause()
        assert not app.main.has_class("-too-small")
        assert app.main.transcript.region.height > 0
