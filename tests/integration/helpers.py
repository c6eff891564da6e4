"""Running the real `gemtui` command in a subprocess against the mock server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gemtui.testing import MockLLMServer

FAST_NETWORK = """
[network]
max_attempts = 3
initial_delay = 0.01
max_delay = 0.02
read_timeout = 2.0
stream_retry_delays = [0.0, 0.0, 0.0]
"""


def gemtui_env(home: Path, url: str | None = None, key: str | None = "test-key") -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("GEMINI", "GOOGLE", "OPENAI", "ANTHROPIC"))
    }
    env["GEMTUI_HOME"] = str(home)
    env["PYTHONUNBUFFERED"] = "1"
    if key:
        env["GEMINI_API_KEY"] = key
    if url:
        env["GOOGLE_GEMINI_BASE_URL"] = url
    return env


def write_fast_config(home: Path, extra: str = "") -> None:
    cfg = home / "config"
    cfg.mkdir(parents=True, exist_ok=True)
    (cfg / "config.toml").write_text(FAST_NETWORK + extra, encoding="utf-8")


def run_gemtui(
    args: list[str],
    *,
    env: dict[str, str],
    cwd: Path,
    stdin: str | None = None,
    timeout: float = 60,
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gemtui", *args],
        env=env,
        cwd=cwd,
        input=stdin,
        stdin=None if stdin is not None else subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def popen_gemtui(args: list[str], *, env: dict[str, str], cwd: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "gemtui", *args],
        env=env,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def shell_output(
    mock: MockLLMServer, home: Path, ws: Path, command: str, *flags: str, **env: str
) -> str:
    """Run one shell command through `gemtui -p -y`; what the command printed (its result)."""
    mock.enqueue(
        {"function_calls": [{"name": "run_shell_command", "args": {"command": command}}]},
        {"text": "done"},
    )
    proc = run_gemtui(
        ["-p", "go", "-y", "--output-format", "stream-json", *flags],
        env={**gemtui_env(home, mock.url), **env},
        cwd=ws,
    )
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    [result] = [line for line in lines if line["type"] == "tool_result"]
    return str(result.get("output") or result.get("error"))
