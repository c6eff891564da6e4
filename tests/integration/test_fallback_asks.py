"""A fallback that asks (issue 37, item 4): headless ``gemtui -p`` against the wire mock
switches to the ``fallback`` model only with ``--fallback`` or ``fallback_auto``, and says
so on stderr and in the stats; without permission it ends with the error's exit code and
names the model it would have switched to."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gemtui.testing import MockLLMServer
from tests.integration.helpers import gemtui_env, run_gemtui, write_fast_config

PRO_WITH_FALLBACK = (
    '\n[general]\nprovider = "gem"\n\n[providers.gem]\nkind = "gemini"\n'
    'default_model = "gemini-2.5-pro"\nfallback = ["gemini-2.5-flash"]\n'
)
DAILY_QUOTA = {
    "status": 429,
    "message": "Quota exceeded for quota metric 'Generate requests' per day.",
    "quota_id": "GenerateRequestsPerDayPerProjectPerModel",
}


def _models(server: MockLLMServer) -> list[str]:
    return [r.path.rsplit("/", 1)[-1].split(":")[0] for r in server.requests]


def test_without_permission_a_quota_ends_the_run_and_names_the_fallback(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    """No ``--fallback``: the exhausted quota ends the run with its exit code, the flash
    model is never asked, and stderr says what ``--fallback`` would have done."""
    write_fast_config(isolated_home, PRO_WITH_FALLBACK)
    mock_llm_thread.enqueue({"error": DAILY_QUOTA}, {"text": "answered by flash"})
    proc = run_gemtui(
        ["-p", "hi"], env=gemtui_env(isolated_home, mock_llm_thread.url), cwd=workspace
    )
    assert proc.returncode == 1, proc.stderr
    assert "answered by flash" not in proc.stdout
    assert "Quota exhausted for gemini-2.5-pro" in proc.stderr
    assert "--fallback" in proc.stderr
    assert "would have switched to gemini-2.5-flash" in proc.stderr
    assert "switching from" not in proc.stderr
    assert _models(mock_llm_thread) == ["gemini-2.5-pro"]


def test_with_the_flag_the_run_switches_and_says_so_in_stderr_and_stats(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    """The control of the test above: the same quota with ``--fallback`` switches."""
    write_fast_config(isolated_home, PRO_WITH_FALLBACK)
    mock_llm_thread.enqueue({"error": DAILY_QUOTA}, {"text": "answered by flash"})
    proc = run_gemtui(
        ["-p", "hi", "--fallback", "--output-format", "json"],
        env=gemtui_env(isolated_home, mock_llm_thread.url),
        cwd=workspace,
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["response"] == "answered by flash"
    assert "switching from gemini-2.5-pro to gemini-2.5-flash" in proc.stderr
    [fell] = out["stats"]["fallbacks"]
    assert (fell["from"], fell["to"]) == ("gemini-2.5-pro", "gemini-2.5-flash")
    assert fell["reason"].startswith("quota exhausted")
    assert _models(mock_llm_thread) == ["gemini-2.5-pro", "gemini-2.5-flash"]


def test_the_setting_allows_the_switch_like_the_flag(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    """``[general] fallback_auto = true`` is the flag written down once."""
    config = PRO_WITH_FALLBACK.replace(
        'provider = "gem"\n', 'provider = "gem"\nfallback_auto = true\n'
    )
    write_fast_config(isolated_home, config)
    mock_llm_thread.enqueue({"error": DAILY_QUOTA}, {"text": "answered by flash"})
    proc = run_gemtui(
        ["-p", "hi"], env=gemtui_env(isolated_home, mock_llm_thread.url), cwd=workspace
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "answered by flash"
    assert "switching from gemini-2.5-pro to gemini-2.5-flash" in proc.stderr


def test_an_overloaded_model_is_offered_the_fallback_too(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    """503 after every retry: ``--fallback`` switches, said as an overloaded model."""
    write_fast_config(isolated_home, PRO_WITH_FALLBACK)
    busy = {"error": {"status": 503, "message": "The model is overloaded."}}
    mock_llm_thread.enqueue(busy, busy, busy, {"text": "answered by flash"})
    proc = run_gemtui(
        ["-p", "hi", "--fallback"],
        env=gemtui_env(isolated_home, mock_llm_thread.url),
        cwd=workspace,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "answered by flash"
    assert "to gemini-2.5-flash: model overloaded" in proc.stderr
    assert _models(mock_llm_thread)[-1] == "gemini-2.5-flash"


def test_more_than_three_fallbacks_is_a_config_error(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    """Up to three: a fourth entry exits 52 naming the key, before any call."""
    four = PRO_WITH_FALLBACK.replace('["gemini-2.5-flash"]', '["a-1", "a-2", "a-3", "a-4"]')
    write_fast_config(isolated_home, four)
    proc = run_gemtui(
        ["-p", "hi"], env=gemtui_env(isolated_home, mock_llm_thread.url), cwd=workspace
    )
    assert proc.returncode == 52, proc.stderr
    assert "fallback" in proc.stderr
    assert mock_llm_thread.requests == []


# ``[model] fallback`` on another provider: the Gemini mock runs out of quota, an
# OpenAI-compatible mock (a second server) answers the same prompt.

GEMINI_THEN_OPENAI = (
    '\n[general]\nprovider = "gemini"\nmodel = "gemini-2.5-pro"\n\n'
    '[model]\nfallback = ["openai:some-model"]\n'
)


def _other_provider_env(home: Path, gemini: MockLLMServer, other: MockLLMServer) -> dict[str, str]:
    env = gemtui_env(home, gemini.url)
    env["OPENAI_BASE_URL"] = f"{other.url}/v1"
    return env


def _asked_of(server: MockLLMServer) -> list[dict[str, Any]]:
    return [r.json for r in server.requests if r.path.endswith("/chat/completions")]


def test_with_the_flag_a_quota_moves_the_prompt_to_another_provider(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    """``[model] fallback = ["openai:some-model"]`` with ``--fallback``: the same prompt
    goes on at the OpenAI-compatible server, said on stderr and in the stats with both
    providers named; the Gemini mock is asked once."""
    write_fast_config(isolated_home, GEMINI_THEN_OPENAI)
    mock_llm_thread.enqueue({"error": DAILY_QUOTA}, {"text": "never asked twice"})
    with MockLLMServer.in_thread() as other:
        other.enqueue({"text": "answered by openai"})
        proc = run_gemtui(
            ["-p", "hi there", "--fallback", "--output-format", "json"],
            env=_other_provider_env(isolated_home, mock_llm_thread, other),
            cwd=workspace,
        )
        assert proc.returncode == 0, proc.stderr
        out = json.loads(proc.stdout)
        assert out["response"] == "answered by openai"
        assert (
            "switching from gemini:gemini-2.5-pro to openai:some-model: quota exhausted"
            in proc.stderr
        )
        [fell] = out["stats"]["fallbacks"]
        assert (fell["from"], fell["to"]) == ("gemini:gemini-2.5-pro", "openai:some-model")
        assert _models(mock_llm_thread) == ["gemini-2.5-pro"]
        [asked] = _asked_of(other)
        assert asked["model"] == "some-model"
        said = json.dumps(asked["messages"])
        assert "hi there" in said  # the conversation came along


def test_without_the_flag_the_other_provider_is_named_not_asked(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    """The control of the test above: no ``--fallback``, the run ends with the quota's
    exit code naming the provider-qualified model, and the other server hears nothing."""
    write_fast_config(isolated_home, GEMINI_THEN_OPENAI)
    mock_llm_thread.enqueue({"error": DAILY_QUOTA})
    with MockLLMServer.in_thread() as other:
        other.enqueue({"text": "answered by openai"})
        proc = run_gemtui(
            ["-p", "hi"],
            env=_other_provider_env(isolated_home, mock_llm_thread, other),
            cwd=workspace,
        )
        assert proc.returncode == 1, proc.stderr
        assert "Quota exhausted for gemini-2.5-pro" in proc.stderr
        assert "would have switched to openai:some-model" in proc.stderr
        assert "switching from" not in proc.stderr
        assert other.requests == []


def test_a_provider_that_cannot_be_built_is_said_and_the_error_stands(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    """No Anthropic key: ``--fallback`` cannot switch; the quota error ends the run, with
    why the switch did not happen."""
    config = GEMINI_THEN_OPENAI.replace("openai:some-model", "anthropic:claude-haiku-4-5")
    write_fast_config(isolated_home, config)
    mock_llm_thread.enqueue({"error": DAILY_QUOTA})
    proc = run_gemtui(
        ["-p", "hi", "--fallback"],
        env=gemtui_env(isolated_home, mock_llm_thread.url),
        cwd=workspace,
    )
    assert proc.returncode == 1, proc.stderr
    assert "Quota exhausted for gemini-2.5-pro" in proc.stderr
    assert "Could not switch to anthropic:claude-haiku-4-5: No Anthropic API key" in proc.stderr
    assert "switching from" not in proc.stderr


def test_the_budget_follows_the_new_providers_price(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    """Under a cap, the model switched to has no known price: the run stops before its
    first call with exit 54, naming it and the new provider's settings to price it in
    (the Gemini Pro model it left was priced, so the old price did not count)."""
    write_fast_config(isolated_home, GEMINI_THEN_OPENAI)
    mock_llm_thread.enqueue({"error": DAILY_QUOTA})
    with MockLLMServer.in_thread() as other:
        other.enqueue({"text": "answered by openai"})
        proc = run_gemtui(
            ["-p", "hi", "--fallback", "--max-budget-usd", "5"],
            env=_other_provider_env(isolated_home, mock_llm_thread, other),
            cwd=workspace,
        )
        assert proc.returncode == 54, proc.stderr
        assert "no price is known for model 'some-model'" in proc.stderr
        assert "[providers.openai] prices" in proc.stderr
        assert _asked_of(other) == []


def test_a_priced_provider_is_charged_at_its_own_price(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    """The control of the test above: the new provider's ``prices`` price its calls."""
    priced = '\n[providers.openai]\nkind = "openai"\nprices = { input = 1000.0, output = 0.0 }\n'
    write_fast_config(isolated_home, GEMINI_THEN_OPENAI + priced)
    mock_llm_thread.enqueue({"error": DAILY_QUOTA})
    with MockLLMServer.in_thread() as other:
        other.enqueue({"text": "answered by openai", "usage": {"prompt": 1000, "output": 5}})
        proc = run_gemtui(
            ["-p", "hi", "--fallback", "--max-budget-usd", "5", "--output-format", "json"],
            env=_other_provider_env(isolated_home, mock_llm_thread, other),
            cwd=workspace,
        )
        assert proc.returncode == 0, proc.stderr
        out = json.loads(proc.stdout)
        assert out["response"] == "answered by openai"
        assert out["stats"]["cost_usd"] == pytest.approx(1.0)


