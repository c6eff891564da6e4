"""Spending caps end to end: `gemtui -p` against the wire mock, the real store.

Prices: gemini-2.5-flash (asked for unless a test says otherwise) costs $0.30 per million input tokens, so
a call the mock reports with a million prompt tokens and no output costs $0.30. Every
cap test has its control: the same script without the cap makes the call the cap
refused, so the refusal is the cap's doing.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from gemtui.errors import EXIT_BUDGET
from gemtui.testing import MockLLMServer, filler

from .conftest import SessionFactory
from .helpers import gemtui_env, run_gemtui, write_fast_config

MILLION = {"prompt": 1_000_000, "output": 0}
"""$0.30 at gemini-2.5-flash's price."""
SMALL = {"prompt": 100_000, "output": 0}
"""$0.03."""
NO_COMPRESSION = "[chat]\ncompression_threshold = 0.99\n"
"""A million-token prompt would make compression count tokens first (a request more)."""


def _config(home: Path, extra: str = "") -> None:
    write_fast_config(home, NO_COMPRESSION + extra)


def _read(usage: dict[str, int]) -> dict[str, Any]:
    return {
        "function_calls": [{"name": "read_file", "args": {"file_path": "a.txt"}}],
        "usage": usage,
    }


def _run(
    mock: MockLLMServer, home: Path, ws: Path, *flags: str
) -> subprocess.CompletedProcess[str]:
    (ws / "a.txt").write_text("alpha\n")
    return run_gemtui(
        ["-p", "go", "--output-format", "json", "--yolo", "-m", "gemini-2.5-flash", *flags],
        env=gemtui_env(home, mock.url),
        cwd=ws,
    )


@pytest.mark.parametrize(
    ("flags", "config"),
    [(("--max-budget-usd", "0.25"), ""), ((), "[budget]\nsession_usd = 0.25\n")],
    ids=["flag", "setting"],
)
def test_the_cap_stops_before_the_next_call_with_exit_54(
    mock_llm_thread: MockLLMServer,
    isolated_home: Path,
    workspace: Path,
    flags: tuple[str, ...],
    config: str,
) -> None:
    """A first call of $0.30 passes a $0.25 cap: the next never starts, and the run
    exits 54 saying what was spent and the cap."""
    _config(isolated_home, config)
    mock_llm_thread.enqueue(_read(MILLION), {"text": "done", "usage": SMALL})
    proc = _run(mock_llm_thread, isolated_home, workspace, *flags)
    assert proc.returncode == EXIT_BUDGET, proc.stderr
    assert len(mock_llm_thread.requests) == 1
    out = json.loads(proc.stdout)
    error = out["error"]["message"]
    assert "$0.3000" in error, error
    assert "$0.2500" in error, error
    assert out["stats"]["cost_usd"] == pytest.approx(0.30)


