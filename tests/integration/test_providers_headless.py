"""`gemtui -p` end to end against the OpenAI-compatible and Anthropic mock wires.

The real command in a subprocess: provider chosen by flag, by environment or by a named
``[providers.NAME]`` table; tool calls refused without approval and run with ``--yolo``;
bad provider settings exit 52 naming the file, the key and the fix.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gemtui.testing import MockLLMServer

from .helpers import gemtui_env, run_gemtui, write_fast_config

WIRES = ["openai", "anthropic", "local"]


def _setup(wire: str, home: Path, url: str) -> tuple[list[str], dict[str, str]]:
    """Flags and environment selecting ``wire``; no Gemini key anywhere."""
    env = gemtui_env(home, key=None)
    if wire == "openai":
        write_fast_config(home)
        env["OPENAI_BASE_URL"] = f"{url}/v1"
        return ["--provider", "openai", "-m", "qwen3-coder"], env
    if wire == "anthropic":
        write_fast_config(home)
        env["ANTHROPIC_BASE_URL"] = url
        env["ANTHROPIC_API_KEY"] = "sk-ant-test"
        return ["--provider", "anthropic"], env
    local = f"""
[providers.local]
kind = "openai"
base_url = "{url}/v1"
models = ["qwen3-coder"]
text_tools = true
"""
    write_fast_config(home, local)
    return ["--provider", "local"], env


def _calls_step(wire: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    if wire == "local":  # text_tools: the call is JSON in the model's text
        call = json.dumps({"tool_call": {"name": name, "arguments": args}})
        return {"text": f"Checking.\n```json\n{call}\n```"}
    return {"function_calls": [{"name": name, "args": args, "id": "call-7"}]}


def _generation(srv: MockLLMServer) -> list[Any]:
    return [r.json for r in srv.requests if r.path.endswith(("/chat/completions", "/messages"))]


@pytest.mark.parametrize("wire", WIRES)
def test_plain_answer(
    wire: str, mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    flags, env = _setup(wire, isolated_home, mock_llm_thread.url)
    mock_llm_thread.enqueue(
        {"text": "Hello from the other wire.", "chunks": 3, "thought": "pondering"}
    )
    proc = run_gemtui(["-p", "hi", *flags], env=env, cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "Hello from the other wire.\n"
    req = mock_llm_thread.requests[-1]
    if wire == "anthropic":
        assert req.path == "/v1/messages"
        assert req.headers["x-api-key"] == "sk-ant-test"
    else:
        assert req.path == "/v1/chat/completions"
        assert "authorization" not in req.headers
        assert req.json["model"] == "qwen3-coder"
    assert ("tools" in req.json) == (wire != "local")


@pytest.mark.parametrize("wire", WIRES)
def test_tool_call_refused_without_approval(
    wire: str, mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    flags, env = _setup(wire, isolated_home, mock_llm_thread.url)
    target = workspace / "made.txt"
    mock_llm_thread.enqueue(
        _calls_step(wire, "write_file", {"file_path": "made.txt", "content": "x"}),
        {"text": "I could not write it."},
    )
    proc = run_gemtui(
        ["-p", "write it", "--approval-mode", "default", *flags], env=env, cwd=workspace
    )
    assert proc.returncode == 0, proc.stderr
    assert not target.exists()
    sent = json.dumps(_generation(mock_llm_thread)[-1])
    assert "needs approval" in sent.lower()


@pytest.mark.parametrize("wire", WIRES)
def test_tool_call_runs_with_yolo(
    wire: str, mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    flags, env = _setup(wire, isolated_home, mock_llm_thread.url)
    (workspace / "notes.txt").write_text("secret sauce\n")
    mock_llm_thread.enqueue(
        _calls_step(wire, "read_file", {"file_path": "notes.txt"}),
        {"text": "It says secret sauce."},
    )
    proc = run_gemtui(["-p", "read notes", "--yolo", *flags], env=env, cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().endswith("It says secret sauce.")
    assert "tool_call" not in proc.stdout
    assert "secret sauce" in json.dumps(_generation(mock_llm_thread)[-1])


def test_anthropic_without_key_exits_41(isolated_home: Path, workspace: Path) -> None:
    write_fast_config(isolated_home)
    proc = run_gemtui(
        ["-p", "hi", "--provider", "anthropic"],
        env=gemtui_env(isolated_home, key=None),
        cwd=workspace,
    )
    assert proc.returncode == 41
    assert "ANTHROPIC_API_KEY" in proc.stderr
    assert "Traceback" not in proc.stderr


BAD_SETTINGS = {
    "unknown kind": (
        '[providers.local]\nkind = "ollama"\n',
        "providers.local.kind",
        "allowed values",
    ),
    "missing base_url": (
        '[providers.local]\nkind = "openai"\n',
        "providers.local.base_url",
        "base_url =",
    ),
    "thinking budget under the API's minimum": (
        '[providers.local]\nkind = "anthropic"\nthinking_budget = 500\n',
        "providers.local.thinking_budget",
        "at least 1024",
    ),
    "unknown tool_descriptions": (
        '[providers.local]\nkind = "openai"\nbase_url = "http://127.0.0.1:9/v1"\n'
        'tool_descriptions = "short"\n',
        "providers.local.tool_descriptions",
        "compact",
    ),
    "malformed toml": ('[providers.local\nkind = "openai"\n', "malformed TOML", "Fix the syntax"),
}


@pytest.mark.parametrize("case", list(BAD_SETTINGS))
def test_bad_provider_settings_exit_52(case: str, isolated_home: Path, workspace: Path) -> None:
    text, key, fix = BAD_SETTINGS[case]
    cfg = isolated_home / "config"
    cfg.mkdir()
    (cfg / "config.toml").write_text(text, encoding="utf-8")
    proc = run_gemtui(
        ["-p", "hi", "--provider", "local"], env=gemtui_env(isolated_home, key=None), cwd=workspace
    )
    assert proc.returncode == 52, proc.stderr
    assert str(cfg / "config.toml") in proc.stderr
    assert key in proc.stderr
    assert fix in proc.stderr
    assert "Traceback" not in proc.stderr
