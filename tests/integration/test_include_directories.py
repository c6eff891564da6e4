"""`--include-directories`: tools reach a second root, and still nothing outside every root."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gemtui.testing import MockLLMServer

from .helpers import gemtui_env, run_gemtui, write_fast_config


def _responses(request: Any) -> list[dict[str, Any]]:
    return [
        p["functionResponse"]["response"]
        for p in request.json["contents"][-1]["parts"]
        if "functionResponse" in p
    ]


def _layout(tmp: Path) -> tuple[Path, Path, Path]:
    second, third = tmp / "lib-shared", tmp / "elsewhere"
    for folder, marker in ((second, "SECOND-ROOT-BODY"), (third, "THIRD-ROOT-BODY")):
        folder.mkdir()
        (folder / "data.txt").write_text(f"{marker}\nneedle here\n")
    (second / ".gitignore").write_text("hidden.txt\n")
    (second / "GEMINI.md").write_text("SECOND-ROOT-CONTEXT\n")
    (third / "GEMINI.md").write_text("THIRD-ROOT-CONTEXT\n")
    (second / "hidden.txt").write_text("IGNORED-IN-SECOND needle\n")
    return second, third, third / "data.txt"


def test_second_root_is_reachable_and_a_third_is_refused(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    second, third, _ = _layout(workspace.parent)
    write_fast_config(isolated_home)
    calls = [
        {"name": "read_file", "args": {"file_path": str(second / "data.txt")}},
        {"name": "grep_search", "args": {"pattern": "needle", "dir_path": str(second)}},
        {"name": "read_file", "args": {"file_path": str(third / "data.txt")}},
        {"name": "read_file", "args": {"file_path": "../elsewhere/data.txt"}},
        {"name": "read_file", "args": {"file_path": str(second / "hidden.txt")}},
    ]
    mock_llm_thread.enqueue({"function_calls": calls}, {"text": "done"})
    proc = run_gemtui(
        ["-p", "read them", "--include-directories", "../lib-shared"],
        env=gemtui_env(isolated_home, mock_llm_thread.url),
        cwd=workspace,
    )
    assert proc.returncode == 0, proc.stderr
    read2, grep2, read3, dotdot, hidden = _responses(mock_llm_thread.requests[1])
    assert "SECOND-ROOT-BODY" in read2["output"]
    assert "needle here" in grep2["output"]
    assert "IGNORED-IN-SECOND" not in json.dumps(grep2)  # the second root's .gitignore holds
    assert "outside the workspace" in read3["error"]
    assert "outside the workspace" in dotdot["error"]
    assert "ignored" in hidden["error"]
    assert "THIRD-ROOT-BODY" not in mock_llm_thread.requests[1].body.decode()
    system = json.dumps(mock_llm_thread.requests[0].json["systemInstruction"])
    assert "SECOND-ROOT-CONTEXT" in system  # each root's context files are read
    assert "THIRD-ROOT-CONTEXT" not in system


def test_settings_add_a_root_and_a_missing_one_exits_42(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    second, _, _ = _layout(workspace.parent)
    write_fast_config(isolated_home, f'\n[workspace]\ninclude_directories = ["{second}"]\n')
    mock_llm_thread.enqueue(
        {
            "function_calls": [
                {"name": "read_file", "args": {"file_path": str(second / "data.txt")}}
            ]
        },
        {"text": "done"},
    )
    env = gemtui_env(isolated_home, mock_llm_thread.url)
    proc = run_gemtui(["-p", "read it"], env=env, cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    [read] = _responses(mock_llm_thread.requests[1])
    assert "SECOND-ROOT-BODY" in read["output"]
    proc = run_gemtui(
        ["-p", "x", "--include-directories", "nope,also-nope"], env=env, cwd=workspace
    )
    assert proc.returncode == 42
    assert "--include-directories" in proc.stderr
    assert "nope is not a directory" in proc.stderr
    assert "Traceback" not in proc.stderr