def test_model_fallback_takes_at_most_three_and_known_providers(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    """A fourth ``[model] fallback`` entry, or a provider nobody configured, exits 52
    naming the key before any call; a model name with a colon of its own is a model."""
    four = GEMINI_THEN_OPENAI.replace('"openai:some-model"', '"a", "b", "c", "openai:d"')
    typo = GEMINI_THEN_OPENAI.replace("openai:some-model", "opnai:some-model")
    for config in (four, typo):
        write_fast_config(isolated_home, config)
        proc = run_gemtui(
            ["-p", "hi"], env=gemtui_env(isolated_home, mock_llm_thread.url), cwd=workspace
        )
        assert proc.returncode == 52, proc.stderr
        assert "model.fallback" in proc.stderr
    assert "provider 'opnai', which is not configured" in proc.stderr
    assert mock_llm_thread.requests == []
    write_fast_config(isolated_home, GEMINI_THEN_OPENAI.replace("openai:some-model", "qwen3:8b"))
    mock_llm_thread.enqueue({"text": "fine"})
    proc = run_gemtui(
        ["-p", "hi"], env=gemtui_env(isolated_home, mock_llm_thread.url), cwd=workspace
    )
    assert proc.returncode == 0, proc.stderr


def test_model_fallback_wins_over_the_providers_own_list(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    """A bare ``[model] fallback`` entry is a model of the provider in use, and the
    ``[model]`` list is the one taken when both are set."""
    both = PRO_WITH_FALLBACK.replace('"gemini-2.5-flash"', '"gemini-2.0-flash"')
    write_fast_config(isolated_home, both + '\n[model]\nfallback = ["gemini-2.5-flash"]\n')
    mock_llm_thread.enqueue({"error": DAILY_QUOTA}, {"text": "answered by flash"})
    proc = run_gemtui(
        ["-p", "hi", "--fallback"],
        env=gemtui_env(isolated_home, mock_llm_thread.url),
        cwd=workspace,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "answered by flash"
    assert "switching from gemini-2.5-pro to gemini-2.5-flash" in proc.stderr
    assert _models(mock_llm_thread) == ["gemini-2.5-pro", "gemini-2.5-flash"]
