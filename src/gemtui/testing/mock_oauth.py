"""Google sign-in and Code Assist account stand-ins for the mock server (127.0.0.1 only).

Why: the sign-in flow, token refresh and project discovery must be tested end to end
without Google; this holds the state the OAuth and Code Assist routes share.
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import threading
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlencode, urlsplit

if TYPE_CHECKING:
    from gemtui.auth.exchange import Tokens

MOCK_EMAIL = "mock-user@example.com"
MOCK_PROJECT = "mock-project"
CLIENT_ID_FOR_TESTS = "mock-client"
JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"
UNSUPPORTED_CLIENT_MESSAGE = (
    "This client is no longer supported for Gemini Code Assist for individuals. To keep "
    "using Gemini, use a Gemini API key, Vertex AI, or Gemini Code Assist Standard or "
    "Enterprise."
)
"""``loadCodeAssist``'s ``reasonMessage`` for a third-party client since 2026-06-18."""


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def s256(verifier: str) -> str:
    """The PKCE S256 challenge of ``verifier`` (RFC 7636 section 4.2)."""
    return _b64url(hashlib.sha256(verifier.encode()).digest())


def id_token(email: str | None, audience: str) -> str:
    """An unsigned JWT carrying ``email`` (clients read, never verify, the mock's claims)."""
    header = _b64url(json.dumps({"alg": "none", "typ": "JWT"}).encode())
    now = int(time.time())
    claims: dict[str, Any] = {"iss": "https://accounts.google.com", "aud": audience}
    claims |= {"iat": now, "exp": now + 3600, "sub": "1000001"}
    if email is not None:
        claims |= {"email": email, "email_verified": True}
    return f"{header}.{_b64url(json.dumps(claims).encode())}."


@dataclass
class _Grant:
    challenge: str
    method: str
    redirect_uri: str
    client_id: str


