"""The bubblewrap sandbox, live: each boundary tried by a real shell command in a real
`gemtui -p -y` run, once with `-s` (refused) and once without (the control: it works)."""

from __future__ import annotations

import json
import shutil
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from gemtui.testing import MockLLMServer

from .helpers import gemtui_env, run_gemtui, write_fast_config
from .helpers import shell_output as _shell


@pytest.fixture(autouse=True)
def _bwrap_installed() -> None:
    assert shutil.which("bwrap"), "bwrap is not installed: apt-get install bubblewrap"


def test_write_outside_the_workspace(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path, outside: Path
) -> None:
    write_fast_config(isolated_home)
    cmd = f"echo pwned > {outside}/x.txt; echo inside > here.txt"
    boxed = _shell(mock_llm_thread, isolated_home, workspace, cmd, "-s")
    assert not (outside / "x.txt").exists()
    assert "Read-only file system" in boxed
    assert "[sandbox]" in boxed  # the hint says why
    assert (workspace / "here.txt").read_text() == "inside\n"  # the workspace is writable
    _shell(mock_llm_thread, isolated_home, workspace, cmd)
    assert (outside / "x.txt").read_text() == "pwned\n"


def test_read_ssh_keys_and_the_session_database(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    write_fast_config(isolated_home)
    home = tmp_path / "person"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_ed25519").write_text("PRIVATE-KEY-MATERIAL\n")
    db = isolated_home / "data" / "sessions.db"
    cmd = f"cat ~/.ssh/id_ed25519; head -c 15 {db}; echo; ls {isolated_home}/config"
    # a first run creates the database; the control then reads all three
    control = _shell(mock_llm_thread, isolated_home, workspace, cmd, HOME=str(home))
    assert "PRIVATE-KEY-MATERIAL" in control
    assert "SQLite format 3" in control
    assert "config.toml" in control
    boxed = _shell(mock_llm_thread, isolated_home, workspace, cmd, "-s", HOME=str(home))
    assert "PRIVATE-KEY-MATERIAL" not in boxed
    assert "SQLite format 3" not in boxed
    assert "config.toml" not in boxed
    assert "No such file or directory" in boxed


@pytest.fixture
def listener() -> Iterator[int]:
    """A TCP server on 127.0.0.1 answering every connection with 'reached'."""
    srv = socket.create_server(("127.0.0.1", 0))
    port = srv.getsockname()[1]
    stop = threading.Event()

    def serve() -> None:
        srv.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = srv.accept()
            except TimeoutError:
                continue
            with conn:
                conn.sendall(b"reached\n")

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield port
    stop.set()
    thread.join()
    srv.close()


def test_reach_a_local_server_only_with_network_on(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path, listener: int
) -> None:
    write_fast_config(isolated_home)
    cmd = f"exec 3<>/dev/tcp/127.0.0.1/{listener} && head -n1 <&3"
    assert "reached" in _shell(mock_llm_thread, isolated_home, workspace, cmd)
    boxed = _shell(mock_llm_thread, isolated_home, workspace, cmd, "-s")
    assert "reached" not in boxed
    assert "without network" in boxed
    write_fast_config(isolated_home, "\n[tools.sandbox]\nnetwork = true\n")
    assert "reached" in _shell(mock_llm_thread, isolated_home, workspace, cmd, "-s")


def test_secrets_are_scrubbed_from_the_environment(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    cmd = "env | cut -d= -f1 | grep -E '^(GEMINI_API_KEY|DEPLOY_TOKEN|GEMTUI_HOME)$' | sed 's/^/VAR=/'; echo end"
    extra = {"DEPLOY_TOKEN": "tok-123456789"}
    control = _shell(mock_llm_thread, isolated_home, workspace, cmd, **extra)
    assert "VAR=GEMINI_API_KEY" in control
    assert "VAR=DEPLOY_TOKEN" in control
    boxed = _shell(mock_llm_thread, isolated_home, workspace, cmd, "-s", **extra)
    assert "VAR=GEMINI_API_KEY" not in boxed
    assert "VAR=DEPLOY_TOKEN" not in boxed
    assert "VAR=GEMTUI_HOME" not in boxed
    assert "end" in boxed


def test_the_setting_turns_it_on_too(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path, outside: Path
) -> None:
    write_fast_config(isolated_home, "\n[tools.sandbox]\nenabled = true\n")
    _shell(mock_llm_thread, isolated_home, workspace, f"touch {outside}/y")
    assert not (outside / "y").exists()


def test_without_bwrap_sandbox_exits_52_naming_the_package(
    isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    write_fast_config(isolated_home)
    env = {**gemtui_env(isolated_home, "http://127.0.0.1:9"), "PATH": str(tmp_path)}
    proc = run_gemtui(["-p", "hi", "-s"], env=env, cwd=workspace)
    assert proc.returncode == 52
    assert "bubblewrap" in proc.stderr
    assert "Traceback" not in proc.stderr


_WRITER = """
from pathlib import Path
from mcp.server.mcpserver import MCPServer

app = MCPServer("writer")


@app.tool()
def touch_file(path: str) -> str:
    try:
        Path(path).write_text("mcp was here\\n")
    except OSError as e:
        return f"refused: {e}"
    return "written"


app.run()
"""


def test_stdio_mcp_servers_run_in_the_sandbox_unless_mcp_false(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path, outside: Path
) -> None:
    import sys

    script = outside / "writer.py"
    script.write_text(_WRITER)
    # the interpreter and its venv may live under the hidden home (pyenv) or /tmp (a
    # clone there): shown read-only by the allow-list
    shown = json.dumps(sorted({sys.base_prefix, sys.prefix}))
    allow = f"\n[tools.sandbox]\nread_only_paths = {shown}\n"
    servers = (
        f"\n[mcpServers.writer]\ncommand = {json.dumps(sys.executable)}\n"
        f"args = [{json.dumps(str(script))}]\ntrust = true\n"
    )

    def call(target: Path, *flags: str) -> str:
        mock_llm_thread.enqueue(
            {"function_calls": [{"name": "touch_file", "args": {"path": str(target)}}]},
            {"text": "done"},
        )
        proc = run_gemtui(
            ["-p", "go", "-y", "--output-format", "stream-json", *flags],
            env=gemtui_env(isolated_home, mock_llm_thread.url),
            cwd=workspace,
        )
        assert proc.returncode == 0, proc.stderr
        lines = [json.loads(line) for line in proc.stdout.splitlines()]
        [result] = [line for line in lines if line["type"] == "tool_result"]
        return str(result.get("output") or result.get("error"))

    write_fast_config(isolated_home, servers + allow)
    assert "refused" in call(outside / "a.txt", "-s")
    assert not (outside / "a.txt").exists()
    assert "written" in call(workspace / "in.txt", "-s")
    assert (workspace / "in.txt").read_text() == "mcp was here\n"
    write_fast_config(isolated_home, servers + allow + "mcp = false\n")
    assert "written" in call(outside / "b.txt", "-s")
    assert (outside / "b.txt").exists()


def test_git_hooks_config_and_folder_settings_stay_read_only(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    """A sandboxed command must not plant what runs later outside it: a git hook, a git
    config (fsmonitor, pager) or the folder's own gemtui settings."""
    import subprocess

    write_fast_config(isolated_home)
    subprocess.run(["git", "init", "-q"], cwd=workspace, check=True)
    (workspace / ".gemtui").mkdir()
    hook = workspace / ".git" / "hooks" / "pre-commit"
    config = (workspace / ".git" / "config").read_text()
    cmd = (
        "echo 'touch /tmp/pwned' > .git/hooks/pre-commit;"
        " echo '[core]' >> .git/config; echo x > .gemtui/config.toml; echo ok > src.txt"
    )
    _shell(mock_llm_thread, isolated_home, workspace, cmd, "-s")
    assert not hook.exists()
    assert (workspace / ".git" / "config").read_text() == config
    assert not (workspace / ".gemtui" / "config.toml").exists()
    assert (workspace / "src.txt").read_text() == "ok\n"
    _shell(mock_llm_thread, isolated_home, workspace, cmd)  # the control
    assert hook.exists()
    assert (workspace / ".gemtui" / "config.toml").exists()
    assert (workspace / ".git" / "config").read_text() == config + "[core]\n"


def test_run_in_the_home_folder_itself_keeps_its_credentials_hidden(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    (workspace / ".ssh").mkdir()
    (workspace / ".ssh" / "id_ed25519").write_text("PRIVATE-KEY-MATERIAL\n")
    (workspace / ".netrc").write_text("machine x login me password NETRC-SECRET\n")
    cmd = "cat .ssh/id_ed25519 .netrc; echo end"
    control = _shell(mock_llm_thread, isolated_home, workspace, cmd, HOME=str(workspace))
    assert "PRIVATE-KEY-MATERIAL" in control
    boxed = _shell(mock_llm_thread, isolated_home, workspace, cmd, "-s", HOME=str(workspace))
    assert "PRIVATE-KEY-MATERIAL" not in boxed
    assert "NETRC-SECRET" not in boxed
    assert "end" in boxed
