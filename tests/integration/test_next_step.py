"""`gemtui -p` on the small-model path: the grammar narrowed to the step the task needs.

The mock plays llama.cpp with an 8k window, so tools are compact and every turn is
decoded under the calls' grammar (``constrained_tools = "auto"``). It answers the way
the real Qwen2.5-Coder-0.5B did under that grammar; each request's ``response_format``
is what the server would have let the model say next.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gemtui.testing import MockLLMServer

from .helpers import run_gemtui
from .test_constrained_tools import _chat_requests, _grammar_arguments, _grammar_names, _local

GREETING = "Hello World\nSecond line stays.\n"
CHANGE = "Read greeting.txt, then change the line 'Hello World' into 'Goodbye World'."


def _call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"text": json.dumps({"name": name, "arguments": arguments}), "chunks": 3}


def _answer(text: str) -> dict[str, Any]:
    return _call("final_answer", text=text)


def _run(mock: MockLLMServer, home: Path, ws: Path, prompt: str) -> list[dict[str, Any]]:
    mock.local_server.kind = "llama.cpp"
    mock.local_server.context_window = 8192
    env = _local(home, mock.url)
    proc = run_gemtui(["-p", prompt, "--provider", "local", "-y"], env=env, cwd=ws)
    assert proc.returncode == 0, proc.stderr
    return _chat_requests(mock)


def test_after_a_read_in_a_change_request_the_next_step_is_the_edit_not_the_answer(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    """The 0.5B read the file and then answered instead of calling replace: now the
    grammar after the read holds only replace, on the file read, with one of its lines;
    once the edit is made, final_answer is offered again."""
    (workspace / "greeting.txt").write_text(GREETING)
    mock_llm_thread.enqueue(
        _call("read_file", file_path="greeting.txt"),
        _call(
            "replace",
            file_path="greeting.txt",
            instruction="greet less",
            old_string="Hello World",
            new_string="Goodbye World",
        ),
        _answer("Done."),
    )
    first, after_read, after_edit = _run(mock_llm_thread, isolated_home, workspace, CHANGE)
    # a change is asked: no answer, and read before edit (the file the request names)
    assert _grammar_names(first) == ["read_file", "grep_search", "list_directory", "glob"]
    assert _grammar_arguments(first, "read_file")["properties"]["file_path"]["enum"] == [
        "greeting.txt"
    ]
    assert _grammar_names(after_read) == ["replace"]
    arguments = _grammar_arguments(after_read, "replace")["properties"]
    assert arguments["file_path"]["enum"] == ["greeting.txt"]
    assert sorted(arguments["old_string"]["enum"]) == ["Hello World", "Second line stays."]
    assert "not done yet" in json.dumps(after_read["messages"][-1])
    assert "final_answer" in _grammar_names(after_edit)
    assert (workspace / "greeting.txt").read_text() == "Goodbye World\nSecond line stays.\n"


def test_control_a_question_after_a_read_may_still_be_answered(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    """Control: the same read under a question keeps final_answer in the grammar, so
    the narrowing above is the change rule's doing, not every turn's."""
    (workspace / "greeting.txt").write_text(GREETING)
    mock_llm_thread.enqueue(_call("read_file", file_path="greeting.txt"), _answer("Hello."))
    prompt = "What is the first word of greeting.txt?"
    first, after_read = _run(mock_llm_thread, isolated_home, workspace, prompt)
    assert "final_answer" in _grammar_names(first)
    assert "final_answer" in _grammar_names(after_read)
    assert "replace" in _grammar_names(after_read)


def test_a_change_that_is_never_made_still_lets_the_model_finish(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    """The narrowing lasts STEER_STEPS tool results: after them every choice, answer
    included, is offered again, so a model that cannot make the edit still ends."""
    from gemtui.providers.next_step import STEER_STEPS

    (workspace / "greeting.txt").write_text(GREETING)
    looks = [_call("list_directory", dir_path="."), _call("glob", pattern="*.txt")]
    steps = [looks[i % 2] for i in range(STEER_STEPS)]
    mock_llm_thread.enqueue(*steps, _answer("I could not."))
    requests = _run(mock_llm_thread, isolated_home, workspace, CHANGE)
    assert len(requests) == STEER_STEPS + 1
    assert all("final_answer" not in _grammar_names(r) for r in requests[:-1])
    assert "final_answer" in _grammar_names(requests[-1])


def test_after_a_listing_a_question_looks_inside_a_listed_file_before_answering(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    """On "which port" the 0.5B listed the folder and answered from imagination: now
    the step after a listing reads one of the listed files (an enum: no invented path)
    or searches; after a read, the other listed files stay offered beside the answer."""
    (workspace / "server.toml").write_text("[server]\nport = 8421\n")
    (workspace / "README.md").write_text("# Shop\nSettings live in server.toml.\n")
    (workspace / "docs").mkdir()
    mock_llm_thread.enqueue(
        _call("list_directory", dir_path="."),
        _call("read_file", file_path="README.md"),
        _call("read_file", file_path="server.toml"),
        _answer("Port 8421."),
    )
    prompt = "Which port does this project's server listen on?"
    first, listed, read_one, read_both = _run(mock_llm_thread, isolated_home, workspace, prompt)
    assert "final_answer" in _grammar_names(first)  # a question may be answered at once
    assert _grammar_names(listed) == ["read_file", "grep_search"]
    paths = _grammar_arguments(listed, "read_file")["properties"]["file_path"]["enum"]
    assert sorted(paths) == ["README.md", "server.toml"]  # files only, not the docs folder
    assert _grammar_names(read_one) == ["final_answer", "read_file"]
    assert _grammar_arguments(read_one, "read_file")["properties"]["file_path"]["enum"] == [
        "server.toml"
    ]
    assert "final_answer" in _grammar_names(read_both)
    assert "read_file" not in _grammar_names(read_both)  # as before: nothing left to read


def test_control_without_constrained_tools_nothing_is_narrowed(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    """Control: off the small-model path (``constrained_tools = "off"``) the requests
    carry no grammar at all, whatever the prompt asks."""
    (workspace / "greeting.txt").write_text(GREETING)
    mock_llm_thread.local_server.kind = "llama.cpp"
    env = _local(isolated_home, mock_llm_thread.url, 'constrained_tools = "off"\n')
    mock_llm_thread.enqueue({"text": "Sure."})
    proc = run_gemtui(["-p", CHANGE, "--provider", "local", "-y"], env=env, cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    (request,) = _chat_requests(mock_llm_thread)
    assert "response_format" not in request
