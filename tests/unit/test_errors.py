"""Errors carry exit codes, the server's message and the parsed Google details."""

from __future__ import annotations

import json

import pytest

from gemtui.errors import (
    FatalAuthenticationError,
    FatalCancellationError,
    FatalConfigError,
    FatalInputError,
    FatalTurnLimitedError,
    ModelNotFoundError,
    QuotaExhaustedError,
    RetryableApiError,
    api_error_from_response,
    parse_duration,
)


@pytest.mark.parametrize(
    ("cls", "code"),
    [
        (FatalAuthenticationError, 41),
        (FatalInputError, 42),
        (FatalConfigError, 52),
        (FatalTurnLimitedError, 53),
        (FatalCancellationError, 130),
    ],
)
def test_exit_codes(cls: type, code: int) -> None:
    assert cls("x").exit_code == code


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("34.07s", 34.07), ("900ms", 0.9), ("17", 17.0), ("0.847s", 0.847), ("x", None)],
)
def test_parse_duration(text: str, seconds: float | None) -> None:
    assert parse_duration(text) == (pytest.approx(seconds) if seconds is not None else None)


def _body(message: str, *details: dict) -> str:
    return json.dumps(
        {
            "error": {
                "code": 429,
                "message": message,
                "status": "RESOURCE_EXHAUSTED",
                "details": list(details),
            }
        }
    )


def test_429_with_retry_info_is_retryable_with_server_delay() -> None:
    err = api_error_from_response(
        429,
        _body(
            "slow down",
            {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "0.847s"},
        ),
    )
    assert type(err) is RetryableApiError
    assert err.message == "slow down"
    assert err.server_delay == pytest.approx(0.847)


@pytest.mark.parametrize(
    ("message", "seconds"),
    [
        ("Your quota will reset after 17s.", 17.0),
        (
            "You exceeded your current quota, please check your plan and billing details. "
            "Please retry in 31.5s.",
            31.5,
        ),
        ("Resource has been exhausted (e.g. check quota). retry after 17s", 17.0),
        ("Rate limited; retry in 500ms", 0.5),
        ("Quota exceeded. Retry after 2 seconds.", 2.0),
    ],
)
def test_every_phrasing_of_a_delay_in_the_message(message: str, seconds: float) -> None:
    assert api_error_from_response(429, _body(message)).server_delay == pytest.approx(seconds)


def test_a_number_that_is_not_a_delay_is_not_read_as_one() -> None:
    assert (
        api_error_from_response(429, _body("Quota 1000 per minute exceeded")).server_delay is None
    )


def test_quota_reset_delay_retry_after_and_message_delays() -> None:
    err = api_error_from_response(
        429,
        _body(
            "q",
            {
                "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                "reason": "RATE_LIMIT_EXCEEDED",
                "metadata": {"quotaResetDelay": "2s"},
            },
        ),
    )
    assert err.server_delay == 2.0
    assert api_error_from_response(503, "busy", {"Retry-After": "3"}).server_delay == 3.0
    assert (
        api_error_from_response(429, _body("Your quota will reset after 17s.")).server_delay == 17.0
    )


@pytest.mark.parametrize(
    "body",
    [
        _body(
            "daily",
            {
                "@type": "type.googleapis.com/google.rpc.QuotaFailure",
                "violations": [{"quotaId": "GenerateRequestsPerDayPerProjectPerModel"}],
            },
        ),
        _body(
            "cap",
            {
                "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                "reason": "MODEL_CAPACITY_EXHAUSTED",
            },
        ),
        _body("Quota exceeded for metric: x, limit: 0"),
        _body("long", {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "900s"}),
    ],
)
def test_terminal_quota_errors(body: str) -> None:
    assert isinstance(api_error_from_response(429, body), QuotaExhaustedError)


def test_status_mapping() -> None:
    assert isinstance(api_error_from_response(404, "{}"), ModelNotFoundError)
    assert (
        type(api_error_from_response(400, '{"error": {"message": "bad"}}')).__name__ == "ApiError"
    )
    assert api_error_from_response(400, '{"error": {"message": "bad"}}').message == "bad"
    assert isinstance(api_error_from_response(500, "oops"), RetryableApiError)
    assert isinstance(api_error_from_response(499, ""), RetryableApiError)
    # Gemini sometimes wraps the error in a list
    assert api_error_from_response(500, '[{"error": {"message": "inner"}}]').message == "inner"
