"""`gemtui -p` against a local server that decodes tool calls under a grammar.

The mock plays llama.cpp (``/props``), vLLM (``max_model_len``) or Ollama with an 8k
window; under ``constrained_tools`` every request with tools carries a JSON-schema
``response_format`` that allows exactly one call to a declared tool or ``final_answer``,
whose text is the answer. The mock answers the way the real llama-server did under that
grammar (Qwen2.5-Coder-0.5B): the message text is one ``{"name", "arguments"}`` object.
"""

from __future__ import annotations

import json
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


def _grammar_names(request: dict[str, Any]) -> list[str]:
    """The tool names the response_format schema allows, or [] without one."""
    fmt = request.get("response_format") or {}
    schema = fmt.get("json_schema", {}).get("schema", {})
    return [c["properties"]["name"]["enum"][0] for c in schema.get("anyOf", [])]


def _grammar_arguments(request: dict[str, Any], name: str) -> dict[str, Any]:
    schema = request["response_format"]["json_schema"]["schema"]
    call = next(c for c in schema["anyOf"] if c["properties"]["name"]["enum"] == [name])
    arguments: dict[str, Any] = call["properties"]["arguments"]
    return arguments


def _call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"text": json.dumps({"name": name, "arguments": arguments}), "chunks": 4}


@pytest.mark.parametrize("server", ["llama.cpp", "vllm"])
def test_a_grammar_server_gets_every_turn_as_a_required_call_and_final_answer_is_the_answer(
    server: str, mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    mock_llm_thread.local_server.kind = server
    mock_llm_thread.local_server.context_window = 8192
    env = _local(isolated_home, mock_llm_thread.url)
    (workspace / "notes.txt").write_text("Pelicans nest on islands.\n")
    mock_llm_thread.enqueue(
        _call("read_file", file_path="notes.txt"),
        _call("final_answer", text="The first word is **Pelicans**."),
    )
    proc = run_gemtui(
        ["-p", "first word of notes.txt?", "--provider", "local", "--yolo"],
        env=env,
        cwd=workspace,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "The first word is **Pelicans**."
    first, second = _chat_requests(mock_llm_thread)
    assert _grammar_names(first) == _tool_names(first)
    # after its results, the grammar leaves read_file out: the 0.5B read it again and again
    assert _grammar_names(second) == [n for n in _tool_names(second) if n != "read_file"]
    for request in (first, second):
        assert request["response_format"]["type"] == "json_schema"
        assert _tool_names(request)[0] == "final_answer"
        assert "read_file" in _tool_names(request)
    arguments = _grammar_arguments(first, "read_file")
    assert arguments["required"] == ["file_path"]
    assert arguments["additionalProperties"] is False  # no invented arguments
    tool = [m for m in second["messages"] if m["role"] == "tool"][-1]
    assert "Pelicans nest on islands." in tool["content"]
    # after results the small model is told to answer when they answer (else it reads
    # the same file again and again), and it decodes near-greedily
    assert "reply with final_answer" in json.dumps(second["messages"][-1])
    assert first["temperature"] == second["temperature"] == 0.0
    # only a tool's required arguments are in the grammar (optional ones got invented)
    listing = _grammar_arguments(first, "list_directory")
    assert set(listing["properties"]) == set(listing["required"]) == {"dir_path"}
    # final_answer never runs as a tool nor shows as one: it is the answer
    assert "final_answer" not in proc.stderr


def test_the_answer_is_kept_as_text_in_the_next_prompt_of_the_session(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    mock_llm_thread.local_server.kind = "llama.cpp"
    env = _local(isolated_home, mock_llm_thread.url)
    mock_llm_thread.enqueue(tool_step("final_answer", {"text": "Four."}))  # native form too
    first = run_gemtui(["-p", "2+2?", "--provider", "local"], env=env, cwd=workspace)
    assert first.returncode == 0, first.stderr
    assert first.stdout.strip() == "Four."
    mock_llm_thread.enqueue(_call("final_answer", text="Five."))
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
    assert bool(_grammar_names(request)) is constrained


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
    assert "response_format" not in request
