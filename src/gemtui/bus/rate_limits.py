"""What a provider last said about the allowance left: one typed value for every view.

Why: OpenAI-compatible servers and Anthropic report requests and tokens left in response
headers, each in its own words; the status line, ``/stats``, the near-limit warning and
headless stats read this one shape instead (parsing lives in ``providers.rate_limits``).
"""

from __future__ import annotations

from typing import Any

from msgspec import Struct

__all__ = ["RateLimit", "RateLimits", "short_count", "short_seconds"]


class RateLimit(Struct, frozen=True):
    """One limit: how much is left of how much, and when it is full again."""

    name: str
    """``requests``, ``tokens``, ``input-tokens`` or ``output-tokens``."""
    remaining: int | None
    limit: int | None
    reset_seconds: float | None = None
    """Seconds until it is full again, as the server said it (None: not said)."""
    percent: bool = False
    """A share, not a count: ``remaining`` is a percentage of ``limit`` = 100 (Code
    Assist's quota buckets say only the share left)."""

    def left(self) -> str:
        """``5 of 50``, ``7%`` or ``unknown``: what is left, in words."""
        if self.remaining is None:
            return "unknown"
        if self.percent:
            return f"{self.remaining}%"
        return f"{self.remaining:,} of {self.limit:,}" if self.limit else f"{self.remaining:,}"

    def fraction(self) -> float | None:
        """The share left (0-1), None when the server gave no limit to measure against."""
        if self.remaining is None or not self.limit:
            return None
        return max(0.0, self.remaining / self.limit)

    def after_one_request(self) -> float | None:
        """The share left once the next call is made: a request takes one from the
        requests limit; a token count is unknown before the call, so tokens stay as said."""
        if self.remaining is None or not self.limit:
            return None
        spent = 1 if self.name == "requests" else 0
        return max(0.0, (self.remaining - spent) / self.limit)


_SHORT_NAMES = {"requests": "req", "tokens": "tok", "input-tokens": "in", "output-tokens": "out"}


class RateLimits(Struct, frozen=True):
    """Every limit one response reported, and which provider reported them."""

    provider: str
    limits: tuple[RateLimit, ...]

    def compact(self) -> str:
        """The status line's words: ``req 12/50 · tok 8k/40k · resets 20s``."""
        pieces = []
        for lim in self.limits:
            left = "?" if lim.remaining is None else short_count(lim.remaining)
            of = f"/{short_count(lim.limit)}" if lim.limit else ""
            if lim.percent:
                left, of = f"{left}%", ""
            pieces.append(f"{_SHORT_NAMES.get(lim.name, lim.name)} {left}{of}")
        resets = [lim.reset_seconds for lim in self.limits if lim.reset_seconds is not None]
        if resets:
            pieces.append(f"resets {short_seconds(min(resets))}")
        return " · ".join(pieces)

    def lines(self) -> list[str]:
        """One line per limit, for ``/stats`` and the usage pane."""
        out = []
        for lim in self.limits:
            when = (
                f", resets in {short_seconds(lim.reset_seconds)}"
                if lim.reset_seconds is not None
                else ""
            )
            out.append(f"{self.provider} {lim.name}: {lim.left()} left{when}")
        return out

    def as_stats(self) -> dict[str, Any]:
        """Headless ``json``/``stream-json`` stats: each limit by name."""
        return {
            "provider": self.provider,
            **{
                lim.name: {
                    "remaining": lim.remaining,
                    "limit": lim.limit,
                    "reset_seconds": lim.reset_seconds,
                }
                for lim in self.limits
            },
        }


def short_count(n: int) -> str:
    """``8000`` → ``8k``, ``1500000`` → ``1.5M``: status-line width."""
    if n >= 1_000_000:
        return f"{n / 1_000_000:.1f}".rstrip("0").rstrip(".") + "M"
    if n >= 10_000:
        return f"{n // 1000}k"
    if n >= 1000:
        return f"{n / 1000:.1f}".rstrip("0").rstrip(".") + "k"
    return str(n)


def short_seconds(seconds: float) -> str:
    """``0.02`` → ``20ms``, ``20`` → ``20s``, ``360`` → ``6m``, ``5400`` → ``1.5h``."""
    if seconds < 1:
        return f"{seconds * 1000:.0f}ms"
    if seconds < 90:
        return f"{seconds:.0f}s"
    if seconds < 5400:
        return f"{seconds / 60:.0f}m"
    return f"{seconds / 3600:.1f}h"
