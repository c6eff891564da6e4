"""``-m auto``: one JSON-mode classification request picks Flash or Pro per prompt."""

from __future__ import annotations

import json
import signal
import time
from pathlib import Path

from gemtui.testing import MockLLMServer

from .helpers import gemtui_env, popen_gemtui, run_gemtui, write_fast_config

EXIT_BOUND = 1.5
"""Seconds from SIGINT to the exit (1 s, plus slack on a shared machine); the classifier's
read timeout and retries alone would take 6 s."""


def _paths(srv: MockLLMServer) -> list[str]:
    return [r.path for r in srv.requests]


def test_auto_classifies_once_then_streams_from_the_chosen_model(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    verdict = {"reasoning": "A one-line question.", "model_choice": "flash"}
    mock_llm_thread.enqueue({"text": json.dumps(verdict)}, {"text": "flash answered"})
    proc = run_gemtui(
        ["-p", "what is 2+2?", "-m", "auto", "--output-format", "json"],
        env=gemtui_env(isolated_home, mock_llm_thread.url),
        cwd=workspace,
    )
    assert proc.returncode == 0, proc.stderr
    assert _paths(mock_llm_thread) == [
        "/v1beta/models/gemini-2.5-flash-lite:generateContent",
        "/v1beta/models/gemini-2.5-flash:streamGenerateContent",
    ]
    classify = mock_llm_thread.requests[0].json
    config = classify["generationConfig"]
    assert config["responseMimeType"] == "application/json"
    # a JSON Schema, sent as Gemini CLI sends it (responseSchema is the OpenAPI subset)
    assert "responseSchema" not in config
    schema = config["responseJsonSchema"]
    assert schema["properties"]["model_choice"]["enum"] == ["flash", "pro"]
    assert schema["required"] == ["reasoning", "model_choice"]
    assert classify["contents"][-1]["parts"][0]["text"] == "what is 2+2?"
    assert "tools" not in classify
    assert "auto chose gemini-2.5-flash: A one-line question." in proc.stderr
    stats = json.loads(proc.stdout)["stats"]
    assert set(stats["models"]) == {"gemini-2.5-flash-lite", "gemini-2.5-flash"}  # counted


def test_a_router_that_answers_nonsense_keeps_the_default_and_says_so(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    mock_llm_thread.enqueue({"text": "I think flash, maybe?"}, {"text": "pro answered"})
    proc = run_gemtui(
        ["-p", "refactor everything", "-m", "auto"],
        env=gemtui_env(isolated_home, mock_llm_thread.url),
        cwd=workspace,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "pro answered"
    assert _paths(mock_llm_thread)[-1] == "/v1beta/models/gemini-2.5-pro:streamGenerateContent"
    assert "auto kept gemini-2.5-pro: the router's answer was not the JSON asked for" in (
        proc.stderr
    )


def test_auto_is_refused_for_a_provider_without_flash_and_pro(
    isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    env = gemtui_env(isolated_home, key=None)
    env["ANTHROPIC_API_KEY"] = "k"
    proc = run_gemtui(["-p", "hi", "-m", "auto", "--provider", "anthropic"], env=env, cwd=workspace)
    assert proc.returncode == 42
    assert "-m auto routes between Gemini Flash and Pro" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_sigint_while_the_classifier_hangs_exits_130_at_once(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    verdict = {"text": json.dumps({"reasoning": "late", "model_choice": "flash"})}
    mock_llm_thread.enqueue({**verdict, "fault": "stall", "seconds": 30}, {"text": "never"})
    proc = popen_gemtui(
        ["-p", "hi", "-m", "auto", "--output-format", "stream-json"],
        env=gemtui_env(isolated_home, mock_llm_thread.url),
        cwd=workspace,
    )
    try:
        deadline = time.monotonic() + 30
        while not mock_llm_thread.requests:  # polling for the classifier call, not a wait
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else b""
            assert time.monotonic() < deadline, "the classifier was never asked"
            time.sleep(0.01)
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        code = proc.wait(timeout=10)
        elapsed = time.monotonic() - sent
    finally:
        if proc.poll() is None:
            proc.kill()
    err = proc.stderr.read().decode() if proc.stderr else ""
    assert elapsed < EXIT_BOUND, f"exit took {elapsed:.2f}s"
    assert code == 130, err
    assert "Traceback" not in err
    paths = _paths(mock_llm_thread)
    assert paths == ["/v1beta/models/gemini-2.5-flash-lite:generateContent"], "no turn began"


def test_plan_mode_routes_to_pro_without_asking_the_classifier(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    mock_llm_thread.enqueue({"text": "a plan"})
    proc = run_gemtui(
        ["-p", "rename x", "-m", "auto", "--approval-mode", "plan"],
        env=gemtui_env(isolated_home, mock_llm_thread.url),
        cwd=workspace,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "a plan"
    assert _paths(mock_llm_thread) == ["/v1beta/models/gemini-2.5-pro:streamGenerateContent"]
    assert "auto chose gemini-2.5-pro: plan mode plans with the Pro model" in proc.stderr