@dataclass
class MockAccount:
    """One Google account, its tokens and its Code Assist state, as the mock sees them."""

    email: str = MOCK_EMAIL
    project: str = MOCK_PROJECT
    tier: str = "free-tier"
    onboarding: bool = False
    """True: ``loadCodeAssist`` has no current tier until ``onboardUser`` ran."""
    require_token: bool = False
    """True: Code Assist routes answer 401 unless the Bearer token is live."""
    id_token_email: bool = True
    """False: the id_token lacks ``email``, so clients must ask ``/userinfo``."""
    issue_refresh_token: bool = True
    expires_in: int = 3600
    operation_polls: int = 0
    """How many ``GET operations/...`` answer ``done: false`` before the project."""
    expire_after_requests: int | None = None
    """Every access token expires once this many Code Assist model requests were served
    (the next request finds its token dead mid-session and must refresh)."""
    quota: list[dict[str, Any]] | None = None
    quota_status: int = 200
    refused: bool = False
    """True: Code Assist for individuals refuses this client (``UNSUPPORTED_CLIENT``)."""
    service_accounts: dict[str, bytes] = field(default_factory=dict)
    """Service-account email → PEM public key: a JWT-bearer grant must be signed by it."""
    assertions: list[dict[str, Any]] = field(default_factory=list)
    """The claims of every JWT-bearer assertion accepted (tests check iss, aud, scope)."""
    vertex_api_key: str = ""
    """Vertex AI express mode: the key ``x-goog-api-key`` must carry (empty: any)."""
    _grants: dict[str, _Grant] = field(default_factory=dict)
    _access: dict[str, float] = field(default_factory=dict)
    _refresh: set[str] = field(default_factory=set)
    _onboarded: bool = False
    _polls: dict[str, int] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    token_requests: list[dict[str, str]] = field(default_factory=list)
    issued: list[str] = field(default_factory=list)
    """Every secret handed out (codes, access, refresh and id tokens): tests grep for them."""
    model_requests: int = 0

    # -- test controls ---------------------------------------------------------------------

    def expire_tokens(self) -> None:
        """Every access token issued so far is now expired (refresh tokens stay good)."""
        with self._lock:
            self._access = dict.fromkeys(self._access, 0.0)

    def revoke(self) -> None:
        """The grant is withdrawn: refresh answers ``invalid_grant``, tokens are dead."""
        with self._lock:
            self._access.clear()
            self._refresh.clear()

    def grant(self) -> Tokens:
        """Tokens as if the person had just signed in (tests that skip the consent flow)."""
        from gemtui.auth.exchange import Tokens, email_of

        issued = self._issue(CLIENT_ID_FOR_TESTS, with_refresh=True)
        expires = time.time() + float(issued["expires_in"])
        ident = str(issued["id_token"])
        return Tokens(
            issued["access_token"], issued["refresh_token"], expires, ident, email_of(ident)
        )

    def served_model_request(self) -> None:
        """Count a model request; expire every token when ``expire_after_requests`` is hit."""
        with self._lock:
            self.model_requests += 1
            due = self.model_requests == self.expire_after_requests
        if due:
            self.expire_tokens()

    def live(self, token: str) -> bool:
        with self._lock:
            return self._access.get(token, 0.0) > time.time()

    def authorized(self, headers: dict[str, str]) -> bool:
        auth = headers.get("authorization", "")
        return auth.startswith("Bearer ") and self.live(auth.removeprefix("Bearer "))

    # -- OAuth -----------------------------------------------------------------------------

    def authorize(self, query: dict[str, str]) -> tuple[int, dict[str, str], dict[str, Any]]:
        """The consent stand-in: redirect to ``redirect_uri`` with a code and the state."""
        redirect = query.get("redirect_uri", "")
        if not redirect or query.get("response_type") != "code":
            return 400, {}, {"error": "invalid_request"}
        challenge = query.get("code_challenge", "")
        code = "mock-code-" + secrets.token_urlsafe(12)
        grant = _Grant(challenge, query.get("code_challenge_method", "plain"), redirect, "")
        grant.client_id = query.get("client_id", "")
        with self._lock:
            self._grants[code] = grant
            self.issued.append(code)
        params = {"code": code, "state": query.get("state", ""), "scope": query.get("scope", "")}
        sep = "&" if urlsplit(redirect).query else "?"
        return 302, {"Location": f"{redirect}{sep}{urlencode(params)}"}, {}

    def token(self, body: bytes) -> tuple[int, dict[str, Any]]:
        """``/token``: authorization_code (PKCE S256 checked) and refresh_token grants."""
        form = {k: v[0] for k, v in parse_qs(body.decode(errors="replace")).items()}
        with self._lock:
            self.token_requests.append(form)
        kind = form.get("grant_type")
        if kind == "authorization_code":
            with self._lock:
                grant = self._grants.pop(form.get("code", ""), None)
            if grant is None:
                return 400, {"error": "invalid_grant", "error_description": "Bad code"}
            verifier = form.get("code_verifier", "")
            if grant.method != "S256" or not verifier or s256(verifier) != grant.challenge:
                return 400, {"error": "invalid_grant", "error_description": "PKCE failed"}
            if form.get("redirect_uri") != grant.redirect_uri:
                return 400, {"error": "redirect_uri_mismatch"}
            return 200, self._issue(grant.client_id, with_refresh=self.issue_refresh_token)
        if kind == JWT_BEARER:
            claims = self._verified_assertion(form.get("assertion", ""))
            if claims is None:
                return 400, {"error": "invalid_grant", "error_description": "Invalid JWT"}
            with self._lock:
                self.assertions.append(claims)
            answer = self._issue(str(claims.get("iss", "")), with_refresh=False)
            answer.pop("id_token", None)
            return 200, answer
        if kind == "refresh_token":
            with self._lock:
                ok = form.get("refresh_token", "") in self._refresh
            if not ok:
                return 400, {"error": "invalid_grant", "error_description": "Token revoked"}
            return 200, self._issue(form.get("client_id", ""), with_refresh=False)
        return 400, {"error": "unsupported_grant_type"}

    def _issue(self, client_id: str, *, with_refresh: bool) -> dict[str, Any]:
        access = "ya29.mock-" + secrets.token_urlsafe(24)
        answer: dict[str, Any] = {
            "access_token": access,
            "expires_in": self.expires_in,
            "token_type": "Bearer",
            "scope": "openid https://www.googleapis.com/auth/cloud-platform",
        }
        answer["id_token"] = id_token(self.email if self.id_token_email else None, client_id)
        with self._lock:
            self.issued += [access, answer["id_token"]]
            self._access[access] = time.time() + self.expires_in
            if with_refresh:
                refresh = "1//mock-refresh-" + secrets.token_urlsafe(24)
                self._refresh.add(refresh)
                self.issued.append(refresh)
                answer["refresh_token"] = refresh
        return answer

    def _verified_assertion(self, assertion: str) -> dict[str, Any] | None:
        """The claims of an RS256 JWT signed by a registered service account, else None."""
        from cryptography.exceptions import InvalidSignature
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import padding, rsa

        try:
            head, body, sig = assertion.split(".")
            claims = json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))
            header = json.loads(base64.urlsafe_b64decode(head + "=" * (-len(head) % 4)))
            pem = self.service_accounts[str(claims["iss"])]
            key = serialization.load_pem_public_key(pem)
            if header.get("alg") != "RS256" or not isinstance(key, rsa.RSAPublicKey):
                return None
            signature = base64.urlsafe_b64decode(sig + "=" * (-len(sig) % 4))
            key.verify(signature, f"{head}.{body}".encode(), padding.PKCS1v15(), hashes.SHA256())
        except (ValueError, KeyError, TypeError, InvalidSignature):
            return None
        if not isinstance(claims, dict) or float(claims.get("exp", 0)) < time.time():
            return None
        return claims

    def vertex_allowed(self, headers: dict[str, str], *, project_path: bool) -> bool:
        """Vertex AI: a live Bearer token on a project path, a key in express mode."""
        if project_path:
            return self.authorized(headers)
        key = headers.get("x-goog-api-key", "")
        return bool(key) and (not self.vertex_api_key or key == self.vertex_api_key)

    def userinfo(self, headers: dict[str, str]) -> tuple[int, dict[str, Any]]:
        if not self.authorized(headers):
            return 401, {"error": "invalid_token"}
        return 200, {"email": self.email, "verified_email": True, "id": "1000001"}

    # -- Code Assist account ---------------------------------------------------------------

    def load_code_assist(self) -> dict[str, Any]:
        tiers = [
            {"id": "free-tier", "name": "Gemini Code Assist for individuals", "isDefault": True},
            {
                "id": "standard-tier",
                "name": "Gemini Code Assist",
                "userDefinedCloudaicompanionProject": True,
            },
        ]
        if self.refused:  # the shape Google answers a third-party client with
            free, standard = tiers
            standard = standard | {"isDefault": True}
            refusal = {
                "reasonCode": "UNSUPPORTED_CLIENT",
                "reasonMessage": UNSUPPORTED_CLIENT_MESSAGE,
                "tierId": free["id"],
                "tierName": free["name"],
            }
            return {"allowedTiers": [standard], "ineligibleTiers": [refusal]}
        if self.onboarding and not self._onboarded:
            return {"allowedTiers": tiers}
        current = next((t for t in tiers if t["id"] == self.tier), tiers[0])
        return {
            "currentTier": current,
            "allowedTiers": tiers,
            "cloudaicompanionProject": self.project,
        }

    def onboard(self) -> dict[str, Any]:
        name = "operations/onboard-" + secrets.token_hex(4)
        with self._lock:
            self._polls[name] = self.operation_polls
        return self.operation(name)

    def operation(self, name: str) -> dict[str, Any]:
        name = name if name.startswith("operations/") else f"operations/{name}"
        with self._lock:
            left = self._polls.get(name, 0)
            self._polls[name] = max(0, left - 1)
            if left == 0:
                self._onboarded = True
        if left > 0:
            return {"name": name, "done": False}
        project = {"id": self.project, "name": self.project}
        return {"name": name, "done": True, "response": {"cloudaicompanionProject": project}}

    def retrieve_user_quota(self) -> tuple[int, dict[str, Any]]:
        if self.quota_status != 200:
            return self.quota_status, {
                "error": {"code": self.quota_status, "message": "quota unavailable"}
            }
        if self.quota is not None:
            return 200, {"buckets": self.quota}
        reset = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + 3600))
        buckets = [
            {
                "modelId": m,
                "remainingAmount": "750",
                "remainingFraction": 0.75,
                "resetTime": reset,
                "tokenType": "REQUESTS",
            }
            for m in ("gemini-2.5-pro", "gemini-2.5-flash")
        ]
        return 200, {"buckets": buckets}
