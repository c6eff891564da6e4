"""A Google account refused for Code Assist is explained, headless, with what works instead.

Since 2026-06-18 ``loadCodeAssist`` answers a third-party client with ``ineligibleTiers``
(``reasonCode: UNSUPPORTED_CLIENT``) and only a tier that needs a Cloud project left: the
run must say Google's reason and the ways that still reach Gemini, not "set a project".
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from gemtui.testing import MockLLMServer
from gemtui.testing.mock_oauth import UNSUPPORTED_CLIENT_MESSAGE
from tests.integration.helpers import gemtui_env, run_gemtui, write_fast_config
from tests.support.file_keyring import BACKEND, ENV


def _signed_in_env(srv: MockLLMServer, tmp_path: Path) -> dict[str, str]:
    """A signed-in Google account: the mock's tokens in a real file keyring."""
    home = tmp_path / "home"
    write_fast_config(home)
    t = srv.account.grant()
    fields = {
        "access_token": t.access_token,
        "refresh_token": t.refresh_token,
        "expires_at": t.expires_at,
        "id_token": t.id_token,
        "email": t.email,
    }
    ring = tmp_path / "keyring.json"
    ring.write_text(json.dumps({"gemtui/google-oauth": json.dumps(fields)}), encoding="utf-8")
    env = gemtui_env(home, key=None)
    env |= {"CODE_ASSIST_ENDPOINT": srv.url, "PYTHON_KEYRING_BACKEND": BACKEND, ENV: str(ring)}
    env["PYTHONPATH"] = os.pathsep.join([str(Path.cwd()), *sys.path])
    return env


def _model_calls(srv: MockLLMServer) -> list[str]:
    return [r.path for r in srv.requests if "GenerateContent" in r.path]


@pytest.mark.parametrize("provider", [["--provider", "code-assist"], []])
def test_a_refused_account_exits_41_with_googles_reason_and_what_works_instead(
    mock_llm_thread: MockLLMServer, tmp_path: Path, workspace: Path, provider: list[str]
) -> None:
    srv = mock_llm_thread
    srv.account.refused = True
    srv.enqueue({"text": "never"})

    run = run_gemtui(["-p", "hi", *provider], env=_signed_in_env(srv, tmp_path), cwd=workspace)

    assert run.returncode == 41, run.stderr
    said = " ".join(run.stderr.split())
    assert UNSUPPORTED_CLIENT_MESSAGE in said
    assert "UNSUPPORTED_CLIENT" in said
    assert "export GEMINI_API_KEY=" in said
    assert "GOOGLE_GENAI_USE_VERTEXAI=true GOOGLE_CLOUD_PROJECT=" in said
    assert "Code Assist Standard or Enterprise" in said
    assert "--provider openai or anthropic" in said
    assert "needs a Google Cloud project" not in said  # the old, wrong advice
    assert _model_calls(srv) == []


def test_with_a_cloud_project_the_standard_tier_still_serves_the_refused_account(
    mock_llm_thread: MockLLMServer, tmp_path: Path, workspace: Path
) -> None:
    """Control: the same refusal for individuals, but a project is set (Code Assist
    Standard/Enterprise): the run onboards to that tier and answers."""
    srv = mock_llm_thread
    srv.account.refused = True
    srv.enqueue({"text": "Standard tier answer."})
    env = _signed_in_env(srv, tmp_path) | {"GOOGLE_CLOUD_PROJECT": "my-company-project"}

    run = run_gemtui(["-p", "hi", "--provider", "code-assist"], env=env, cwd=workspace)

    assert run.returncode == 0, run.stderr
    assert "Standard tier answer." in run.stdout
    onboard = [r.json for r in srv.requests if r.path == "/v1internal:onboardUser"]
    assert onboard
    assert onboard[0]["tierId"] == "standard-tier"
    assert onboard[0]["cloudaicompanionProject"] == "my-company-project"
    assert _model_calls(srv) == ["/v1internal:streamGenerateContent"]
