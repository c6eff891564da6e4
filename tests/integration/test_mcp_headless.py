"""`gemtui -p` with real MCP servers in config.toml: it waits for them before the first
model call, offers their tools, runs a trusted server's tool without asking, refuses an
untrusted one headless (it needs approval), and leaves no server process behind."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from gemtui.testing import MockLLMServer

from .helpers import gemtui_env, run_gemtui, write_fast_config

BIN = Path(sys.executable).parent


def _servers(trust: bool, repo: Path) -> str:
    t = "true" if trust else "false"
    return f"""
[mcpServers.time]
command = {json.dumps(str(BIN / "mcp-server-time"))}
args = ["--local-timezone", "UTC"]
trust = {t}

[mcpServers.git]
command = {json.dumps(str(BIN / "mcp-server-git"))}
args = ["--repository", {json.dumps(str(repo))}]
trust = {t}
"""


def _leftovers(repo: Path) -> list[str]:
    out = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True, check=True)
    return [line for line in out.stdout.splitlines() if str(repo) in line and "mcp-server" in line]


def _repo(workspace: Path) -> Path:
    repo = workspace / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "fresh.txt").write_text("x\n")
    return repo


def test_trusted_servers_tools_run_headless(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    repo = _repo(workspace)
    write_fast_config(isolated_home, _servers(True, repo))
    mock_llm_thread.enqueue(
        {
            "function_calls": [
                {"name": "get_current_time", "args": {"timezone": "UTC"}, "id": "t1"},
                {"name": "git_status", "args": {"repo_path": str(repo)}, "id": "g1"},
            ]
        },
        {"text": "done"},
    )
    proc = run_gemtui(
        ["-p", "what time is it", "--output-format", "stream-json"],
        env=gemtui_env(isolated_home, mock_llm_thread.url),
        cwd=workspace,
    )
    assert proc.returncode == 0, proc.stderr
    first = mock_llm_thread.requests[0].json
    offered = {d["name"] for t in first["tools"] for d in t.get("functionDeclarations", [])}
    assert {"get_current_time", "git_status"} <= offered
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    results = {line["id"]: line for line in lines if line["type"] == "tool_result"}
    assert results["t1"]["status"] == "success", results
    assert '"timezone": "UTC"' in results["t1"]["output"]
    assert results["g1"]["status"] == "success", results
    assert "fresh.txt" in results["g1"]["output"]
    assert not _leftovers(repo)


def test_untrusted_server_needs_approval_headless(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    repo = _repo(workspace)
    write_fast_config(isolated_home, _servers(False, repo))
    mock_llm_thread.enqueue(
        {"function_calls": [{"name": "get_current_time", "args": {"timezone": "UTC"}, "id": "t1"}]},
        {"text": "done"},
    )
    proc = run_gemtui(
        ["-p", "time?", "--output-format", "stream-json"],
        env=gemtui_env(isolated_home, mock_llm_thread.url),
        cwd=workspace,
    )
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    results = {line["id"]: line for line in lines if line["type"] == "tool_result"}
    assert results["t1"]["status"] == "error"
    assert results["t1"]["refusal"] == "needs_approval"
    assert not _leftovers(repo)
