"""Subagents through the real `gemtui -p` against the mock server.

The mock serves requests in order: the parent's first turn, then the child's turns, then
the parent's next turn. Each recorded request shows what that model call carried (its
system prompt and its tools), so the child's are told apart from the parent's.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gemtui.testing import MockLLMServer

from .helpers import gemtui_env, run_gemtui, write_fast_config

SCOUT = """---
name: scout
description: Finds things in the code (SCOUT-DESCRIPTION).
tools: [read_file, grep_search]
max_turns: 5
---
You are SCOUT-PROMPT. Read, never write.
"""

SCRIBE = """---
name: scribe
description: Writes files for you.
tools:
  - write_file
  - read_file
---
You are SCRIBE-PROMPT.
"""


def _env(home: Path, url: str) -> dict[str, str]:
    env = gemtui_env(home, url)
    env["HOME"] = str(home / "person")  # ~/.gemini/agents lives here
    return env


def _user_agent(home: Path, name: str, text: str, folder: str = ".gemini") -> None:
    path = home / "person" / folder / "agents" / f"{name}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _tools(request: Any) -> set[str]:
    return {
        d["name"] for t in request.json.get("tools", []) for d in t.get("functionDeclarations", [])
    }


def _declaration(request: Any, name: str) -> dict[str, Any]:
    return next(
        d
        for t in request.json.get("tools", [])
        for d in t.get("functionDeclarations", [])
        if d["name"] == name
    )


def _system(request: Any) -> str:
    parts = (request.json.get("systemInstruction") or {}).get("parts", [])
    return "".join(p.get("text", "") for p in parts)


def _responses(request: Any) -> dict[str, dict[str, Any]]:
    """The function responses the request's last message carries, by call id."""
    out: dict[str, dict[str, Any]] = {}
    for part in request.json["contents"][-1]["parts"]:
        fr = part.get("functionResponse")
        if fr is not None:
            out[fr["id"]] = fr["response"]
    return out


def _call(name: str, args: dict[str, Any], call_id: str) -> dict[str, Any]:
    return {"function_calls": [{"name": name, "args": args, "id": call_id}]}


def _done(report: str, call_id: str = "done") -> dict[str, Any]:
    return _call("complete_task", {"output": {"report": report}}, call_id)


