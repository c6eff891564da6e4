"""The near-limit warning on the real bus: before the call, once per limit until it is
refilled; Code Assist's quota bucket for the model in use counts as a limit too."""

from __future__ import annotations

from gemtui.agent.rate_limit_watch import RateLimitWatch
from gemtui.bus import (
    AccountStatus,
    Event,
    EventBus,
    QuotaShare,
    RateLimitNear,
    RateLimitsSeen,
    SessionStarted,
    TurnStarted,
)
from gemtui.bus.rate_limits import RateLimit, RateLimits


class _Provider:
    """Stands for a provider: the watch sets its listener (no model API involved)."""

    def __init__(self) -> None:
        self.on_rate_limits: object = None


class _Wrapper:
    def __init__(self, inner: object) -> None:
        self.inner = inner


def _watch(warn_below: float = 0.1) -> tuple[EventBus, RateLimitWatch, list[Event]]:
    bus = EventBus("s")
    seen: list[Event] = []
    bus.subscribe(seen.append)
    return bus, RateLimitWatch(bus, warn_below), seen


def _requests(left: int) -> RateLimits:
    return RateLimits("openai", (RateLimit("requests", left, 50, 20.0),))


def _warnings(seen: list[Event]) -> list[str]:
    return [e.message for e in seen if isinstance(e, RateLimitNear)]


def test_the_listener_reaches_the_provider_inside_its_wrappers() -> None:
    _bus, watch, seen = _watch()
    provider = _Provider()
    watch.bind(_Wrapper(_Wrapper(provider)))
    assert callable(provider.on_rate_limits)
    provider.on_rate_limits(_requests(30))  # type: ignore[operator]
    assert [e.limits for e in seen if isinstance(e, RateLimitsSeen)] == [_requests(30)]


def test_warned_before_the_call_once_until_refilled() -> None:
    bus, watch, seen = _watch()
    watch._seen(_requests(6))  # the next call leaves 5 of 50: 10 %, not below
    bus.emit(TurnStarted, turn=1, model="m")
    assert _warnings(seen) == []
    watch._seen(_requests(5))
    bus.emit(TurnStarted, turn=2, model="m")
    assert _warnings(seen) == [
        "openai's requests limit is nearly spent: 5 of 50 left; it resets in 20s."
    ]
    warned_at = next(i for i, e in enumerate(seen) if isinstance(e, RateLimitNear))
    assert isinstance(seen[warned_at - 1], TurnStarted)  # said as the call starts, before it
    watch._seen(_requests(4))
    bus.emit(TurnStarted, turn=3, model="m")
    assert len(_warnings(seen)) == 1
    watch._seen(_requests(50))  # refilled
    watch._seen(_requests(2))
    bus.emit(TurnStarted, turn=4, model="m")
    assert len(_warnings(seen)) == 2


def test_code_assist_quota_of_the_model_in_use() -> None:
    bus, _watch_kept, seen = _watch()
    bus.emit(SessionStarted, provider="code-assist", model="gemini-2.5-pro", workspace="/w")
    quota = (QuotaShare("gemini-2.5-pro", 0.07), QuotaShare("gemini-2.5-flash", 0.9))
    bus.emit(AccountStatus, email="a@b", project="p", tier="free", quota=quota)
    shown = [e.limits for e in seen if isinstance(e, RateLimitsSeen)]
    assert shown[-1].compact() == "gemini-2.5-pro 7%"
    bus.emit(TurnStarted, turn=1, model="gemini-2.5-pro")
    bus.emit(TurnStarted, turn=2, model="gemini-2.5-pro")
    assert _warnings(seen) == ["code-assist's quota of gemini-2.5-pro is nearly spent: 7% left."]
    bus.emit(TurnStarted, turn=3, model="gemini-2.5-flash")  # plenty left there
    assert len(_warnings(seen)) == 1
    assert [e.limits for e in seen if isinstance(e, RateLimitsSeen)][-1].compact() == (
        "gemini-2.5-flash 90%"
    )


def test_warn_below_zero_is_silent() -> None:
    bus, watch, seen = _watch(0.0)
    watch._seen(_requests(1))
    bus.emit(TurnStarted, turn=1, model="m")
    assert _warnings(seen) == []
