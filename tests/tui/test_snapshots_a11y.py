"""How the screen-reader mode and the find bar look at 80×24 (a docstring on each says
what you should see). Events are fed straight to the main screen, as in
``test_snapshots.py``, whose helpers these reuse."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from gemtui.agent.provider_choice import ResolvedProvider
from gemtui.agent.session import Session, SessionOptions
from gemtui.bus import events as ev
from gemtui.bus.values import TerminateReason
from gemtui.config.settings import Settings, UiSettings
from gemtui.providers.replay import ReplayGenerator
from gemtui.tui.app import GemtuiApp
from tests.tui.test_snapshots import _awaiting, _feed, _settle


def _app(tmp_path: Path, *, screen_reader: bool = False) -> GemtuiApp:
    ui = UiSettings.model_validate({"accessibility": {"screenReader": screen_reader}})
    settings = Settings(ui=ui)
    provider = ResolvedProvider(
        "gemini", "gemini", ReplayGenerator([]), "gemini-2.5-flash", 1_048_576
    )
    workspace = tmp_path / "ws"
    workspace.mkdir(exist_ok=True)
    session = Session(settings, provider, SessionOptions(workspace=workspace))
    return GemtuiApp(settings=settings, session=session, workspace=workspace, raise_errors=True)


def _answered(prompt_id: str = "s#1") -> list[ev.Event]:
    text = "\n\n".join(
        f"Step {n}: the needle is in greet.py." if n in (2, 5, 8) else f"Step {n}: read more."
        for n in range(1, 12)
    )
    return [
        ev.UserMessage(text="Where is the needle?", prompt_id=prompt_id),
        ev.TurnStarted(turn=1, model="gemini-2.5-flash", prompt_id=prompt_id),
        ev.ContentDelta(text=text, prompt_id=prompt_id),
        ev.TurnFinished(
            finish_reason="STOP",
            model="gemini-2.5-flash",
            usage=ev.Usage(input=10, output=10, thoughts=0, cached=0, total=20),
            prompt_id=prompt_id,
        ),
        ev.AgentFinished(reason=TerminateReason.GOAL, text="", prompt_id=prompt_id),
    ]


class TestScreenReader:
    def test_a_session_as_plain_lines(self, snap_compare: Any, tmp_path: Path) -> None:
        """No border, pane, spinner or status line: the answer's last lines, then an
        approval asked with its keys said in words; under them the approval queue's plain
        text (its diff, and "F8 then a allow s session A always…": letters, no digit)
        and the prompt."""

        async def run_before(pilot: Pilot[Any]) -> None:
            turn = _answered()[:-1]  # the turn goes on: its call waits (no clock is drawn)
            _feed(pilot.app, *turn, _awaiting())  # type: ignore[arg-type]
            await _settle(pilot)

        app = _app(tmp_path, screen_reader=True)
        assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)


class TestFindBar:
    def test_find_bar_over_a_conversation(self, snap_compare: Any, tmp_path: Path) -> None:
        """The find bar above the prompt reads "needle" with "1 of 4" on its right; every
        "needle" (the prompt's and the answer's three) is tinted, the one in front (the
        prompt's) in the warning colour."""

        async def run_before(pilot: Pilot[Any]) -> None:
            _feed(pilot.app, *_answered())  # type: ignore[arg-type]
            await _settle(pilot)
            pilot.app.main.transcript.scroll_home(animate=False, immediate=True)  # type: ignore[attr-defined]
            await pilot.press("ctrl+f", *"needle")
            await _settle(pilot)

        assert snap_compare(_app(tmp_path), terminal_size=(80, 24), run_before=run_before)
