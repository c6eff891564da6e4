"""Reading the allowance left from headers: each wire's names and formats, and a server's
nonsense turned into "not said", never into a crash or an invented figure."""

from __future__ import annotations

import pytest

from gemtui.bus.rate_limits import RateLimit, RateLimits
from gemtui.providers.rate_limits import parse_go_duration, rate_limits_from_headers

NOW = 1_900_000_000.0


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("6m0s", 360.0), ("1s", 1.0), ("20ms", 0.02), ("1h2m3.5s", 3723.5), ("17", 17.0)],
)
def test_openai_durations(text: str, seconds: float) -> None:
    assert parse_go_duration(text) == pytest.approx(seconds)


@pytest.mark.parametrize("text", ["", "soon", "inf", "-3", "nan", "1e400", "6m0sx"])
def test_a_duration_that_is_none(text: str) -> None:
    assert parse_go_duration(text) is None


def test_openai_headers_any_case() -> None:
    got = rate_limits_from_headers(
        {
            "X-RateLimit-Limit-Requests": "50",
            "x-ratelimit-remaining-requests": "12",
            "x-ratelimit-reset-requests": "20s",
            "x-ratelimit-limit-tokens": "40000",
            "x-ratelimit-remaining-tokens": "8000",
        },
        "openai",
    )
    assert got == RateLimits(
        "openai",
        (RateLimit("requests", 12, 50, 20.0), RateLimit("tokens", 8000, 40000, None)),
    )
    assert got.compact() == "req 12/50 · tok 8k/40k · resets 20s"


def test_anthropic_headers_reset_as_instants() -> None:
    got = rate_limits_from_headers(
        {
            "anthropic-ratelimit-requests-limit": "50",
            "anthropic-ratelimit-requests-remaining": "49",
            "anthropic-ratelimit-requests-reset": "2030-03-17T17:47:00Z",
            "anthropic-ratelimit-input-tokens-limit": "30000",
            "anthropic-ratelimit-input-tokens-remaining": "29000",
            "anthropic-ratelimit-input-tokens-reset": "2030-03-17T17:46:41+00:00",
        },
        "anthropic",
        now=1_900_000_000.0,  # 2030-03-17T17:46:40Z
    )
    assert got is not None
    assert [(x.name, x.remaining, x.limit, x.reset_seconds) for x in got.limits] == [
        ("requests", 49, 50, 20.0),
        ("input-tokens", 29000, 30000, 1.0),
    ]
    assert got.compact() == "req 49/50 · in 29k/30k · resets 1s"


def test_no_headers_no_figures() -> None:
    assert rate_limits_from_headers({"content-type": "text/event-stream"}, "openai") is None


@pytest.mark.parametrize("bad", ["inf", "-inf", "nan", "-3", "1e400", "lots", ""])
def test_a_servers_nonsense_is_not_a_figure(bad: str) -> None:
    """A hostile or broken server cannot crash the stream or fake a near-empty limit."""
    got = rate_limits_from_headers(
        {
            "x-ratelimit-limit-requests": bad,
            "x-ratelimit-remaining-requests": bad,
            "x-ratelimit-reset-requests": bad,
            "anthropic-ratelimit-requests-reset": "not a date",
        },
        "openai",
        now=NOW,
    )
    assert got is None or all(
        x.remaining is None and x.limit is None and x.reset_seconds is None for x in got.limits
    )
    if got is not None:
        assert got.limits[0].fraction() is None
        assert got.limits[0].after_one_request() is None


def test_anthropic_instant_far_out_of_range_is_no_reset() -> None:
    got = rate_limits_from_headers(
        {
            "anthropic-ratelimit-requests-remaining": "3",
            "anthropic-ratelimit-requests-reset": "9999-12-31T23:59:59-23:59",
        },
        "anthropic",
        now=NOW,
    )
    assert got is not None
    assert got.limits[0].remaining == 3


def test_a_16k_digit_reset_is_no_duration_and_never_reaches_the_pattern() -> None:
    """A reset of 16,000 digits without a unit took the pattern 17 s (super-linear
    ``findall``); any text past the cap is refused before the pattern runs, which a
    well-formed duration one character past the cap shows."""
    from gemtui.providers.rate_limits import MAX_DURATION_CHARS

    got = rate_limits_from_headers(
        {"x-ratelimit-remaining-requests": "5", "x-ratelimit-reset-requests": "9" * 16_000},
        "openai-compatible",
    )
    assert got is not None
    assert got.limits[0].reset_seconds is None
    at_cap = "1s" * (MAX_DURATION_CHARS // 2)
    assert parse_go_duration(at_cap) == pytest.approx(MAX_DURATION_CHARS // 2)
    past = "10s" + "1s" * (MAX_DURATION_CHARS // 2 - 1)  # well formed, one char too long
    assert len(past) == MAX_DURATION_CHARS + 1
    assert parse_go_duration(past) is None, "one past the cap: refused unread"


@pytest.mark.parametrize("count", ["1" + "0" * 13, "9" * 400, "-1", "1e300"])
def test_an_absurd_count_is_no_figure(count: str) -> None:
    got = rate_limits_from_headers(
        {"x-ratelimit-remaining-requests": count, "x-ratelimit-limit-requests": "50"}, "x"
    )
    assert got is not None
    assert got.limits[0].remaining is None
    assert got.limits[0].limit == 50


@pytest.mark.parametrize("raw", ["Infinity", "-Infinity", "NaN", "-0.5", "1.5", "true", '"0.5"'])
def test_a_quota_share_that_is_not_a_share_is_none(raw: str) -> None:
    """JSON lets a server send Infinity and NaN; the share left must be 0..1 or nothing
    (a percentage of Infinity raised OverflowError when shown)."""
    import json

    from gemtui.providers.rate_limits import fraction

    assert fraction(json.loads(raw)) is None
    assert fraction(json.loads("0.25")) == 0.25
