"""`gemtui auth login --no-browser` end to end against the mock: paste flow, status, logout."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import httpx
import pytest

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
    srv: MockLLMServer, env: dict[str, str], tamper: Callable[[str], str] | None = None
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
    if tamper is not None:
        redirect = tamper(redirect)
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


def _without(param: str) -> Callable[[str], str]:
    def drop(url: str) -> str:
        parts = urlsplit(url)
        query = urlencode([(k, v) for k, v in parse_qsl(parts.query) if k != param])
        return urlunsplit(parts._replace(query=query))

    return drop


REFUSALS: dict[str, tuple[Callable[[str], str], str]] = {
    "forged state": (lambda u: u.replace("state=", "state=forged&x="), "state does not match"),
    "error parameter": (
        lambda u: u.replace("code=", "error=access_denied&x="),
        "Sign-in refused by Google: access_denied",
    ),
    "missing code": (_without("code"), "carried no code"),
    "another path": (lambda u: u.replace("/oauth2callback", "/elsewhere"), "not /oauth2callback"),
}


@pytest.mark.parametrize("case", list(REFUSALS))
def test_a_bad_redirect_is_refused_with_exit_41(
    case: str, mock_llm_thread: MockLLMServer, tmp_path: Path
) -> None:
    tamper, message = REFUSALS[case]
    code, err = _paste_login(mock_llm_thread, _env(mock_llm_thread, tmp_path), tamper)
    assert code == 41, err
    assert message in err
    assert "Traceback" not in err
    assert (
        not (tmp_path / "keyring.json").exists()
        or "google-oauth" not in (tmp_path / "keyring.json").read_text()
    )


def test_a_grant_without_a_refresh_token_is_refused(
    mock_llm_thread: MockLLMServer, tmp_path: Path
) -> None:
    mock_llm_thread.account.issue_refresh_token = False
    code, err = _paste_login(mock_llm_thread, _env(mock_llm_thread, tmp_path))
    assert code == 41
    assert "no refresh token" in err
    assert "Traceback" not in err
