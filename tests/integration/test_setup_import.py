"""`gemtui setup import` through the real CLI: what a Gemini CLI / Claude Code setup holds,
copied only on a yes, never a secret printed."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from .helpers import gemtui_env, run_gemtui

GITHUB_TOKEN = "ghp_SETUPIMPORTSECRET0123456789abcd"
BEARER = "sk-ant-SETUPIMPORT-SECRET-0123456789"
DOTENV_KEY = "AIzaSyDOTENV-SECRET-0123456789abcdef"


def _setup(home: Path, workspace: Path) -> tuple[dict[str, str], Path]:
    person = home / "person"
    (person / ".gemini" / "commands").mkdir(parents=True)
    (person / ".gemini" / "settings.json").write_text(
        json.dumps(
            {
                "model": {"name": "gemini-2.5-pro"},
                "mcpServers": {
                    "github": {
                        "command": "npx",
                        "args": ["gh-mcp"],
                        "env": {"GITHUB_TOKEN": GITHUB_TOKEN},
                    }
                },
                "hooks": {"BeforeTool": [{"hooks": [{"type": "command", "command": "true"}]}]},
            }
        )
    )
    (person / ".gemini" / "commands" / "commit.toml").write_text('prompt = "commit"\n')
    (person / ".gemini" / "GEMINI.md").write_text("Answer in British English.\n")
    (person / ".gemini" / ".env").write_text(f"GEMINI_API_KEY={DOTENV_KEY}\n")
    (person / ".claude.json").write_text(
        json.dumps(
            {
                "mcpServers": {
                    "docs": {
                        "type": "http",
                        "url": "https://docs.example/mcp",
                        "headers": {"Authorization": f"Bearer {BEARER}"},
                    }
                }
            }
        )
    )
    (person / ".claude" / "agents").mkdir(parents=True)
    (person / ".claude" / "agents" / "r.md").write_text("---\ndescription: d\n---\nbody\n")
    (workspace / ".claude" / "commands").mkdir(parents=True)
    (workspace / ".claude" / "commands" / "review.md").write_text("Review $ARGUMENTS\n")
    (workspace / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"local": {"command": "./serve"}}})
    )
    env = gemtui_env(home)
    env["HOME"] = str(person)
    return env, home / "config" / "config.toml"


def test_it_shows_what_it_found_and_changes_nothing_without_a_yes(
    isolated_home: Path, workspace: Path
) -> None:
    env, config = _setup(isolated_home, workspace)
    proc = run_gemtui(["setup", "import"], env=env, cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    for expected in (
        "hooks [user]",
        "commands [user]",
        "agents [user]",
        "commands [workspace]",
        "servers github",
        "servers docs",
        "servers local",
        "holds GEMINI_API_KEY",
        "Nothing changed (not a terminal)",
    ):
        assert expected in out, out
    for secret in (GITHUB_TOKEN, BEARER, DOTENV_KEY, "test-key"):
        assert secret not in out + proc.stderr
    assert not config.exists()
    assert not (isolated_home / "config" / "GEMINI.md").exists()
    assert not (workspace / ".gemtui").exists()

    proc = run_gemtui(["setup", "import", "--json"], env=env, cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["results"] == []
    assert {c["kind"] for c in data["copies"]} == {"mcp", "context"}
    for secret in (GITHUB_TOKEN, BEARER, DOTENV_KEY, "test-key"):
        assert secret not in proc.stdout
    assert not config.exists()


def test_yes_copies_the_servers_and_the_persons_instructions_once(
    isolated_home: Path, workspace: Path
) -> None:
    env, _ = _setup(isolated_home, workspace)
    proc = run_gemtui(["setup", "import", "--yes"], env=env, cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    for secret in (GITHUB_TOKEN, BEARER, DOTENV_KEY):
        assert secret not in proc.stdout + proc.stderr
    listed = run_gemtui(["mcp", "list"], env=env, cwd=workspace).stdout
    assert "github  stdio  npx gh-mcp" in listed
    assert "docs  http   https://docs.example/mcp" in listed
    assert "local" not in listed  # the folder's own server goes to the folder's config
    assert 'command = "./serve"' in (workspace / ".gemtui" / "config.toml").read_text()
    assert (isolated_home / "config" / "GEMINI.md").read_text() == "Answer in British English.\n"

    again = run_gemtui(["setup", "import"], env=env, cwd=workspace)
    assert again.returncode == 0, again.stderr
    assert "Nothing to copy" in again.stdout


def _on_a_terminal(args: list[str], env: dict[str, str], cwd: Path, answer: bytes) -> str:
    import pty

    pid, fd = pty.fork()
    if pid == 0:  # the child: become gemtui
        os.chdir(cwd)
        os.execve(sys.executable, [sys.executable, "-m", "gemtui", *args], env)
    out = b""
    answered = False
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        out += chunk
        if not answered and b"[y/N]" in out:
            os.write(fd, answer)
            answered = True
    os.waitpid(pid, 0)
    os.close(fd)
    return out.decode("utf-8", "replace")


def test_on_a_terminal_it_asks_and_only_yes_copies(isolated_home: Path, workspace: Path) -> None:
    env, config = _setup(isolated_home, workspace)
    said = _on_a_terminal(["setup", "import"], env, workspace, b"\n")  # the default is no
    assert "Copy these? [y/N]" in said
    assert "Nothing changed." in said
    assert not config.exists()
    said = _on_a_terminal(["setup", "import"], env, workspace, b"y\n")
    assert "done: MCP servers" in said
    assert "github" in config.read_text()
