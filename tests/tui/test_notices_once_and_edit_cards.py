"""A notice is said once (in the conversation, not again as a toast), and the folded card
of an edit shows what changed — the added and removed lines — not the diff's headers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.widgets import Static

from gemtui.bus.events import AgentFinished, HistoryCompressed
from gemtui.testing import filler
from gemtui.testing.mockllm import MockLLMServer
from gemtui.tui.widgets.transcript_blocks import NoticeBlock
from tests.tui.conftest import make_app, make_session
from tests.tui.helpers import Messages, turns_done
from tests.tui.test_transcript import screen_text, settle

GREET = 'def greet(name):\n    return "Hello " + name\n\n\nprint(greet("world"))\n'


def _notes(app: Any) -> list[str]:
    return [n.message for n in app._notifications]


async def test_compress_says_so_once(mock_llm: MockLLMServer, workspace: Path) -> None:
    mock_llm.enqueue(
        {"text": filler(40, "first"), "usage": {"prompt": 90, "output": 30}},
        {"count_tokens": 5000},
        {"text": "The person asked once and got a long answer."},
        {"count_tokens": 100},
    )
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    seen = Messages()
    async with app.run_test(size=(120, 30), message_hook=seen) as pilot:
        await pilot.press(*"tell me at length", "enter")
        await seen.wait_event(AgentFinished)
        await turns_done(app)
        app.run_slash("/compress")
        await seen.wait_event(HistoryCompressed)
        compressing = [w for w in app.workers if w.group == "compress"]
        if compressing:  # an empty list would mean "every worker" to Textual
            await app.workers.wait_for_complete(compressing)
        await pilot.pause()
        blocks: list[Any] = app.main.transcript._blocks.blocks
        notices = [b.text for b in blocks if isinstance(b, NoticeBlock)]
        said = [n for n in notices if "compressed" in n.lower()]
        assert len(said) == 1, notices
        assert said[0].startswith("History compressed:")
        assert not any("compress" in n.lower() for n in _notes(app)), _notes(app)


async def test_a_folded_edit_card_shows_the_changed_lines(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    (workspace / "greet.py").write_text(GREET)
    edit = {
        "name": "replace",
        "args": {
            "file_path": "greet.py",
            "instruction": "Make the greeting friendlier",
            "old_string": '    return "Hello " + name',
            "new_string": '    return f"Hello, {name}!"',
        },
    }
    mock_llm.enqueue({"function_calls": [edit]}, {"text": "Done."})
    session = make_session(mock_llm.url, workspace, approval_mode="auto_edit")
    app = make_app(session, workspace)
    seen = Messages()
    async with app.run_test(size=(120, 30), message_hook=seen) as pilot:
        await pilot.press(*"friendlier greeting please", "enter")
        await seen.wait_event(AgentFinished)
        await turns_done(app)
        transcript = app.main.transcript
        await settle(pilot, transcript)
        folded = screen_text(transcript)
        assert '-    return "Hello " + name' in folded
        assert '+    return f"Hello, {name}!"' in folded
        assert "--- a/greet.py" not in folded
        assert "+++ b/greet.py" not in folded
        assert "@@" not in folded
        assert "def greet(name):" not in folded  # context stays folded too
        await pilot.press("ctrl+o")
        await settle(pilot, transcript)
        whole = screen_text(transcript)
        assert "--- a/greet.py" in whole
        assert "def greet(name):" in whole
    assert 'return f"Hello, {name}!"' in (workspace / "greet.py").read_text()


async def test_a_folded_edit_card_says_how_a_loose_old_string_matched(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    (workspace / "greet.py").write_text(GREET)
    edit = {
        "name": "replace",
        "args": {
            "file_path": "greet.py",
            "instruction": "Make the greeting friendlier",
            "old_string": 'return "Hello " + name   ',  # no indentation, trailing spaces
            "new_string": 'return f"Hello, {name}!"',
        },
    }
    mock_llm.enqueue({"function_calls": [edit]}, {"text": "Done."})
    session = make_session(mock_llm.url, workspace, approval_mode="auto_edit")
    app = make_app(session, workspace)
    seen = Messages()
    async with app.run_test(size=(120, 30), message_hook=seen) as pilot:
        await pilot.press(*"friendlier greeting please", "enter")
        await seen.wait_event(AgentFinished)
        await turns_done(app)
        transcript = app.main.transcript
        await settle(pilot, transcript)
        folded = screen_text(transcript)
        assert "matched with flexible whitespace" in folded
        assert '-    return "Hello " + name' in folded
        assert '+    return f"Hello, {name}!"' in folded
        assert "--- a/greet.py" not in folded
    assert (workspace / "greet.py").read_text() == GREET.replace(
        '    return "Hello " + name', '    return f"Hello, {name}!"'
    )


async def test_the_approval_shows_the_loose_match_that_is_then_written(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    """Default mode: the pending call's preview says how old_string matched and diffs the
    place it matched; approving writes exactly what the diff showed."""
    (workspace / "greet.py").write_text(GREET)
    edit = {
        "name": "replace",
        "args": {
            "file_path": "greet.py",
            "instruction": "Make the greeting friendlier",
            "old_string": 'def greet(name):\nreturn "Hello " + name  \n',
            "new_string": 'def greet(name):\nreturn f"Hello, {name}!"\n',
        },
    }
    mock_llm.enqueue({"function_calls": [edit]}, {"text": "Done."})
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await pilot.press(*"friendlier greeting please", "enter")
        await seen.wait_approvals(1)
        await pilot.pause()
        [pending] = app.main.approvals.pending()
        conf = pending.confirmation
        assert conf is not None
        assert conf.title == "Confirm Edit: greet.py · matched with flexible whitespace"
        assert '-    return "Hello " + name\n+    return f"Hello, {name}!"\n' in (conf.diff or "")
        title = app.main.approvals.query_one(".preview-title", Static)
        assert "matched with flexible whitespace" in str(title.render())
        assert (workspace / "greet.py").read_text() == GREET  # nothing written yet
        await pilot.press("f8", "1")
        await seen.wait_event(AgentFinished)
        await turns_done(app)
    assert (workspace / "greet.py").read_text() == conf.proposed
    assert conf.proposed == GREET.replace('return "Hello " + name', 'return f"Hello, {name}!"')


class TestEditCardSnapshot:
    def test_edit_card_folded(self, snap_compare: Any, tmp_path: Path) -> None:
        """The card "✓ replace  src/greet.py  +3 args · done in 21ms", then its changed
        lines behind the bar — the removed `return "Hello " + name` in red, the added
        docstring and f-string in green — and "… 3 more changed lines · ctrl+o to
        expand"; no "--- a/", "+++ b/" or "@@" header. Below, one notice "History
        compressed: 12,000 → 3,000 tokens."."""
        from gemtui.bus import events as ev
        from tests.tui.test_snapshots import DIFF, _app, _conversation_start, _feed, _settle

        call = ev.ToolCallSnapshot(
            call_id="e1",
            name="replace",
            args={
                "file_path": "src/greet.py",
                "instruction": "Friendlier greeting",
                "old_string": "...",
                "new_string": "...",
            },
            state=ev.ToolCallState.SUCCESS,
            kind="edit",
            output=DIFF,
            duration_ms=21,
        )

        async def run_before(pilot: Any) -> None:
            _feed(
                pilot.app,
                *_conversation_start(),
                ev.ToolCallStateChanged(call=call, prompt_id="s#1"),
                ev.HistoryCompressed(tokens_before=12_000, tokens_after=3_000),
            )
            await _settle(pilot)

        assert snap_compare(_app(tmp_path), terminal_size=(120, 24), run_before=run_before)
