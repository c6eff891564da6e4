"""The providers' rate limits, published for the views, and the near-limit warning.

Why here and not in the provider: the provider only reads its headers; the session
publishes what it learnt (``RateLimitsSeen``) so the status line, ``/stats`` and headless
stats read one source, and decides — before each model call (``TurnStarted`` is published
before the request leaves) — whether that call would take a limit below the warning share.
Said once per limit; said again only after the figures show the limit was refilled.
Code Assist sends no such headers: its quota bucket for the model in use (``AccountStatus``)
is the figure instead.
"""

from __future__ import annotations

from gemtui.bus import (
    AccountStatus,
    Event,
    EventBus,
    ModelChanged,
    ModelFallback,
    QuotaShare,
    RateLimitNear,
    RateLimitsSeen,
    SessionStarted,
    TurnStarted,
)
from gemtui.bus.rate_limits import RateLimit, RateLimits, short_seconds
from gemtui.providers.rate_limits import seconds_until

__all__ = ["RateLimitWatch"]


class RateLimitWatch:
    """Follows the session's provider for its rate limits and warns when one is near."""

    def __init__(self, bus: EventBus, warn_below: float) -> None:
        self._bus = bus
        self.warn_below = warn_below
        """The share of a limit under which the next call is announced (0: never)."""
        self.last: RateLimits | None = None
        """The figures of the latest response that carried some."""
        self._model = ""
        """The model the next call goes to (Code Assist's quota is per model)."""
        self._quota: dict[str, QuotaShare] = {}
        """Code Assist's quota buckets by model, as last fetched."""
        self._warned: set[str] = set()
        """Limits already warned about, until they are refilled."""
        bus.subscribe(self._on_event)

    def bind(self, generator: object) -> None:
        """Listen to the provider inside ``generator``'s wrappers (retry, text tools); the
        figures of a provider left behind no longer count."""
        self.last = None
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
        if isinstance(event, SessionStarted):
            self._model = event.model
        elif isinstance(event, ModelChanged | ModelFallback):
            self._follow(event.to_model)
        elif isinstance(event, TurnStarted) and not event.parent_id:
            self._follow(event.model)
            self._before_call()
        elif isinstance(event, TurnStarted):
            self._before_call()  # a subagent's call spends the same allowance
        elif isinstance(event, AccountStatus) and event.quota:
            self._quota = {q.model: q for q in event.quota}
            self._show_quota()

    def _follow(self, model: str) -> None:
        if model != self._model:
            self._model = model
            self._show_quota()

    def _show_quota(self) -> None:
        """The quota bucket of the model in use, as the figures shown (if it has one)."""
        share = self._quota.get(self._model)
        if share is None or share.remaining is None:
            return
        reset = seconds_until(share.resets) if share.resets else None
        pct = round(share.remaining * 100)
        self._seen(RateLimits("code-assist", (RateLimit(self._model, pct, 100, reset, True),)))

    def _before_call(self) -> None:
        if self.warn_below <= 0 or self.last is None:
            return
        for lim in self.last.limits:
            share = lim.after_one_request()
            key = f"{self.last.provider} {lim.name}"
            if share is None or share >= self.warn_below or key in self._warned:
                continue
            self._warned.add(key)
            when = (
                f"; it resets in {short_seconds(lim.reset_seconds)}"
                if lim.reset_seconds is not None
                else ""
            )
            what = f"quota of {lim.name}" if lim.percent else f"{lim.name} limit"
            self._bus.emit(
                RateLimitNear,
                limit=key,
                message=f"{self.last.provider}'s {what} is nearly spent: {lim.left()} left{when}.",
            )
