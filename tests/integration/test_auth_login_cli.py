"""`gemtui auth login --no-browser` end to end against the mock: paste flow, status, logout."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import httpx

from gemtui.testing import MockLLMServer
from tests.support.file_keyring import BACKEND, ENV


def _env(srv: MockLLMServer, tmp_path: Path) -> dict[str, str]:
    env = dict(os.environ)
    env |= {
        "GEMTUI_OAUTH_AUTH_URL": f"{srv.url}/auth",
        "GEMTUI_OAUTH_TOKEN_URL": f"{srv.url}/token",
        "PYTHON_KEYRING_BACKEND": BACKEND,
        ENV: str(tmp_path / "keyring.json"),
        "PYTHONPATH": os.pathsep.join([str(Path.cwd()), *sys.path]),
    }
    return env


def _gemtui(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-c", "from gemtui.cli import run; run()", *args]
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=60, check=False)


def _paste_login(
    srv: MockLLMServer, env: dict[str, str], state: str | None = None
) -> tuple[int, str]:
    cmd = [
        sys.executable,
        "-c",
        "from gemtui.cli import run; run()",
        "auth",
        "login",
        "--no-browser",
    ]
    proc = subprocess.Popen(
        cmd,
        env=env,
        stdin=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stderr is not None
    assert proc.stdin is not None
    url = ""
    while not url:
        line = proc.stderr.readline()
        assert line, "gemtui ended before printing the sign-in URL"
        if line.strip().startswith("http"):
            url = line.strip()
    redirect = httpx.get(url).headers["location"]
    if state is not None:
        redirect = redirect.replace("state=", f"state={state}&x=")
    _, err = proc.communicate(redirect + "\n", timeout=60)
    return proc.returncode, err


def test_paste_login_status_logout(mock_llm_thread: MockLLMServer, tmp_path: Path) -> None:
    env = _env(mock_llm_thread, tmp_path)
    code, err = _paste_login(mock_llm_thread, env)
    assert code == 0, err
    assert "Signed in as mock-user@example.com" in err
    status = _gemtui(["auth", "status"], env)
    assert "mock-user@example.com" in status.stdout
    keyring_file = (tmp_path / "keyring.json").read_text()
    assert "refresh" in keyring_file
    out = _gemtui(["auth", "logout"], env)
    assert out.returncode == 0
    assert "google-oauth" not in (tmp_path / "keyring.json").read_text()
    assert "not signed in" in _gemtui(["auth", "status"], env).stdout


def test_paste_with_a_forged_state_exits_41(mock_llm_thread: MockLLMServer, tmp_path: Path) -> None:
    code, err = _paste_login(mock_llm_thread, _env(mock_llm_thread, tmp_path), state="forged")
    assert code == 41
    assert "state does not match" in err
    assert "Traceback" not in err
