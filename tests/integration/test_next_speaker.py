"""The next-speaker check: after a text-only answer that announces an action, one
JSON-mode call decides whether the model goes on ("Please continue.")."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gemtui.testing import MockLLMServer

from .helpers import gemtui_env, run_gemtui, write_fast_config

ON = "\n[agent]\nnext_speaker_check = true\n"


def _verdict(speaker: str) -> dict[str, str]:
    return {"text": json.dumps({"reasoning": "said so", "next_speaker": speaker})}


def _last_text(request_json: dict[str, Any]) -> str:
    return str(request_json["contents"][-1]["parts"][0]["text"])


def test_an_announced_action_gets_please_continue(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home, ON)
    mock_llm_thread.enqueue(
        {"text": "I'll now read the configuration."},
        _verdict("model"),
        {"text": "The configuration sets port 8080."},
        _verdict("user"),
    )
    proc = run_gemtui(
        ["-p", "what port?", "--output-format", "json"],
        env=gemtui_env(isolated_home, mock_llm_thread.url),
        cwd=workspace,
    )
    assert proc.returncode == 0, proc.stderr
    paths = [r.path.rsplit("/", 1)[1] for r in mock_llm_thread.requests]
    assert paths == [
        "gemini-2.5-pro:streamGenerateContent",
        "gemini-2.5-flash:generateContent",
        "gemini-2.5-pro:streamGenerateContent",
        "gemini-2.5-flash:generateContent",
    ]
    check = mock_llm_thread.requests[1].json
    assert check["generationConfig"]["responseJsonSchema"]["properties"]["next_speaker"] == {
        "type": "string",
        "enum": ["user", "model"],
    }
    assert check["contents"][-2]["parts"][0]["text"] == "I'll now read the configuration."
    assert "who should speak next" in _last_text(check)
    assert "tools" not in check
    resumed = mock_llm_thread.requests[2].json
    assert _last_text(resumed) == "Please continue."
    result = json.loads(proc.stdout)
    assert "The configuration sets port 8080." in result["response"]
    assert "gemini-2.5-flash" in result["stats"]["models"]  # the checks' tokens count


def test_continuing_is_bounded_even_if_the_check_always_says_model(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home, ON)
    for i in range(4):
        mock_llm_thread.enqueue({"text": f"Step {i}: now I will do the next part."})
        mock_llm_thread.enqueue(_verdict("model"))
    proc = run_gemtui(
        ["-p", "go"], env=gemtui_env(isolated_home, mock_llm_thread.url), cwd=workspace
    )
    assert proc.returncode == 0, proc.stderr
    streams = [r for r in mock_llm_thread.requests if r.path.endswith("streamGenerateContent")]
    assert len(streams) == 4, "the first answer and three continues, then the prompt ends"


def test_off_by_default_and_a_failed_check_just_ends_the_prompt(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    mock_llm_thread.enqueue({"text": "I'll now read the configuration."})
    proc = run_gemtui(
        ["-p", "go"], env=gemtui_env(isolated_home, mock_llm_thread.url), cwd=workspace
    )
    assert proc.returncode == 0, proc.stderr
    assert len(mock_llm_thread.requests) == 1

    write_fast_config(isolated_home, ON)
    mock_llm_thread.enqueue(
        {"text": "I'll now read the configuration."}, {"error": {"status": 400}}
    )
    proc = run_gemtui(
        ["-p", "go"], env=gemtui_env(isolated_home, mock_llm_thread.url), cwd=workspace
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "I'll now read the configuration."
    assert len(mock_llm_thread.requests) == 3  # the answer and one failed check


def test_a_local_provider_asks_its_own_model(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    env = gemtui_env(isolated_home, key=None)
    env["OPENAI_BASE_URL"] = f"{mock_llm_thread.url}/v1"
    args = ["-p", "go", "--provider", "openai", "-m", "qwen3-coder"]
    write_fast_config(isolated_home, ON)
    mock_llm_thread.enqueue(
        {"text": "Let me look at the file now."},
        _verdict("model"),
        {"text": "It defines main()."},
        _verdict("user"),
    )
    proc = run_gemtui(args, env=env, cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    chats = [r.json for r in mock_llm_thread.requests if r.path.endswith("/chat/completions")]
    assert len(chats) == 4
    check = chats[1]
    assert check["model"] == "qwen3-coder"
    assert check["response_format"]["type"] == "json_schema"
    assert check["response_format"]["json_schema"]["schema"]["required"] == [
        "reasoning",
        "next_speaker",
    ]
    assert chats[2]["messages"][-1] == {"role": "user", "content": "Please continue."}
    assert "It defines main()." in proc.stdout
