"""Retry of model calls, on tenacity, with Gemini CLI's rules as the bar.

Retried: 429, 499, 5xx (``RetryableApiError``) and transport failures. Never retried:
400/401/403/404 and terminal quota errors (``QuotaExhaustedError``), which surface at
once so the caller can offer the fallback model. Waits double from ``initial_delay`` to
``max_delay`` with ±``jitter``; a delay the server gave wins (plus up to 20 % jitter);
a per-minute quota without a delay waits a minute. A connection this machine refused
(``NothingListeningError``: no local server on that port) is tried again only after
short waits and at most ``refused_attempts`` times, so a dead local port fails in about
a second and a half, naming what was tried. Waits are ``asyncio.sleep``, so a
cancelled task stops waiting at once. A stream is retried only until its first chunk
has been received; later failures are the chat's business.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TypeVar

from msgspec import Struct
from tenacity import AsyncRetrying, RetryCallState, retry_if_exception

from gemtui.errors import (
    ApiError,
    NothingListeningError,
    QuotaExhaustedError,
    RetryableApiError,
    StreamError,
    TransportError,
)
from gemtui.providers.base import ContentGenerator, aclose_stream
from gemtui.wire import Content, GenerateContentRequest, GenerateContentResponse, ModelInfo

__all__ = ["RetryNotice", "RetryPolicy", "RetryingGenerator", "call_with_retry", "compute_wait"]

log = logging.getLogger(__name__)

T = TypeVar("T")


class RetryPolicy(Struct, frozen=True):
    """How often and how long a model call is retried (from ``[network]``)."""

    max_attempts: int = 3
    """Attempts in all, the first included."""
    initial_delay: float = 5.0
    max_delay: float = 30.0
    jitter: float = 0.3
    """Computed waits vary by ± this share."""
    server_jitter: float = 0.2
    """A server-given delay is a floor; up to this share is added."""
    per_minute_wait: float = 60.0
    refused_delay: float = 0.5
    """First wait after a refused loopback connection (then doubled, at most 1 s)."""
    refused_attempts: int = 3
    """Attempts in all for a refused loopback connection (a server may be starting)."""


class RetryNotice(Struct, frozen=True):
    """Told to the caller before each wait, so views can show progress."""

    attempt: int
    max_attempts: int
    wait: float
    error: BaseException


def is_retryable(exc: BaseException) -> bool:
    if isinstance(exc, QuotaExhaustedError):
        return False
    return isinstance(exc, (RetryableApiError, TransportError))


def compute_wait(policy: RetryPolicy, attempt: int, exc: BaseException | None) -> float:
    """Seconds to wait before attempt ``attempt + 1``."""
    if isinstance(exc, NothingListeningError):
        return min(1.0, policy.refused_delay * (2.0 ** max(0, attempt - 1)))
    if isinstance(exc, ApiError):
        delay = exc.server_delay
        if delay is not None:
            return delay * (1 + random.uniform(0, policy.server_jitter))
        if any("PerMinute" in q for q in exc.details.quota_ids):
            return policy.per_minute_wait
    base = min(policy.max_delay, policy.initial_delay * (2.0 ** max(0, attempt - 1)))
    return max(0.0, base * (1 + random.uniform(-policy.jitter, policy.jitter)))


def _retrying(policy: RetryPolicy, on_retry: Callable[[RetryNotice], None] | None) -> AsyncRetrying:
    def wait(state: RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome else None
        return compute_wait(policy, state.attempt_number, exc)

    def before_sleep(state: RetryCallState) -> None:
        if state.outcome is None or state.next_action is None:
            return
        exc = state.outcome.exception()
        assert exc is not None
        log.warning(  # the log says what the status line said, after it is gone
            "model call failed (attempt %d of %d): %s: %s; retrying in %.1fs",
            state.attempt_number,
            policy.max_attempts,
            type(exc).__name__,
            exc,
            state.next_action.sleep,
        )
        if on_retry is None:
            return
        on_retry(
            RetryNotice(state.attempt_number, policy.max_attempts, state.next_action.sleep, exc)
        )

    def stop(state: RetryCallState) -> bool:
        exc = state.outcome.exception() if state.outcome else None
        limit = policy.refused_attempts if isinstance(exc, NothingListeningError) else 0
        return state.attempt_number >= min(policy.max_attempts, limit or policy.max_attempts)

    return AsyncRetrying(
        stop=stop,
        wait=wait,
        retry=retry_if_exception(is_retryable),
        before_sleep=before_sleep,
        reraise=True,
    )


async def call_with_retry(
    fn: Callable[[], Awaitable[T]],
    policy: RetryPolicy | None = None,
    on_retry: Callable[[RetryNotice], None] | None = None,
) -> T:
    """Await ``fn()`` until it succeeds, fails terminally or attempts run out."""
    retrying = _retrying(policy or RetryPolicy(), on_retry)
    started = time.monotonic()
    try:
        async for attempt in retrying:
            with attempt:
                return await fn()
    except NothingListeningError as exc:
        tries = int(retrying.statistics.get("attempt_number", 1))
        log.warning("model call failed for good after %d attempt(s): %s", tries, exc)
        raise NothingListeningError(
            f"{exc}; tried {tries} time{'s' * (tries > 1)} in {time.monotonic() - started:.1f}s."
            " Start the server, or point the provider's base_url at the port it listens on.",
            url=exc.url,
        ) from exc
    except Exception as exc:
        log.warning("model call failed for good: %s: %s", type(exc).__name__, exc)
        raise
    raise AssertionError("unreachable")  # pragma: no cover


class RetryingGenerator:
    """Wraps any ContentGenerator with the retry policy."""

    def __init__(
        self,
        inner: ContentGenerator,
        policy: RetryPolicy | None = None,
        on_retry: Callable[[RetryNotice], None] | None = None,
    ) -> None:
        self.inner = inner
        self.name = inner.name
        self.capabilities = inner.capabilities
        self.policy = policy or RetryPolicy()
        self.on_retry = on_retry

    async def generate(
        self, request: GenerateContentRequest, *, model: str, prompt_id: str = ""
    ) -> GenerateContentResponse:
        return await call_with_retry(
            lambda: self.inner.generate(request, model=model, prompt_id=prompt_id),
            self.policy,
            self.on_retry,
        )

    async def stream(
        self, request: GenerateContentRequest, *, model: str, prompt_id: str = ""
    ) -> AsyncIterator[GenerateContentResponse]:
        """Retry opening the stream until the first chunk arrives; then pass it through."""
        iterator: AsyncIterator[GenerateContentResponse] | None = None

        async def first_chunk() -> GenerateContentResponse | None:
            nonlocal iterator
            if iterator is not None:
                await aclose_stream(iterator)
            iterator = aiter(self.inner.stream(request, model=model, prompt_id=prompt_id))
            try:
                return await anext(iterator)
            except StopAsyncIteration:
                return None
            except StreamError:
                raise

        first = await call_with_retry(first_chunk, self.policy, self.on_retry)
        assert iterator is not None
        try:
            if first is None:
                return
            yield first
            try:
                async for chunk in iterator:
                    yield chunk
            except (TransportError, RetryableApiError) as exc:
                raise StreamError(f"stream broke after it began: {exc}") from exc
        finally:
            await aclose_stream(iterator)

    async def count_tokens(self, contents: list[Content], *, model: str) -> int:
        return await call_with_retry(
            lambda: self.inner.count_tokens(contents, model=model), self.policy, self.on_retry
        )

    async def embed(self, texts: list[str], *, model: str) -> list[list[float]]:
        return await call_with_retry(
            lambda: self.inner.embed(texts, model=model), self.policy, self.on_retry
        )

    async def list_models(self) -> list[ModelInfo]:
        return await call_with_retry(self.inner.list_models, self.policy, self.on_retry)

    async def aclose(self) -> None:
        await self.inner.aclose()
