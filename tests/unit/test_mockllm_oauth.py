"""The mock's Google sign-in and Code Assist account routes: PKCE, refresh, expiry, tiers, quota."""

from __future__ import annotations

import base64
import json
import secrets
from urllib.parse import parse_qs, urlsplit

import httpx

from gemtui.testing import MockLLMServer
from gemtui.testing.mock_oauth import s256

REDIRECT = "http://127.0.0.1:8085/oauth2callback"
CA = "/v1internal"


async def _code(client: httpx.AsyncClient, verifier: str, state: str = "st-1") -> str:
    params = {
        "response_type": "code",
        "client_id": "cid",
        "redirect_uri": REDIRECT,
        "state": state,
        "code_challenge": s256(verifier),
        "code_challenge_method": "S256",
        "access_type": "offline",
    }
    r = await client.get("/auth", params=params)
    assert r.status_code == 302
    loc = urlsplit(r.headers["location"])
    assert f"{loc.scheme}://{loc.netloc}{loc.path}" == REDIRECT
    q = parse_qs(loc.query)
    assert q["state"] == [state]
    return q["code"][0]


async def _exchange(client: httpx.AsyncClient, code: str, verifier: str) -> httpx.Response:
    form = {"grant_type": "authorization_code", "code": code, "code_verifier": verifier}
    form |= {"redirect_uri": REDIRECT, "client_id": "cid"}
    return await client.post("/token", data=form)


def _claims(jwt: str) -> dict[str, object]:
    payload = jwt.split(".")[1]
    return dict(json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4))))


async def test_pkce_code_exchange_refresh_and_expiry(mock_llm: MockLLMServer) -> None:
    mock_llm.account.require_token = True
    verifier = secrets.token_urlsafe(48)
    async with httpx.AsyncClient(base_url=mock_llm.url) as client:
        code = await _code(client, verifier)
        r = await _exchange(client, code, verifier)
        assert r.status_code == 200
        tok = r.json()
        assert tok["refresh_token"]
        assert tok["expires_in"] == 3600
        assert _claims(tok["id_token"])["email"] == "mock-user@example.com"
        bearer = {"Authorization": f"Bearer {tok['access_token']}"}
        assert (
            await client.post(f"{CA}:loadCodeAssist", json={}, headers=bearer)
        ).status_code == 200
        info = await client.get("/userinfo", headers=bearer)
        assert info.json()["email"] == "mock-user@example.com"
        # a code is good once
        assert (await _exchange(client, code, verifier)).status_code == 400
        mock_llm.account.expire_tokens()
        assert (
            await client.post(f"{CA}:loadCodeAssist", json={}, headers=bearer)
        ).status_code == 401
        form = {"grant_type": "refresh_token", "refresh_token": tok["refresh_token"]}
        fresh = (await client.post("/token", data=form)).json()
        assert fresh["access_token"] != tok["access_token"]
        bearer = {"Authorization": f"Bearer {fresh['access_token']}"}
        assert (
            await client.post(f"{CA}:loadCodeAssist", json={}, headers=bearer)
        ).status_code == 200
        mock_llm.account.revoke()
        refused = await client.post("/token", data=form)
        assert refused.status_code == 400
        assert refused.json()["error"] == "invalid_grant"


async def test_pkce_wrong_verifier_is_refused(mock_llm: MockLLMServer) -> None:
    async with httpx.AsyncClient(base_url=mock_llm.url) as client:
        code = await _code(client, "right-" + "v" * 43)
        r = await _exchange(client, code, "wrong-" + "v" * 43)
    assert r.status_code == 400
    assert r.json()["error_description"] == "PKCE failed"


async def test_no_refresh_token_and_no_email_in_id_token(mock_llm: MockLLMServer) -> None:
    mock_llm.account.issue_refresh_token = False
    mock_llm.account.id_token_email = False
    verifier = "v" * 50
    async with httpx.AsyncClient(base_url=mock_llm.url) as client:
        tok = (await _exchange(client, await _code(client, verifier), verifier)).json()
    assert "refresh_token" not in tok
    assert "email" not in _claims(tok["id_token"])


async def test_current_tier_mode(mock_llm: MockLLMServer) -> None:
    async with httpx.AsyncClient(base_url=mock_llm.url) as client:
        load = (await client.post(f"{CA}:loadCodeAssist", json={})).json()
    assert load["currentTier"]["id"] == "free-tier"
    assert load["cloudaicompanionProject"] == "mock-project"


async def test_onboarding_mode_polls_operation_to_project(mock_llm: MockLLMServer) -> None:
    mock_llm.account.onboarding = True
    mock_llm.account.operation_polls = 2
    async with httpx.AsyncClient(base_url=mock_llm.url) as client:
        load = (await client.post(f"{CA}:loadCodeAssist", json={})).json()
        assert "currentTier" not in load
        default = next(t for t in load["allowedTiers"] if t.get("isDefault"))
        op = (await client.post(f"{CA}:onboardUser", json={"tierId": default["id"]})).json()
        assert op["done"] is False
        polled = [(await client.get(f"{CA}/{op['name']}")).json() for _ in range(2)]
        assert [p["done"] for p in polled] == [False, True]
        assert polled[-1]["response"]["cloudaicompanionProject"]["id"] == "mock-project"
        after = (await client.post(f"{CA}:loadCodeAssist", json={})).json()
    assert after["currentTier"]["id"] == "free-tier"


async def test_retrieve_user_quota_and_failure(mock_llm: MockLLMServer) -> None:
    async with httpx.AsyncClient(base_url=mock_llm.url) as client:
        ok = await client.post(f"{CA}:retrieveUserQuota", json={"project": "mock-project"})
        mock_llm.account.quota_status = 500
        bad = await client.post(f"{CA}:retrieveUserQuota", json={"project": "mock-project"})
    buckets = ok.json()["buckets"]
    assert {b["modelId"] for b in buckets} == {"gemini-2.5-pro", "gemini-2.5-flash"}
    assert all(0 <= b["remainingFraction"] <= 1 and b["resetTime"] for b in buckets)
    assert bad.status_code == 500
