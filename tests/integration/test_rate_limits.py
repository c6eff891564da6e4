"""`gemtui -p` tells the truth about the limits left (issue 37, item 1).

The real command against the mock server, which sends the providers' real header names:
OpenAI's ``x-ratelimit-*`` and Anthropic's ``anthropic-ratelimit-*`` reach the ``json``
and ``stream-json`` stats; a Gemini 429 with ``google.rpc.QuotaFailure`` names the quota
and its period; a limit about to be spent is announced on stderr once, before the call.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gemtui.testing import MockLLMServer

from .helpers import gemtui_env, run_gemtui, write_fast_config
from .test_providers_headless import _setup

RESET_AT = "2099-01-01T00:00:00Z"
"""Anthropic's resets are instants (RFC 3339); one far ahead keeps the test clock-free."""


def _headers(wire: str, requests_left: int, tokens_left: int) -> dict[str, str]:
    """What each wire says about 50 requests and 40,000 tokens a minute."""
    if wire == "anthropic":
        return {
            "anthropic-ratelimit-requests-limit": "50",
            "anthropic-ratelimit-requests-remaining": str(requests_left),
            "anthropic-ratelimit-requests-reset": RESET_AT,
            "anthropic-ratelimit-tokens-limit": "40000",
            "anthropic-ratelimit-tokens-remaining": str(tokens_left),
            "anthropic-ratelimit-tokens-reset": RESET_AT,
        }
    return {
        "x-ratelimit-limit-requests": "50",
        "x-ratelimit-remaining-requests": str(requests_left),
        "x-ratelimit-reset-requests": "6m0s",
        "x-ratelimit-limit-tokens": "40000",
        "x-ratelimit-remaining-tokens": str(tokens_left),
        "x-ratelimit-reset-tokens": "20ms",
    }


def _stats(fmt: str, stdout: str) -> dict[str, Any]:
    if fmt == "json":
        return dict(json.loads(stdout)["stats"])
    lines = [json.loads(line) for line in stdout.splitlines() if line.strip()]
    return dict(next(x for x in lines if x["type"] == "result")["stats"])


