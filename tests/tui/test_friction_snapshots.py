"""How the first-hour fixes look: a delegation's report, the rewind's hand-edit question
and a destructive command's approval reach, at 80×24 and 120×40."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from gemtui.bus import events as ev
from tests.tui.test_snapshots import _app, _conversation_start, _feed, _settle

SIZES = [(80, 24), (120, 40)]

REPORT_SHOWN = (
    "greet() is defined in src/greet.py and called once, from the CLI.\n\nFiles:\n"
    "  src/greet.py - where greet() is defined\n  src/cli.py - its one caller\n\n"
    "Next steps:\n  - add a test for an empty name"
)


def _delegation_done() -> list[ev.Event]:
    done = ev.ToolCallSnapshot(
        call_id="p1",
        name="codebase_investigator",
        args={"task": "Where is greet() called?"},
        state=ev.ToolCallState.SUCCESS,
        kind="think",
        output=REPORT_SHOWN,
        duration_ms=4200,
    )
    return [ev.ToolCallStateChanged(call=done, prompt_id="s#1")]


class TestFrictionScreens:
    @pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
    def test_a_delegation_report_reads_as_summary_and_files(
        self, snap_compare: Any, tmp_path: Path, size: tuple[int, int]
    ) -> None:
        """The codebase investigator's card, done: its summary, then "Files:" with each
        path and why, then "Next steps:" - no JSON braces or quoted keys."""

        async def run_before(pilot: Pilot[Any]) -> None:
            _feed(pilot.app, *_conversation_start(), *_delegation_done())  # type: ignore[arg-type]
            await _settle(pilot)
            pilot.app.main.transcript.toggle_tool("p1")  # type: ignore[attr-defined]
            await _settle(pilot)

        assert snap_compare(_app(tmp_path), terminal_size=size, run_before=run_before)

    @pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
    def test_the_rewind_asks_about_hand_edits_with_three_answers(
        self, snap_compare: Any, tmp_path: Path, size: tuple[int, int]
    ) -> None:
        """The question after choosing a point: "1 file(s) were changed by hand since;
        restore them too?", the file, and the keys "y restore too · n keep them,
        rewind the rest · Esc cancel"."""
        from gemtui.tui.rewind_flow import _hand_edits_screen

        async def run_before(pilot: Pilot[Any]) -> None:
            screen = _hand_edits_screen()(
                "1 file(s) were changed by hand since; restore them too?",
                detail="src/app/cli.py\n\n(the rewind can be undone)",
                on_purpose=True,
            )
            pilot.app.push_screen(screen)
            await _settle(pilot)

        assert snap_compare(_app(tmp_path), terminal_size=size, run_before=run_before)
