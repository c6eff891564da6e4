"""Where the money went and prices you can trust (issue 37, items 5 and 7), end to end:
`gemtui -p` against the wire mock writes the real store, `gemtui usage` reads it.

gemini-2.5-flash costs $0.30 per million input tokens (Google's page, in the table), so
a call the mock reports with a million prompt tokens costs $0.30 unless the settings'
``[prices."gemini-2.5-flash"]`` says otherwise.
"""

from __future__ import annotations

import datetime as dt
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from gemtui.testing import MockLLMServer

from .helpers import gemtui_env, run_gemtui, write_fast_config

MILLION = {"prompt": 1_000_000, "output": 0}
"""$0.30 at the table's price."""
SMALL = {"prompt": 100_000, "output": 0}
"""$0.03."""
NO_COMPRESSION = "[chat]\ncompression_threshold = 0.99\n"
OVERRIDE = '[prices."gemini-2.5-flash"]\ninput = 2.0\noutput = 4.0\n'
"""A million prompt tokens at $2.00."""


def _headless(mock: MockLLMServer, home: Path, ws: Path) -> subprocess.CompletedProcess[str]:
    return run_gemtui(
        ["-p", "go", "--output-format", "json", "--yolo", "-m", "gemini-2.5-flash"],
        env=gemtui_env(home, mock.url),
        cwd=ws,
    )


