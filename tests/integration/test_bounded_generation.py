"""Every generation ends: each request carries an output bound, a constrained stream that
loops is cut, and an answer the bound cut is announced.

Why: on the real Qwen2.5-Coder-0.5B behind llama-server a plain question ran for 300 s
(``n_predict`` −1, no limit sent) while the answer, held back under the JSON grammar,
never reached the stream's loop check. ``gemtui -p`` runs against the wire mocks, which
record each request's body.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gemtui.testing import MockLLMServer

from .conftest import SessionFactory
from .helpers import gemtui_env, run_gemtui, write_fast_config
from .test_stream_loop import LONG_ANSWER

LOOP_NOTICE = "The model kept repeating the same text, so its answer was cut"
CUT_NOTICE = "The answer was cut off"


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


def _chat_bodies(srv: MockLLMServer) -> list[Any]:
    return [r.json for r in srv.requests if r.path.endswith("/chat/completions")]


def _grammar_call(text_between: str, answer: str = "Hi.") -> str:
    """A ``final_answer`` call as llama.cpp writes it under the grammar, with
    ``text_between`` where the grammar lets whitespace go."""
    return f'{{"name": "final_answer",{text_between}"arguments": {{"text": "{answer}"}}}}'


def test_every_local_request_main_and_side_calls_carries_a_bound(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    mock_llm_thread.local_server.kind = "llama.cpp"
    mock_llm_thread.local_server.context_window = 32768
    env = _local(isolated_home, mock_llm_thread.url, "\n[agent]\nnext_speaker_check = true\n")
    verdict = json.dumps({"reasoning": "done", "next_speaker": "user"})
    mock_llm_thread.enqueue({"text": "The sea is wide."}, {"text": verdict})
    proc = run_gemtui(
        ["-p", "one sentence about the sea", "--provider", "local"], env=env, cwd=workspace
    )
    assert proc.returncode == 0, proc.stderr
    main, side = _chat_bodies(mock_llm_thread)
    assert main["max_tokens"] == 8192  # the local cap: the window leaves room for it
    assert side["response_format"]["type"] in ("json_schema", "json_object")
    assert side["max_tokens"] == 1024  # the next-speaker check's own, small bound


def test_a_prompt_near_the_window_lowers_the_bound(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    mock_llm_thread.local_server.kind = "llama.cpp"
    mock_llm_thread.local_server.context_window = 8192
    env = _local(isolated_home, mock_llm_thread.url)
    mock_llm_thread.enqueue({"text": "Short."}, {"text": "Short again."})
    small = run_gemtui(["-p", "hi", "--provider", "local"], env=env, cwd=workspace)
    assert small.returncode == 0, small.stderr
    big_prompt = "Summarise this: " + "the tide comes in and goes out again " * 500  # ~4.6k tokens
    big = run_gemtui(["-p", big_prompt, "--provider", "local"], env=env, cwd=workspace)
    assert big.returncode == 0, big.stderr
    first, second = _chat_bodies(mock_llm_thread)
    assert first["max_tokens"] < 8192  # the system prompt and tools already take some
    prompt_chars = len(json.dumps(second["messages"])) + len(json.dumps(second.get("tools")))
    assert second["max_tokens"] <= 8192 - prompt_chars // 4
    assert second["max_tokens"] < first["max_tokens"] - 4000


def test_gemini_requests_carry_max_output_tokens(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    verdict = {"reasoning": "A one-line question.", "model_choice": "flash"}
    mock_llm_thread.enqueue({"text": json.dumps(verdict)}, {"text": "flash answered"})
    proc = run_gemtui(
        ["-p", "what is 2+2?", "-m", "auto"],
        env=gemtui_env(isolated_home, mock_llm_thread.url),
        cwd=workspace,
    )
    assert proc.returncode == 0, proc.stderr
    router, main = (r.json["generationConfig"] for r in mock_llm_thread.requests)
    assert router["maxOutputTokens"] == 1024  # the router's side call
    assert main["maxOutputTokens"] == 65536  # Gemini 2.5's most, well inside its window


def test_anthropic_max_tokens_is_lowered_by_a_small_window(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(
        isolated_home, '\n[providers.anthropic]\nkind = "anthropic"\ncontext_window = 6000\n'
    )
    env = gemtui_env(isolated_home, key=None)
    env["ANTHROPIC_BASE_URL"] = mock_llm_thread.url
    env["ANTHROPIC_API_KEY"] = "sk-ant-test"
    mock_llm_thread.enqueue({"text": "Hello."})
    proc = run_gemtui(["-p", "hi", "--provider", "anthropic"], env=env, cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    [body] = [r.json for r in mock_llm_thread.requests if r.path.endswith("/messages")]
    assert 256 <= body["max_tokens"] < 6000 - 1000  # not the fixed 8,192 past the window


@pytest.mark.parametrize(
    ("between", "answer"),
    [
        pytest.param(" \n" * 4000, "Hi.", id="endless-whitespace"),
        pytest.param(" ", "The sea is wide. " * 300 + "Hi.", id="repetition"),
    ],
)
def test_a_constrained_stream_that_loops_is_cut_by_the_loop_check(
    between: str, answer: str, mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    mock_llm_thread.local_server.kind = "llama.cpp"
    env = _local(isolated_home, mock_llm_thread.url, 'constrained_tools = "on"\n')
    step: dict[str, Any] = {"text": _grammar_call(between, answer), "chunks": 400}
    # the server keeps the stream open after most of it, as a decode that never ends:
    # only a check on the text as it streams can stop it (the end never comes)
    mock_llm_thread.enqueue({**step, "fault": "hold", "after_chunks": 300})
    proc = run_gemtui(["-p", "about the sea", "--provider", "local"], env=env, cwd=workspace)
    mock_llm_thread.release()
    assert proc.returncode == 1, proc.stderr  # as for any loop (README: exit codes)
    assert f"gemtui: {LOOP_NOTICE}" in proc.stderr
    assert "Hi." not in proc.stdout
    body = _chat_bodies(mock_llm_thread)[0]
    assert body["response_format"]["type"] == "json_schema"  # the grammar was on

    # control: the same stream without the loop check plays out to its very end
    write_fast_config(
        isolated_home,
        f"""
