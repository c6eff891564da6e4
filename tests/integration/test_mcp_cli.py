"""`gemtui mcp list|add|remove|import` edit the user's config.toml, keep its other
tables, keep Gemini CLI's keys and units (timeouts in milliseconds), and say what is wrong in one line."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

from .helpers import gemtui_env, run_gemtui, write_fast_config


def _config(home: Path) -> dict:  # type: ignore[type-arg]
    return tomllib.loads((home / "config" / "config.toml").read_text())


def test_import_add_list_remove(isolated_home: Path, workspace: Path) -> None:
    write_fast_config(isolated_home)
    env = gemtui_env(isolated_home)
    gemini = workspace / "settings.json"
    gemini.write_text(
        json.dumps(
            {
                "theme": "x",
                "mcpServers": {
                    "time": {"command": "mcp-server-time", "args": ["--local-timezone", "UTC"]},
                    "web": {"httpUrl": "http://127.0.0.1:9/mcp", "timeout": 5000, "trust": True},
                },
            }
        )
    )
    proc = run_gemtui(["mcp", "import", "--from", str(gemini)], env=env, cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    assert "Imported 2 server(s): time, web." in proc.stdout
    data = _config(isolated_home)
    assert data["network"]["max_attempts"] == 3  # the other tables are kept
    assert data["mcpServers"]["web"]["timeout"] == 5000  # Gemini CLI's unit, kept
    proc = run_gemtui(
        ["mcp", "add", "--trust", "--env", "TOKEN=$GH", "git", "mcp-server-git", "-r", "."],
        env=env,
        cwd=workspace,
    )
    assert proc.returncode == 0, proc.stderr
    git = _config(isolated_home)["mcpServers"]["git"]
    assert git == {
        "command": "mcp-server-git",
        "args": ["-r", "."],
        "env": {"TOKEN": "$GH"},
        "trust": True,
    }
    proc = run_gemtui(["mcp", "list"], env=env, cwd=workspace)
    assert proc.stdout.splitlines() == [
        "time  stdio  mcp-server-time --local-timezone UTC",
        "web  http   http://127.0.0.1:9/mcp  (trusted)",
        "git  stdio  mcp-server-git -r .  (trusted)",
    ]
    proc = run_gemtui(["mcp", "remove", "time"], env=env, cwd=workspace)
    assert proc.returncode == 0
    assert "time" not in _config(isolated_home)["mcpServers"]


def test_bad_input_is_one_line(isolated_home: Path, workspace: Path) -> None:
    env = gemtui_env(isolated_home)
    proc = run_gemtui(["mcp", "remove", "nope"], env=env, cwd=workspace)
    assert proc.returncode == 42
    assert (
        proc.stderr
        == f"gemtui: no MCP server named 'nope' in {isolated_home / 'config' / 'config.toml'}\n"
    )
    proc = run_gemtui(["mcp", "add", "x"], env=env, cwd=workspace)
    assert proc.returncode == 42
    assert "exactly one of COMMAND" in proc.stderr
    bad = workspace / "bad.json"
    bad.write_text("{nope")
    proc = run_gemtui(["mcp", "import", "--from", str(bad)], env=env, cwd=workspace)
    assert proc.returncode == 52
    assert "Traceback" not in proc.stderr
