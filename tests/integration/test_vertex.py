"""Vertex AI end to end: the real ``gemtui -p`` against the mock, credentials through google-auth.

Project mode gets its Bearer token the way Google's servers hand it out: google-auth signs
an assertion with the service-account key (made here, RSA, with ``cryptography``) and posts
it to the JSON's own ``token_uri`` — the mock, which checks the signature against the
public key. Express mode sends the key in ``x-goog-api-key`` on the project-less path.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from gemtui.testing import MockLLMServer
from gemtui.testing.mock_oauth import JWT_BEARER
from gemtui.testing.script import tool_step
from tests.integration.helpers import gemtui_env, run_gemtui, write_fast_config

SA_EMAIL = "gemtui-test@proj-x.iam.gserviceaccount.com"
PROJECT_PATH = "/v1/projects/proj-x/locations/us-central1/publishers/google/models/"
EXPRESS_PATH = "/v1/publishers/google/models/"


def _service_account(path: Path, token_uri: str) -> tuple[str, bytes]:
    """A service-account JSON signed by a fresh RSA key; (private PEM, public PEM)."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    private = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()
    public = key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    info = {
        "type": "service_account",
        "project_id": "proj-x",
        "private_key_id": "k1",
        "private_key": private,
        "client_email": SA_EMAIL,
        "client_id": "1234567890",
        "token_uri": token_uri,
    }
    path.write_text(json.dumps(info), encoding="utf-8")
    return private, public


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "gemtui-home"
    write_fast_config(home)
    return home


def _vertex_env(home: Path, tmp_path: Path, srv: MockLLMServer, **more: str) -> dict[str, str]:
    env = gemtui_env(home, key=None)
    (tmp_path / "user").mkdir(exist_ok=True)
    env |= {
        "HOME": str(tmp_path / "user"),  # no gcloud ADC file of the machine's
        "CLOUDSDK_CONFIG": str(tmp_path / "user" / "gcloud"),
        "NO_GCE_CHECK": "True",  # never probe a metadata server
        "GOOGLE_GENAI_USE_VERTEXAI": "true",
        "GOOGLE_VERTEX_BASE_URL": srv.url,
    }
    return env | more


def _model_requests(srv: MockLLMServer) -> list[Any]:
    return [r for r in srv.requests if "/publishers/google/models/" in r.path]


def _files_under(root: Path) -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file()]


def _leaks(secrets: list[str], texts: list[str], root: Path) -> list[str]:
    """Where any secret shows up: in the texts, or in any file under ``root``."""
    found = [f"output:{s[:12]}" for s in secrets for t in texts if s in t]
    for path in _files_under(root):
        data = path.read_bytes()
        found += [f"{path}:{s[:12]}" for s in secrets if s.encode() in data]
    return found


def test_project_mode_gets_a_bearer_token_from_the_service_account_json(
    mock_llm_thread: MockLLMServer, home: Path, tmp_path: Path, workspace: Path
) -> None:
    srv = mock_llm_thread
    sa = tmp_path / "sa.json"
    _private, public = _service_account(sa, f"{srv.url}/token")
    srv.account.service_accounts[SA_EMAIL] = public
    (workspace / "notes.txt").write_text("alpha beta\n", encoding="utf-8")
    srv.enqueue(tool_step("read_file", {"file_path": "notes.txt"}), {"text": "It says alpha."})
    env = _vertex_env(
        home,
        tmp_path,
        srv,
        GOOGLE_CLOUD_PROJECT="proj-x",
        GOOGLE_CLOUD_LOCATION="us-central1",
        GOOGLE_APPLICATION_CREDENTIALS=str(sa),
    )

    run = run_gemtui(["-p", "what does notes.txt say?", "-y"], env=env, cwd=workspace)

    assert run.returncode == 0, run.stderr
    assert "It says alpha." in run.stdout
    calls = _model_requests(srv)
    assert [r.path for r in calls] == [PROJECT_PATH + "gemini-2.5-pro:streamGenerateContent"] * 2
    assert all(r.query.get("alt") == "sse" for r in calls)
    assert all(srv.account.authorized(r.headers) for r in calls)
    assert all("x-goog-api-key" not in r.headers for r in calls)
    # the tool result went back in the Gemini API's own body (no Code Assist envelope)
    assert "contents" in calls[1].json
    assert "request" not in calls[1].json
    # one signed assertion to the file's own token_uri served both calls
    grants = [r for r in srv.requests if r.path == "/token"]
    assert len(grants) == 1
    assert srv.account.token_requests[0]["grant_type"] == JWT_BEARER
    (claims,) = srv.account.assertions
    assert claims["iss"] == SA_EMAIL
    assert claims["aud"] == "https://oauth2.googleapis.com/token"  # google-auth's audience
    assert "https://www.googleapis.com/auth/cloud-platform" in claims["scope"]


