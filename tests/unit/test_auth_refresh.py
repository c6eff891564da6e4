"""Refresh against the mock's /token: single-flight under concurrency, 401, revoked grant."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from gemtui.auth.callback import code_from_redirect
from gemtui.auth.exchange import Tokens, exchange_code
from gemtui.auth.pkce import AuthRequest
from gemtui.auth.refresh import TokenSource
from gemtui.errors import EXIT_AUTH, FatalAuthenticationError
from gemtui.testing import MockLLMServer

REDIRECT = "http://127.0.0.1:8085/oauth2callback"


async def _signed_in(srv: MockLLMServer, client: httpx.AsyncClient) -> Tokens:
    req = AuthRequest(REDIRECT)
    r = await client.get(req.url())
    code = code_from_redirect(r.headers["location"], req.state)
    return await exchange_code(client, req, code)


@pytest.fixture
def oauth_env(mock_llm: MockLLMServer, monkeypatch: pytest.MonkeyPatch) -> MockLLMServer:
    monkeypatch.setenv("GEMTUI_OAUTH_AUTH_URL", f"{mock_llm.url}/auth")
    monkeypatch.setenv("GEMTUI_OAUTH_TOKEN_URL", f"{mock_llm.url}/token")
    mock_llm.account.require_token = True
    return mock_llm


async def test_expired_token_refreshed_once_for_many_waiters(oauth_env: MockLLMServer) -> None:
    saved: list[Tokens] = []

    async def save(t: Tokens) -> None:
        saved.append(t)

    async with httpx.AsyncClient() as client:
        tokens = await _signed_in(oauth_env, client)
        oauth_env.account.expire_tokens()
        source = TokenSource(Tokens(tokens.access_token, tokens.refresh_token, 0.0), save)
        got = await asyncio.gather(*(source.token() for _ in range(20)))
        assert len(set(got)) == 1
        assert got[0] != tokens.access_token
        assert oauth_env.account.live(got[0])
    assert source.refreshes == 1
    assert saved == [source.tokens]
    grants = [f["grant_type"] for f in oauth_env.account.token_requests]
    assert grants == ["authorization_code", "refresh_token"]


async def test_401_refreshes_once_even_when_many_saw_it(oauth_env: MockLLMServer) -> None:
    async with httpx.AsyncClient() as client:
        tokens = await _signed_in(oauth_env, client)
        source = TokenSource(tokens)
        oauth_env.account.expire_tokens()  # the server says 401, our clock says fine
        stale = await source.token()
        fresh = await asyncio.gather(*(source.rejected(stale) for _ in range(5)))
    assert len(set(fresh)) == 1
    assert source.refreshes == 1
    assert oauth_env.account.live(fresh[0])


async def test_revoked_grant_says_sign_in_again(oauth_env: MockLLMServer) -> None:
    async with httpx.AsyncClient() as client:
        tokens = await _signed_in(oauth_env, client)
        oauth_env.account.revoke()
        source = TokenSource(tokens)
        with pytest.raises(FatalAuthenticationError, match="gemtui auth login") as err:
            await source.rejected(tokens.access_token)
    assert err.value.exit_code == EXIT_AUTH
    assert tokens.refresh_token not in str(err.value)
