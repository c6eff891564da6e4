"""Reading the allowance left from a response's headers, whichever wire sent them.

OpenAI-compatible servers send ``x-ratelimit-{remaining,limit,reset}-{requests,tokens}``
with resets as Go-style durations ("6m0s", "1s", "20ms"); Anthropic sends
``anthropic-ratelimit-{requests,tokens,input-tokens,output-tokens}-{remaining,limit,reset}``
with resets as RFC 3339 instants. Both become one ``RateLimits``; a response with none of
them gives None, so a server that says nothing never shows invented figures.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Mapping
from datetime import datetime

from gemtui.bus.rate_limits import RateLimit, RateLimits

__all__ = ["RateLimitListener", "parse_go_duration", "rate_limits_from_headers"]

RateLimitListener = Callable[[RateLimits], None]
"""What a provider calls with the figures of each response that carried some."""

_OPENAI_NAMES = ("requests", "tokens")
_ANTHROPIC_NAMES = ("requests", "tokens", "input-tokens", "output-tokens")
_GO_PART = re.compile(r"(\d+(?:\.\d+)?)(ms|us|µs|ns|h|m|s)")
_UNIT_SECONDS = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "ns": 1e-9}


def parse_go_duration(text: str) -> float | None:
    """Seconds from ``6m0s``, ``1s``, ``20ms``, ``1h2m3.5s`` (None if it is not one)."""
    text = text.strip()
    if not text:
        return None
    parts = _GO_PART.findall(text)
    if not parts or "".join(n + u for n, u in parts) != text:
        try:
            return float(text)  # some servers send bare seconds
        except ValueError:
            return None
    return sum(float(n) * _UNIT_SECONDS[u] for n, u in parts)


def _seconds_until(instant: str, now: float) -> float | None:
    try:
        when = datetime.fromisoformat(instant.strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    if when.tzinfo is None:
        return None
    return max(0.0, when.timestamp() - now)


def _int(value: str | None) -> int | None:
    if value is None:
        return None
    try:
        return int(float(value.strip()))
    except ValueError:
        return None


def rate_limits_from_headers(
    headers: Mapping[str, str], provider: str, *, now: float | None = None
) -> RateLimits | None:
    """The limits ``headers`` report (names matched case-insensitively), or None."""
    lowered = {k.lower(): v for k, v in headers.items()}
    clock = time.time() if now is None else now
    found: list[RateLimit] = []
    for name in _ANTHROPIC_NAMES:
        stem = f"anthropic-ratelimit-{name}-"
        remaining, limit = _int(lowered.get(stem + "remaining")), _int(lowered.get(stem + "limit"))
        if remaining is None and limit is None:
            continue
        reset = lowered.get(stem + "reset")
        seconds = _seconds_until(reset, clock) if reset else None
        found.append(RateLimit(name, remaining, limit, seconds))
    if not found:
        for name in _OPENAI_NAMES:
            remaining = _int(lowered.get(f"x-ratelimit-remaining-{name}"))
            limit = _int(lowered.get(f"x-ratelimit-limit-{name}"))
            if remaining is None and limit is None:
                continue
            reset = lowered.get(f"x-ratelimit-reset-{name}")
            found.append(RateLimit(name, remaining, limit, parse_go_duration(reset or "")))
    return RateLimits(provider, tuple(found)) if found else None
