"""The screen a person sees at start-up is the main screen, styled as the main screen.

Since issue 26 the start-up screen is the app's default screen (one screen composed for
the first frame) and its side panes arrive just after that frame. Textual does not read
a default screen's own ``CSS_PATH``: these tests fail if the layout silently loses its
stylesheet (approvals shown, no side column) or the panes never come.
"""

from __future__ import annotations

import gc
from pathlib import Path

from gemtui.agent.assembly import RunOptions
from gemtui.collector import pause_collector
from gemtui.config.ui_choice import read_ui_choice
from gemtui.tui.launch import build_app
from gemtui.tui.screens.main import MainScreen
from gemtui.tui.widgets.usage_panel import UsagePanel
from tests.tui.helpers import transcript_notices

DEMO = Path(__file__).resolve().parents[2] / "src" / "gemtui" / "tui" / "demo.jsonl"


async def test_the_start_up_screen_is_the_main_screen_laid_out(workspace: Path) -> None:
    pause_collector()  # as `gemtui` does before it imports the TUI
    ui = read_ui_choice(workspace, trusted=False)
    app = build_app(None, RunOptions(workspace=workspace, fake_responses=str(DEMO)), ui=ui)
    assert not isinstance(app, Exception)
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, MainScreen)
        assert len(app.screen_stack) == 1  # not pushed over a blank default screen
        while not screen.query(UsagePanel):  # the side panes follow the first frame
            await pilot.pause()
        await pilot.pause()
        side = screen.query_one("#side")
        assert 60 <= side.region.x < 160 <= side.region.right  # a column on the right
        assert screen.query_one("#usage").region.width > 20
        assert not screen.query_one("#approvals").display  # main.tcss hides an empty queue
        assert screen.query_one("#transcript").region.right <= side.region.x
        prompt = screen.query_one("#prompt")
        assert prompt.region.y > 40
        assert prompt.has_focus
        assert screen.query_one("#status").region.y == 47
        while app.session is None:  # the engine starts after the frame, in a thread
            await pilot.pause()
        assert app.screen is screen  # and draws into the same screen
        assert gc.isenabled()  # start-up is over: the collector is back
    gc.unfreeze()  # this test process goes on: let its objects be collected again


async def test_keys_and_commands_typed_before_the_panes_arrive_do_not_crash(
    workspace: Path,
) -> None:
    """Keys typed while gemtui starts reach the app with its first frame, before the side
    panes and the approval queue are mounted: F8, /clear and /stats must not fail then."""
    pause_collector()
    ui = read_ui_choice(workspace, trusted=False)
    app = build_app(None, RunOptions(workspace=workspace, fake_responses=str(DEMO)), ui=ui)
    assert not isinstance(app, Exception)
    app.raise_errors = True  # type: ignore[attr-defined]
    async with app.run_test(size=(160, 48)) as pilot:
        screen = app.screen
        assert isinstance(screen, MainScreen)
        assert not screen.query(UsagePanel), "the panes are not there yet"
        app.action_focus_approvals()  # F8
        app.run_slash("/clear")  # what the prompt runs on Enter
        app.run_slash("/stats")
        assert not screen.query(UsagePanel), "all of it ran before the panes came"
        while not screen.query(UsagePanel):
            await pilot.pause()
        await pilot.pause()
        messages = [n.message for n in app._notifications]
        assert any("Transcript cleared" in m for m in messages)
        assert "No model turns yet." in transcript_notices(app)
        while app.session is None:
            await pilot.pause()
        assert app.return_code is None  # still running: nothing failed
    gc.unfreeze()
