"""The sign-in request and its checks against the mock's consent stand-in and /token."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from gemtui import redact
from gemtui.auth.callback import code_from_redirect
from gemtui.auth.exchange import exchange_code
from gemtui.auth.loopback import Loopback
from gemtui.auth.pkce import AuthRequest, challenge_of
from gemtui.errors import EXIT_AUTH, FatalAuthenticationError
from gemtui.testing import MockLLMServer

REDIRECT = "http://127.0.0.1:8085/oauth2callback"


@pytest.fixture
def oauth_env(mock_llm: MockLLMServer, monkeypatch: pytest.MonkeyPatch) -> MockLLMServer:
    monkeypatch.setenv("GEMTUI_OAUTH_AUTH_URL", f"{mock_llm.url}/auth")
    monkeypatch.setenv("GEMTUI_OAUTH_TOKEN_URL", f"{mock_llm.url}/token")
    return mock_llm


async def _consent(client: httpx.AsyncClient, req: AuthRequest) -> str:
    """The scripted browser: follow the consent stand-in to the redirect, return its target."""
    r = await client.get(req.url())
    assert r.status_code == 302
    loc = urlsplit(r.headers["location"])
    return f"{loc.path}?{loc.query}"


def test_url_has_pkce_s256_state_offline_consent() -> None:
    req = AuthRequest(REDIRECT)
    q = {k: v[0] for k, v in parse_qs(urlsplit(req.url()).query).items()}
    assert q["code_challenge"] == challenge_of(req.verifier)
    assert q["code_challenge_method"] == "S256"
    assert q["state"] == req.state
    assert q["access_type"] == "offline"
    assert q["prompt"] == "consent"
    assert "userinfo.email" in q["scope"]
    assert req.verifier not in req.url()


async def test_sign_in_end_to_end_against_the_mock(oauth_env: MockLLMServer) -> None:
    req = AuthRequest(REDIRECT)
    async with httpx.AsyncClient() as client:
        code = code_from_redirect(await _consent(client, req), req.state)
        tokens = await exchange_code(client, req, code)
    assert tokens.email == "mock-user@example.com"
    assert tokens.refresh_token
    for secret in (tokens.access_token, tokens.refresh_token, tokens.id_token, code):
        assert secret not in redact.redact(f"boom {secret} boom")


async def test_a_stolen_code_without_the_verifier_is_useless(oauth_env: MockLLMServer) -> None:
    req = AuthRequest(REDIRECT)
    async with httpx.AsyncClient() as client:
        code = code_from_redirect(await _consent(client, req), req.state)
        with pytest.raises(FatalAuthenticationError, match="PKCE failed"):
            await exchange_code(client, AuthRequest(REDIRECT), code)


async def test_no_refresh_token_is_refused(oauth_env: MockLLMServer) -> None:
    oauth_env.account.issue_refresh_token = False
    req = AuthRequest(REDIRECT)
    async with httpx.AsyncClient() as client:
        code = code_from_redirect(await _consent(client, req), req.state)
        with pytest.raises(FatalAuthenticationError, match="no refresh token") as err:
            await exchange_code(client, req, code)
    assert err.value.exit_code == EXIT_AUTH


@pytest.mark.parametrize(
    ("target", "why"),
    [
        ("/oauth2callback?code=c&state=forged", "state does not match"),
        ("/oauth2callback?error=access_denied&state=s", "refused by Google: access_denied"),
        ("/oauth2callback?state=s", "no code"),
        ("/elsewhere?code=c&state=s", "not /oauth2callback"),
    ],
)
def test_bad_redirects_are_refused(target: str, why: str) -> None:
    with pytest.raises(FatalAuthenticationError, match=why):
        code_from_redirect(target, "s")


def test_pasted_url_or_bare_code() -> None:
    assert (
        code_from_redirect("http://127.0.0.1:8085/oauth2callback?code=c1&state=s", "s", pasted=True)
        == "c1"
    )
    assert code_from_redirect("  4/0Abc-def  \n", "s", pasted=True) == "4/0Abc-def"
    with pytest.raises(FatalAuthenticationError, match="no authorization code"):
        code_from_redirect("   ", "s", pasted=True)
    with pytest.raises(FatalAuthenticationError, match="state does not match"):
        code_from_redirect("http://127.0.0.1:1/oauth2callback?code=c&state=x", "s", pasted=True)


async def test_loopback_receives_the_scripted_browser(oauth_env: MockLLMServer) -> None:
    """The browser is an HTTP GET from the test to the consent URL, then to the redirect."""

    req0 = AuthRequest(REDIRECT)
    listener = Loopback(req0.state, port=0)
    await listener.start()
    try:
        req = AuthRequest(listener.redirect_uri, state=req0.state)
        async with httpx.AsyncClient(follow_redirects=True) as browser:
            page = await browser.get(req.url())
            assert page.status_code == 200
            code = await listener.code(limit=5)
            tokens = await exchange_code(browser, req, code)
    finally:
        await listener.close()
    assert tokens.email == "mock-user@example.com"


async def test_loopback_refuses_a_forged_state(oauth_env: MockLLMServer) -> None:

    listener = Loopback("the-real-state", port=0)
    await listener.start()
    try:
        async with httpx.AsyncClient() as browser:
            r = await browser.get(listener.redirect_uri, params={"code": "c", "state": "forged"})
        assert r.status_code == 400
        with pytest.raises(FatalAuthenticationError, match="state does not match"):
            await listener.code(limit=5)
    finally:
        await listener.close()


async def test_loopback_takes_a_free_port_when_8085_is_taken() -> None:

    first = Loopback("s", port=0)
    await first.start()
    taken = int(first.redirect_uri.split(":")[2].split("/")[0])
    second = Loopback("s", port=taken)
    await second.start()
    try:
        assert f":{taken}/" not in second.redirect_uri
    finally:
        await first.close()
        await second.close()


async def test_no_redirect_times_out_with_exit_41() -> None:
    listener = Loopback("s", port=0)
    await listener.start()
    try:
        with pytest.raises(FatalAuthenticationError, match="timed out") as err:
            await listener.code(limit=0.05)
    finally:
        await listener.close()
    assert err.value.exit_code == EXIT_AUTH


async def test_a_browser_that_never_returns_leaves_the_paste_open(
    oauth_env: MockLLMServer,
) -> None:
    import io

    from gemtui.auth import store
    from gemtui.auth.login import login

    opened: list[str] = []

    err = io.StringIO()

    async def paste() -> str:
        url = next(w for w in err.getvalue().split() if w.startswith("http"))
        async with httpx.AsyncClient() as client:  # the person consents on another machine
            return (await client.get(url)).headers["location"]

    tokens = await login(
        no_browser=False, browser=opened.append, paste=paste, err=err, paste_after=0.01
    )
    assert opened, "a browser was asked to open the URL"
    assert "Or paste the redirect URL" in err.getvalue()
    assert tokens.email == "mock-user@example.com"
    assert store.load() == tokens
    store.forget()
