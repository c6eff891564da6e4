"""Failed model calls are explained with the server's words kept and the next step given."""

from __future__ import annotations

import json

import pytest

from gemtui.agent.error_text import ErrorContext, explain
from gemtui.errors import api_error_from_response

CTX = ErrorContext(
    provider="code-assist",
    model="gemini-2.5-pro",
    models=("gemini-2.5-pro", "gemini-2.5-flash"),
    project="my-proj",
    attempts=3,
)


def _err(status: int, message: str, **details: object) -> Exception:
    body: dict[str, object] = {"error": {"code": status, "message": message}}
    if details:
        body["error"]["details"] = [details]  # type: ignore[index]
    return api_error_from_response(status, json.dumps(body))


@pytest.mark.parametrize(
    ("status", "server", "in_message", "in_hint"),
    [
        (400, "Invalid JSON payload received.", "malformed", "schema"),
        (401, "Request had invalid authentication credentials.", "credentials", "auth login"),
        (403, "The caller does not have permission", "project 'my-proj'", "GOOGLE_CLOUD_PROJECT"),
        (404, "models/gemini-9 is not found", "'gemini-2.5-pro' was not found", "gemini-2.5-flash"),
        (503, "The model is overloaded.", "after 3 attempts", "try again"),
    ],
)
def test_each_status_keeps_the_servers_words_and_says_what_to_do(
    status: int, server: str, in_message: str, in_hint: str
) -> None:
    message, hint = explain(_err(status, server), CTX)
    assert server in message
    assert in_message in message
    assert hint is not None
    assert in_hint in hint


def test_quota_says_when_it_resets_and_which_fallback_was_taken() -> None:
    err = _err(
        429,
        "Quota exceeded.",
        **{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "3600s"},
    )
    ctx = ErrorContext(provider="gemini", model="gemini-2.5-flash", exhausted=("gemini-2.5-pro",))
    message, hint = explain(err, ctx)
    assert message == "Quota exhausted for gemini-2.5-flash: Quota exceeded."
    assert hint is not None
    assert "resets in 60 min" in hint
    assert "switched from gemini-2.5-pro" in hint


def test_a_key_provider_403_points_at_the_key_not_a_project() -> None:
    message, hint = explain(_err(403, "no access"), ErrorContext("gemini", "gemini-2.5-pro"))
    assert "gemini-2.5-pro" in message
    assert hint is not None
    assert "GEMINI_API_KEY" in hint
    assert "GOOGLE_CLOUD_PROJECT" not in hint


def test_other_errors_pass_through() -> None:
    assert explain(RuntimeError("boom"), CTX) == ("boom", None)
