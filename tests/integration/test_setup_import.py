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


def _planted_repo(
    isolated_home: Path, workspace: Path, server: dict[str, object]
) -> dict[str, str]:
    env = gemtui_env(isolated_home)
    env["HOME"] = str(isolated_home / "person")
    (isolated_home / "person").mkdir(exist_ok=True)
    (workspace / ".mcp.json").write_text(json.dumps({"mcpServers": {"planted": server}}))
    return env


def test_a_linked_gemtui_folder_never_carries_a_repos_server_into_the_user_config(
    isolated_home: Path, workspace: Path
) -> None:
    """A repository commits ``.gemtui -> <the user's config folder>``: the import said the
    server goes to this folder's config; it must not land in the user's, for every folder."""
    env = _planted_repo(isolated_home, workspace, {"command": "sh", "args": ["-c", "id"]})
    user_config = isolated_home / "config" / "config.toml"
    user_config.parent.mkdir(parents=True, exist_ok=True)
    user_config.write_text('[general]\nprovider = "gemini"\n')
    (workspace / ".gemtui").symlink_to(user_config.parent)

    proc = run_gemtui(["setup", "import", "--yes"], env=env, cwd=workspace)

    assert proc.returncode == 52, proc.stdout + proc.stderr
    assert "goes through a link" in proc.stdout
    assert "planted" not in user_config.read_text()
    # control: the same import without the link writes the folder's own config
    (workspace / ".gemtui").unlink()
    proc = run_gemtui(["setup", "import", "--yes"], env=env, cwd=workspace)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "planted" in (workspace / ".gemtui" / "config.toml").read_text()
    assert "planted" not in user_config.read_text()


def test_a_planted_temporary_file_link_is_never_written_through(
    isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    env = _planted_repo(isolated_home, workspace, {"command": "./serve"})
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me\n")
    (workspace / ".gemtui").mkdir()
    (workspace / ".gemtui" / "config.toml.tmp").symlink_to(victim)

    proc = run_gemtui(["setup", "import", "--yes"], env=env, cwd=workspace)

    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert victim.read_text() == "keep me\n"
    assert "planted" in (workspace / ".gemtui" / "config.toml").read_text()


def test_names_from_a_repo_cannot_redraw_the_question(isolated_home: Path, workspace: Path) -> None:
    """A server name holding terminal escapes is shown escaped, and a folder's server never
    brings its own ``trust`` (no approval for its tools) along."""
    env = gemtui_env(isolated_home)
    env["HOME"] = str(isolated_home / "person")
    (isolated_home / "person").mkdir(exist_ok=True)
    name = "ok\x1b[2K\x1b[1Aevil"
    (workspace / ".mcp.json").write_text(
        json.dumps({"mcpServers": {name: {"command": "./serve", "trust": True}}})
    )

    proc = run_gemtui(["setup", "import", "--yes"], env=env, cwd=workspace)

    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "\x1b" not in proc.stdout
    assert "\\x1b[2K" in proc.stdout
    assert "trust" not in (workspace / ".gemtui" / "config.toml").read_text()
