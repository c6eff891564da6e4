"""Sign in with Google and use Code Assist, end to end against the mock (nothing reaches Google).

The real ``gemtui`` runs in subprocesses with a real file keyring; the browser is a script
that follows the consent stand-in's redirect to the loopback callback (``BROWSER``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gemtui.testing import MockLLMServer
from gemtui.testing.script import tool_step
from tests.integration.helpers import gemtui_env, run_gemtui, write_fast_config
from tests.support.file_keyring import BACKEND, ENV

BROWSER_SCRIPT = """
import sys, httpx
httpx.get(sys.argv[1], follow_redirects=True, timeout=10)
"""


@pytest.fixture
def env(mock_llm_thread: MockLLMServer, tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "home"
    write_fast_config(home)
    browser = tmp_path / "browser"  # BROWSER names one program (webbrowser does not split it)
    browser.write_text(f"#!{sys.executable}\n{BROWSER_SCRIPT}", encoding="utf-8")
    browser.chmod(0o755)
    e = gemtui_env(home, key=None)
    e |= {
        "GEMTUI_OAUTH_AUTH_URL": f"{mock_llm_thread.url}/auth",
        "GEMTUI_OAUTH_TOKEN_URL": f"{mock_llm_thread.url}/token",
        "CODE_ASSIST_ENDPOINT": mock_llm_thread.url,
        "PYTHON_KEYRING_BACKEND": BACKEND,
        ENV: str(tmp_path / "keyring.json"),
        "BROWSER": str(browser),
        "HOME": str(tmp_path / "user"),
        "PYTHONPATH": os.pathsep.join([str(Path.cwd()), *sys.path]),
    }
    (tmp_path / "user").mkdir()
    return e


def _run(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return run_gemtui(args, env=env, cwd=cwd)


def _model_requests(srv: MockLLMServer) -> list[dict[str, object]]:
    return [
        r.json
        for r in srv.requests
        if r.path.startswith("/v1internal:") and "GenerateContent" in r.path
        and isinstance(r.json, dict)
    ]  # fmt: skip


def test_browser_login_status_prompt_refresh_logout(
    mock_llm_thread: MockLLMServer, env: dict[str, str], tmp_path: Path
) -> None:
    srv = mock_llm_thread
    work = tmp_path / "work"
    work.mkdir()
    (work / "notes.txt").write_text("alpha beta\n", encoding="utf-8")

    login = _run(["auth", "login"], env, work)
    assert login.returncode == 0, login.stderr
    assert "Signed in as mock-user@example.com" in login.stderr

    status = _run(["auth", "status"], env, work)
    assert status.returncode == 0, status.stderr
    assert "mock-user@example.com" in status.stdout
    assert "Project: mock-project" in status.stdout
    assert "Tier: free-tier" in status.stdout
    assert "Quota gemini-2.5-pro: 75% left" in status.stdout

    # a tool call, then the answer: the token dies after the first model request
    srv.account.require_token = True
    srv.account.expire_after_requests = 1 + len(_model_requests(srv))
    srv.enqueue(
        tool_step("read_file", {"file_path": "notes.txt"}),
        {"text": "The first word is alpha."},
    )
    run = _run(["-p", "first word of notes.txt?", "--provider", "code-assist"], env, work)
    assert run.returncode == 0, run.stderr
    assert "The first word is alpha." in run.stdout
    sent = _model_requests(srv)
    first, second = sent[-2], sent[-1]
    assert srv.requests[-1].path == "/v1internal:streamGenerateContent"
    assert first["model"] == "gemini-2.5-pro"  # the bare id
    assert first["project"] == "mock-project"
    assert first["user_prompt_id"]
    request = first["request"]
    assert isinstance(request, dict)
    assert request["session_id"]
    assert "contents" in request
    assert "model" not in request
    assert json.dumps(second).count("alpha beta") == 1  # the tool result reached the model
    grants = [f["grant_type"] for f in srv.account.token_requests]
    assert grants.count("refresh_token") == 1  # refreshed once, unnoticed

    logout = _run(["auth", "logout"], env, work)
    assert logout.returncode == 0
    assert "google-oauth" not in (tmp_path / "keyring.json").read_text(encoding="utf-8")
    assert "not signed in" in _run(["auth", "status"], env, work).stdout
    after = _run(["-p", "hi", "--provider", "code-assist"], env, work)
    assert after.returncode == 41
    assert "gemtui auth login" in after.stderr

    # no secret anywhere gemtui wrote or printed
    outputs = "".join(p.stdout + p.stderr for p in (login, status, run, logout, after))
    written = [
        f
        for root in (Path(env["GEMTUI_HOME"]), work, tmp_path / "user")
        for f in root.rglob("*")
        if f.is_file()
    ]
    assert written, "the run wrote no files: the scan would prove nothing"
    secrets = [s for s in srv.account.issued if s]
    assert len(secrets) >= 5  # code, access, id token, refresh token, refreshed access…
    for secret in secrets:
        assert secret not in outputs
        for f in written:
            assert secret.encode() not in f.read_bytes(), f"{f} holds a token"


def test_onboarding_polls_the_operation(
    mock_llm_thread: MockLLMServer, env: dict[str, str], tmp_path: Path
) -> None:
    srv = mock_llm_thread
    srv.account.onboarding = True
    srv.account.operation_polls = 1
    assert _run(["auth", "login"], env, tmp_path).returncode == 0
    srv.enqueue({"text": "hello"})
    run = _run(["-p", "hi", "--provider", "code-assist"], env, tmp_path)
    assert run.returncode == 0, run.stderr
    assert "Setting up your Gemini Code Assist project" in run.stderr
    paths = [r.path for r in srv.requests]
    assert "/v1internal:onboardUser" in paths
    assert sum(p.startswith("/v1internal/operations/") for p in paths) == 1
    assert _model_requests(srv)[-1]["project"] == "mock-project"


def test_google_cloud_project_wins(
    mock_llm_thread: MockLLMServer, env: dict[str, str], tmp_path: Path
) -> None:
    srv = mock_llm_thread
    assert _run(["auth", "login"], env, tmp_path).returncode == 0
    srv.enqueue({"text": "hello"})
    run = _run(
        ["-p", "hi", "--provider", "code-assist"], env | {"GOOGLE_CLOUD_PROJECT": "mine"}, tmp_path
    )
    assert run.returncode == 0, run.stderr
    load = next(r.json for r in srv.requests if r.path == "/v1internal:loadCodeAssist")
    assert isinstance(load, dict)
    assert load["cloudaicompanionProject"] == "mine"
    assert _model_requests(srv)[-1]["project"] == "mine"


def test_a_revoked_grant_says_sign_in_again(
    mock_llm_thread: MockLLMServer, env: dict[str, str], tmp_path: Path
) -> None:
    srv = mock_llm_thread
    assert _run(["auth", "login"], env, tmp_path).returncode == 0
    srv.account.require_token = True
    srv.account.revoke()
    run = _run(["-p", "hi", "--provider", "code-assist"], env, tmp_path)
    assert run.returncode == 41, run.stderr
    assert "gemtui auth login" in run.stderr
    assert "Traceback" not in run.stderr


def test_import_gemini_cli_credentials(
    mock_llm_thread: MockLLMServer, env: dict[str, str], tmp_path: Path
) -> None:
    srv = mock_llm_thread
    # a real grant from the mock, saved the way Gemini CLI saves it
    login = _run(["auth", "login"], env, tmp_path)
    assert login.returncode == 0
    saved = json.loads(json.loads((tmp_path / "keyring.json").read_text())["gemtui/google-oauth"])
    _run(["auth", "logout"], env, tmp_path)
    creds = {
        "access_token": saved["access_token"],
        "refresh_token": saved["refresh_token"],
        "id_token": saved["id_token"],
        "expiry_date": 1000,  # long expired: the first request must refresh it
        "token_type": "Bearer",
    }
    gemini = tmp_path / "user" / ".gemini"
    gemini.mkdir()
    (gemini / "oauth_creds.json").write_text(json.dumps(creds), encoding="utf-8")
    imported = _run(["auth", "login", "--import-gemini-cli"], env, tmp_path)
    assert imported.returncode == 0, imported.stderr
    assert "Signed in as mock-user@example.com" in imported.stderr
    srv.account.require_token = True
    srv.enqueue({"text": "hello from code assist"})
    run = _run(["-p", "hi", "--provider", "code-assist"], env, tmp_path)
    assert run.returncode == 0, run.stderr
    assert "hello from code assist" in run.stdout


def test_import_without_gemini_cli_file_exits_41(env: dict[str, str], tmp_path: Path) -> None:
    run = _run(["auth", "login", "--import-gemini-cli"], env, tmp_path)
    assert run.returncode == 41
    assert "No Gemini CLI sign-in found" in run.stderr


def test_a_daily_quota_on_pro_falls_back_to_flash_unconfigured(
    mock_llm_thread: MockLLMServer, env: dict[str, str], tmp_path: Path
) -> None:
    srv = mock_llm_thread
    assert _run(["auth", "login"], env, tmp_path).returncode == 0
    quota = {
        "status": 429,
        "message": "Quota exceeded for quota metric 'Gemini 2.5 Pro Requests'. "
        "Please retry in 31.5s.",
        "quota_id": "GenerateRequestsPerDayPerProjectPerModel",
    }
    srv.enqueue({"error": quota}, {"text": "answered by flash"})
    # never silently (issue 37): the built-in Pro → Flash chain switches with --fallback
    run = _run(["-p", "hi", "--provider", "code-assist", "--fallback"], env, tmp_path)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "answered by flash"
    assert "switching from gemini-2.5-pro to gemini-2.5-flash" in run.stderr
    models = [r["model"] for r in _model_requests(srv)]
    assert models == ["gemini-2.5-pro", "gemini-2.5-flash"]


def test_a_403_names_the_project_and_how_to_set_another(
    mock_llm_thread: MockLLMServer, env: dict[str, str], tmp_path: Path
) -> None:
    srv = mock_llm_thread
    assert _run(["auth", "login"], env, tmp_path).returncode == 0
    srv.enqueue({"error": {"status": 403, "message": "The caller does not have permission"}})
    run = _run(["-p", "hi", "--provider", "code-assist"], env, tmp_path)
    assert run.returncode == 41, run.stderr
    assert "Permission denied for project 'mock-project'" in run.stderr
    assert "export GOOGLE_CLOUD_PROJECT=" in run.stderr
    assert "The caller does not have permission" in run.stderr