def test_a_key_the_token_uri_does_not_know_is_refused_with_exit_41(
    mock_llm_thread: MockLLMServer, home: Path, tmp_path: Path, workspace: Path
) -> None:
    """Control for the signature check: a JSON signed by another key gets no token."""
    srv = mock_llm_thread
    sa = tmp_path / "sa.json"
    _service_account(sa, f"{srv.url}/token")
    _other_private, other_public = _service_account(tmp_path / "other.json", "unused")
    srv.account.service_accounts[SA_EMAIL] = other_public
    srv.enqueue({"text": "never"})
    env = _vertex_env(
        home, tmp_path, srv, GOOGLE_CLOUD_PROJECT="proj-x", GOOGLE_APPLICATION_CREDENTIALS=str(sa)
    )

    run = run_gemtui(["-p", "hi"], env=env, cwd=workspace)

    assert run.returncode == 41, run.stderr
    assert "Vertex AI" in run.stderr
    assert "GOOGLE_APPLICATION_CREDENTIALS" in run.stderr
    assert not _model_requests(srv)


def test_no_private_key_or_token_lands_in_gemtui_home_or_any_output(
    mock_llm_thread: MockLLMServer, home: Path, tmp_path: Path, workspace: Path
) -> None:
    srv = mock_llm_thread
    sa = tmp_path / "sa.json"
    private, public = _service_account(sa, f"{srv.url}/token")
    srv.account.service_accounts[SA_EMAIL] = public
    srv.enqueue({"text": "Done."})
    env = _vertex_env(
        home,
        tmp_path,
        srv,
        GOOGLE_CLOUD_PROJECT="proj-x",
        GOOGLE_CLOUD_LOCATION="us-central1",
        GOOGLE_APPLICATION_CREDENTIALS=str(sa),
    )

    run = run_gemtui(["-p", "hi", "--output-format", "json"], env=env, cwd=workspace)
    status = run_gemtui(["auth", "status"], env=env, cwd=workspace)

    assert run.returncode == 0, run.stderr
    assert status.returncode == 0, status.stderr
    assert f"service account {SA_EMAIL}" in status.stdout
    key_body = "".join(private.splitlines()[1:-1])
    secrets = [key_body[:64], key_body[-64:], *srv.account.issued]
    (access,) = [t for t in srv.account.issued if t.startswith("ya29.")]
    assert _model_requests(srv)[0].headers["authorization"] == f"Bearer {access}"
    assert srv.account.authorized(_model_requests(srv)[0].headers)
    outputs = [run.stdout, run.stderr, status.stdout, status.stderr]
    assert _files_under(home), "the run wrote its session under GEMTUI_HOME"
    assert _leaks(secrets, outputs, home) == []
    # control: the same search finds a secret once one is written there
    (home / "planted.txt").write_text(access, encoding="utf-8")
    assert _leaks(secrets, outputs, home) != []


