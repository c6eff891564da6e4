"""Trust covers what the person saw: the real `gemtui -p`, real git, the real hook runner.

A folder is trusted; a `git pull` then brings a hook (in ``.gemini/settings.json`` or
``.gemtui/settings.json``). The next headless start must not run it, and says so with how
to accept it; ``--trust-workspace`` accepts the new content (the hook runs, as the control
shows) and records it, so the run after that needs no flag.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from acp import PROTOCOL_VERSION

from gemtui.config.trust import TrustStore
from gemtui.testing import MockLLMServer

from .acp_client import EditorClient, acp_agent, editor_caps
from .helpers import gemtui_env, run_gemtui, write_fast_config

HOOK_FILES = (".gemini/settings.json", ".gemtui/settings.json")


def _git(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


def _hook(marker: Path) -> str:
    hook = {"type": "command", "command": f"touch {marker}; echo '{{}}'"}
    return json.dumps({"hooks": {"SessionStart": [{"hooks": [hook]}]}})


def _upstream_and_clone(tmp_path: Path) -> tuple[Path, Path]:
    """A repository whose first commit carries harmless settings, and a clone of it."""
    upstream = tmp_path / "upstream"
    (upstream / ".gemtui").mkdir(parents=True)
    (upstream / ".gemtui" / "config.toml").write_text(
        "[ui]\nshow_thoughts = false\n", encoding="utf-8"
    )
    _git(upstream, "init", "-q", "-b", "main")
    _git(upstream, "add", "-A")
    _git(upstream, "commit", "-qm", "settings")
    clone = tmp_path / "clone"
    _git(tmp_path, "clone", "-q", str(upstream), str(clone))
    return upstream, clone


def _push_hook(upstream: Path, where: str, marker: Path) -> None:
    (upstream / where).parent.mkdir(parents=True, exist_ok=True)
    (upstream / where).write_text(_hook(marker), encoding="utf-8")
    _git(upstream, "add", "-A")
    _git(upstream, "commit", "-qm", "a helpful hook")


def _start(home: Path, mock: MockLLMServer, cwd: Path, *flags: str) -> str:
    mock.enqueue({"text": "hi"})
    proc = run_gemtui(["-p", "hi", *flags], env=gemtui_env(home, mock.url), cwd=cwd)
    assert proc.returncode == 0, proc.stderr
    return proc.stderr


@pytest.mark.parametrize("where", HOOK_FILES)
def test_a_hook_pulled_into_a_trusted_folder_runs_only_once_accepted(
    mock_llm_thread: MockLLMServer, isolated_home: Path, tmp_path: Path, where: str
) -> None:
    write_fast_config(isolated_home)
    marker = tmp_path / "hook-ran"
    upstream, clone = _upstream_and_clone(tmp_path)
    TrustStore().remember(clone, True)  # the person trusts the folder as it is
    assert "ignored" not in _start(isolated_home, mock_llm_thread, clone)

    _push_hook(upstream, where, marker)
    _git(clone, "pull", "-q", "--ff-only")
    assert (clone / where).exists()

    said = _start(isolated_home, mock_llm_thread, clone)
    assert not marker.exists()
    [notice] = [line for line in said.splitlines() if "changed since you trusted it" in line]
    assert f"new: {where}" in notice
    assert "--trust-workspace" in notice

    # control: accepting the new content runs the hook, and the acceptance is remembered
    _start(isolated_home, mock_llm_thread, clone, "--trust-workspace")
    assert marker.exists()
    marker.unlink()
    said = _start(isolated_home, mock_llm_thread, clone)
    assert marker.exists()
    assert "ignored" not in said


def test_a_hook_changed_in_place_is_asked_about_again(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    """The person trusted one hook; a tool rewrites it to run something else."""
    write_fast_config(isolated_home)
    seen, planted = tmp_path / "seen-hook-ran", tmp_path / "planted-hook-ran"
    (workspace / ".gemini").mkdir()
    settings = workspace / ".gemini" / "settings.json"
    settings.write_text(_hook(seen), encoding="utf-8")
    TrustStore().remember(workspace, True)
    _start(isolated_home, mock_llm_thread, workspace)
    assert seen.exists()  # control: the hook the person saw runs without a question

    settings.write_text(_hook(planted), encoding="utf-8")
    said = _start(isolated_home, mock_llm_thread, workspace)
    assert not planted.exists()
    assert "changed: .gemini/settings.json" in said


def test_a_folder_trusted_before_records_were_kept_is_asked_once(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    """An entry written by an older gemtui has no hashes: its content was never seen."""
    write_fast_config(isolated_home)
    marker = tmp_path / "hook-ran"
    (workspace / ".gemini").mkdir()
    (workspace / ".gemini" / "settings.json").write_text(_hook(marker), encoding="utf-8")
    listing = isolated_home / "config" / "trusted_folders.json"
    listing.write_text(json.dumps({str(workspace.resolve()): "TRUST_FOLDER"}), encoding="utf-8")

    said = _start(isolated_home, mock_llm_thread, workspace)
    assert not marker.exists()
    assert "no record of what it held when it was trusted" in said
    assert "present: .gemini/settings.json" in said
    _start(isolated_home, mock_llm_thread, workspace, "--trust-workspace")
    assert marker.exists()


def test_new_settings_in_a_trusted_folder_do_not_apply_unaccepted(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    """Not only hooks: a pulled ``approval_mode = "yolo"`` stays off until accepted."""
    write_fast_config(isolated_home)
    (workspace / ".gemtui").mkdir()
    config = workspace / ".gemtui" / "config.toml"
    config.write_text("[ui]\nshow_thoughts = false\n", encoding="utf-8")
    TrustStore().remember(workspace, True)
    config.write_text('[general]\napproval_mode = "yolo"\n', encoding="utf-8")
    write = {"name": "write_file", "args": {"file_path": "out.txt", "content": "x\n"}}
    for flags in ((), ("--trust-workspace",)):
        mock_llm_thread.enqueue({"function_calls": [write]}, {"text": "done"})
        proc = run_gemtui(
            ["-p", "go", *flags], env=gemtui_env(isolated_home, mock_llm_thread.url), cwd=workspace
        )
        assert proc.returncode == 0, proc.stderr
        if not flags:
            assert not (workspace / "out.txt").exists()
            assert "changed: .gemtui/config.toml" in proc.stderr
    assert (workspace / "out.txt").read_text() == "x\n"  # control: accepted, yolo applies


async def test_acp_leaves_changed_content_out_and_tells_the_editor(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    """The editor cannot answer a trust question: like headless, the changed folder's
    settings (here a pulled yolo) stay out and the client is told why, once."""
    write_fast_config(isolated_home)
    (workspace / ".gemtui").mkdir()
    config = workspace / ".gemtui" / "config.toml"
    config.write_text('[general]\napproval_mode = "auto_edit"\n', encoding="utf-8")
    TrustStore().remember(workspace, True)
    modes = []
    for change in (False, True):
        if change:
            config.write_text('[general]\napproval_mode = "yolo"\n', encoding="utf-8")
        client = EditorClient(permission="reject_once")
        env = gemtui_env(isolated_home, mock_llm_thread.url)
        async with acp_agent(client, env=env, cwd=workspace) as (conn, _):
            await conn.initialize(
                protocol_version=PROTOCOL_VERSION, client_capabilities=editor_caps()
            )
            new = await conn.new_session(cwd=str(workspace), mcp_servers=[])
            assert new.modes is not None
            modes.append(new.modes.current_mode_id)
    assert modes == ["auto_edit", "default"]  # control: unchanged, the folder's mode applies
    assert client.text().count("changed since you trusted it") == 1
    assert "changed: .gemtui/config.toml" in client.text()


def test_a_fifo_in_place_of_hook_settings_does_not_hang_the_start(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    """Reading a FIFO named ``.gemini/settings.json`` waited forever for a writer."""
    write_fast_config(isolated_home)
    (workspace / ".gemini").mkdir()
    os.mkfifo(workspace / ".gemini" / "settings.json")
    said = _start(isolated_home, mock_llm_thread, workspace)
    assert ".gemini/settings.json (hooks)" in said
    said = _start(isolated_home, mock_llm_thread, workspace, "--trust-workspace")
    assert "not a regular file" in said
