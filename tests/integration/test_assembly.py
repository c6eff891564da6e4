"""One way in: the same flags build the same session headless and in the TUI.

The flags go through the real command line (``gemtui.cli.main``) into each front end's
options, and each front end builds its session the way it does when run: headless with
``build_session`` from its options, the TUI with the factory its app runs after the first
frame. Before the assembly, the TUI dropped ``--text-tools``, ``--max-turns`` and
``[network] stream_retry_delays``.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from gemtui.agent.assembly import Assembled, RunOptions, build_session, trusted_run
from gemtui.cli import main as cli
from gemtui.config.paths import user_config_file
from gemtui.config.settings import load_settings
from gemtui.providers.text_tools import TextToolsGenerator
from gemtui.store import SessionStore
from gemtui.wire import Content

FLAGS = [
    "--provider",
    "local",
    "-m",
    "qwen-flag",
    "--approval-mode",
    "auto_edit",
    "--max-turns",
    "7",
    "--text-tools",
    "--resume",
    "latest",
]


def _configure(workspace: Path) -> str:
    """A user config with a local provider and retry delays, and one saved session."""
    config = user_config_file()
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(
        '[providers.local]\nkind = "openai"\nbase_url = "http://127.0.0.1:9/v1"\n'
        "[network]\nstream_retry_delays = [0.25, 0.5]\n"
        "[general]\nmax_turns = 99\n"
    )
    with SessionStore() as store:
        sid = store.create_session(
            title="saved", workspace=str(workspace), provider="local", model="m"
        )
        store.add_message(sid, "user", Content.user("saved question"))
        store.add_message(sid, "model", Content.model("saved answer"))
    return sid


def _captured(monkeypatch: pytest.MonkeyPatch, argv: list[str]) -> dict[str, Any]:
    import gemtui.headless
    import gemtui.tui.launch

    seen: dict[str, Any] = {}

    def headless(opts: Any, *_: Any) -> int:
        seen["headless"] = opts
        return 0

    def tui(options: Any, **_: Any) -> int:  # the worktree opener the launcher hands in
        seen["tui"] = options
        return 0

    monkeypatch.setattr(gemtui.headless, "run_headless", headless)
    monkeypatch.setattr(gemtui.tui.launch, "launch_tui", tui)
    assert cli.main([*argv, "-p", "hi"]) == 0
    assert cli.main([*argv, "hi"]) == 0
    return seen


def _tui_app(settings: Any, options: RunOptions) -> Any:
    """The app ``launch_tui`` builds for ``options`` (trust decided the same way)."""
    from gemtui.tui.launch import build_app

    app = build_app(settings, options, trust=trusted_run(options).trust)
    assert not isinstance(app, Exception)
    return app


def _summary(built: Assembled) -> dict[str, Any]:
    session = built.session
    return {
        "provider": session.provider.name,
        "model": session.chat.model,
        "approval_mode": session.approval_mode,
        "max_turns": session.executor.config.max_turns,
        "text_tools": isinstance(
            getattr(session.provider.generator, "inner", None), TextToolsGenerator
        ),
        "retry_delays": tuple(session.options.stream_retry_delays),
        "session_id": session.id,
        "history": [c.to_wire() for c in session.chat.history],
    }


async def test_the_same_flags_build_the_same_session_headless_and_in_the_tui(
    monkeypatch: pytest.MonkeyPatch, workspace: Path
) -> None:
    sid = _configure(workspace)
    monkeypatch.chdir(workspace)
    seen = _captured(monkeypatch, FLAGS)

    # one RunOptions from the command line: the front ends differ only in asking
    assert replace(seen["headless"], interactive=True) == seen["tui"]
    headless = build_session(load_settings(workspace), seen["headless"], trusted=False)
    app = _tui_app(load_settings(workspace), seen["tui"])
    assert app.controller.session_factory is not None
    tui = app.controller.session_factory()  # what the app runs in its engine-start thread
    try:
        expected = {
            "provider": "local",
            "model": "qwen-flag",
            "approval_mode": "auto_edit",
            "max_turns": 7,
            "text_tools": True,
            "retry_delays": (0.25, 0.5),
            "session_id": sid,
            "history": [
                Content.user("saved question").to_wire(),
                Content.model("saved answer").to_wire(),
            ],
        }
        assert _summary(headless) == expected
        assert _summary(tui) == expected
        assert headless.session.options.interactive is False  # headless refuses, never asks
        assert tui.session.options.interactive is True
    finally:
        for built in (headless, tui):
            await built.session.aclose()
            built.close()


def test_settings_fill_in_what_no_flag_gives(
    monkeypatch: pytest.MonkeyPatch, workspace: Path
) -> None:
    _configure(workspace)
    monkeypatch.chdir(workspace)
    seen = _captured(monkeypatch, ["--provider", "local"])
    settings = load_settings(workspace)
    for options in (seen["headless"], None):
        if options is None:
            options = _tui_app(settings, seen["tui"]).controller.run_options
        built = build_session(settings, options, trusted=False)
        try:
            assert built.session.executor.config.max_turns == 99
            assert built.session.options.stream_retry_delays == (0.25, 0.5)
            assert built.session.approval_mode == "default"
            assert built.session.chat.history == []
        finally:
            built.close()