def test_express_mode_sends_the_key_in_the_header_on_the_project_less_path(
    mock_llm_thread: MockLLMServer, home: Path, tmp_path: Path, workspace: Path
) -> None:
    srv = mock_llm_thread
    srv.account.vertex_api_key = "vertex-express-key"
    srv.enqueue({"text": "Express answer."}, {"count_tokens": 7})
    env = _vertex_env(home, tmp_path, srv, GOOGLE_API_KEY="vertex-express-key")

    run = run_gemtui(["-p", "hi", "--provider", "vertex"], env=env, cwd=workspace)

    assert run.returncode == 0, run.stderr
    assert "Express answer." in run.stdout
    (call,) = [r for r in _model_requests(srv) if "GenerateContent" in r.path]
    assert call.path == EXPRESS_PATH + "gemini-2.5-pro:streamGenerateContent"
    assert call.headers["x-goog-api-key"] == "vertex-express-key"
    assert "authorization" not in call.headers
    assert "vertex-express-key" not in call.path + json.dumps(call.query)
    assert not [r for r in srv.requests if r.path == "/token"]


def test_express_mode_with_a_wrong_key_is_refused(
    mock_llm_thread: MockLLMServer, home: Path, tmp_path: Path, workspace: Path
) -> None:
    """Control: the mock's express route really checks the key."""
    srv = mock_llm_thread
    srv.account.vertex_api_key = "vertex-express-key"
    srv.enqueue({"text": "never"})
    env = _vertex_env(home, tmp_path, srv, GOOGLE_API_KEY="a-wrong-key")

    run = run_gemtui(["-p", "hi"], env=env, cwd=workspace)

    assert run.returncode != 0
    assert "never" not in run.stdout
    assert "vertex did not accept the credentials" in run.stderr


def test_vertex_without_a_project_or_key_says_the_three_variables(
    mock_llm_thread: MockLLMServer, home: Path, tmp_path: Path, workspace: Path
) -> None:
    env = _vertex_env(home, tmp_path, mock_llm_thread)

    run = run_gemtui(["-p", "hi", "--provider", "vertex"], env=env, cwd=workspace)

    assert run.returncode == 41
    for name in ("GOOGLE_CLOUD_PROJECT", "GOOGLE_CLOUD_LOCATION", "GOOGLE_API_KEY"):
        assert name in run.stderr


def test_vertex_count_tokens_uses_the_project_path(
    mock_llm_thread: MockLLMServer, home: Path, tmp_path: Path, workspace: Path
) -> None:
    """countTokens goes to Vertex with the same Bearer token (in-process, through the
    generator the assembly builds)."""
    import asyncio
    import os

    from gemtui.agent.provider_choice import resolve_provider
    from gemtui.config.settings import Settings
    from gemtui.wire import Content, Part

    srv = mock_llm_thread
    sa = tmp_path / "sa.json"
    _private, public = _service_account(sa, f"{srv.url}/token")
    srv.account.service_accounts[SA_EMAIL] = public
    srv.enqueue({"count_tokens": 42})
    env = _vertex_env(
        home,
        tmp_path,
        srv,
        GOOGLE_CLOUD_PROJECT="proj-x",
        GOOGLE_CLOUD_LOCATION="us-central1",
        GOOGLE_APPLICATION_CREDENTIALS=str(sa),
    )
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        resolved = resolve_provider(Settings())

        async def count() -> int:
            try:
                contents = [Content(role="user", parts=[Part(text="hello")])]
                return await resolved.generator.count_tokens(contents, model="gemini-2.5-pro")
            finally:
                await resolved.generator.aclose()

        assert resolved.name == "vertex"
        assert asyncio.run(count()) == 42
    finally:
        os.environ.clear()
        os.environ.update(saved)
    (call,) = _model_requests(srv)
    assert call.path == PROJECT_PATH + "gemini-2.5-pro:countTokens"
    assert srv.account.authorized(call.headers)