[providers.local]
kind = "openai"
base_url = "{mock_llm_thread.url}/v1"
models = ["mock-model"]
constrained_tools = "on"

[chat]
loop_detection = false
""",
    )
    mock_llm_thread.enqueue(step)
    unguarded = run_gemtui(["-p", "about the sea", "--provider", "local"], env=env, cwd=workspace)
    assert LOOP_NOTICE not in unguarded.stderr
    assert unguarded.returncode == 0, unguarded.stderr


def test_an_answer_cut_by_the_bound_is_announced(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    mock_llm_thread.local_server.kind = "llama.cpp"
    env = _local(isolated_home, mock_llm_thread.url, "\n[chat]\nmax_output_tokens = 300\n")
    mock_llm_thread.enqueue({"text": "The sea is wide and", "finish_reason": "MAX_TOKENS"})
    proc = run_gemtui(
        ["-p", "about the sea", "--provider", "local", "--output-format", "json"],
        env=env,
        cwd=workspace,
    )
    assert proc.returncode == 0, proc.stderr
    assert f"gemtui: {CUT_NOTICE}" in proc.stderr
    assert "max_output_tokens" in proc.stderr  # says which setting to raise
    result = json.loads(proc.stdout)
    assert result["response"] == "The sea is wide and"
    assert result["stats"]["truncated"] is True
    assert _chat_bodies(mock_llm_thread)[0]["max_tokens"] == 300  # the setting's cap
    # a whole answer is not flagged
    mock_llm_thread.enqueue({"text": "The sea is wide."})
    whole = run_gemtui(
        ["-p", "about the sea", "--provider", "local", "--output-format", "json"],
        env=env,
        cwd=workspace,
    )
    assert "truncated" not in json.loads(whole.stdout)["stats"]
    assert CUT_NOTICE not in whole.stderr


def test_a_constrained_answer_cut_by_the_bound_shows_its_text_and_the_notice(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    mock_llm_thread.local_server.kind = "llama.cpp"
    env = _local(isolated_home, mock_llm_thread.url, 'constrained_tools = "on"\n')
    cut = '{"name": "final_answer", "arguments": {"text": "The sea is\\nwide and'
    mock_llm_thread.enqueue({"text": cut, "chunks": 5, "finish_reason": "MAX_TOKENS"})
    proc = run_gemtui(["-p", "about the sea", "--provider", "local"], env=env, cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "The sea is\nwide and\n"  # the answer as far as it got, not JSON
    assert f"gemtui: {CUT_NOTICE}" in proc.stderr


async def test_the_compression_summary_has_a_bound_of_its_own(
    mock_llm: MockLLMServer, make_session: SessionFactory
) -> None:
    session = make_session(context_window=4000)
    for i in range(4):
        mock_llm.enqueue({"text": f"answer {i} " + "lorem " * 100})
        await session.send(f"question {i} " + "context " * 40)
    mock_llm.enqueue({"text": "SUMMARY"})
    await session.compress()
    [summary] = [r.json for r in mock_llm.requests if r.path.endswith(":generateContent")]
    assert "Summarise the conversation" in json.dumps(summary["contents"][-1])
    bound = summary["generationConfig"]["maxOutputTokens"]
    assert 256 <= bound < 4000  # the room the small window leaves, not 8,192
    turns = [r.json for r in mock_llm.requests if r.path.endswith(":streamGenerateContent")]
    assert all(t["generationConfig"]["maxOutputTokens"] < 4000 for t in turns)


def test_a_long_constrained_answer_with_code_and_tables_is_not_cut(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    """Inside the call's JSON the answer is one escaped line; the loop check must still
    read its code block and table as lines, whose repeats are not a loop."""
    mock_llm_thread.local_server.kind = "llama.cpp"
    env = _local(isolated_home, mock_llm_thread.url, 'constrained_tools = "on"\n')
    call = json.dumps({"name": "final_answer", "arguments": {"text": LONG_ANSWER}})
    mock_llm_thread.enqueue({"text": call, "chunks": 300})
    proc = run_gemtui(["-p", "the plan?", "--provider", "local"], env=env, cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    assert LOOP_NOTICE not in proc.stderr
    assert proc.stdout == LONG_ANSWER + "\n"
