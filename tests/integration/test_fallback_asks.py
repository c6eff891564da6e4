"""A fallback that asks (issue 37, item 4): headless ``gemtui -p`` against the wire mock
switches to the ``fallback`` model only with ``--fallback`` or ``fallback_auto``, and says
so on stderr and in the stats; without permission it ends with the error's exit code and
names the model it would have switched to."""

from __future__ import annotations

import json
from pathlib import Path

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
