"""The signed-in Google account of a ``code-assist`` session, published for the views.

Why here and not in the provider: the provider only speaks the wire; the session decides
when to ask for the quota (after a prompt, at most once a minute) and publishes what it
learnt as ``AccountStatus``, so the usage pane, ``/stats`` and headless read one source.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import time
from typing import TYPE_CHECKING

from gemtui.bus import AccountStatus, EventBus, ProviderProgress, QuotaShare

if TYPE_CHECKING:
    from gemtui.providers.code_assist import CodeAssistGenerator

__all__ = ["QUOTA_INTERVAL", "AccountWatch"]

QUOTA_INTERVAL = 60.0
"""Seconds between two quota look-ups (the quota moves slowly; requests are not free)."""


class AccountWatch:
    """Binds a Code Assist provider to the session and refreshes its quota in the background."""

    def __init__(self, bus: EventBus, session_id: str) -> None:
        self._bus = bus
        self._session_id = session_id
        self._provider: CodeAssistGenerator | None = None
        self._last = float("-inf")
        self._task: asyncio.Task[AccountStatus | None] | None = None
        self.last_status: AccountStatus | None = None

    def bind(self, generator: object) -> None:
        """Follow ``generator`` (the session's current one; no-op unless it is Code Assist)."""
        provider = _code_assist_of(generator)
        self._provider = provider
        self._last = float("-inf")
        if provider is not None:
            provider.session_id = self._session_id
            provider.on_progress = self._progress

    def _progress(self, text: str) -> None:
        self._bus.emit(ProviderProgress, message=text)

    @property
    def active(self) -> bool:
        return self._provider is not None

    @property
    def project(self) -> str:
        """The Code Assist project in use ("" before setup or without an account)."""
        return self._provider.account.project if self._provider is not None else ""

    def refresh_soon(self) -> None:
        """Refresh in the background unless it was done less than a minute ago (at the
        start of an interactive session and after each prompt)."""
        if self._provider is None or time.monotonic() - self._last < QUOTA_INTERVAL:
            return
        if self._task is not None and not self._task.done():
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        self._last = time.monotonic()
        self._task = loop.create_task(self.refresh())

    async def refresh(self) -> AccountStatus | None:
        """Ask the backend now and publish what it said (quota None when the call failed)."""
        provider = self._provider
        if provider is None:
            return None
        with contextlib.suppress(Exception):  # setup errors surface on the next request
            await provider.setup()
        buckets = await provider.refresh_quota()
        quota = (
            None
            if buckets is None
            else tuple(QuotaShare(b.model, b.remaining_fraction, b.reset_time) for b in buckets)
        )
        account = provider.account
        self.last_status = self._bus.emit(
            AccountStatus,
            email=account.email,
            project=account.project,
            tier=account.tier,
            quota=quota,
        )
        return self.last_status

    async def aclose(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task


def _code_assist_of(generator: object) -> CodeAssistGenerator | None:
    """The Code Assist provider inside ``generator``, without loading that provider's
    module for the others (it is part of every session's build, before the first request)."""
    if "gemtui.providers.code_assist" not in sys.modules:
        return None  # no Code Assist generator exists before its module is imported
    from gemtui.providers.code_assist import account_of

    return account_of(generator)
