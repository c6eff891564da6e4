"""A home folder a root holds (``--include-directories ~``) keeps its start-up files and
its secrets: the real ``gemtui -p`` with the wire-faithful mock, real git, real files.

An edit tool's write to a shell rc file, the user site-packages (a ``.pth`` runs at every
python start) or a folder on ``PATH`` asks in every mode but yolo (headless refuses an
ask); a checkpoint never copies ``~/.ssh`` or ``~/.aws`` into the shadow repository, and
a rewind leaves them as they are. The controls: yolo writes the start-up files, and a
plain file in the home root is checkpointed and rewound.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from gemtui.testing import MockLLMServer

from .helpers import gemtui_env, run_gemtui, write_fast_config

START_UP = (
    ".bashrc",
    ".gitconfig",
    ".local/lib/python3.11/site-packages/x.pth",
    ".local/bin/ls",
    "bin/git",
)
"""Files under the home that run code at the next shell, git command or python start."""

SECRETS = {".ssh/id_rsa": "PRIVATE-KEY-BYTES-1\n", ".aws/credentials": "AWS-SECRET-BYTES-2\n"}


def _results(stdout: str) -> dict[str, dict[str, Any]]:
    lines = [json.loads(line) for line in stdout.splitlines() if line.strip()]
    return {line["id"]: line for line in lines if line["type"] == "tool_result"}


def _run(
    mock: MockLLMServer, gemtui_home: Path, ws: Path, home: Path, args: list[str]
) -> subprocess.CompletedProcess[str]:
    proc = run_gemtui(args, env={**gemtui_env(gemtui_home, mock.url), "HOME": str(home)}, cwd=ws)
    assert proc.returncode == 0, proc.stderr
    return proc


@pytest.mark.parametrize("mode", ["auto_edit", "yolo"])
def test_an_edit_tool_never_writes_a_home_start_up_file_unasked(
    mock_llm_thread: MockLLMServer,
    isolated_home: Path,
    workspace: Path,
    tmp_path: Path,
    mode: str,
) -> None:
    write_fast_config(isolated_home)
    home = tmp_path / "person"
    home.mkdir()
    calls = [
        {
            "name": "write_file",
            "args": {"file_path": str(home / name), "content": "touch /tmp/pwned\n"},
            "id": f"c{i}",
        }
        for i, name in enumerate(START_UP)
    ]
    mock_llm_thread.enqueue({"function_calls": calls}, {"text": "done"})
    args = ["-p", "go", "--output-format", "stream-json", "--approval-mode", mode]
    proc = _run(
        mock_llm_thread, isolated_home, workspace, home, [*args, "--include-directories", str(home)]
    )
    results = _results(proc.stdout)
    for i, name in enumerate(START_UP):
        result = results[f"c{i}"]
        if mode == "yolo":  # the control: the write really lands when nothing guards it
            assert result["status"] == "success", result
            assert (home / name).read_text() == "touch /tmp/pwned\n"
        else:
            assert result["status"] == "error", name
            assert result["refusal"] == "needs_approval", result
            assert "protected path" in result["approval_reason"], name
            assert not (home / name).exists(), name


def _objects(shadows: Path) -> bytes:
    """Every object of every shadow repository, contents included."""
    out = b""
    for repo in shadows.iterdir():
        out += subprocess.run(
            ["git", "--git-dir", str(repo), "cat-file", "--batch-all-objects", "--batch"],
            capture_output=True,
            check=True,
        ).stdout
    return out


def test_a_checkpoint_of_a_home_root_never_holds_its_secrets(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    write_fast_config(isolated_home)
    home = tmp_path / "person"
    for name, secret in SECRETS.items():
        (home / name).parent.mkdir(parents=True)
        (home / name).write_text(secret)
    (home / "note.txt").write_text("NOTE-OLD-BYTES\n")
    call = {"name": "write_file", "args": {"file_path": str(home / "note.txt"), "content": "x\n"}}
    mock_llm_thread.enqueue({"function_calls": [call]}, {"text": "done"})
    args = ["-p", "go", "-y", "--include-directories", str(home)]
    _run(mock_llm_thread, isolated_home, workspace, home, args)

    objects = _objects(isolated_home / "data" / "checkpoints")
    assert b"NOTE-OLD-BYTES" in objects  # the control: the home root is checkpointed
    for secret in SECRETS.values():
        assert secret.encode() not in objects

    # the secrets change meanwhile (a key rotated): the rewind leaves them as they are
    for name in SECRETS:
        (home / name).write_text("rotated\n")
    listed = _run(mock_llm_thread, isolated_home, workspace, home, ["checkpoints", "--json"])
    [row] = json.loads(listed.stdout)
    _run(mock_llm_thread, isolated_home, workspace, home, ["rewind", str(row["id"])])
    assert (home / "note.txt").read_text() == "NOTE-OLD-BYTES\n"
    for name in SECRETS:
        assert (home / name).read_text() == "rotated\n"
