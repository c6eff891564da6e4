"""Runaway guards (issue 37, item 3) through the real ``gemtui -p`` and the wire mock:
per-session caps on web searches and subagent spawns, and the per-prompt turn cap. Each
refusal reaches the model as a tool error it can finish after, and the person as a
warning on stderr; a subagent's searches count toward the session's cap."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gemtui.testing import MockLLMServer

from .helpers import gemtui_env, run_gemtui, write_fast_config
from .test_subagents import _call, _done, _env, _responses, _user_agent

SEARCHER = """---
name: searcher
description: Looks things up on the web.
tools: [google_web_search]
max_turns: 5
---
You are SEARCHER-PROMPT.
"""

FOUND = {"text": "Python 3.14 is out."}
"""The grounded search's answer (the mock has no real search)."""


def _search(call_id: str) -> dict[str, Any]:
    return _call("google_web_search", {"query": f"news {call_id}"}, call_id)


def _searches(server: MockLLMServer) -> int:
    return sum(1 for r in server.requests if r.json.get("tools") == [{"googleSearch": {}}])


@pytest.mark.parametrize("cap", [2, 3])
def test_the_search_past_the_cap_is_refused_and_said(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path, cap: int
) -> None:
    """Three searches under ``max_web_searches = 2``: the third never reaches the
    server, the model reads why, stderr says it once. Cap 3 is the control: the same
    third search does run."""
    write_fast_config(isolated_home, f"\n[tools]\nmax_web_searches = {cap}\n")
    steps: list[dict[str, Any]] = [_search("s1"), FOUND, _search("s2"), FOUND, _search("s3")]
    steps += [FOUND] if cap == 3 else []
    mock_llm_thread.enqueue(*steps, {"text": "done"})
    proc = run_gemtui(
        ["-p", "search thrice", "--approval-mode", "yolo"],
        env=gemtui_env(isolated_home, mock_llm_thread.url),
        cwd=workspace,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "done"
    said = "reached its limit of 2 web searches ([tools] max_web_searches)"
    third = _responses(mock_llm_thread.requests[-1])["s3"]
    if cap == 2:
        assert _searches(mock_llm_thread) == 2
        assert said in third["error"]
        assert "Finish with what you have." in third["error"]
        assert proc.stderr.count(said) == 1
        assert "warning: This session reached its limit" in proc.stderr
    else:
        assert _searches(mock_llm_thread) == 3
        assert "error" not in third
        assert "limit" not in proc.stderr


@pytest.mark.parametrize("cap", [1, 2])
def test_a_subagents_searches_count_toward_the_sessions_cap(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path, cap: int
) -> None:
    """The conversation searches once, then its subagent tries: under a cap of 1 the
    subagent is refused (no going around the cap by delegating); cap 2 is the control."""
    write_fast_config(isolated_home, f"\n[tools]\nmax_web_searches = {cap}\n")
    _user_agent(isolated_home, "searcher", SEARCHER)
    steps: list[dict[str, Any]] = [
        _search("p1"),
        FOUND,
        _call("searcher", {"task": "look it up"}, "p2"),
        _search("c1"),
    ]
    steps += [FOUND] if cap == 2 else []
    steps += [_done("child report"), {"text": "done"}]
    mock_llm_thread.enqueue(*steps)
    proc = run_gemtui(
        ["-p", "search, then delegate", "--approval-mode", "yolo"],
        env=_env(isolated_home, mock_llm_thread.url),
        cwd=workspace,
    )
    assert proc.returncode == 0, proc.stderr
    child_search = next(r for r in mock_llm_thread.requests if "c1" in _responses(r))
    assert "SEARCHER-PROMPT" in json.dumps(child_search.json.get("systemInstruction"))
    if cap == 1:
        assert _searches(mock_llm_thread) == 1
        assert "limit of 1 web searches" in _responses(child_search)["c1"]["error"]
        assert "limit of 1 web searches ([tools] max_web_searches)" in proc.stderr
    else:
        assert _searches(mock_llm_thread) == 2
        assert "error" not in _responses(child_search)["c1"]


def test_turns_per_prompt_from_the_settings_stop_with_53_and_say_so(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    """``[general] max_turns = 2``: a model that keeps calling tools is stopped after
    two turns, exit 53, and stderr says where the limit is set."""
    write_fast_config(isolated_home, "\n[general]\nmax_turns = 2\n")
    (workspace / "a.txt").write_text("alpha\n")
    read = {"name": "read_file", "args": {"absolute_path": str(workspace / "a.txt")}}
    mock_llm_thread.enqueue(
        {"function_calls": [{**read, "id": "r1"}]},
        {"function_calls": [{**read, "id": "r2"}]},
        {"text": "never asked"},
    )
    proc = run_gemtui(
        ["-p", "read forever"], env=gemtui_env(isolated_home, mock_llm_thread.url), cwd=workspace
    )
    assert proc.returncode == 53, proc.stderr
    assert "stopped after 2 model turns (--max-turns or [general] max_turns)" in proc.stderr
    assert len(mock_llm_thread.requests) == 2