@pytest.mark.parametrize("fmt", ["json", "stream-json"])
@pytest.mark.parametrize("wire", ["openai", "anthropic"])
def test_rate_limit_headers_reach_the_stats(
    wire: str, fmt: str, mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    flags, env = _setup(wire, isolated_home, mock_llm_thread.url)
    mock_llm_thread.enqueue({"text": "fine", "headers": _headers(wire, 12, 8000)})
    proc = run_gemtui(["-p", "hi", "--output-format", fmt, *flags], env=env, cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    limits = _stats(fmt, proc.stdout)["rate_limits"]
    assert limits["provider"] == wire
    assert limits["requests"]["remaining"] == 12
    assert limits["requests"]["limit"] == 50
    assert limits["tokens"]["remaining"] == 8000
    assert limits["tokens"]["limit"] == 40000
    if wire == "openai":
        assert limits["requests"]["reset_seconds"] == 360.0
        assert limits["tokens"]["reset_seconds"] == pytest.approx(0.02)
    else:
        assert limits["requests"]["reset_seconds"] > 0


def test_a_server_that_says_nothing_leaves_the_limits_unknown(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    """Control: no headers, no invented figures."""
    flags, env = _setup("openai", isolated_home, mock_llm_thread.url)
    mock_llm_thread.enqueue({"text": "fine"})
    proc = run_gemtui(["-p", "hi", "--output-format", "json", *flags], env=env, cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    assert _stats("json", proc.stdout)["rate_limits"] is None


def test_a_hostile_servers_figures_are_dropped_not_believed(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    """``inf``, negative and unreadable figures neither crash the answer nor fake a limit
    about to run out (which would nag the person before every call)."""
    flags, env = _setup("openai", isolated_home, mock_llm_thread.url)
    hostile = {
        "x-ratelimit-limit-requests": "-5",
        "x-ratelimit-remaining-requests": "inf",
        "x-ratelimit-reset-requests": "1e999s",
        "x-ratelimit-limit-tokens": "40000",
        "x-ratelimit-remaining-tokens": "nan",
    }
    (workspace / "a.txt").write_text("alpha\n")
    mock_llm_thread.enqueue(*_read_steps([hostile, hostile]))
    proc = run_gemtui(["-p", "hi", "--output-format", "json", *flags], env=env, cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["response"] == "done"
    limits = _stats("json", proc.stdout)["rate_limits"]
    assert "requests" not in limits  # nothing usable said about requests
    assert limits["tokens"] == {"remaining": None, "limit": 40000, "reset_seconds": None}
    assert WARNING not in proc.stderr


DAILY_QUOTA = {
    "status": 429,
    "message": "Resource has been exhausted (e.g. check quota).",
    "quota_id": "GenerateRequestsPerDayPerProjectPerModel-FreeTier",
    "quota_metric": "generativelanguage.googleapis.com/generate_content_free_tier_requests",
    "quota_dimensions": {"model": "gemini-2.5-flash", "location": "global"},
    "quota_value": "250",
    "retry_delay": "43200s",
}


def test_a_quota_failure_names_its_quota_and_its_period(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    mock_llm_thread.enqueue({"error": DAILY_QUOTA})
    proc = run_gemtui(
        ["-p", "hi", "-m", "gemini-2.5-flash", "--output-format", "json"],
        env=gemtui_env(isolated_home, mock_llm_thread.url),
        cwd=workspace,
    )
    assert proc.returncode == 1, proc.stderr
    error = json.loads(proc.stdout)["error"]
    assert error["code"] == 1
    message = error["message"]
    assert "GenerateRequestsPerDayPerProjectPerModel-FreeTier" in message
    assert "per day" in message
    assert "model gemini-2.5-flash" in message
    assert "limit 250" in message
    assert "It resets in 12.0 h" in proc.stderr
    assert len(mock_llm_thread.requests) == 1  # a daily quota is not retried


def _read_steps(headers: list[dict[str, str]]) -> list[dict[str, Any]]:
    """Model calls that read a file, then one that answers, each with its headers."""
    steps: list[dict[str, Any]] = [
        {
            "function_calls": [{"name": "read_file", "args": {"file_path": "a.txt"}}],
            "headers": h,
        }
        for h in headers[:-1]
    ]
    return [*steps, {"text": "done", "headers": headers[-1]}]


WARNING = "limit is nearly spent"


@pytest.mark.parametrize("wire", ["openai", "anthropic"])
def test_a_near_limit_is_announced_once_before_the_call(
    wire: str, mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    """5 of 50 requests left: the next call would leave 4 (8 %, under 10 %). Two calls
    near the limit, one warning."""
    flags, env = _setup(wire, isolated_home, mock_llm_thread.url)
    (workspace / "a.txt").write_text("alpha\n")
    mock_llm_thread.enqueue(
        *_read_steps([_headers(wire, 5, 30000), _headers(wire, 4, 29000), _headers(wire, 3, 28000)])
    )
    proc = run_gemtui(["-p", "read a.txt twice", *flags], env=env, cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.count(WARNING) == 1, proc.stderr
    assert f"gemtui: warning: {wire}'s requests {WARNING}: 5 of 50 left" in proc.stderr
    assert len(_generation_requests(mock_llm_thread)) == 3


def test_plenty_left_says_nothing_and_a_refill_warns_again(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    """Control: 45 of 50 left is no warning; once a limit refilled and runs low again,
    it is said again (once per reset, not once per run)."""
    flags, env = _setup("openai", isolated_home, mock_llm_thread.url)
    (workspace / "a.txt").write_text("alpha\n")
    mock_llm_thread.enqueue(
        *_read_steps(
            [
                _headers("openai", 45, 30000),
                _headers("openai", 3, 30000),  # low: warned before the next call
                _headers("openai", 50, 30000),  # refilled
                _headers("openai", 2, 30000),  # low again: warned again
                _headers("openai", 1, 30000),
            ]
        )
    )
    proc = run_gemtui(["-p", "read it four times", *flags], env=env, cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.count(WARNING) == 2, proc.stderr


def test_warn_below_zero_never_warns(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    env = gemtui_env(isolated_home, key=None)
    write_fast_config(isolated_home, "\n[limits]\nwarn_below = 0\n")
    env["OPENAI_BASE_URL"] = f"{mock_llm_thread.url}/v1"
    (workspace / "a.txt").write_text("alpha\n")
    mock_llm_thread.enqueue(*_read_steps([_headers("openai", 2, 100), _headers("openai", 1, 50)]))
    proc = run_gemtui(
        ["-p", "hi", "--provider", "openai", "-m", "qwen3-coder"], env=env, cwd=workspace
    )
    assert proc.returncode == 0, proc.stderr
    assert WARNING not in proc.stderr


def test_a_bad_warn_below_exits_52_naming_the_key(isolated_home: Path, workspace: Path) -> None:
    write_fast_config(isolated_home, "\n[limits]\nwarn_below = 1.5\n")
    proc = run_gemtui(["-p", "hi"], env=gemtui_env(isolated_home), cwd=workspace)
    assert proc.returncode == 52
    assert "limits.warn_below" in proc.stderr


def _generation_requests(srv: MockLLMServer) -> list[Any]:
    return [r for r in srv.requests if r.path.endswith(("/chat/completions", "/messages"))]
