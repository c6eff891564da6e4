"""The screen a person sees at start-up is the main screen, styled as the main screen.

Since issue 26 the start-up screen is the app's default screen (one screen composed for
the first frame) and its side panes arrive just after that frame. Textual does not read
a default screen's own ``CSS_PATH``: these tests fail if the layout silently loses its
stylesheet (approvals shown, no side column) or the panes never come.
"""

from __future__ import annotations

import gc
from pathlib import Path

import pytest
from textual.widgets import Static

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
        assert not screen.query("#approvals")  # hidden while empty: mounted at first use
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


async def test_the_first_frame_goes_without_the_transcript_which_follows_it(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The start-up screen's first frame is drawn without the (empty) transcript, a fifth
    of that frame's work; it is in place, above the tip, as soon as the frame is out, and
    the tip still leaves with the conversation's first line."""
    from gemtui.tui.session_host import SessionController

    at_first_frame: list[bool] = []
    drawn = SessionController.first_frame_drawn

    def first_frame_drawn(self: SessionController) -> None:
        at_first_frame.append(bool(self.app.screen.query("#transcript")))
        drawn(self)

    monkeypatch.setattr(SessionController, "first_frame_drawn", first_frame_drawn)
    pause_collector()
    ui = read_ui_choice(workspace, trusted=False)
    app = build_app(None, RunOptions(workspace=workspace, fake_responses=str(DEMO)), ui=ui)
    assert not isinstance(app, Exception)
    async with app.run_test(size=(160, 48)) as pilot:
        while not at_first_frame:
            await pilot.pause()
        assert at_first_frame == [False]  # the frame was drawn without it
        screen = app.screen
        assert isinstance(screen, MainScreen)
        centre = [child.id for child in screen.query_one("#centre").children]
        assert centre[:2] == ["transcript", "first-tip"]  # at once after the frame
        assert screen.transcript is screen.transcript  # mounted once
        assert len(screen.query("#transcript")) == 1
        while app.session is None:
            await pilot.pause()
        await pilot.press(*"hello", "enter")
        while screen.query("#first-tip"):  # the tip follows the late transcript
            await pilot.pause()
        assert "hello" in user_lines(screen)
    gc.unfreeze()


async def test_the_transcript_is_mounted_at_its_first_use(
    workspace: Path,
) -> None:
    """Whatever needs the transcript before it is mounted after the first frame (a prompt
    typed ahead, a command) gets it then: mounted on first use, in its place, once."""
    from textual.app import App

    class Bare(App[None]):  # no session controller: nothing mounts it after a frame
        def get_default_screen(self) -> MainScreen:
            return MainScreen(workspace=workspace, panes_after_first_frame=True)

    app = Bare()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = app.screen
        assert isinstance(screen, MainScreen)
        assert not screen.query("#transcript")
        screen.transcript.add_user("typed ahead")
        assert [child.id for child in screen.query_one("#centre").children][:2] == [
            "transcript",
            "first-tip",
        ]
        assert screen.transcript is screen.query_one("#transcript")
        while screen.query("#first-tip"):  # its first line: the tip leaves
            await pilot.pause()
        assert user_lines(screen) == ["typed ahead"]


async def test_the_approval_queue_comes_with_the_first_call_that_waits(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The start-up screen mounts the approval queue at its first use, not with the side
    panes just before the first prompt: a call waiting then is drawn in it, once, and the
    keys' delay is armed again when it is drawn (a key typed before never answers)."""
    from textual.app import App

    from gemtui.bus import events as ev
    from gemtui.tui.widgets.approval_queue import ApprovalQueue

    class Bare(App[None]):
        def get_default_screen(self) -> MainScreen:
            return MainScreen(workspace=workspace, panes_after_first_frame=True)

    armed: list[bool] = []  # whether its widgets were there at each arming
    arm = ApprovalQueue._arm

    def spy(self: ApprovalQueue) -> None:
        armed.append(self._composed)
        arm(self)

    monkeypatch.setattr(ApprovalQueue, "_arm", spy)
    call = ev.ToolCallSnapshot(
        call_id="c1",
        name="run_shell_command",
        args={"command": "rm -rf build"},
        state=ev.ToolCallState.AWAITING_APPROVAL,
        description="rm -rf build",
        kind="execute",
        correlation_id="corr-1",
    )
    app = Bare()
    async with app.run_test(size=(160, 48)) as pilot:
        screen = app.screen
        assert isinstance(screen, MainScreen)
        await screen.panes_ready()
        assert screen.panes_mounted
        assert not screen.query("#approvals")
        screen.approvals.upsert(call, "p1")  # before its widgets exist
        queue = screen.approvals
        queue.focus()  # F8 at once, still before them: no crash, the keys act once drawn
        assert queue is screen.query_one("#approvals")  # mounted once
        while not queue.query("#approval-title"):  # composed once mounted
            await pilot.pause()
        await pilot.pause()
        title = queue.query_one("#approval-title", Static)
        assert "Approve run_shell_command" in str(title.render())
        assert queue.current() == call
        assert queue.has_focus
        assert queue.on_purpose
        assert armed[0] is False  # armed when it came, before its widgets
        assert armed[1] is True  # and again once drawn (then at its focus)
        assert [child.id for child in screen.query_one("#centre").children][-1] == "approvals"


def user_lines(screen: MainScreen) -> list[str]:
    from gemtui.tui.widgets.transcript_blocks import UserBlock

    return [b.text for b in screen.transcript._blocks.blocks if isinstance(b, UserBlock)]
