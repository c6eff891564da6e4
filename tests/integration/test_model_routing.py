"""``-m auto``: one JSON-mode classification request picks Flash or Pro per prompt."""

from __future__ import annotations

import json
import signal
import time
from pathlib import Path

from gemtui.testing import MockLLMServer

from .helpers import FAST_NETWORK, gemtui_env, popen_gemtui, run_gemtui, write_fast_config


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
    """The verdict is held and the read timeout outlasts the hang guard: only SIGINT can
    end the run, and it must not wait for the classifier (no retry, no turn)."""
    cfg = isolated_home / "config"
    cfg.mkdir(parents=True, exist_ok=True)
    slow_read = FAST_NETWORK.replace("read_timeout = 2.0", "read_timeout = 600.0")
    assert slow_read != FAST_NETWORK
    (cfg / "config.toml").write_text(slow_read, encoding="utf-8")
    verdict = {"text": json.dumps({"reasoning": "late", "model_choice": "flash"})}
    mock_llm_thread.enqueue({**verdict, "fault": "hold"}, {"text": "never"})
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
        proc.send_signal(signal.SIGINT)
        code = proc.wait(timeout=60)  # a hang guard: nothing but the signal ends the run
    finally:
        if proc.poll() is None:
            proc.kill()
    err = proc.stderr.read().decode() if proc.stderr else ""
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
