"""``gemtui --acp`` takes the command line's ``RunOptions`` whole: ``-s`` reaches every
session it opens through the options, not through the process environment."""

from __future__ import annotations

import contextlib
import subprocess
from pathlib import Path

import pytest
from acp import PROTOCOL_VERSION, text_block

from gemtui.testing import MockLLMServer
from gemtui.testing.script import tool_step

from .acp_client import EditorClient, acp_agent, editor_caps
from .helpers import gemtui_env, run_gemtui, write_fast_config


@pytest.mark.parametrize("sandboxed", [True, False], ids=["-s", "without -s"])
async def test_the_sandbox_flag_reaches_the_editors_sessions(
    mock_llm_thread: MockLLMServer,
    isolated_home: Path,
    workspace: Path,
    tmp_path: Path,
    sandboxed: bool,
) -> None:
    """Under -s a command cannot plant a file outside the folder; without it the same
    command does (the control: the plant is real)."""
    outside = tmp_path / "outside"
    outside.mkdir()
    command = f"echo here > {workspace}/inside.txt; echo planted > {outside}/planted"
    mock_llm_thread.enqueue(tool_step("run_shell_command", {"command": command}), {"text": "ok"})
    write_fast_config(isolated_home)
    args = ("--approval-mode", "yolo", *(("-s",) if sandboxed else ()))
    client = EditorClient(permission="reject_once")
    env = gemtui_env(isolated_home, mock_llm_thread.url)
    async with acp_agent(client, env=env, cwd=workspace, args=args) as (conn, _):
        await conn.initialize(protocol_version=PROTOCOL_VERSION, client_capabilities=editor_caps())
        new = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        await conn.prompt(session_id=new.session_id, prompt=[text_block("run it")])
    assert (workspace / "inside.txt").read_text() == "here\n"
    assert (outside / "planted").exists() is not sandboxed


@pytest.mark.parametrize("acp", [True, False], ids=["acp", "control-headless"])
async def test_fallback_auto_never_switches_an_acp_session(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path, acp: bool
) -> None:
    """``fallback_auto = true`` made every ACP session move to the fallback model
    silently when the quota ran out; ACP never switches (nobody there is asked). The
    control: the same settings headless do switch (the setting is really in force)."""
    quota = {
        "status": 429,
        "message": "Quota exceeded for quota metric 'Generate requests' per day.",
        "quota_id": "GenerateRequestsPerDayPerProjectPerModel",
    }
    mock_llm_thread.enqueue({"error": quota}, {"text": "flash answers"})
    write_fast_config(isolated_home, "[general]\nfallback_auto = true\n")
    env = gemtui_env(isolated_home, mock_llm_thread.url)
    if acp:
        client = EditorClient(permission="reject_once")
        args = ("-m", "gemini-2.5-pro")
        async with acp_agent(client, env=env, cwd=workspace, args=args) as (conn, _):
            await conn.initialize(
                protocol_version=PROTOCOL_VERSION, client_capabilities=editor_caps()
            )
            new = await conn.new_session(cwd=str(workspace), mcp_servers=[])
            with contextlib.suppress(Exception):  # the quota error, said to the client
                await conn.prompt(session_id=new.session_id, prompt=[text_block("hi")])
    else:
        proc = run_gemtui(["-p", "hi", "-m", "gemini-2.5-pro"], env=env, cwd=workspace)
        assert isinstance(proc, subprocess.CompletedProcess)
    models = [r.path.rsplit("/", 1)[-1].split(":")[0] for r in mock_llm_thread.requests]
    switched = ["gemini-2.5-pro", "gemini-2.5-flash"]
    assert models == (["gemini-2.5-pro"] if acp else switched)
