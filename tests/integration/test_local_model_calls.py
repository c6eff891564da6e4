"""`gemtui -p` with a local model that writes its calls as text, in native OpenAI mode.

The answers are what Qwen2.5-Coder-0.5B-Instruct really wrote behind llama.cpp's
``llama-server --jinja`` (tests/fixtures/real_llm/), replayed by the mock server on the
OpenAI wire: the call is the message's plain text, with no ``tool_calls``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gemtui.testing import MockLLMServer

from .helpers import gemtui_env, run_gemtui, write_fast_config

QWEN_NATIVE_CALL = '{"name": "read_file", "arguments": {"file_path": "notes.txt"}}'
"""The issue's own capture: Qwen's whole answer to "Use the read_file tool"."""


def _native(home: Path, url: str) -> tuple[list[str], dict[str, str]]:
    env = gemtui_env(home, key=None)
    write_fast_config(home)
    env["OPENAI_BASE_URL"] = f"{url}/v1"
    return ["--provider", "openai", "-m", "qwen"], env


def _chat_requests(srv: MockLLMServer) -> list[Any]:
    return [r.json for r in srv.requests if r.path.endswith("/chat/completions")]


@pytest.mark.parametrize(
    "answer",
    [
        QWEN_NATIVE_CALL,
        f"<tool_call>\n{QWEN_NATIVE_CALL}\n</tool_call>",
        f"```json\n{QWEN_NATIVE_CALL}\n```",
    ],
    ids=["bare", "tool_call-tags", "fenced"],
)
def test_text_call_in_native_mode_runs_and_its_result_reaches_the_model(
    answer: str, mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    flags, env = _native(isolated_home, mock_llm_thread.url)
    (workspace / "notes.txt").write_text("Pelicans nest on islands.\n")
    mock_llm_thread.enqueue({"text": answer, "chunks": 7}, {"text": "The first word is Pelicans."})
    proc = run_gemtui(["-p", "first word of notes.txt?", "--yolo", *flags], env=env, cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "The first word is Pelicans."
    second = _chat_requests(mock_llm_thread)[-1]
    assistant = [m for m in second["messages"] if m["role"] == "assistant"][-1]
    assert assistant["tool_calls"][0]["function"]["name"] == "read_file"
    tool = [m for m in second["messages"] if m["role"] == "tool"][-1]
    assert tool["tool_call_id"] == assistant["tool_calls"][0]["id"]
    assert "Pelicans nest on islands." in tool["content"]


def test_prose_around_json_in_native_mode_stays_the_answer(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    flags, env = _native(isolated_home, mock_llm_thread.url)
    text = f"You could call it like this: {QWEN_NATIVE_CALL} and see."
    mock_llm_thread.enqueue({"text": text, "chunks": 5})
    proc = run_gemtui(["-p", "how do I read a file?", "--yolo", *flags], env=env, cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == text
    assert len(_chat_requests(mock_llm_thread)) == 1


def test_undeclared_name_in_native_mode_is_prose(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    flags, env = _native(isolated_home, mock_llm_thread.url)
    text = json.dumps({"name": "format_disk", "arguments": {"drive": "c"}})
    mock_llm_thread.enqueue({"text": text})
    proc = run_gemtui(["-p", "go", "--yolo", *flags], env=env, cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == text
    assert len(_chat_requests(mock_llm_thread)) == 1


@pytest.mark.parametrize(("model", "switched"), [("Qwen3-8B", True), ("qwen2.5-coder", False)])
def test_no_think_setting_switches_qwen3_off_by_its_name(
    model: str,
    switched: bool,
    mock_llm_thread: MockLLMServer,
    isolated_home: Path,
    workspace: Path,
) -> None:
    env = gemtui_env(isolated_home, key=None)
    local = f"""
[providers.local]
kind = "openai"
base_url = "{mock_llm_thread.url}/v1"
models = ["{model}"]
no_think = true
"""
    write_fast_config(isolated_home, local)
    mock_llm_thread.enqueue({"text": "<think>\n\n</think>\n\nHi."})
    proc = run_gemtui(["-p", "hello", "--provider", "local"], env=env, cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "Hi."
    user = [m for m in _chat_requests(mock_llm_thread)[-1]["messages"] if m["role"] == "user"]
    assert user[-1]["content"] == ("/no_think\n\nhello" if switched else "hello")


def _read_file_description(request: dict[str, Any]) -> str:
    tools = {t["function"]["name"]: t["function"] for t in request["tools"]}
    return str(tools["read_file"]["description"])


@pytest.mark.parametrize(
    ("server", "extra", "compact", "probed"),
    [
        ("llama.cpp", "", True, True),
        ("ollama", "", True, True),
        ("vllm", "", True, True),
        (None, "", False, True),  # says nothing: the name's guess (128k) stays
        ("llama.cpp", "context_window = 200000\n", False, False),  # settings win, no probe
        ("llama.cpp", 'tool_descriptions = "full"\n', False, True),
    ],
)
def test_small_window_learned_from_the_server_gets_compact_tools(
    server: str | None,
    extra: str,
    compact: bool,
    probed: bool,
    mock_llm_thread: MockLLMServer,
    isolated_home: Path,
    workspace: Path,
) -> None:
    mock_llm_thread.local_server.kind = server
    mock_llm_thread.local_server.context_window = 8192
    env = gemtui_env(isolated_home, key=None)
    local = f"""
[providers.local]
kind = "openai"
base_url = "{mock_llm_thread.url}/v1"
models = ["qwen3-coder"]
{extra}"""
    write_fast_config(isolated_home, local)
    mock_llm_thread.enqueue({"text": "Hi."}, {"text": "Again."})
    proc = run_gemtui(["-p", "hello", "--provider", "local"], env=env, cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    request = _chat_requests(mock_llm_thread)[-1]
    description = _read_file_description(request)
    if compact:
        assert description == "Reads and returns the content of a specified file."
    else:
        assert len(description) > 200
    probes = [r.path for r in mock_llm_thread.requests if not r.path.endswith("/completions")]
    assert bool(probes) is probed


def test_text_tools_get_one_line_guidance_for_a_small_window(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    mock_llm_thread.local_server.kind = "llama.cpp"
    env = gemtui_env(isolated_home, key=None)
    env["OPENAI_BASE_URL"] = f"{mock_llm_thread.url}/v1"
    write_fast_config(isolated_home)
    mock_llm_thread.enqueue({"text": "Hi."})
    proc = run_gemtui(
        ["-p", "hello", "--provider", "openai", "-m", "qwen", "--text-tools"],
        env=env,
        cwd=workspace,
    )
    assert proc.returncode == 0, proc.stderr
    request = _chat_requests(mock_llm_thread)[-1]
    assert "tools" not in request
    system = request["messages"][0]["content"]
    assert (
        "- read_file(file_path: string, start_line?: number, end_line?: number, "
        "offset?: number, limit?: number): " in system
    )
    assert "Available tools:" not in system  # the full form's heading
