"""`gemtui extensions …` with Gemini CLI's gemini-extension.json: a real MCP server from
PyPI (mcp-server-time), a context file and a command join the session; disable removes them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from gemtui.testing import MockLLMServer

from .helpers import gemtui_env, run_gemtui, write_fast_config

BIN = Path(sys.executable).parent


def _extension(folder: Path, name: str = "timekeeper", version: str = "1.0.0") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    manifest = {
        "name": name,
        "version": version,
        "contextFileName": "GEMINI.md",
        "mcpServers": {
            "clock": {"command": str(BIN / "mcp-server-time"), "args": ["--local-timezone", "UTC"]}
        },
        "excludeTools": ["web_fetch"],
    }
    (folder / "gemini-extension.json").write_text(json.dumps(manifest))
    (folder / "GEMINI.md").write_text("EXT-CONTEXT-RULE: answer in UTC.\n")
    (folder / "commands").mkdir(exist_ok=True)
    (folder / "commands" / "now.toml").write_text('prompt = "EXT-COMMAND for {{args}}"\n')
    return folder


def _offered(request: Any) -> set[str]:
    return {
        d["name"] for t in request.json.get("tools", []) for d in t.get("functionDeclarations", [])
    }


def _system(request: Any) -> str:
    return "".join(p.get("text", "") for p in request.json["systemInstruction"]["parts"])


def test_install_brings_server_context_and_command_and_disable_removes_them(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    source = _extension(workspace.parent / "src-ext")
    env = gemtui_env(isolated_home, mock_llm_thread.url)
    env["HOME"] = str(isolated_home)
    proc = run_gemtui(["extensions", "install", str(source)], env=env, cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    assert "Installed timekeeper 1.0.0" in proc.stdout
    listed = run_gemtui(["extensions", "list"], env=env, cwd=workspace).stdout
    assert "timekeeper 1.0.0 (enabled)" in listed
    assert "MCP servers: clock; context: GEMINI.md; commands: yes" in listed

    mock_llm_thread.enqueue({"text": "It is noon."})
    proc = run_gemtui(["-p", "/now Paris"], env=env, cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    first = mock_llm_thread.requests[0]
    assert "get_current_time" in _offered(first)
    assert "web_fetch" not in _offered(first)
    assert "EXT-CONTEXT-RULE" in _system(first)
    assert first.json["contents"][-1]["parts"][0]["text"] == "EXT-COMMAND for Paris"

    proc = run_gemtui(["extensions", "disable", "timekeeper"], env=env, cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    mock_llm_thread.enqueue({"text": "plain"})
    proc = run_gemtui(["-p", "/now Paris"], env=env, cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    second = mock_llm_thread.requests[1]
    assert "get_current_time" not in _offered(second)
    assert "web_fetch" in _offered(second)
    assert "EXT-CONTEXT-RULE" not in _system(second)
    assert second.json["contents"][-1]["parts"][0]["text"] == "/now Paris"

    proc = run_gemtui(["extensions", "enable", "timekeeper", "--workspace"], env=env, cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    assert "(enabled)" in run_gemtui(["extensions", "list"], env=env, cwd=workspace).stdout
    assert "(disabled)" in run_gemtui(["extensions", "list"], env=env, cwd=workspace.parent).stdout

    proc = run_gemtui(["extensions", "uninstall", "timekeeper"], env=env, cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    assert (
        "No extensions installed"
        in run_gemtui(["extensions", "list"], env=env, cwd=workspace).stdout
    )


def test_link_update_git_install_import_and_bad_input(isolated_home: Path, workspace: Path) -> None:
    env = gemtui_env(isolated_home)
    env["HOME"] = str(isolated_home)
    linked = _extension(workspace.parent / "linked", name="linked")
    proc = run_gemtui(["extensions", "link", str(linked)], env=env, cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    (linked / "gemini-extension.json").write_text(
        json.dumps({"name": "linked", "version": "2.0.0"})
    )
    assert "linked 2.0.0" in run_gemtui(["extensions", "list"], env=env, cwd=workspace).stdout

    repo = _extension(workspace.parent / "repo", name="fromgit")
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run(["git", "-C", str(repo), "add", "."], check=True)
    commit = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", "commit"]
    subprocess.run([*commit, "-qm", "one"], check=True)
    proc = run_gemtui(["extensions", "install", f"file://{repo}"], env=env, cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    manifest = json.loads((repo / "gemini-extension.json").read_text())
    (repo / "gemini-extension.json").write_text(json.dumps({**manifest, "version": "1.1.0"}))
    subprocess.run([*commit, "-qam", "two"], check=True)
    proc = run_gemtui(["extensions", "update", "fromgit"], env=env, cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    assert "Updated fromgit to 1.1.0" in proc.stdout

    _extension(isolated_home / ".gemini" / "extensions" / "old", name="fromgemini")
    proc = run_gemtui(["extensions", "import"], env=env, cwd=workspace)
    assert "Imported 1: fromgemini" in proc.stdout

    for argv, why in (
        (["extensions", "install", str(workspace)], "no gemini-extension.json"),
        (["extensions", "install", str(linked)], "already installed"),
        (["extensions", "uninstall", "nope"], "no extension named 'nope'"),
        (["extensions", "bogus"], "invalid choice"),
    ):
        proc = run_gemtui(argv, env=env, cwd=workspace)
        assert proc.returncode == 42, (argv, proc.stderr)
        assert why in proc.stderr
        assert "Traceback" not in proc.stderr
    bad = workspace.parent / "bad"
    bad.mkdir()
    (bad / "gemini-extension.json").write_text('{"name": "../escape"}')
    proc = run_gemtui(["extensions", "install", str(bad)], env=env, cwd=workspace)
    assert proc.returncode == 42
    assert "'name' must be letters" in proc.stderr
