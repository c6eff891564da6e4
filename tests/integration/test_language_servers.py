"""Diagnostics after edits, through `gemtui -p` against the mock model and a real language
server from PyPI (python-lsp-server with pyflakes): the functionResponse the model gets
next carries what the edit broke, nothing it did not, and a hung or dead server never holds
the edit. An untrusted folder's own settings start no server; the same folder trusted does.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from gemtui.testing import MockLLMServer

from .helpers import gemtui_env, run_gemtui, write_fast_config

SOURCE = "import os\n\n\ndef total(items):\n    return sum(items)\n"

PYLSP = f"""
[tools]
diagnostics_wait = 120
find_language_servers = false

[lsp.pylsp]
command = [{json.dumps(sys.executable)}, "-m", "pylsp"]
languages = ["python"]
"""
"""The real server; the bound is generous because these tests are about what comes back,
not how fast (the bound is tested with servers that never answer)."""


def _replace(old: str, new: str, call_id: str) -> dict[str, Any]:
    args = {"file_path": "cart.py", "instruction": "change", "old_string": old, "new_string": new}
    return {"name": "replace", "args": args, "id": call_id}


def _run(
    mock: MockLLMServer,
    home: Path,
    workspace: Path,
    calls: list[dict[str, Any]],
    config: str,
    *flags: str,
) -> list[str]:
    """Run the scripted calls one per turn; the text each functionResponse carried back."""
    write_fast_config(home, config)
    seen = len(mock.requests)
    mock.enqueue(*({"function_calls": [c]} for c in calls), {"text": "done"})
    proc = run_gemtui(
        ["-p", "edit the cart", "-y", "--output-format", "json", *flags],
        env=gemtui_env(home, mock.url),
        cwd=workspace,
    )
    assert proc.returncode == 0, proc.stderr
    out: list[str] = []
    for request in mock.requests[seen + 1 :]:
        parts = request.json["contents"][-1]["parts"]
        [response] = [p["functionResponse"]["response"] for p in parts if "functionResponse" in p]
        out.append(str(response.get("output", response.get("error"))))
    return out


def test_an_edit_that_breaks_a_name_comes_back_with_it_and_the_fix_comes_back_clean(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    """The NameError the edit made is reported at its place; fixing it reports nothing new,
    and the unused import that was there before is never reported as the edit's."""
    (workspace / "cart.py").write_text(SOURCE, encoding="utf-8")
    broke, fixed = _run(
        mock_llm_thread,
        isolated_home,
        workspace,
        [
            _replace("sum(items)", "sum(items) + shipping", "e1"),
            _replace("sum(items) + shipping", "sum(items) + 0", "e2"),
        ],
        PYLSP,
        "--trust-workspace",
    )
    assert "Successfully modified file" in broke
    assert "cart.py:5:25 error undefined name 'shipping' (pyflakes)" in broke
    assert "imported but unused" not in broke  # there before the edit: not the edit's
    assert "no new errors or warnings in cart.py" in fixed
    assert "shipping" not in fixed.split("\n\n", 1)[1]
    assert (workspace / "cart.py").read_text(encoding="utf-8").endswith("sum(items) + 0\n")


