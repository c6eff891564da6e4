"""Every root is undoable: a change a tool makes in an ``--include-directories`` root is
checkpointed and rewound with the workspace's. Real ``gemtui -p -y --fake-responses``,
real git, real files; the further root's own ``.git`` is never touched."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from pathlib import Path
from typing import Any

from gemtui.checkpoints import CheckpointBook

from .helpers import gemtui_env, run_gemtui, write_fast_config


def _recording(path: Path, calls: list[dict[str, Any]]) -> Path:
    """A --fake-responses file: one model call asking for ``calls``, then a final answer."""
    parts = [{"functionCall": call} for call in calls]
    lines = [
        {"method": "generateContentStream", "response": [_chunk(parts)]},
        {"method": "generateContentStream", "response": [_chunk([{"text": "done"}])]},
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def _chunk(parts: list[dict[str, Any]]) -> dict[str, Any]:
    content = {"role": "model", "parts": parts}
    return {"candidates": [{"content": content, "finishReason": "STOP"}]}


def _write(path: str, content: str) -> dict[str, Any]:
    return {"name": "write_file", "args": {"file_path": path, "content": content}}


def _git_dir_state(repo: Path) -> dict[str, str]:
    return {
        str(p.relative_to(repo)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted((repo / ".git").rglob("*"))
        if p.is_file()
    }


def _run(home: Path, ws: Path, args: list[str]) -> subprocess.CompletedProcess[str]:
    proc = run_gemtui(args, env=gemtui_env(home, key=None), cwd=ws)
    assert proc.returncode == 0, proc.stderr
    return proc


def _rows(home: Path, ws: Path) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = json.loads(_run(home, ws, ["checkpoints", "--json"]).stdout)
    return rows


def test_a_change_in_an_included_root_is_rewound_with_the_workspace(
    isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    write_fast_config(isolated_home)
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "lib.txt").write_text("lib old\n")
    env = {**os.environ, "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1"}
    subprocess.run(["git", "init", "-q"], cwd=lib, env=env, check=True)
    subprocess.run(["git", "add", "-A"], cwd=lib, env=env, check=True)
    lib_git = _git_dir_state(lib)
    (workspace / "app.txt").write_text("ws old\n")
    rec = _recording(
        tmp_path / "rec.jsonl",
        [
            _write("app.txt", "ws new\n"),
            _write(str(lib / "lib.txt"), "lib new\n"),
            _write(str(lib / "made" / "new.txt"), "made\n"),
        ],
    )
    args = ["-p", "change both", "-y", "--include-directories", str(lib)]
    _run(isolated_home, workspace, [*args, "--fake-responses", str(rec)])
    # control: the tool really wrote into the further root
    assert (workspace / "app.txt").read_text() == "ws new\n"
    assert (lib / "lib.txt").read_text() == "lib new\n"
    assert (lib / "made" / "new.txt").read_text() == "made\n"

    rows = _rows(isolated_home, workspace)
    assert all(set(r) == {"id", "created", "session", "prompt", "tool", "files"} for r in rows)
    assert sorted(f for r in rows for f in r["files"]) == [
        str(lib / "lib.txt"),
        str(lib / "made" / "new.txt"),
        "app.txt",
    ]
    done = _run(isolated_home, workspace, ["rewind", str(rows[-1]["id"])])
    assert f"restored {lib / 'lib.txt'}" in done.stdout
    assert f"removed  {lib / 'made' / 'new.txt'}" in done.stdout
    assert (workspace / "app.txt").read_text() == "ws old\n"
    assert (lib / "lib.txt").read_text() == "lib old\n"
    assert not (lib / "made" / "new.txt").exists()
    assert _git_dir_state(lib) == lib_git
    assert not list(workspace.rglob(".git"))

    undo = done.stdout.rsplit("gemtui rewind ", 1)[1].strip()
    _run(isolated_home, workspace, ["rewind", undo])
    assert (workspace / "app.txt").read_text() == "ws new\n"
    assert (lib / "lib.txt").read_text() == "lib new\n"
    assert (lib / "made" / "new.txt").read_text() == "made\n"


def test_a_root_around_the_workspace_leaves_it_and_gemtuis_own_files_to_their_owners(
    isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    """``--include-directories ..`` (a root holding the workspace and gemtui's own data,
    like ``~``): each file is checkpointed once, and the rewind never puts back gemtui's
    own sessions or checkpoints."""
    write_fast_config(isolated_home)
    (workspace / "app.txt").write_text("ws old\n")
    (tmp_path / "up.txt").write_text("up old\n")
    rec = _recording(
        tmp_path / "rec.jsonl",
        [_write("app.txt", "ws new\n"), _write(str(tmp_path / "up.txt"), "up new\n")],
    )
    _run(
        isolated_home,
        workspace,
        ["-p", "go", "-y", "--include-directories", "..", "--fake-responses", str(rec)],
    )
    rows = _rows(isolated_home, workspace)
    assert sorted(f for r in rows for f in r["files"]) == [str(tmp_path / "up.txt"), "app.txt"]
    own = {p: p.stat().st_mtime_ns for p in (isolated_home / "data").rglob("*") if p.is_file()}
    done = _run(isolated_home, workspace, ["rewind", str(rows[-1]["id"])])
    assert (workspace / "app.txt").read_text() == "ws old\n"
    assert (tmp_path / "up.txt").read_text() == "up old\n"
    assert "gemtui-home" not in done.stdout
    assert f"{workspace}/app.txt" not in done.stdout
    sessions = [p for p in own if p.suffix == ".db"]
    assert sessions
    assert all(p.stat().st_mtime_ns == own[p] for p in sessions)


def test_retention_drops_a_further_roots_trees_with_their_checkpoint(
    isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    lib = tmp_path / "lib"
    lib.mkdir()
    book = CheckpointBook(isolated_home / "data", workspace, keep=1, keep_days=0)
    for i in range(3):
        (lib / "f.txt").write_text(f"{i}\n")
        book.finish(book.begin(session=f"s{i}", prompt="p", tool="write_file", roots=[lib]))
    kept = book.all()
    assert [p.session for p in kept] == ["s2"]
    refs = book.repo.text("for-each-ref", "--format=%(refname)", "refs/roots/").split()
    assert len(refs) == 2
    assert all(ref.startswith(f"refs/roots/{kept[0].id}/") for ref in refs)
    state = kept[0].roots[str(lib)]
    assert book.repo.text("cat-file", "-t", state.tree).strip() == "tree"
    assert book.repo.text("cat-file", "-t", state.after).strip() == "tree"


def test_a_root_added_later_is_rewound_to_before_the_first_tool_that_reached_it(
    isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    """``/directory add`` mid-session: the checkpoint taken before the root was added has
    no tree for it, so a rewind to it puts the root back as it was before the first tool
    that could reach it ran."""
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "f.txt").write_text("before any tool\n")
    (workspace / "a.txt").write_text("a0\n")
    book = CheckpointBook(isolated_home / "data", workspace)
    first = book.begin(session="s", prompt="p", tool="write_file")
    (workspace / "a.txt").write_text("a1\n")
    book.finish(first)
    second = book.begin(session="s", prompt="p", tool="write_file", roots=[lib])
    (lib / "f.txt").write_text("written by the tool\n")
    book.finish(second)
    assert second.files == [str(lib / "f.txt")]
    done = _run(isolated_home, workspace, ["rewind", first.id])
    assert (workspace / "a.txt").read_text() == "a0\n"
    assert (lib / "f.txt").read_text() == "before any tool\n"
    assert f"restored {lib / 'f.txt'}" in done.stdout