def _usage(home: Path, ws: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    return run_gemtui(["usage", *flags], env=gemtui_env(home), cwd=ws)


def _report(home: Path, ws: Path) -> dict[str, Any]:
    proc = _usage(home, ws, "--json")
    assert proc.returncode == 0, proc.stderr
    report: dict[str, Any] = json.loads(proc.stdout)
    return report


def _by(rows: list[dict[str, Any]], key: str) -> dict[str, dict[str, Any]]:
    return {row[key]: row for row in rows}


def test_usage_json_lists_the_days_spend_per_model_and_agent_after_two_sessions(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    """Session one: the conversation's two calls ($0.03 each) and its generalist
    subagent's ($0.30); session two: one call ($0.30). Today's spend is $0.66, per model
    and per agent, with the table's source and date for the price used."""
    write_fast_config(isolated_home, NO_COMPRESSION)
    mock_llm_thread.enqueue(
        {
            "function_calls": [{"name": "generalist", "args": {"task": "look"}, "id": "g1"}],
            "usage": SMALL,
        },
        {
            "function_calls": [{"name": "complete_task", "args": {"output": {"report": "hi"}}}],
            "usage": MILLION,
        },
        {"text": "done", "usage": SMALL},
    )
    assert _headless(mock_llm_thread, isolated_home, workspace).returncode == 0
    mock_llm_thread.enqueue({"text": "ok", "usage": MILLION})
    assert _headless(mock_llm_thread, isolated_home, workspace).returncode == 0

    report = _report(isolated_home, workspace)
    assert report["days"] == 30
    assert report["total_usd"] == pytest.approx(0.66)
    today = _by(report["per_day"], "day")[dt.date.today().isoformat()]
    assert (today["calls"], today["cost_usd"]) == (4, pytest.approx(0.66))
    model = _by(report["per_model"], "model")["gemini-2.5-flash"]
    assert (model["calls"], model["cost_usd"]) == (4, pytest.approx(0.66))
    agents = _by(report["per_agent"], "agent")
    assert agents["main"]["cost_usd"] == pytest.approx(0.36)
    assert agents["generalist"]["cost_usd"] == pytest.approx(0.30)
    price = report["prices"]["gemini-2.5-flash"]
    assert price["input"] == 0.30
    assert "https://ai.google.dev/gemini-api/docs/pricing" in price["source"]
    assert "taken 20" in price["source"]
    assert report["unpriced"] == []

    text = _usage(isolated_home, workspace)
    assert text.returncode == 0, text.stderr
    assert "$0.6600" in text.stdout
    assert "generalist" in text.stdout
    assert "ai.google.dev" in text.stdout


def test_an_unpriced_model_is_listed_never_counted_as_zero(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home, NO_COMPRESSION)
    mock_llm_thread.enqueue({"text": "ok", "usage": MILLION})
    proc = run_gemtui(
        ["-p", "go", "-m", "no-such-model"],
        env=gemtui_env(isolated_home, mock_llm_thread.url),
        cwd=workspace,
    )
    assert proc.returncode == 0, proc.stderr
    report = _report(isolated_home, workspace)
    assert report["unpriced"] == ["no-such-model"]
    assert _by(report["per_model"], "model")["no-such-model"]["cost_usd"] is None
    assert '[prices."no-such-model"]' in _usage(isolated_home, workspace).stdout


@pytest.mark.parametrize("days", ["0", "-3", "x", "1.5", "100000"])
def test_a_bad_days_value_exits_42_with_a_message(
    isolated_home: Path, workspace: Path, days: str
) -> None:
    proc = _usage(isolated_home, workspace, "--days", days)
    assert proc.returncode == 42
    assert "--days" in proc.stderr
    assert repr(days) in proc.stderr
    assert proc.stdout == ""


def test_days_counts_back_from_today(isolated_home: Path, workspace: Path) -> None:
    """Control for the bad values: a good one is taken, each day of the window listed."""
    proc = _usage(isolated_home, workspace, "--json", "--days", "7")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert [d["day"] for d in report["per_day"]] == [
        (dt.date.today() - dt.timedelta(days=back)).isoformat() for back in range(6, -1, -1)
    ]


@pytest.mark.parametrize("override", [OVERRIDE, ""], ids=["override", "control"])
def test_a_price_override_changes_the_cost_and_the_usage(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path, override: str
) -> None:
    """``[prices."gemini-2.5-flash"]`` at $2.00 input: the run's cost_usd and the usage
    report say $2.00 and "your settings"; without it, the table's $0.30 and its page."""
    write_fast_config(isolated_home, NO_COMPRESSION + override)
    mock_llm_thread.enqueue({"text": "ok", "usage": MILLION})
    proc = _headless(mock_llm_thread, isolated_home, workspace)
    assert proc.returncode == 0, proc.stderr
    expected = 2.0 if override else 0.30
    assert json.loads(proc.stdout)["stats"]["cost_usd"] == pytest.approx(expected)
    report = _report(isolated_home, workspace)
    assert report["total_usd"] == pytest.approx(expected)
    source = report["prices"]["gemini-2.5-flash"]["source"]
    assert ("your settings" in source) == bool(override), source


@pytest.mark.parametrize(
    ("toml", "key"),
    [
        ('[prices."gemini-2.5-flash"]\ninput = -1.0\noutput = 4.0\n', "input"),
        ('[prices."gemini-2.5-flash"]\ninput = 1.0\noutput = 4.0\ninptu = 2.0\n', "inptu"),
        ('[prices."gemini-2.5-flash"]\ninput = 1.0\n', "output"),
        ('[prices."gemini-2.5-flash"]\ninput = 1.0\noutput = "cheap"\n', "output"),
    ],
    ids=["negative", "unknown-key", "missing-output", "not-a-number"],
)
@pytest.mark.parametrize("command", ["headless", "usage"])
def test_an_invalid_price_override_exits_52_naming_the_key(
    mock_llm_thread: MockLLMServer,
    isolated_home: Path,
    workspace: Path,
    toml: str,
    key: str,
    command: str,
) -> None:
    write_fast_config(isolated_home, toml)
    if command == "headless":
        proc = _headless(mock_llm_thread, isolated_home, workspace)
    else:
        proc = _usage(isolated_home, workspace, "--json")
    assert proc.returncode == 52, proc.stderr
    assert f"prices.gemini-2.5-flash.{key}" in proc.stderr, proc.stderr
    assert mock_llm_thread.requests == []


@pytest.mark.parametrize("priced", [True, False], ids=["override", "control"])
def test_a_price_override_lets_a_cap_hold_for_a_model_the_table_lacks(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path, priced: bool
) -> None:
    """The budget prices with the overrides: under a cap, a model only the settings
    price runs and is counted; without that price it is refused (54), and the refusal
    says how to give it one."""
    price = '[prices."no-such-model"]\ninput = 1.0\noutput = 1.0\n' if priced else ""
    write_fast_config(isolated_home, NO_COMPRESSION + price)
    mock_llm_thread.enqueue({"text": "ok", "usage": MILLION})
    proc = run_gemtui(
        ["-p", "go", "--output-format", "json", "-m", "no-such-model", "--max-budget-usd", "5"],
        env=gemtui_env(isolated_home, mock_llm_thread.url),
        cwd=workspace,
    )
    out = json.loads(proc.stdout)
    if priced:
        assert proc.returncode == 0, proc.stderr
        assert out["stats"]["cost_usd"] == pytest.approx(1.0)
        return
    assert proc.returncode == 54, proc.stderr
    assert '[prices."no-such-model"] input = USD' in out["error"]["message"]