def test_user_agent_is_offered_runs_its_own_turns_and_its_report_reaches_the_parent(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    _user_agent(isolated_home, "scout", SCOUT)
    (workspace / "notes.txt").write_text("NOTES-BODY\n")
    mock_llm_thread.enqueue(
        _call("scout", {"task": "What do the notes say?"}, "p1"),
        {
            "function_calls": [
                {"name": "read_file", "args": {"file_path": "notes.txt"}, "id": "c1"},
                # a read-only agent tries to write: even yolo gives it no write tool
                {
                    "name": "write_file",
                    "args": {"file_path": "pwned.txt", "content": "x"},
                    "id": "c2",
                },
                {"name": "run_shell_command", "args": {"command": "touch shell"}, "id": "c3"},
            ]
        },
        {**_done("The notes say NOTES-BODY (REPORT-XYZ)."), "text": "CHILD-WORDS"},
        {"text": "All done."},
    )
    proc = run_gemtui(
        ["-p", "investigate", "--approval-mode", "yolo"],
        env=_env(isolated_home, mock_llm_thread.url),
        cwd=workspace,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "All done."  # the child's text is not the answer
    assert "CHILD-WORDS" not in proc.stderr
    parent, child1, child2, parent2 = mock_llm_thread.requests
    # the agent is a tool of the parent, with its description and one task argument
    decl = _declaration(parent, "scout")
    assert "SCOUT-DESCRIPTION" in decl["description"]
    assert set(decl["parametersJsonSchema"]["properties"]) == {"task", "background"}
    assert "SCOUT-PROMPT" not in _system(parent)
    # the child: its own prompt, its task, only its tools (and complete_task)
    assert "SCOUT-PROMPT" in _system(child1)
    assert _tools(child1) == {"read_file", "grep_search", "complete_task"}
    assert [c["role"] for c in child1.json["contents"]] == ["user"]
    assert child1.json["contents"][0]["parts"][0]["text"] == "What do the notes say?"
    answers = _responses(child2)
    assert "NOTES-BODY" in json.dumps(answers["c1"])
    assert "not found" in answers["c2"]["error"]
    assert "not found" in answers["c3"]["error"]
    assert not (workspace / "pwned.txt").exists()
    assert not (workspace / "shell").exists()
    # the report is the parent call's result, in the parent's own history
    assert "REPORT-XYZ" in json.dumps(_responses(parent2)["p1"])
    assert "SCOUT-PROMPT" not in _system(parent2)
    assert "NOTES-BODY" not in json.dumps(parent2.json["contents"][:-1])


def test_subagent_write_needs_approval_named_after_the_agent(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    _user_agent(isolated_home, "scribe", SCRIBE)
    mock_llm_thread.enqueue(
        _call("scribe", {"task": "write a.txt"}, "p1"),
        {**_call("write_file", {"file_path": "a.txt", "content": "hi"}, "w1"), "text": "Hmm."},
        _done("I could not write a.txt."),
        {"text": "ok"},
    )
    proc = run_gemtui(
        ["-p", "delegate", "--output-format", "stream-json"],
        env=_env(isolated_home, mock_llm_thread.url),
        cwd=workspace,
    )
    assert proc.returncode == 0, proc.stderr
    assert not (workspace / "a.txt").exists()  # headless default mode: no approval, no write
    assert "agent scribe: write_file was not run: it needs approval" in proc.stderr
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    child = [obj for obj in lines if obj.get("parent_id")]
    assert {obj["parent_id"] for obj in child} == {"p1"}
    said = [o for o in child if o["type"] == "message"]
    assert [(o["content"], o["role"]) for o in said] == [("Hmm.", "assistant")]
    assert not any(
        o["type"] == "message" and "Hmm." in o["content"] for o in lines if o not in child
    )
    use = next(o for o in child if o["type"] == "tool_use")
    assert (use["id"], use["name"]) == ("p1/w1", "write_file")
    result = next(o for o in child if o["type"] == "tool_result")
    assert result["refusal"] == "needs_approval"
    parent_lines = [
        o for o in lines if o["type"] in ("tool_use", "tool_result") and o["id"] == "p1"
    ]
    assert [o.get("parent_id") for o in parent_lines] == [None, None]
    assert (lines[-1]["type"], lines[-1]["response"]) == ("result", "ok")
    # approval mode auto_edit (the session's) lets the subagent write
    mock_llm_thread.enqueue(
        _call("scribe", {"task": "write a.txt"}, "p1"),
        _call("write_file", {"file_path": "a.txt", "content": "hi"}, "w1"),
        _done("wrote it"),
        {"text": "ok"},
    )
    proc = run_gemtui(
        ["-p", "delegate", "--approval-mode", "auto_edit"],
        env=_env(isolated_home, mock_llm_thread.url),
        cwd=workspace,
    )
    assert proc.returncode == 0, proc.stderr
    assert (workspace / "a.txt").read_text() == "hi"


def test_untrusted_workspace_agents_do_not_load(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    for folder in (".gemini", ".gemtui"):
        path = workspace / folder / "agents" / f"evil{folder[1:]}.md"
        path.parent.mkdir(parents=True)
        path.write_text(SCOUT.replace("name: scout", f"name: evil{folder[1:]}"))
    claude = workspace / ".claude" / "agents" / "helper.md"
    claude.parent.mkdir(parents=True)
    claude.write_text(
        "---\nname: helper\ndescription: Claude helper\ntools: Read, Grep, Bash\n"
        "model: sonnet\n---\nHELPER-PROMPT\n"
    )
    # an agent may not take a built-in tool's name
    _user_agent(isolated_home, "read_file", SCOUT.replace("name: scout", "name: read_file"))
    env = _env(isolated_home, mock_llm_thread.url)
    mock_llm_thread.enqueue({"text": "plain"})
    proc = run_gemtui(["-p", "hi"], env=env, cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    names = _tools(mock_llm_thread.requests[0])
    assert {"codebase_investigator", "generalist"} <= names
    assert not names & {"evilgemini", "evilgemtui", "helper"}
    assert "'read_file' is the name of a tool" in proc.stderr
    assert _declaration(mock_llm_thread.requests[0], "read_file")["description"] != (
        "Finds things in the code (SCOUT-DESCRIPTION)."
    )
    mock_llm_thread.enqueue(
        _call("helper", {"task": "look"}, "p1"), _done("seen"), {"text": "trusted"}
    )
    proc = run_gemtui(["-p", "hi", "--trust-workspace"], env=env, cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    names = _tools(mock_llm_thread.requests[1])
    assert {"evilgemini", "evilgemtui", "helper"} <= names
    child = mock_llm_thread.requests[2]
    assert "HELPER-PROMPT" in _system(child)
    # Claude Code's tool names, mapped; its model alias means the session's model
    assert _tools(child) == {"read_file", "grep_search", "run_shell_command", "complete_task"}
    assert child.path == mock_llm_thread.requests[1].path


def test_depth_limit_subagents_cannot_start_subagents(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    env = _env(isolated_home, mock_llm_thread.url)
    mock_llm_thread.enqueue(
        _call("generalist", {"task": "go deeper"}, "p1"),
        _call("codebase_investigator", {"task": "deeper"}, "c1"),
        _done("could not go deeper"),
        {"text": "ok"},
    )
    proc = run_gemtui(["-p", "hi"], env=env, cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    _, child1, child2, _ = mock_llm_thread.requests
    assert "read_file" in _tools(child1)
    assert not _tools(child1) & {"generalist", "codebase_investigator"}
    assert "not found" in _responses(child2)["c1"]["error"]
    assert mock_llm_thread.remaining == 0  # no grandchild request was made


def test_max_depth_two_nests_once_and_zero_offers_none(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home, "\n[agents]\nmax_depth = 2\n")
    env = _env(isolated_home, mock_llm_thread.url)
    investigation = {"summary": "GRANDCHILD-SUMMARY", "relevant_files": [], "next_steps": []}
    mock_llm_thread.enqueue(
        _call("generalist", {"task": "delegate again"}, "p1"),
        _call("codebase_investigator", {"task": "look"}, "c1"),
        _call("list_directory", {"dir_path": "."}, "g1"),
        _call("complete_task", {"output": investigation}, "g2"),
        _done("child saw GRANDCHILD-SUMMARY"),
        {"text": "ok"},
    )
    proc = run_gemtui(["-p", "hi", "--output-format", "stream-json"], env=env, cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    _, child, grandchild, _, child2, _ = mock_llm_thread.requests
    assert "codebase_investigator" in _tools(child)
    assert "generalist" not in _tools(child)  # not itself
    assert _tools(grandchild) == {
        "read_file",
        "read_many_files",
        "glob",
        "grep_search",
        "list_directory",
        "complete_task",
    }
    assert "GRANDCHILD-SUMMARY" in json.dumps(_responses(child2)["c1"])
    uses = {
        o["id"]: o.get("parent_id")
        for o in map(json.loads, proc.stdout.splitlines())
        if o["type"] == "tool_use"
    }
    # each call named as the views see it, under the call that started its agent
    assert uses == {"p1": None, "p1/c1": "p1", "p1/c1/g1": "p1/c1"}
    result = json.loads(proc.stdout.splitlines()[-1])
    assert set(result["stats"]["agents"]) == {"generalist", "codebase_investigator"}
    write_fast_config(isolated_home, "\n[agents]\nmax_depth = 0\n")
    mock_llm_thread.enqueue({"text": "none"})
    proc = run_gemtui(["-p", "hi"], env=env, cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    assert not _tools(mock_llm_thread.requests[-1]) & {"generalist", "codebase_investigator"}


def test_subagent_tokens_count_in_the_prompts_stats(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    parent_usage = {"usage": {"prompt": 100, "output": 1}}
    child_usage = {"usage": {"prompt": 1000, "output": 10}}
    mock_llm_thread.enqueue(
        {**_call("generalist", {"task": "t"}, "p1"), **parent_usage},
        {**_call("list_directory", {"dir_path": "."}, "c1"), **child_usage},
        {**_done("r"), **child_usage},
        {"text": "ok", **parent_usage},
    )
    env = _env(isolated_home, mock_llm_thread.url)
    proc = run_gemtui(["-p", "hi", "--output-format", "json"], env=env, cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["response"] == "ok"
    assert out["stats"]["tokens"]["input"] == 2200
    assert out["stats"]["tokens"]["output"] == 22
    assert out["stats"]["turns"] == 2  # the conversation's own model turns
    agents = out["stats"]["agents"]
    assert list(agents) == ["generalist"]
    assert (agents["generalist"]["input"], agents["generalist"]["output"]) == (2000, 20)


def test_at_agent_name_asks_the_model_to_delegate(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    mock_llm_thread.enqueue({"text": "ok"}, {"text": "ok"})
    env = _env(isolated_home, mock_llm_thread.url)
    proc = run_gemtui(["-p", "@codebase_investigator how is auth done?"], env=env, cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    sent = mock_llm_thread.requests[0].json["contents"][-1]["parts"][0]["text"]
    assert sent.startswith("how is auth done?")
    assert "call the codebase_investigator tool" in sent
    # an unknown name is left alone (a path, or plain text)
    proc = run_gemtui(["-p", "@nobody here"], env=env, cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    sent = mock_llm_thread.requests[1].json["contents"][-1]["parts"][0]["text"]
    assert sent == "@nobody here"


def test_a_subagent_without_a_report_gets_a_recovery_turn_then_the_parent_is_told(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    mock_llm_thread.enqueue(
        _call("generalist", {"task": "t"}, "p1"),
        {"text": "I looked around and LAST-WORDS."},  # no complete_task
        {"text": "still no report"},  # the recovery turn, wasted too
        {"text": "ok"},
    )
    env = _env(isolated_home, mock_llm_thread.url)
    proc = run_gemtui(["-p", "hi"], env=env, cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    _, _, recovery, parent2 = mock_llm_thread.requests
    asked = recovery.json["contents"][-1]["parts"][0]["text"]
    assert "complete_task" in asked
    error = _responses(parent2)["p1"]["error"]
    assert "stopped without a report (ERROR_NO_COMPLETE_TASK_CALL)" in error
    assert "LAST-WORDS" in error


def test_an_agents_timeout_ends_its_turn_and_the_recovery_turn_still_reports(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    _user_agent(
        isolated_home,
        "quick",
        "---\nname: quick\ndescription: Quick.\ntimeout: 1\n---\nBe quick.\n",
    )
    mock_llm_thread.enqueue(
        _call("quick", {"task": "t"}, "p1"),
        {"text": "slow", "fault": "hold"},  # never released: only the agent's timeout ends it
        _done("LATE-REPORT"),
        {"text": "ok"},
    )
    env = _env(isolated_home, mock_llm_thread.url)
    proc = run_gemtui(["-p", "hi"], env=env, cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    recovery, parent2 = mock_llm_thread.requests[2:]
    assert "ran out of time" in recovery.json["contents"][-1]["parts"][-1]["text"]
    assert "LATE-REPORT" in json.dumps(_responses(parent2)["p1"])


def test_a_subagents_model_error_is_named_and_the_parent_goes_on(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    mock_llm_thread.enqueue(
        _call("generalist", {"task": "t"}, "p1"),
        {"error": {"status": 400, "message": "CHILD-BAD-REQUEST"}},
        {"text": "I will do it myself."},
    )
    env = _env(isolated_home, mock_llm_thread.url)
    proc = run_gemtui(["-p", "hi", "--output-format", "json"], env=env, cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["response"] == "I will do it myself."
    assert out["error"] is None  # the run did not fail: the parent was told and went on
    assert "gemtui: agent generalist: error: " in proc.stderr
    assert "CHILD-BAD-REQUEST" in proc.stderr
    error = _responses(mock_llm_thread.requests[2])["p1"]["error"]
    assert "generalist agent stopped without a report" in error
    assert "CHILD-BAD-REQUEST" in error


def test_plan_mode_holds_inside_a_subagent(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    mock_llm_thread.enqueue(
        _call("generalist", {"task": "t"}, "p1"),
        _call("write_file", {"file_path": "plan.txt", "content": "x"}, "w1"),
        _done("could not write"),
        {"text": "ok"},
    )
    env = _env(isolated_home, mock_llm_thread.url)
    proc = run_gemtui(["-p", "hi", "--approval-mode", "plan"], env=env, cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    _, child1, child2, _ = mock_llm_thread.requests
    assert "generalist" in _tools(mock_llm_thread.requests[0])  # delegating changes nothing
    assert "write_file" not in _tools(child1)  # plan mode: read-only tools offered
    assert "read_file" in _tools(child1)
    assert "error" in _responses(child2)["w1"]
    assert not (workspace / "plan.txt").exists()
