"""The end stays in view: an approval pane opening under the transcript does not hide
the answer's end or the card being approved; scrolled up, new output says it is there."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.events import Resize
from textual.pilot import Pilot

from gemtui.bus import events as ev
from tests.tui.test_snapshots import _app, _awaiting, _conversation_start, _feed
from tests.tui.test_transcript import screen_lines, settle

LONG_ANSWER = "\n\n".join(f"Paragraph {n} of the answer." for n in range(1, 30)) + (
    "\n\n```python\nprint('the code the model just wrote')\n```\n"
)


async def _answer_then_approval(pilot: Pilot[Any]) -> None:
    app = pilot.app
    _feed(app, *_conversation_start(), ev.ContentDelta(text=LONG_ANSWER, prompt_id="s#1"))  # type: ignore[arg-type]
    await settle(pilot, app.main.transcript)  # type: ignore[attr-defined]
    _feed(app, _awaiting())  # type: ignore[arg-type]
    await settle(pilot, app.main.transcript)  # type: ignore[attr-defined]
    await pilot.pause()


async def test_opening_the_approval_queue_keeps_the_end_in_view(tmp_path: Path) -> None:
    app = _app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await _answer_then_approval(pilot)
        transcript = app.main.transcript
        assert app.main.has_class("-approvals")
        assert transcript.scroll_y == transcript.max_scroll_y > 0
        text = "\n".join(screen_lines(transcript))
        assert "the code the model just wrote" in text
        assert "replace  src/greet.py" in text  # the card being approved
        assert "new output below" not in text


async def test_scrolled_up_new_output_shows_a_marker_until_the_end_is_seen(
    tmp_path: Path,
) -> None:
    app = _app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        transcript = app.main.transcript
        _feed(app, *_conversation_start(), ev.ContentDelta(text=LONG_ANSWER, prompt_id="s#1"))
        await settle(pilot, transcript)
        transcript.scroll_to(y=0, animate=False, immediate=True)
        await pilot.pause()
        assert not transcript.follow
        assert not transcript.unseen
        _feed(app, ev.ContentDelta(text="\n\nOne more paragraph.", prompt_id="s#1"))
        await settle(pilot, transcript)
        assert transcript.scroll_y == 0  # the person's place is kept
        assert transcript.unseen
        assert "↓ new output below" in screen_lines(transcript)[-1]
        transcript.scroll_end(animate=False, immediate=True)
        await pilot.pause()
        assert transcript.follow
        assert not transcript.unseen
        assert "new output below" not in "\n".join(screen_lines(transcript))


async def test_a_scroll_up_wins_over_a_scroll_to_the_end_asked_for_a_frame_before(
    tmp_path: Path,
) -> None:
    """A resize while following asks for the end after the next frame; the person scrolls
    up before that frame: their place is kept (it was taken from them under load)."""
    app = _app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        transcript = app.main.transcript
        _feed(app, *_conversation_start(), ev.ContentDelta(text=LONG_ANSWER, prompt_id="s#1"))
        await settle(pilot, transcript)
        assert transcript.follow
        transcript.on_resize(Resize(transcript.size, transcript.virtual_size))  # same width
        transcript.scroll_to(y=0, animate=False, immediate=True)
        after: list[bool] = []
        transcript.call_after_refresh(after.append, True)  # runs after the resize's own
        while not after:
            await pilot.pause()
        assert transcript.scroll_y == 0
        assert not transcript.follow