def test_without_a_cap_the_same_script_makes_the_second_call(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    """Control: with no cap the call the cap refused is made."""
    _config(isolated_home)
    mock_llm_thread.enqueue(_read(MILLION), {"text": "done", "usage": SMALL})
    proc = _run(mock_llm_thread, isolated_home, workspace)
    assert proc.returncode == 0, proc.stderr
    assert len(mock_llm_thread.requests) == 2


def test_under_the_cap_the_run_completes_with_its_cost(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    _config(isolated_home)
    mock_llm_thread.enqueue(_read(MILLION), {"text": "done", "usage": SMALL})
    proc = _run(mock_llm_thread, isolated_home, workspace, "--max-budget-usd", "1")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["response"] == "done"
    assert out["stats"]["cost_usd"] == pytest.approx(0.33)


def test_a_cap_that_is_not_a_positive_number_is_bad_input(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    _config(isolated_home)
    proc = _run(mock_llm_thread, isolated_home, workspace, "--max-budget-usd", "0")
    assert proc.returncode == 42
    assert "--max-budget-usd" in proc.stderr
    assert mock_llm_thread.requests == []


def test_daily_usd_sums_earlier_sessions_then_refuses(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    """Two sessions of $0.30 each: the first leaves $0.30 of a $0.50 day, the second
    starts under it and passes it; a third is refused before any request."""
    _config(isolated_home, "[budget]\ndaily_usd = 0.5\n")
    for _ in range(2):
        mock_llm_thread.enqueue({"text": "ok", "usage": MILLION})
        proc = _run(mock_llm_thread, isolated_home, workspace)
        assert proc.returncode == 0, proc.stderr
    assert len(mock_llm_thread.requests) == 2
    mock_llm_thread.enqueue({"text": "ok", "usage": MILLION})
    proc = _run(mock_llm_thread, isolated_home, workspace)
    assert proc.returncode == EXIT_BUDGET, proc.stderr
    assert len(mock_llm_thread.requests) == 2
    error = json.loads(proc.stdout)["error"]["message"]
    assert "$0.6000 spent today" in error, error
    assert "$0.5000 daily cap" in error, error
    # control: the same third session with no daily cap makes its call
    _config(isolated_home)
    proc = _run(mock_llm_thread, isolated_home, workspace)
    assert proc.returncode == 0, proc.stderr
    assert len(mock_llm_thread.requests) == 3


@pytest.mark.parametrize("cap", [("--max-budget-usd", "0.2"), ()], ids=["capped", "control"])
def test_a_subagents_spend_counts_toward_the_parents_cap(
    mock_llm_thread: MockLLMServer,
    isolated_home: Path,
    workspace: Path,
    cap: tuple[str, ...],
) -> None:
    """The parent's own call costs $0.03; its subagent's $0.30. Under a $0.20 cap the
    parent's next call never starts; without the cap it does."""
    _config(isolated_home)
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
    proc = _run(mock_llm_thread, isolated_home, workspace, *cap)
    if not cap:
        assert proc.returncode == 0, proc.stderr
        assert len(mock_llm_thread.requests) == 3
        return
    assert proc.returncode == EXIT_BUDGET, proc.stderr
    assert len(mock_llm_thread.requests) == 2
    error = json.loads(proc.stdout)["error"]["message"]
    assert "$0.3300" in error, error
    assert "$0.2000" in error, error


@pytest.mark.parametrize(
    ("flags", "config"),
    [(("--max-budget-usd", "5"), ""), ((), "[budget]\ndaily_usd = 5\n")],
    ids=["session", "daily"],
)
def test_an_unknown_price_under_a_cap_refuses_before_any_request(
    mock_llm_thread: MockLLMServer,
    isolated_home: Path,
    workspace: Path,
    flags: tuple[str, ...],
    config: str,
) -> None:
    """An unknown price is never $0: the run stops before the first call, naming the
    model and how to give it a price."""
    _config(isolated_home, config)
    mock_llm_thread.enqueue({"text": "free?", "usage": MILLION})
    proc = _run(mock_llm_thread, isolated_home, workspace, "-m", "no-such-model", *flags)
    assert proc.returncode == EXIT_BUDGET, proc.stderr
    assert mock_llm_thread.requests == []
    error = json.loads(proc.stdout)["error"]["message"]
    assert "'no-such-model'" in error, error
    assert "[providers.gemini] prices = {" in error, error


def test_an_unknown_price_without_a_cap_still_runs(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    """Control: the same model with no cap is asked (its cost is unknown, not refused)."""
    _config(isolated_home)
    mock_llm_thread.enqueue({"text": "free?", "usage": MILLION})
    proc = _run(mock_llm_thread, isolated_home, workspace, "-m", "no-such-model")
    assert proc.returncode == 0, proc.stderr
    assert len(mock_llm_thread.requests) == 1
    assert json.loads(proc.stdout)["stats"]["cost_usd"] is None


def test_a_given_price_lets_a_capped_model_run(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    """The way the refusal names works: a price in the provider's settings."""
    prices = '[providers.gemini]\nkind = "gemini"\nprices = { input = 0.5, output = 1.0 }\n'
    _config(isolated_home, prices)
    mock_llm_thread.enqueue({"text": "priced", "usage": MILLION})
    proc = _run(
        mock_llm_thread, isolated_home, workspace, "-m", "no-such-model", "--max-budget-usd", "5"
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["stats"]["cost_usd"] == pytest.approx(0.5)


# -- every model call counts: the edit fixer's ------------------------------------------

_SOURCE = "def total(items):\n    return sum(items)\n"
_EDIT = {
    "name": "replace",
    "args": {
        "file_path": "cart.py",
        "instruction": "round the total",
        "old_string": "def total_price(self):\n    return sum(self.prices)\n",
        "new_string": "def total_price(self):\n    return round(sum(self.prices), 2)\n",
    },
}
_FIX = {
    "explanation": "the function is called total",
    "search": "    return sum(items)\n",
    "replace": "    return round(sum(items), 2)\n",
}


@pytest.mark.parametrize("cap", [(), ("--max-budget-usd", "0.25")], ids=["stats", "cap"])
def test_the_edit_fixers_tokens_reach_the_usage_and_the_cap(
    mock_llm_thread: MockLLMServer,
    isolated_home: Path,
    workspace: Path,
    cap: tuple[str, ...],
) -> None:
    """The fixer's call (a million tokens, $0.30) is in the prompt's tokens and cost;
    under a $0.25 cap it is what stops the next turn (the edit's own call was $0.03)."""
    (workspace / "cart.py").write_text(_SOURCE)
    _config(isolated_home, "[tools]\nedit_fixer = true\n")
    mock_llm_thread.enqueue(
        {"function_calls": [_EDIT], "usage": SMALL},
        {"text": json.dumps(_FIX), "usage": MILLION},
        {"text": "done", "usage": SMALL},
    )
    proc = _run(mock_llm_thread, isolated_home, workspace, *cap)
    out = json.loads(proc.stdout)
    assert (
        workspace / "cart.py"
    ).read_text() == "def total(items):\n    return round(sum(items), 2)\n"
    if cap:
        assert proc.returncode == EXIT_BUDGET, proc.stderr
        assert len(mock_llm_thread.requests) == 2
        return
    assert proc.returncode == 0, proc.stderr
    assert len(mock_llm_thread.requests) == 3
    assert out["stats"]["models"]["gemini-2.5-flash"]["input"] == 1_200_000
    assert out["stats"]["cost_usd"] == pytest.approx(0.36)


# -- every model call counts: the next-speaker check's -----------------------------------


def _verdict(speaker: str, usage: dict[str, int]) -> dict[str, Any]:
    return {"text": json.dumps({"reasoning": "said so", "next_speaker": speaker}), "usage": usage}


@pytest.mark.parametrize("cap", [(), ("--max-budget-usd", "0.25")], ids=["stats", "cap"])
def test_the_next_speaker_checks_tokens_reach_the_cost_and_the_cap(
    mock_llm_thread: MockLLMServer,
    isolated_home: Path,
    workspace: Path,
    cap: tuple[str, ...],
) -> None:
    """The check's call ($0.30) is in the prompt's cost; under a $0.25 cap the
    "Please continue." turn it asked for never starts."""
    _config(isolated_home, "[agent]\nnext_speaker_check = true\n")
    mock_llm_thread.enqueue(
        {"text": "I'll now read the configuration.", "usage": SMALL},
        _verdict("model", MILLION),
        {"text": "Port 8080.", "usage": SMALL},
        _verdict("user", SMALL),
    )
    proc = _run(mock_llm_thread, isolated_home, workspace, *cap)
    out = json.loads(proc.stdout)
    if cap:
        assert proc.returncode == EXIT_BUDGET, proc.stderr
        assert len(mock_llm_thread.requests) == 2
        assert "$0.3300" in out["error"]["message"]
        return
    assert proc.returncode == 0, proc.stderr
    assert len(mock_llm_thread.requests) == 4
    assert out["stats"]["cost_usd"] == pytest.approx(0.39)


# -- every model call counts: the router's ----------------------------------------------


@pytest.mark.parametrize("cap", [(), ("--max-budget-usd", "0.05")], ids=["control", "cap"])
def test_the_routers_call_counts_toward_the_cap(
    mock_llm_thread: MockLLMServer,
    isolated_home: Path,
    workspace: Path,
    cap: tuple[str, ...],
) -> None:
    """``-m auto`` asks Flash-Lite ($0.10 a million) to classify first: that call alone
    passes a $0.05 cap, so the turn it routed never starts; without the cap the turn is
    made, and the prompt's cost carries the router's call."""
    _config(isolated_home)
    verdict = {"reasoning": "A one-line question.", "model_choice": "flash"}
    mock_llm_thread.enqueue(
        {"text": json.dumps(verdict), "usage": MILLION}, {"text": "4", "usage": SMALL}
    )
    proc = _run(mock_llm_thread, isolated_home, workspace, "-m", "auto", *cap)
    out = json.loads(proc.stdout)
    if not cap:
        assert proc.returncode == 0, proc.stderr
        assert len(mock_llm_thread.requests) == 2
        assert out["stats"]["cost_usd"] == pytest.approx(0.13)
        return
    assert proc.returncode == EXIT_BUDGET, proc.stderr
    assert len(mock_llm_thread.requests) == 1
    assert "$0.1000" in out["error"]["message"]


# -- every model call counts: compression's ---------------------------------------------


async def test_compressions_summary_call_counts_in_the_prompts_usage(
    mock_llm: MockLLMServer, make_session: SessionFactory
) -> None:
    """The summary request automatic compression makes (here a million tokens) is in the
    prompt's tokens, as the turns' are."""
    session = make_session(context_window=1000)
    for i in range(4):
        mock_llm.enqueue(
            {"text": f"a{i} " + filler(200, "x"), "usage": {"prompt": 700 if i == 3 else 100}}
        )
        await session.send(f"q{i} " + "y " * 100)
    mock_llm.enqueue(
        {"text": "summary", "usage": MILLION}, {"text": "after compression", "usage": SMALL}
    )
    done = await session.send("next")
    assert "summary" in (session.chat.history[0].parts[0].text or "")  # it compressed
    assert done.usage.input == 1_100_000


def test_a_misspelt_provider_price_exits_52_naming_the_key(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    """``{in = 3, out = 15}`` once priced every model of the provider at $0 (a cap
    never held); now the settings are refused, naming the key, before any request."""
    _config(isolated_home, '[providers.gemini]\nkind = "gemini"\nprices = { in = 3, out = 15 }\n')
    mock_llm_thread.enqueue({"text": "free?", "usage": MILLION})
    proc = _run(
        mock_llm_thread, isolated_home, workspace, "-m", "no-such-model", "--max-budget-usd", "5"
    )
    assert proc.returncode == 52, proc.stderr
    assert "prices" in proc.stderr, proc.stderr
    assert "'in'" in proc.stderr, proc.stderr
    assert mock_llm_thread.requests == []


def test_half_a_price_under_a_cap_is_no_price(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    """A provider price of output only left input at $0 for an unknown model: under a
    cap that is an unknown price (exit 54 before any request), never a run at $0."""
    _config(isolated_home, '[providers.gemini]\nkind = "gemini"\nprices = { output = 1.0 }\n')
    mock_llm_thread.enqueue({"text": "free?", "usage": MILLION})
    proc = _run(
        mock_llm_thread, isolated_home, workspace, "-m", "no-such-model", "--max-budget-usd", "5"
    )
    assert proc.returncode == EXIT_BUDGET, proc.stderr
    assert mock_llm_thread.requests == []


@pytest.mark.parametrize("cap", [5.0, 1.0], ids=["control", "cap"])
async def test_a_cap_compression_passed_stops_the_turn_after_it(
    mock_llm: MockLLMServer, make_session: SessionFactory, cap: float
) -> None:
    """Compression's summary call ($1.25 at Pro's price) ran after the cap check, and
    the turn then started unchecked; now the caps are checked again after it, so past
    a $1 cap the turn never starts (exit 54). Control: under a $5 cap it starts."""
    from gemtui.agent.budget_attach import attach_budget
    from gemtui.config.settings import Settings

    session = make_session(context_window=1000)
    attach_budget(session, Settings(), cap, None)
    for i in range(4):
        mock_llm.enqueue(
            {"text": f"a{i} " + filler(200, "x"), "usage": {"prompt": 700 if i == 3 else 100}}
        )
        await session.send(f"q{i} " + "y " * 100)
    mock_llm.enqueue(
        {"text": "summary", "usage": MILLION}, {"text": "after compression", "usage": SMALL}
    )
    done = await session.send("next")
    assert "summary" in (session.chat.history[0].parts[0].text or "")  # it compressed
    if cap == 5.0:
        assert done.text == "after compression"
        return
    assert done.exit_code == EXIT_BUDGET
    assert done.text != "after compression", "the turn never started"
