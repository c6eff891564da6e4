"""Ctrl+G: the prompt in the person's editor, and back (issue 38, item 2).

The editor is a real program (a stand-in shell script as ``$VISUAL``) run on a real file;
headless, the app has no terminal to hand over, so it runs without one.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gemtui.testing.mockllm import MockLLMServer
from tests.tui.conftest import make_app, make_session
from tests.tui.test_transcript import screen_text, settle


def _exists(path: str) -> bool:
    return Path(path).exists()


def _editor(folder: Path, body: str) -> Path:
    script = folder / "stand-in-editor"
    script.write_text("#!/bin/sh\n" + body, encoding="utf-8")
    script.chmod(0o755)
    return script


async def test_ctrl_g_brings_the_editors_text_back_into_the_prompt(
    mock_llm: MockLLMServer, workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = tmp_path / "seen"
    monkeypatch.setenv(
        "VISUAL",
        str(
            _editor(
                tmp_path,
                f'stat -c %a "$1" "$(dirname "$1")" > {seen}\n'
                f'dirname "$1" >> {seen}\ncat "$1" >> {seen}\n'
                "printf 'rewritten by the editor\\nsecond line\\n' > \"$1\"\n",
            )
        ),
    )
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"my draft", "ctrl+g")
        await pilot.pause()
        prompt = app.main.prompt
        assert prompt.text == "rewritten by the editor\nsecond line"
        assert mock_llm.requests == []  # edited, not sent
        await pilot.press("ctrl+z")  # one undoable edit: the draft comes back
        assert prompt.text == "my draft"
    file_mode, folder_mode, folder, typed = seen.read_text(encoding="utf-8").splitlines()
    assert (file_mode, folder_mode) == ("600", "700")  # nobody else reads the prompt
    assert typed == "my draft"
    assert not _exists(folder)  # removed afterwards


async def test_an_editor_that_fails_leaves_the_prompt_as_typed_and_says_why(
    mock_llm: MockLLMServer, workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ran = tmp_path / "ran"
    # The control: the editor really ran and really wrote over the file before failing.
    body = f'touch {ran}\necho clobbered > "$1"\nexit 3\n'
    monkeypatch.setenv("VISUAL", str(_editor(tmp_path, body)))
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"keep me", "ctrl+g")
        await settle(pilot, app.main.transcript)
        assert app.main.prompt.text == "keep me"
        shown = " ".join(screen_text(app.main.transcript).split())
    assert ran.exists()
    assert "The prompt is unchanged" in shown
    assert "exited with status 3" in shown


async def test_a_missing_editor_is_named_and_the_prompt_kept(
    mock_llm: MockLLMServer, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VISUAL", "no-such-editor-here --wait")
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"still here", "ctrl+g")
        await settle(pilot, app.main.transcript)
        assert app.main.prompt.text == "still here"
        shown = " ".join(screen_text(app.main.transcript).split())
    assert "$VISUAL is 'no-such-editor-here'" in shown


def test_without_visual_or_editor_vi_then_nano_else_both_named(tmp_path: Path) -> None:
    from gemtui.tui.external_editor import editor_command

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    env = {"PATH": str(bin_dir)}
    assert (
        editor_command(env)
        == "no editor: $VISUAL and $EDITOR are unset, and vi and nano are not installed"
    )
    nano = _editor(bin_dir, "exit 0\n").rename(bin_dir / "nano")
    assert editor_command(env) == ["nano"]
    nano.rename(bin_dir / "vi")
    assert editor_command(env) == ["vi"]
    assert editor_command({**env, "EDITOR": "vi -n"}) == ["vi", "-n"]


async def test_a_malformed_visual_is_said_and_the_prompt_kept(
    mock_llm: MockLLMServer, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``vi "unclosed`` made shlex raise and the app crash; now it is said, and the
    prompt stays as typed."""
    monkeypatch.setenv("VISUAL", 'vi "unclosed')
    app = make_app(make_session(mock_llm.url, workspace), workspace)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"still here", "ctrl+g")
        await settle(pilot, app.main.transcript)
        assert app.main.prompt.text == "still here"
        shown = " ".join(screen_text(app.main.transcript).split())
    assert "$VISUAL cannot be read as a command" in shown