def test_a_warning_the_edit_introduced_is_reported(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    """Control for the one above: a new unused import is the edit's and is reported, so
    its absence there is the comparison at work, not a server that never warns."""
    (workspace / "cart.py").write_text(SOURCE, encoding="utf-8")
    [added] = _run(
        mock_llm_thread,
        isolated_home,
        workspace,
        [_replace("import os\n", "import os\nimport json\n", "e1")],
        PYLSP,
        "--trust-workspace",
    )
    assert "this edit introduced 1 warning" in added
    assert "cart.py:2:1 warning 'json' imported but unused" in added
    assert "'os' imported but unused" not in added


def test_write_file_reports_what_the_new_content_broke(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    """A whole-file rewrite and a new file: each comes back with its own NameError, and the
    old file's unused import, kept by the rewrite, is not the rewrite's."""
    (workspace / "cart.py").write_text(SOURCE, encoding="utf-8")
    rewrite = SOURCE.replace("sum(items)", "sum(items) * rate")
    calls = [
        {"name": "write_file", "args": {"file_path": "cart.py", "content": rewrite}, "id": "w1"},
        {"name": "write_file", "args": {"file_path": "new.py", "content": "x = y\n"}, "id": "w2"},
    ]
    rewritten, created = _run(
        mock_llm_thread, isolated_home, workspace, calls, PYLSP, "--trust-workspace"
    )
    assert "cart.py:5:25 error undefined name 'rate' (pyflakes)" in rewritten
    assert "imported but unused" not in rewritten
    assert "new.py:1:5 error undefined name 'y' (pyflakes)" in created


STAND_IN = """
import os, sys, pathlib
log = pathlib.Path(sys.argv[1])
head = sys.stdin.buffer.readline()  # the first header of `initialize`
said = "got initialize" if head.startswith(b"Content-Length") else "nothing"
key = " with the API key" if "test-key" in repr(os.environ) else ""  # never: scrubbed
log.write_text(said + key)
if sys.argv[2] == "hang":
    sys.stdin.buffer.read()  # reads on, never answers
    import time; time.sleep(10**6)
"""


def _stand_in(tmp_path: Path, how: str) -> tuple[str, Path]:
    script = tmp_path / "stand_in.py"
    script.write_text(STAND_IN, encoding="utf-8")
    log = tmp_path / f"{how}.log"
    config = f"""
[tools]
diagnostics_wait = 1
shell_timeout = 30
find_language_servers = false

[lsp.stand-in]
command = [{json.dumps(sys.executable)}, {json.dumps(str(script))}, {json.dumps(str(log))}, "{how}"]
extensions = [".py"]
"""
    return config, log


def test_a_server_that_never_answers_does_not_hold_the_edit(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    """The stand-in read `initialize` and hangs; the edit lands and its result says the
    diagnostics were unavailable, and the run ends (the server is killed with it)."""
    (workspace / "cart.py").write_text(SOURCE, encoding="utf-8")
    config, log = _stand_in(tmp_path, "hang")
    [result] = _run(
        mock_llm_thread,
        isolated_home,
        workspace,
        [_replace("sum(items)", "sum(items) + 1", "e1")],
        config,
        "--trust-workspace",
    )
    assert log.read_text(encoding="utf-8") == "got initialize"
    assert "Successfully modified file" in result
    assert "Diagnostics unavailable: stand-in did not answer within 1s." in result
    assert "sum(items) + 1" in (workspace / "cart.py").read_text(encoding="utf-8")


def test_a_server_that_dies_does_not_hold_the_edit(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    """The stand-in exits on its first message: the result says so, the edit landed. (Its
    log also shows the API key gemtui holds was scrubbed from its environment.)"""
    (workspace / "cart.py").write_text(SOURCE, encoding="utf-8")
    config, log = _stand_in(tmp_path, "die")
    [result] = _run(
        mock_llm_thread,
        isolated_home,
        workspace,
        [_replace("sum(items)", "sum(items) + 1", "e1")],
        config,
        "--trust-workspace",
    )
    assert log.read_text(encoding="utf-8") == "got initialize"
    assert "Successfully modified file" in result
    assert "Diagnostics unavailable: stand-in exited." in result


def _evil(marker: Path) -> str:
    """Settings naming a "language server" that leaves a marker when it is started."""
    plant = f"open({str(marker)!r}, 'w').write('ran')"
    return (
        f'[lsp.evil]\ncommand = [{json.dumps(sys.executable)}, "-c", {json.dumps(plant)}]\n'
        'extensions = [".py"]\n'
    )


def _planted(workspace: Path, marker: Path, where: str) -> str:
    """The server planted in the folder's own settings (returns no user settings), or in
    the person's (returned), as a server found on PATH would be: either runs the project's
    code, so neither may start in an untrusted folder."""
    (workspace / "cart.py").write_text(SOURCE, encoding="utf-8")
    if where == "user":
        return _evil(marker)
    (workspace / ".gemtui").mkdir()
    (workspace / ".gemtui" / "config.toml").write_text(_evil(marker), encoding="utf-8")
    return ""


@pytest.mark.parametrize("where", ["workspace", "user"])
def test_an_untrusted_folder_starts_no_server(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path, tmp_path: Path, where: str
) -> None:
    marker = tmp_path / "marker"
    config = _planted(workspace, marker, where)
    edit = [_replace("sum(items)", "sum(items) + 1", "e1")]
    [result] = _run(mock_llm_thread, isolated_home, workspace, edit, config)
    assert "Successfully modified file" in result
    assert not marker.exists()
    assert "Diagnostics" not in result
    assert "diagnostics" not in _offered(mock_llm_thread.requests[-1])  # no server: no tool


@pytest.mark.parametrize("where", ["workspace", "user"])
def test_the_same_folder_trusted_starts_its_server(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path, tmp_path: Path, where: str
) -> None:
    """Control: trusted, the planted command does run (so the test above guards trust)."""
    marker = tmp_path / "marker"
    config = _planted(workspace, marker, where)
    edit = [_replace("sum(items)", "sum(items) + 1", "e1")]
    [result] = _run(mock_llm_thread, isolated_home, workspace, edit, config, "--trust-workspace")
    assert marker.read_text(encoding="utf-8") == "ran"
    assert "Diagnostics unavailable: evil exited." in result


NAVIGATION = ("go_to_definition", "find_references", "document_symbols")


def _offered(request: Any) -> set[str]:
    tools = request.json.get("tools") or []
    return {d["name"] for t in tools for d in t.get("functionDeclarations", [])}


def test_navigation_is_offered_once_a_server_runs_and_answers_from_it(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    """Before any server runs the model is not offered navigation; the edit starts pylsp,
    and from the next request go_to_definition, find_references and document_symbols are
    offered and answer from it."""
    (workspace / "cart.py").write_text(SOURCE + "\n\nprint(total([1]))\n", encoding="utf-8")
    at = {"file_path": "cart.py", "line": 8, "symbol": "total"}
    _, where, uses, outline = _run(
        mock_llm_thread,
        isolated_home,
        workspace,
        [
            _replace("sum(items)", "sum(items) + 0", "e1"),
            {"name": "go_to_definition", "args": at, "id": "d1"},
            {"name": "find_references", "args": at, "id": "r1"},
            {"name": "document_symbols", "args": {"file_path": "cart.py"}, "id": "s1"},
        ],
        PYLSP,
        "--trust-workspace",
    )
    first, second = mock_llm_thread.requests[0], mock_llm_thread.requests[1]
    assert "diagnostics" in _offered(first)
    assert not set(NAVIGATION) & _offered(first)
    assert set(NAVIGATION) <= _offered(second)
    assert where == "cart.py:4:5"
    assert uses.splitlines() == ["cart.py:4:5", "cart.py:8:7"]
    assert "function total (line 4)" in outline


SHOWN = f"""
[tools.sandbox]
read_only_paths = {json.dumps(sorted({sys.base_prefix, sys.prefix}))}
"""
"""The interpreter and its venv may live under the hidden home (pyenv): shown read-only."""


def test_under_the_sandbox_a_server_cannot_write_outside_the_workspace_but_still_reports(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    """With -s the servers run in bubblewrap like shell commands: the planted one starts
    (it is seen to write inside the workspace) but its write outside never lands (the
    trusted control above shows it does unboxed), and pylsp, boxed, still reports."""
    marker = tmp_path / "marker"
    inside = workspace / "inside"
    config = _planted(workspace, marker, "user").replace(
        "write('ran')", f"write('ran'); open({str(inside)!r}, 'w').write('ran')"
    )
    edit = [_replace("sum(items)", "sum(items) + 1", "e1")]
    flags = ("--trust-workspace", "-s")
    [result] = _run(mock_llm_thread, isolated_home, workspace, edit, config + SHOWN, *flags)
    assert "Successfully modified file" in result
    assert inside.read_text(encoding="utf-8") == "ran"  # it did start, boxed
    assert not marker.exists()
    (workspace / "cart.py").write_text(SOURCE, encoding="utf-8")
    edit = [_replace("sum(items)", "sum(items) + shipping", "e1")]
    [broke] = _run(mock_llm_thread, isolated_home, workspace, edit, PYLSP + SHOWN, *flags)
    assert "cart.py:5:25 error undefined name 'shipping' (pyflakes)" in broke


def test_a_server_starts_on_the_first_file_of_its_language_and_not_before(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    """Reading a text file starts nothing; reading a Python file starts the Python server
    (warm for the edit that usually follows). The stand-in writes into a FIFO that a
    shell command of the same run reads, so the run cannot end before it has started."""
    (workspace / "cart.py").write_text(SOURCE, encoding="utf-8")
    (workspace / "notes.txt").write_text("notes\n", encoding="utf-8")
    config, log = _stand_in(tmp_path, "die")
    read = {"name": "read_file", "args": {"file_path": "notes.txt"}, "id": "r1"}
    _run(mock_llm_thread, isolated_home, workspace, [read], config, "--trust-workspace")
    assert not log.exists()
    os.mkfifo(log)
    read = {"name": "read_file", "args": {"file_path": "cart.py"}, "id": "r2"}
    wait = {"name": "run_shell_command", "args": {"command": f"cat {log}"}, "id": "c1"}
    _, said = _run(
        mock_llm_thread, isolated_home, workspace, [read, wait], config, "--trust-workspace"
    )
    assert "got initialize" in said
    assert "API key" not in said
