"""Theme files, the user config writer, and launch_tui's start-up decisions."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from gemtui.config.paths import config_dir, user_config_file
from gemtui.config.settings import load_settings
from gemtui.config.user_config import dumps_toml, save_choice
from gemtui.tui.themes import APP_VARIABLES, builtin_theme_dir, load_themes


def test_builtin_themes_load_with_app_tokens() -> None:
    loaded, failed = load_themes([builtin_theme_dir()])
    assert not failed
    names = {t.name for t in loaded}
    assert {"gemtui", "gemtui-day", "gemtui-dark", "gemtui-light", "gemtui-high-contrast"} <= names
    for theme in loaded:
        assert set(APP_VARIABLES) <= set(theme.variables)


def _contrast(a: str, b: str) -> float:
    """WCAG 2 contrast ratio of two hex colours."""

    def luminance(hex_colour: str) -> float:
        channels = [int(hex_colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
        linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]

    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


@pytest.mark.parametrize(
    "name", ["gemtui", "gemtui-day", "gemtui-dark", "gemtui-light", "gemtui-high-contrast"]
)
def test_text_colours_meet_wcag_aa_on_their_background(name: str) -> None:
    """Every colour text is drawn in (body, accent, states, diff) reads at 4.5:1 or
    better (WCAG AA) on the background and on the panel the status line uses."""
    theme = next(t for t in load_themes([builtin_theme_dir()])[0] if t.name == name)
    need = 4.5
    text = [theme.foreground, theme.primary, theme.success, theme.warning, theme.error]
    text += [theme.variables["diff-added"], theme.variables["diff-removed"]]
    for background in (theme.background, theme.surface):
        for colour in text:
            assert colour is not None
            assert background is not None
            assert _contrast(colour, background) >= need, (name, colour, background)
    assert theme.panel is not None
    assert theme.foreground is not None
    assert _contrast(theme.foreground, theme.panel) >= need


@pytest.mark.parametrize(
    ("colorfgbg", "theme"),
    [
        (None, "gemtui"),
        ("15;0", "gemtui"),
        ("0;15", "gemtui-day"),
        ("12;7", "gemtui-day"),
        ("default;default", "gemtui"),
    ],
)
def test_the_default_theme_follows_the_terminal_background(
    colorfgbg: str | None, theme: str
) -> None:
    from gemtui.tui.themes import default_theme

    assert default_theme({} if colorfgbg is None else {"COLORFGBG": colorfgbg}) == theme


async def test_an_unset_theme_starts_in_the_new_default(tmp_path: Path) -> None:
    from gemtui.config.settings import Settings
    from gemtui.tui.app import GemtuiApp

    app = GemtuiApp(settings=Settings(), session=None, workspace=tmp_path, raise_errors=True)
    async with app.run_test():
        assert Settings().ui.theme == "auto"
        assert app.theme == "gemtui"


def test_a_theme_can_ask_for_the_terminals_own_ansi_colours() -> None:
    folder = config_dir() / "themes"
    folder.mkdir(parents=True)
    (folder / "term.toml").write_text(
        "name = 'term'\nansi = true\nprimary = 'ansi_blue'\nbackground = 'ansi_default'\n"
        "foreground = 'ansi_default'\n"
    )
    loaded, failed = load_themes([folder])
    assert not failed
    (theme,) = loaded
    assert theme.ansi
    assert theme.background == "ansi_default"


def test_a_bad_user_theme_is_reported_and_does_not_block_the_others() -> None:
    folder = config_dir() / "themes"
    folder.mkdir(parents=True)
    (folder / "broken.toml").write_text("name = 'x'\nprimary = 'not-a-colour'\n")
    (folder / "malformed.toml").write_text("name = \n")
    (folder / "extra.toml").write_text("name = 'y'\nprimary = '#ffffff'\nshiny = true\n")
    (folder / "mine.toml").write_text(
        "name = 'mine'\nprimary = '#112233'\ndark = false\n[variables]\ndiff-added = '#00aa00'\n"
    )
    loaded, failed = load_themes()
    assert "mine" in {t.name for t in loaded}
    assert "gemtui-dark" in {t.name for t in loaded}
    assert sorted(f.path.name for f in failed) == ["broken.toml", "extra.toml", "malformed.toml"]
    assert all(f.message for f in failed)


def test_save_choice_keeps_other_settings_and_stays_loadable() -> None:
    path = user_config_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('[general]\nmodel = "gemini-2.5-flash"\n\n[providers.local]\nkind = "openai"\n')
    save_choice("general", "provider", "local")
    save_choice("ui", "theme", "gemtui-light")
    data = tomllib.loads(path.read_text())
    assert data["general"] == {"model": "gemini-2.5-flash", "provider": "local"}
    assert data["providers"]["local"]["kind"] == "openai"
    settings = load_settings()
    assert settings.ui.theme == "gemtui-light"
    assert settings.general.provider == "local"


def test_dumps_toml_round_trips_nested_tables() -> None:
    data = {
        "general": {"provider": 'we"ird'},
        "providers": {"x": {"kind": "openai", "models": ["a", "b"], "prices": {"input": 1.5}}},
    }
    assert tomllib.loads(dumps_toml(data)) == data


def test_broken_settings_exit_52_before_textual_starts(
    workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from gemtui.agent.assembly import RunOptions
    from gemtui.tui.launch import launch_tui

    user_config_file().parent.mkdir(parents=True, exist_ok=True)
    user_config_file().write_text("[general\n")
    assert launch_tui(RunOptions(workspace=workspace)) == 52
    assert "malformed TOML" in capsys.readouterr().err


async def test_no_provider_opens_the_welcome_screen_instead_of_failing(workspace: Path) -> None:
    from gemtui.agent.assembly import RunOptions
    from gemtui.tui.app import GemtuiApp
    from gemtui.tui.launch import build_app
    from gemtui.tui.screens.welcome import WelcomeScreen

    app = build_app(load_settings(workspace), RunOptions(workspace=workspace))
    assert isinstance(app, GemtuiApp)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert app.session is None
        assert isinstance(app.screen, WelcomeScreen)
        assert app.controller.welcome_reason
        assert "No model provider" in app.controller.welcome_reason


async def test_unknown_provider_stops_the_app_with_52(workspace: Path) -> None:
    from gemtui.agent.assembly import RunOptions
    from gemtui.config.settings import Settings
    from gemtui.tui.app import GemtuiApp
    from gemtui.tui.launch import build_app

    app = build_app(Settings(), RunOptions(workspace=workspace, provider="nope"))
    assert isinstance(app, GemtuiApp)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
    assert app.return_code == 52
    assert app.exit_message
    assert "Unknown provider 'nope'" in app.exit_message


async def test_a_prompt_typed_while_the_engine_starts_is_kept(workspace: Path) -> None:
    import json

    from gemtui.agent.assembly import RunOptions
    from gemtui.bus.events import AgentFinished
    from gemtui.config.settings import Settings
    from gemtui.tui.app import GemtuiApp
    from gemtui.tui.launch import build_app
    from tests.tui.helpers import Messages, turns_done

    rec = workspace / "rec.jsonl"
    chunk = {
        "candidates": [
            {
                "content": {"role": "model", "parts": [{"text": "early reply"}]},
                "finishReason": "STOP",
            }
        ]
    }
    rec.write_text(json.dumps([chunk]) + "\n")
    app = build_app(Settings(), RunOptions(workspace=workspace, fake_responses=str(rec)))
    assert isinstance(app, GemtuiApp)
    seen = Messages()
    async with app.run_test(size=(100, 30), message_hook=seen):
        app.submit("typed early")  # before the engine is up, as a fast typist would
        assert app.session is None or app.queued or app.turn_running
        await seen.wait_event(AgentFinished)
        await turns_done(app)
        assert ("user", "typed early") in app.main.transcript.messages()


def test_version_does_not_import_textual() -> None:
    code = (
        "import sys\n"
        "from gemtui.cli.main import main\n"
        "try:\n    main(['--version'])\nexcept SystemExit:\n    pass\n"
        "assert 'textual' not in sys.modules, 'textual imported'\n"
        "import gemtui.tui.launch\n"
        "assert 'textual' not in sys.modules, 'launch imports textual at import time'\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_a_theme_with_a_broken_variable_is_skipped_not_fatal(tmp_path: Path) -> None:
    from gemtui.tui.themes import load_themes

    (tmp_path / "bad.toml").write_text(
        'name = "bad"\nprimary = "#123456"\n\n[variables]\nsomething = "#ff\\""\n'
    )
    (tmp_path / "good.toml").write_text('name = "good"\nprimary = "#123456"\n')
    loaded, failed = load_themes([tmp_path])
    assert [t.name for t in loaded] == ["good"]
    assert failed
    assert "variables.something" in failed[0].message
