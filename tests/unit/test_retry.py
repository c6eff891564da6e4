"""The retry policy: what is retried, how long it waits, and that cancel stops a wait."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator

import pytest

from gemtui.errors import (
    ApiError,
    QuotaExhaustedError,
    RetryableApiError,
    StreamError,
    TransportError,
    api_error_from_response,
)
from gemtui.providers.base import Capabilities
from gemtui.providers.retry import (
    RetryingGenerator,
    RetryNotice,
    RetryPolicy,
    call_with_retry,
    compute_wait,
)
from gemtui.wire import GenerateContentResponse

FAST = RetryPolicy(max_attempts=3, initial_delay=0.01, max_delay=0.02)


async def test_retries_retryable_then_succeeds() -> None:
    calls = 0
    notices: list[RetryNotice] = []

    async def fn() -> str:
        nonlocal calls
        calls += 1
        if calls < 3:
            raise RetryableApiError(503, "busy")
        return "ok"

    assert await call_with_retry(fn, FAST, notices.append) == "ok"
    assert calls == 3
    assert [n.attempt for n in notices] == [1, 2]


@pytest.mark.parametrize("status", [400, 401, 403, 404])
async def test_never_retries_client_errors(status: int) -> None:
    calls = 0

    async def fn() -> None:
        nonlocal calls
        calls += 1
        raise api_error_from_response(status, "{}")

    with pytest.raises(ApiError):
        await call_with_retry(fn, FAST)
    assert calls == 1


async def test_terminal_quota_is_not_retried() -> None:
    calls = 0

    async def fn() -> None:
        nonlocal calls
        calls += 1
        raise QuotaExhaustedError(429, "daily")

    with pytest.raises(QuotaExhaustedError):
        await call_with_retry(fn, FAST)
    assert calls == 1


async def test_gives_up_after_max_attempts_with_the_last_error() -> None:
    async def fn() -> None:
        raise TransportError("reset")

    with pytest.raises(TransportError):
        await call_with_retry(fn, FAST)


def test_backoff_doubles_with_jitter_and_caps() -> None:
    policy = RetryPolicy()
    for attempt, base in [(1, 5), (2, 10), (3, 20), (4, 30), (6, 30)]:
        for _ in range(20):
            wait = compute_wait(policy, attempt, RetryableApiError(500, "x"))
            assert base * 0.7 <= wait <= base * 1.3


def test_server_delay_wins_over_computed_backoff() -> None:
    err = api_error_from_response(
        429,
        '{"error": {"message": "m", "details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "0.5s"}]}}',
    )
    for _ in range(20):
        assert 0.5 <= compute_wait(RetryPolicy(), 1, err) <= 0.6
    per_minute = api_error_from_response(
        429,
        '{"error": {"message": "m", "details": [{"@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": [{"quotaId": "RequestsPerMinute"}]}]}}',
    )
    assert compute_wait(RetryPolicy(), 1, per_minute) == 60.0


async def test_cancel_interrupts_a_wait_at_once() -> None:
    started = asyncio.Event()

    async def fn() -> None:
        started.set()
        raise RetryableApiError(503, "busy")

    slow = RetryPolicy(max_attempts=3, initial_delay=1000, max_delay=1000)
    task = asyncio.create_task(call_with_retry(fn, slow))
    await started.wait()
    await asyncio.sleep(0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, timeout=5)


class _FlakyStream:
    name = "flaky"
    capabilities = Capabilities()

    def __init__(self, failures_before_first: int, break_after_first: bool = False) -> None:
        self.failures = failures_before_first
        self.break_after_first = break_after_first
        self.opened = 0

    async def stream(
        self, request: object, *, model: str, prompt_id: str = ""
    ) -> AsyncIterator[GenerateContentResponse]:
        self.opened += 1
        if self.failures > 0:
            self.failures -= 1
            raise TransportError("reset before first byte")
        yield GenerateContentResponse.model_validate(
            {"candidates": [{"content": {"role": "model", "parts": [{"text": "a"}]}}]}
        )
        if self.break_after_first:
            raise TransportError("reset after first chunk")
        yield GenerateContentResponse.model_validate(
            {
                "candidates": [
                    {"content": {"role": "model", "parts": [{"text": "b"}]}, "finishReason": "STOP"}
                ]
            }
        )

    async def aclose(self) -> None:
        return None


async def test_stream_is_retried_before_its_first_chunk() -> None:
    inner = _FlakyStream(failures_before_first=2)
    gen = RetryingGenerator(inner, FAST)  # type: ignore[arg-type]
    chunks = [c async for c in gen.stream(None, model="m")]  # type: ignore[arg-type]
    assert len(chunks) == 2
    assert inner.opened == 3


async def test_stream_is_not_retried_after_its_first_chunk() -> None:
    inner = _FlakyStream(failures_before_first=0, break_after_first=True)
    gen = RetryingGenerator(inner, FAST)  # type: ignore[arg-type]
    got = []

    async def drain() -> None:
        async for c in gen.stream(None, model="m"):  # type: ignore[arg-type]
            got.append(c)

    with pytest.raises(StreamError):
        await drain()
    assert len(got) == 1
    assert inner.opened == 1


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


async def test_retries_and_the_final_failure_are_logged() -> None:
    async def fn() -> None:
        raise RetryableApiError(503, "busy")

    # A handler on the module's own logger: gemtui's log set-up (another test may have
    # run it) stops propagation to the root logger that caplog listens on.
    logger = logging.getLogger("gemtui.providers.retry")
    seen = _Records()
    logger.addHandler(seen)
    level = logger.level
    logger.setLevel(logging.WARNING)
    try:
        with pytest.raises(ApiError):
            await call_with_retry(fn, FAST)
    finally:
        logger.removeHandler(seen)
        logger.setLevel(level)
    messages = [r.getMessage() for r in seen.records]
    assert sum("retrying in" in m for m in messages) == 2
    assert "(attempt 1 of 3)" in messages[0]
    assert "busy" in messages[0]
    assert "failed for good" in messages[-1]
