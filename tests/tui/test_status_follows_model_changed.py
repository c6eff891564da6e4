"""The status line and the usage pane follow ``ModelChanged`` (issue 34): what a switch or
a quota fallback publishes is what they show, without reading the session again."""

from __future__ import annotations

from pathlib import Path

from gemtui.bus.events import ModelChanged
from tests.tui.helpers import Messages
from tests.tui.test_snapshots import _app


async def test_the_status_line_and_usage_pane_show_the_changed_model(tmp_path: Path) -> None:
    app = _app(tmp_path)
    seen = Messages()
    async with app.run_test(size=(120, 40), message_hook=seen) as pilot:
        await pilot.pause()
        session = app.session
        assert session is not None
        assert (app.main.status.model, app.main.status.provider) == ("gemini-2.5-flash", "gemini")
        session.bus.emit(
            ModelChanged,
            from_model="gemini-2.5-flash",
            to_model="qwen3-coder",
            from_provider="gemini",
            to_provider="local",
            context_window=32_768,
            priced=False,
        )
        await seen.wait_event(ModelChanged)
        await pilot.pause()
        assert (app.main.status.model, app.main.status.provider) == ("qwen3-coder", "local")
        assert app.main.usage.context_window == 32_768
        assert session.model == "gemini-2.5-flash"  # the event was shown, the session unread
