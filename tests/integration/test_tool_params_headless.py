"""Typed tool parameters end to end (issue 34): `gemtui -p --yolo` against the mock server.

The built-ins' schemas now come from pydantic models and their arguments are checked by
those models; what goes to the provider and what comes back to the model must not change.
A bad argument is refused before anything runs, and the model reads why in
``functionResponse.response.error``; the control run sends the same calls with good
arguments, and they do run (so the refusals above were the check, not something else).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gemtui.testing import MockLLMServer
from gemtui.wire.schema import for_gemini

from .helpers import gemtui_env, run_gemtui, write_fast_config

SNAPSHOT = Path(__file__).parents[1] / "unit" / "tools" / "data" / "builtin_tool_schemas.json"

TWO_IN_PROGRESS = [
    {"description": "a", "status": "in_progress"},
    {"description": "b", "status": "in_progress"},
]


def _run(
    server: MockLLMServer, home: Path, workspace: Path, calls: list[dict[str, Any]]
) -> dict[str, dict[str, Any]]:
    """Run one turn of ``calls`` with --yolo; each call's functionResponse.response by id."""
    write_fast_config(home)
    server.enqueue({"function_calls": calls}, {"text": "done"})
    proc = run_gemtui(["-p", "go", "--yolo"], env=gemtui_env(home, server.url), cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    parts = server.requests[-1].json["contents"][-1]["parts"]
    return {p["functionResponse"]["id"]: p["functionResponse"]["response"] for p in parts}


def _calls(*, good: bool) -> list[dict[str, Any]]:
    return [
        {
            "id": "w",
            "name": "write_file",
            "args": {"file_path": "out.txt", "content": "made\n" if good else 7},
        },
        {
            "id": "s",
            "name": "run_shell_command",
            "args": {"command": "touch ran" if good else "   "},
        },
        {
            "id": "t",
            "name": "write_todos",
            "args": {"todos": TWO_IN_PROGRESS[:1] if good else TWO_IN_PROGRESS},
        },
        {
            "id": "g",
            "name": "glob",
            "args": {"pattern": "*.txt", **({} if good else {"dir_path": None})},
        },
        {"id": "r", "name": "read_file", "args": {"file_path": "notes.txt", "start_line": 2.0}},
    ]


def test_bad_arguments_are_refused_with_the_reason_and_nothing_runs(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    (workspace / "notes.txt").write_text("one\ntwo\n")
    responses = _run(mock_llm_thread, isolated_home, workspace, _calls(good=False))
    assert responses["w"]["error"].startswith("Invalid arguments at content: ")
    assert responses["s"] == {"error": "Command cannot be empty."}
    assert responses["t"] == {
        "error": 'Invalid parameters: Only one task can be "in_progress" at a time.'
    }
    assert responses["g"] == {
        "error": "Invalid arguments at dir_path: None is not of type 'string'"
    }
    assert not (workspace / "out.txt").exists()
    assert not (workspace / "ran").exists()
    # a whole number sent as 2.0 is JSON's integer 2, as the schema check had it
    assert "two" in str(responses["r"]["output"])
    assert "one" not in str(responses["r"]["output"])


def test_control_the_same_calls_with_good_arguments_run(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    (workspace / "notes.txt").write_text("one\ntwo\n")
    responses = _run(mock_llm_thread, isolated_home, workspace, _calls(good=True))
    assert all("error" not in r for r in responses.values()), responses
    assert (workspace / "out.txt").read_text() == "made\n"
    assert (workspace / "ran").exists()


def test_the_provider_is_sent_the_schemas_gemini_cli_declares(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    """The declarations on the wire are the hand-written ones they replaced, as the Gemini
    adapter narrows every schema to its subset (``for_gemini``: no ``default``), to the
    last value (key order aside)."""
    write_fast_config(isolated_home)
    mock_llm_thread.enqueue({"text": "hi"})
    proc = run_gemtui(
        ["-p", "hi", "--yolo"], env=gemtui_env(isolated_home, mock_llm_thread.url), cwd=workspace
    )
    assert proc.returncode == 0, proc.stderr
    sent = {
        d["name"]: d
        for tool in mock_llm_thread.requests[0].json["tools"]
        for d in tool.get("functionDeclarations", [])
    }
    before = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    for name, declared in before.items():
        assert sent[name]["description"] == declared["description"]
        expected = for_gemini(declared["parametersJsonSchema"])
        assert sent[name]["parametersJsonSchema"] == expected, name
