"""The App owns a session controller; it does not inherit one (issue 34).

A controller reaches its app only through ``ControllerHost``, so it runs here with a
plain stand-in host and no Textual app: the engine start that fails is the case shown.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from gemtui.agent.assembly import Assembled
from gemtui.config.ui_choice import UiChoice
from gemtui.errors import FatalConfigError
from gemtui.tui.app import GemtuiApp
from gemtui.tui.controller_host import ControllerHost
from gemtui.tui.screens.main import MainScreen
from gemtui.tui.session_host import SessionController
from gemtui.tui.themes import ThemeFailure


class StandInHost:
    """A plain object in the App's place: records what the controller asks of it and
    runs a thread worker at once (there is no event loop to hand it to)."""

    def __init__(self) -> None:
        self.ui = UiChoice()
        self.exit_message: str | None = None
        self.theme_failures: list[ThemeFailure] = []
        self.slash_commands: dict[str, str] = {}
        self.theme = "textual-dark"
        self.available_themes: dict[str, Any] = {}
        self.notes: list[str] = []
        self.exited: list[int] = []
        self.workers: list[str | None] = []
        self.classes: set[str] = set()

    @property
    def main(self) -> MainScreen:
        raise LookupError("no main screen: there is no app")

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: Any = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        self.notes.append(message)

    def push_screen(self, screen: Any, callback: Callable[[Any], Any] | None = None) -> Any:
        raise AssertionError(f"no screen expected here, got {screen!r}")

    def run_worker(
        self,
        work: Any,
        name: str | None = "",
        group: str = "default",
        description: str = "",
        exit_on_error: bool = True,
        start: bool = True,
        exclusive: bool = False,
        thread: bool = False,
    ) -> Any:
        self.workers.append(name)
        assert thread, "only the engine start runs here, in a thread worker"
        return work()

    def call_from_thread(self, callback: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        result = callback(*args, **kwargs)
        return asyncio.run(result) if inspect.isawaitable(result) else result

    def call_after_refresh(self, callback: Callable[..., Any], *args: Any, **kwargs: Any) -> bool:
        callback(*args, **kwargs)
        return True

    def call_later(self, callback: Callable[..., Any], *args: Any, **kwargs: Any) -> bool:
        callback(*args, **kwargs)
        return True

    def exit(self, result: Any = None, return_code: int = 0, message: Any = None) -> None:
        self.exited.append(return_code)

    def set_class(self, add: bool, *class_names: str, update: bool = True) -> Any:
        for name in class_names:
            (self.classes.add if add else self.classes.discard)(name)

    def submit(self, text: str) -> None:
        raise AssertionError("nothing is sent when the engine did not start")

    def send_next(self) -> None:
        raise AssertionError("nothing is sent when the engine did not start")

    def refresh_custom_commands(self) -> None:
        raise AssertionError("no commands without a session")


def test_the_app_owns_a_controller_and_does_not_inherit_one(tmp_path: Path) -> None:
    assert SessionController not in GemtuiApp.__mro__
    assert not hasattr(GemtuiApp, "_adopt"), "the session's life is the controller's"
    app = GemtuiApp(settings=None, session=None, workspace=tmp_path)
    assert isinstance(app.controller, SessionController)
    assert app.controller.app is app
    assert app.session is app.controller.session is None


def _start_with(factory: Callable[[], Assembled], tmp_path: Path) -> StandInHost:
    """The app's start-up, as the App's hooks drive it: mounted, then the first frame."""
    host = StandInHost()
    stand_in: ControllerHost = host  # the protocol is all the controller needs
    controller = SessionController(
        stand_in, settings=None, session=None, workspace=tmp_path, session_factory=factory
    )
    controller.app_mounted()
    controller.first_frame_drawn()
    assert host.workers == ["engine-start"]
    assert controller.session is None
    assert controller.session_factory is None
    return host


def test_an_engine_that_cannot_start_stops_the_app_with_why(tmp_path: Path) -> None:
    def broken() -> Assembled:
        raise RuntimeError("the provider module is missing")

    host = _start_with(broken, tmp_path)
    assert host.exited == [1]
    assert host.exit_message == (
        "the engine could not start: RuntimeError: the provider module is missing"
    )
    assert host.notes == []
    assert {"-hide-thoughts", "-hide-usage"}.isdisjoint(host.classes), "the view as set"


@pytest.mark.parametrize("code", [52, 42])
def test_a_fatal_error_at_start_exits_with_its_own_code(tmp_path: Path, code: int) -> None:
    def refused() -> Assembled:
        raise FatalConfigError(f"settings.toml: bad value ({code})", exit_code=code)

    host = _start_with(refused, tmp_path)
    assert host.exited == [code]
    assert host.exit_message == f"settings.toml: bad value ({code})"
