"""Reading the allowance left from a response's headers, whichever wire sent them.

OpenAI-compatible servers send ``x-ratelimit-{remaining,limit,reset}-{requests,tokens}``
with resets as Go-style durations ("6m0s", "1s", "20ms"); Anthropic sends
``anthropic-ratelimit-{requests,tokens,input-tokens,output-tokens}-{remaining,limit,reset}``
with resets as RFC 3339 instants. Both become one ``RateLimits``; a response with none of
them gives None, so a server that says nothing never shows invented figures.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable, Mapping
from datetime import datetime

from gemtui.bus.rate_limits import RateLimit, RateLimits

__all__ = [
    "MAX_COUNT",
    "MAX_DURATION_CHARS",
    "RateLimitListener",
    "fraction",
    "parse_go_duration",
    "rate_limits_from_headers",
    "seconds_until",
]

RateLimitListener = Callable[[RateLimits], None]
"""What a provider calls with the figures of each response that carried some."""

_OPENAI_NAMES = ("requests", "tokens")
_ANTHROPIC_NAMES = ("requests", "tokens", "input-tokens", "output-tokens")
_GO_PART = re.compile(r"(\d+(?:\.\d+)?)(ms|us|µs|ns|h|m|s)")
MAX_DURATION_CHARS = 40
"""A reset longer than this is no duration (``1h2m3.5s`` is 8): a server's 16k-digit
header must cost nothing on the event loop, so it is refused before any pattern runs."""
MAX_COUNT = 10**12
"""A count above this is nonsense, not a figure to show or compute with."""
_UNIT_SECONDS = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "ns": 1e-9}


def parse_go_duration(text: str) -> float | None:
    """Seconds from ``6m0s``, ``1s``, ``20ms``, ``1h2m3.5s`` (None if it is not one)."""
    text = text.strip()
    if not text or len(text) > MAX_DURATION_CHARS:
        return None
    parts = _GO_PART.findall(text)
    if not parts or "".join(n + u for n, u in parts) != text:
        try:
            bare = float(text)  # some servers send bare seconds
        except ValueError:
            return None
        return bare if math.isfinite(bare) and bare >= 0 else None
    seconds = sum(float(n) * _UNIT_SECONDS[u] for n, u in parts)
    return seconds if math.isfinite(seconds) else None


def seconds_until(instant: str, now: float | None = None) -> float | None:
    """Seconds from ``now`` (the wall clock) to an RFC 3339 instant; None if unreadable."""
    now = time.time() if now is None else now
    try:
        when = datetime.fromisoformat(instant.strip().replace("Z", "+00:00"))
        if when.tzinfo is None:
            return None
        return max(0.0, when.timestamp() - now)
    except (ValueError, OverflowError, OSError):
        return None


def _int(value: str | None) -> int | None:
    """A count a server sent; nonsense ("inf", "-3", "abc") is no figure, never a crash."""
    if value is None or len(value) > MAX_DURATION_CHARS:
        return None
    try:
        number = int(float(value.strip()))
    except (ValueError, OverflowError):
        return None
    return number if 0 <= number <= MAX_COUNT else None


def fraction(value: object) -> float | None:
    """A share left (0 to 1) a server sent; Infinity, NaN (JSON allows both here), a
    negative or a figure above one is no share, never a crash further on."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    share = float(value)
    return share if math.isfinite(share) and 0.0 <= share <= 1.0 else None


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
        seconds = seconds_until(reset, clock) if reset else None
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
