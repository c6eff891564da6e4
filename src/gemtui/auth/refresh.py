"""A live access token on demand: refreshed shortly before expiry or after a 401, once.

Why: many requests of one turn may find the token stale together; one refresh must
serve them all, and a refused refresh must say "sign in again" (exit 41).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace

import httpx

from gemtui.auth.exchange import Tokens, oauth_client
from gemtui.auth.pkce import token_url
from gemtui.errors import FatalAuthenticationError

EARLY = 300.0
"""Refresh this many seconds before the stated expiry (clock skew, long requests)."""

SIGN_IN_AGAIN = "Your Google sign-in has expired or was revoked; run `gemtui auth login`."


class TokenSource:
    """Holds the tokens; ``token()`` gives a live access token, refreshing single-flight."""

    def __init__(
        self,
        tokens: Tokens,
        save: Callable[[Tokens], Awaitable[None]] | None = None,
    ) -> None:
        self.tokens = tokens
        self._save = save
        self._lock = asyncio.Lock()
        self.refreshes = 0

    async def token(self) -> str:
        """A token good for at least ``EARLY`` seconds."""
        if self.tokens.expires_at - EARLY > time.time():
            return self.tokens.access_token
        return await self._refresh(self.tokens.access_token)

    async def rejected(self, token: str) -> str:
        """The server answered 401 to ``token``: refresh once (unless another did) and retry."""
        return await self._refresh(token)

    async def _refresh(self, stale: str) -> str:
        async with self._lock:
            if self.tokens.access_token != stale:
                return self.tokens.access_token  # someone refreshed while we waited
            from authlib.common.errors import AuthlibBaseError

            async with oauth_client() as oauth:
                try:
                    body = await oauth.refresh_token(
                        token_url(), refresh_token=self.tokens.refresh_token
                    )
                except (AuthlibBaseError, httpx.HTTPError):
                    raise FatalAuthenticationError(SIGN_IN_AGAIN) from None
            access = str(body.get("access_token") or "")
            if not access:
                raise FatalAuthenticationError(SIGN_IN_AGAIN)
            expires = time.time() + float(body.get("expires_in") or 3600)
            refresh = str(body.get("refresh_token") or self.tokens.refresh_token)
            self.tokens = replace(
                self.tokens, access_token=access, refresh_token=refresh, expires_at=expires
            )
            self.refreshes += 1
            if self._save is not None:
                await self._save(self.tokens)
            return access
