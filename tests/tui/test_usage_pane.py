"""The usage pane's figures: short enough for its width, a per-turn trend only when
there is a trend to show."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gemtui.bus import events as ev
from gemtui.tui.widgets.usage_panel import short, sparkline
from tests.tui.test_snapshots import _app, _feed


def test_figures_fit_in_five_characters() -> None:
    assert [short(n) for n in (0, 999, 9_999, 12_345, 123_456, 1_048_576)] == [
        "0",
        "999",
        "9,999",
        "12.3k",
        "123k",
        "1.05M",
    ]
    assert all(len(short(10**k + 7)) <= 5 for k in range(9))


def test_the_sparkline_scales_from_zero_one_bar_per_turn() -> None:
    assert sparkline([100, 200, 400]) == "▃▅█"
    assert sparkline([5, 5]) == "██"  # equal turns look equal, not empty
    assert sparkline([]) == ""


async def test_the_trend_shows_from_the_second_turn(tmp_path: Path) -> None:
    app = _app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        usage = app.main.usage
        turn = ev.TurnFinished(
            finish_reason="STOP", model="m", usage=ev.Usage(100, 20, 0, 0, 120), cost=None
        )
        _feed(app, turn)
        await pilot.pause()
        assert usage.query_one("#usage-sparkline").has_class("-hidden")
        _feed(app, turn)
        await pilot.pause()
        assert not usage.query_one("#usage-sparkline").has_class("-hidden")
        assert "tokens per turn" in str(usage.query_one("#usage-trend").render())


async def test_the_streaming_estimate_is_drawn_once_per_interval_and_ends_exact(
    tmp_path: Path,
) -> None:
    """Each redraw of the estimate lays the screen out again: chunks arriving together
    are drawn once, and the figure drawn last is the exact total (issue 36)."""
    from textual.widgets import Static

    from gemtui.wire.token_estimate import tokens_for_chars

    app = _app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        usage = app.main.usage

        def drawn() -> str:
            return str(usage.query_one("#usage-numbers", Static).render())

        usage.record_streamed("x" * 400)
        first = f"streaming ~{tokens_for_chars(400):,} tokens"
        assert first in drawn()  # the first chunk shows at once
        for _ in range(50):
            usage.record_streamed("y" * 40)
        assert first in drawn()  # the chunks after it wait for the interval
        final = f"streaming ~{tokens_for_chars(400 + 50 * 40):,} tokens"
        while final not in drawn():  # the interval's timer draws them, once
            await pilot.pause(0.01)  # a poll interval, as `settle` in test_transcript
        assert usage.streamed_chars == 2_400


async def test_a_new_turn_starts_its_estimate_at_once(tmp_path: Path) -> None:
    """A turn that ends inside the interval does not hold back the next turn's estimate:
    the first chunk after it is drawn at once (it waited for a timer before, so a picture
    of the screen showed it or not by the machine's speed)."""
    from textual.widgets import Static

    from gemtui.wire.token_estimate import tokens_for_chars

    app = _app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        usage = app.main.usage
        usage.record_streamed("x" * 400)  # the interval starts
        usage.record_turn(ev.Usage(input=10, output=100, total=110), None)
        usage.record_streamed("y" * 80)
        drawn = str(usage.query_one("#usage-numbers", Static).render())
        assert f"streaming ~{tokens_for_chars(80):,} tokens" in drawn


async def test_redrawing_the_estimate_lays_nothing_out(tmp_path: Path) -> None:
    """``Static.update`` lays the whole screen out; the estimate is redrawn four times a
    second while an answer streams, and a key typed then waited for that layout (issue
    36). A redraw that keeps the figures' height paints them only; one that adds a line
    still lays out (the control)."""
    from textual.widgets import Static

    app = _app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        usage = app.main.usage
        usage.record_streamed("x" * 400)
        usage.flush_live()
        await pilot.pause()
        layouts = _count_layouts(app)
        for _ in range(5):
            usage.record_streamed("y" * 400)
            usage.flush_live()  # drawn now, as the interval's timer would
            await pilot.pause()
        assert layouts.count == 0
        assert "streaming ~" in str(usage.query_one("#usage-numbers", Static).render())
        usage.record_compression(5_000, 1_000)  # a line more in the notes: laid out
        await pilot.pause()
        assert layouts.count > 0
        assert "compressed 5,000" in str(usage.query_one("#usage-notes", Static).render())


async def test_the_first_streamed_text_lays_nothing_out(tmp_path: Path) -> None:
    """The estimate's line shows from the model call's start, laid out with the prompt's
    own frame, so the answer's first text is painted without a layout of the whole
    screen (a layout repaints every pane: ~25 ms of the first line's frame, issue 34).
    The control: text with no call started first adds the line, and lays out."""
    from textual.widgets import Static

    from gemtui.tui.view import ops

    app = _app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        main, usage = app.main, app.main.usage
        layouts = _count_layouts(app)
        main.drawing.apply(ops.ModelCallStarted())
        await pilot.pause()
        assert "streaming ~0 tokens" in str(usage.query_one("#usage-numbers", Static).render())
        layouts.count = 0
        main.drawing.apply(ops.Streamed("x" * 400))
        usage.flush_live()
        await pilot.pause()
        assert layouts.count == 0
        assert "streaming ~" in str(usage.query_one("#usage-numbers", Static).render())
        usage.end_stream()  # the call ended: the line goes (laid out)
        await pilot.pause()
        assert "streaming" not in str(usage.query_one("#usage-numbers", Static).render())
        layouts.count = 0
        main.drawing.apply(ops.Streamed("x" * 400))  # the control: no call said first
        usage.flush_live()
        await pilot.pause()
        assert layouts.count > 0


async def test_another_session_shown_drops_the_call_in_flight(tmp_path: Path) -> None:
    """The front agent changes while its model call is in flight: the pane now shows the
    other session's figures, without the first one's estimate line (whose end it will
    never hear of)."""
    from textual.widgets import Static

    from gemtui.tui.view import ops

    app = _app(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        usage = app.main.usage
        app.main.drawing.apply(ops.ModelCallStarted())
        await pilot.pause()
        assert "streaming ~0" in str(usage.query_one("#usage-numbers", Static).render())
        usage.reset()
        await pilot.pause()
        assert "streaming" not in str(usage.query_one("#usage-numbers", Static).render())


class _Layouts:
    """How many times the screen was laid out since ``count`` was last set."""

    count = 0


def _count_layouts(app: Any) -> _Layouts:
    """Count the screen's layouts from now on (each repaints every pane)."""
    layouts = _Layouts()
    refresh_layout = app.screen._refresh_layout

    def counted(*args: object, **kwargs: object) -> None:
        layouts.count += 1
        refresh_layout(*args, **kwargs)

    app.screen._refresh_layout = counted
    return layouts