def test_a_token_near_its_expiry_is_refreshed_before_the_next_call(
    mock_llm_thread: MockLLMServer, home: Path, tmp_path: Path, workspace: Path
) -> None:
    """google-auth deems a token stale minutes before it expires: with tokens that live
    only 200 s every model call fetches a fresh one, and none is ever sent stale."""
    srv = mock_llm_thread
    srv.account.expires_in = 200
    sa = tmp_path / "sa.json"
    _private, public = _service_account(sa, f"{srv.url}/token")
    srv.account.service_accounts[SA_EMAIL] = public
    (workspace / "notes.txt").write_text("alpha beta\n", encoding="utf-8")
    srv.enqueue(tool_step("read_file", {"file_path": "notes.txt"}), {"text": "It says alpha."})
    env = _vertex_env(
        home, tmp_path, srv, GOOGLE_CLOUD_PROJECT="proj-x", GOOGLE_APPLICATION_CREDENTIALS=str(sa)
    )

    run = run_gemtui(["-p", "what does notes.txt say?", "-y"], env=env, cwd=workspace)

    assert run.returncode == 0, run.stderr
    calls = _model_requests(srv)
    assert len(calls) == 2
    assert len([r for r in srv.requests if r.path == "/token"]) == 2
    assert calls[0].headers["authorization"] != calls[1].headers["authorization"]
    assert all(srv.account.authorized(r.headers) for r in calls)
    # location unset: the global location's path
    assert calls[0].path.startswith("/v1/projects/proj-x/locations/global/publishers/google/")


def test_a_token_a_server_echoes_back_is_masked(
    mock_llm_thread: MockLLMServer, home: Path, tmp_path: Path, workspace: Path
) -> None:
    """A server error quoting the Authorization header shows ``[redacted]``, not the token."""
    from gemtui.testing.mockllm import RecordedRequest
    from gemtui.testing.script import error_step

    srv = mock_llm_thread
    sa = tmp_path / "sa.json"
    _private, public = _service_account(sa, f"{srv.url}/token")
    srv.account.service_accounts[SA_EMAIL] = public
    echoed: list[str] = []

    def echo(req: RecordedRequest) -> None:
        if "/publishers/google/models/" in req.path and not echoed:
            echoed.append(req.headers["authorization"])
            srv.enqueue(error_step(400, f"bad header: {req.headers['authorization']}"))

    srv.on_request = echo
    env = _vertex_env(
        home, tmp_path, srv, GOOGLE_CLOUD_PROJECT="proj-x", GOOGLE_APPLICATION_CREDENTIALS=str(sa)
    )

    run = run_gemtui(["-p", "hi"], env=env, cwd=workspace)

    assert run.returncode != 0
    assert "bad header: Bearer [redacted]" in run.stderr  # the server did quote it
    token = echoed[0].removeprefix("Bearer ")
    assert token.startswith("ya29.")
    assert _leaks([token], [run.stdout, run.stderr], home) == []


@pytest.mark.parametrize(
    ("project", "location"), [("proj-x", "evil.example/x#"), ("proj-x/../../other", "us-central1")]
)
def test_a_location_or_project_that_would_move_the_token_elsewhere_is_refused(
    mock_llm_thread: MockLLMServer,
    home: Path,
    tmp_path: Path,
    workspace: Path,
    project: str,
    location: str,
) -> None:
    """Both go into the address the Bearer token is sent to: anything but an id is refused
    before a token is asked for."""
    srv = mock_llm_thread
    sa = tmp_path / "sa.json"
    _private, public = _service_account(sa, f"{srv.url}/token")
    srv.account.service_accounts[SA_EMAIL] = public
    env = _vertex_env(home, tmp_path, srv, GOOGLE_APPLICATION_CREDENTIALS=str(sa))
    env |= {"GOOGLE_CLOUD_PROJECT": project, "GOOGLE_CLOUD_LOCATION": location}
    env.pop("GOOGLE_VERTEX_BASE_URL")  # the location decides the host

    run = run_gemtui(["-p", "hi"], env=env, cwd=workspace)

    assert run.returncode == 41, run.stderr
    assert "lower-case letters, digits and dashes" in run.stderr
    assert not [r for r in srv.requests if r.path == "/token"]
