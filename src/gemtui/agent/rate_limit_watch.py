"""The providers' rate limits, published for the views, and the near-limit warning.

Why here and not in the provider: the provider only reads its headers; the session
publishes what it learnt (``RateLimitsSeen``) so the status line, ``/stats`` and headless
stats read one source, and decides — before each model call (``TurnStarted`` is published
before the request leaves) — whether that call would take a limit below the warning share.
Said once per limit; said again only after the figures show the limit was refilled.
"""

from __future__ import annotations

from gemtui.bus import (
    AccountStatus,
    Event,
    EventBus,
    RateLimitNear,
    RateLimitsSeen,
    TurnStarted,
)
from gemtui.bus.rate_limits import RateLimits, short_seconds

__all__ = ["RateLimitWatch"]


class RateLimitWatch:
    """Follows the session's provider for its rate limits and warns when one is near."""

    def __init__(self, bus: EventBus, warn_below: float) -> None:
        self._bus = bus
        self.warn_below = warn_below
        """The share of a limit under which the next call is announced (0: never)."""
        self.last: RateLimits | None = None
        """The figures of the latest response that carried some."""
        self._quota: dict[str, float] = {}
        """Code Assist's share left per model (``AccountStatus``)."""
        self._warned: set[str] = set()
        """Limits already warned about, until they are refilled."""
        bus.subscribe(self._on_event)

    def bind(self, generator: object) -> None:
        """Listen to the provider inside ``generator``'s wrappers (retry, text tools)."""
        seen = 0
        while generator is not None and seen < 8:
            if hasattr(generator, "on_rate_limits"):
                generator.on_rate_limits = self._seen
                return
            generator = getattr(generator, "inner", None)
            seen += 1

    def _seen(self, limits: RateLimits) -> None:
        self.last = limits
        for lim in limits.limits:
            share = lim.fraction()
            if share is not None and share >= self.warn_below:
                self._warned.discard(f"{limits.provider} {lim.name}")  # refilled
        self._bus.emit(RateLimitsSeen, limits=limits)

    def _on_event(self, event: Event) -> None:
        if isinstance(event, TurnStarted):
            self._before_call(event.model)
        elif isinstance(event, AccountStatus) and event.quota:
            self._quota = {q.model: q.remaining for q in event.quota if q.remaining is not None}
            for model, share in self._quota.items():
                if share >= self.warn_below:
                    self._warned.discard(f"quota {model}")

    def _before_call(self, model: str) -> None:
        if self.warn_below <= 0:
            return
        if self.last is not None:
            for lim in self.last.limits:
                share = lim.after_one_request()
                key = f"{self.last.provider} {lim.name}"
                if share is None or share >= self.warn_below or key in self._warned:
                    continue
                self._warned.add(key)
                left = f"{lim.remaining:,} of {lim.limit:,}" if lim.limit else "little"
                when = (
                    f"; it resets in {short_seconds(lim.reset_seconds)}"
                    if lim.reset_seconds is not None
                    else ""
                )
                self._bus.emit(
                    RateLimitNear,
                    limit=key,
                    message=f"{self.last.provider}'s {lim.name} limit is nearly spent: "
                    f"{left} left{when}.",
                )
        share = self._quota.get(model)
        key = f"quota {model}"
        if share is not None and share < self.warn_below and key not in self._warned:
            self._warned.add(key)
            self._bus.emit(
                RateLimitNear,
                limit=key,
                message=f"The quota of {model} is nearly spent: {share:.0%} left.",
            )
