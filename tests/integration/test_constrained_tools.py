"""`gemtui -p` against a local server that decodes tool calls under a grammar.

The mock plays llama.cpp (``/props``), vLLM (``max_model_len``) or Ollama with an 8k
window; under ``constrained_tools`` every request with tools requires a call and offers
``final_answer``, whose text is the answer. The mock answers the way the real server
does under the grammar: with ``tool_calls`` only.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gemtui.testing import MockLLMServer
from gemtui.testing.script import tool_step

from .helpers import gemtui_env, run_gemtui, write_fast_config


def _local(home: Path, url: str, extra: str = "") -> dict[str, str]:
    env = gemtui_env(home, key=None)
    write_fast_config(
        home,
        f"""
[providers.local]
kind = "openai"
base_url = "{url}/v1"
models = ["mock-model"]
{extra}""",
    )
    return env


def _chat_requests(srv: MockLLMServer) -> list[Any]:
    return [r.json for r in srv.requests if r.path.endswith("/chat/completions")]


def _tool_names(request: dict[str, Any]) -> list[str]:
    return [t["function"]["name"] for t in request.get("tools", [])]


@pytest.mark.parametrize("server", ["llama.cpp", "vllm"])
def test_a_grammar_server_gets_every_turn_as_a_required_call_and_final_answer_is_the_answer(
    server: str, mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    mock_llm_thread.local_server.kind = server
    mock_llm_thread.local_server.context_window = 8192
    env = _local(isolated_home, mock_llm_thread.url)
    (workspace / "notes.txt").write_text("Pelicans nest on islands.\n")
    mock_llm_thread.enqueue(
        tool_step("read_file", {"file_path": "notes.txt"}),
        tool_step("final_answer", {"text": "The first word is **Pelicans**."}),
    )
    proc = run_gemtui(
        ["-p", "first word of notes.txt?", "--provider", "local", "--yolo"],
        env=env,
        cwd=workspace,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "The first word is **Pelicans**."
    first, second = _chat_requests(mock_llm_thread)
    for request in (first, second):
        assert request["tool_choice"] == "required"
        assert _tool_names(request)[-1] == "final_answer"
        assert "read_file" in _tool_names(request)
    tool = [m for m in second["messages"] if m["role"] == "tool"][-1]
    assert "Pelicans nest on islands." in tool["content"]
    # final_answer never runs as a tool nor shows as one: it is the answer
    assert "final_answer" not in proc.stderr


def test_the_answer_is_kept_as_text_in_the_next_prompt_of_the_session(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    mock_llm_thread.local_server.kind = "llama.cpp"
    env = _local(isolated_home, mock_llm_thread.url)
    mock_llm_thread.enqueue(tool_step("final_answer", {"text": "Four."}))
    first = run_gemtui(["-p", "2+2?", "--provider", "local"], env=env, cwd=workspace)
    assert first.returncode == 0, first.stderr
    assert first.stdout.strip() == "Four."
    mock_llm_thread.enqueue(tool_step("final_answer", {"text": "Five."}))
    again = run_gemtui(
        ["-p", "plus one?", "--provider", "local", "--resume", "latest"], env=env, cwd=workspace
    )
    assert again.returncode == 0, again.stderr
    messages = _chat_requests(mock_llm_thread)[-1]["messages"]
    assistant = [m for m in messages if m["role"] == "assistant"]
    assert assistant[-1]["content"] == "Four."
    assert "tool_calls" not in assistant[-1]


@pytest.mark.parametrize(
    ("server", "extra", "constrained"),
    [
        ("ollama", "", False),  # its OpenAI endpoint ignores tool_choice
        (None, "", False),  # a server that says nothing about itself
        ("llama.cpp", 'constrained_tools = "off"\n', False),
        ("llama.cpp", 'tool_descriptions = "full"\n', False),  # auto: small models only
        (None, 'constrained_tools = "on"\n', True),
    ],
)
def test_constrained_only_where_the_server_and_the_setting_allow(
    server: str | None,
    extra: str,
    constrained: bool,
    mock_llm_thread: MockLLMServer,
    isolated_home: Path,
    workspace: Path,
) -> None:
    mock_llm_thread.local_server.kind = server
    env = _local(isolated_home, mock_llm_thread.url, extra)
    mock_llm_thread.enqueue({"text": "Hi."})
    proc = run_gemtui(["-p", "hello", "--provider", "local"], env=env, cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "Hi."
    request = _chat_requests(mock_llm_thread)[-1]
    assert ("final_answer" in _tool_names(request)) is constrained
    assert (request.get("tool_choice") == "required") is constrained


def test_text_tools_are_never_constrained(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    mock_llm_thread.local_server.kind = "llama.cpp"
    env = _local(isolated_home, mock_llm_thread.url, 'constrained_tools = "on"\n')
    mock_llm_thread.enqueue({"text": "Hi."})
    proc = run_gemtui(
        ["-p", "hello", "--provider", "local", "--text-tools"], env=env, cwd=workspace
    )
    assert proc.returncode == 0, proc.stderr
    request = _chat_requests(mock_llm_thread)[-1]
    assert "tools" not in request
    assert "tool_choice" not in request
