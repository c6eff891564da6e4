"""TUI test set-up: a pinned workspace path, branch and clock-free app; app builders."""

from __future__ import annotations

from pathlib import Path

import pytest

from gemtui.agent.provider_choice import ResolvedProvider
from gemtui.agent.session import Session, SessionOptions
from gemtui.config.settings import Settings
from gemtui.providers.gemini import GeminiGenerator
from gemtui.providers.http import make_client
from gemtui.tui.app import GemtuiApp


@pytest.fixture(autouse=True)
def instant_approval_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests press keys at machine speed; the arming delay has its own test."""
    from gemtui.tui.widgets.approval_queue import ApprovalQueue

    monkeypatch.setattr(ApprovalQueue, "ARM_DELAY", 0.0)


@pytest.fixture(autouse=True)
def steady_cursor(monkeypatch: pytest.MonkeyPatch) -> None:
    """A blinking cursor is caught lit or dark depending on how loaded the machine is, so
    a snapshot would differ by chance: in tests every text cursor stays lit."""
    from textual.widgets import Input, TextArea

    monkeypatch.setattr(TextArea, "_toggle_cursor_blink_visible", lambda self: None)
    monkeypatch.setattr(Input, "_toggle_cursor", lambda self: None)


@pytest.fixture(autouse=True)
def dark_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """The default theme follows COLORFGBG; tests pin a terminal that does not say."""
    monkeypatch.delenv("COLORFGBG", raising=False)


@pytest.fixture(autouse=True)
def pinned_status(monkeypatch: pytest.MonkeyPatch) -> None:
    """The status line shows a fixed workspace and branch, whatever machine runs the test."""
    from gemtui.tui import session_host

    monkeypatch.setattr(session_host, "short_path", lambda path: "~/project")
    monkeypatch.setattr(session_host, "git_branch", lambda path: "main")


def make_session(
    url: str,
    workspace: Path,
    *,
    model: str = "gemini-2.5-flash",
    approval_mode: str = "default",
    sandbox: bool = False,
    settings: Settings | None = None,
) -> Session:
    """A real Session talking to the mock LLM server over the Gemini wire format
    (``sandbox``: what ``-s`` asks; ``settings``: config.toml's, else the defaults)."""
    provider = ResolvedProvider(
        "gemini", "gemini", GeminiGenerator(make_client(), "k", url), model, 1_048_576
    )
    return Session(
        settings or Settings(),
        provider,
        SessionOptions(
            workspace=workspace,
            approval_mode=approval_mode,
            stream_retry_delays=(0.0,),
            sandbox=sandbox,
        ),
    )


def make_app(session: Session | None, workspace: Path, **kw: object) -> GemtuiApp:
    return GemtuiApp(
        settings=Settings(), session=session, workspace=workspace, raise_errors=True, **kw
    )  # type: ignore[arg-type]
