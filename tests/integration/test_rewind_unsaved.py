"""A rewind never replaces what it could not save first: every path whose content now
(or at the checkpoint) is not in a checkpoint is left as it is and named by
``gemtui rewind ID``. Real ``gemtui -p -y`` against the mock, real git, real files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from gemtui.testing import MockLLMServer

from .helpers import gemtui_env, run_gemtui, write_fast_config

CAP = "max_file_size = 1000\n"


def _checkpoint(mock: MockLLMServer, home: Path, ws: Path) -> str:
    """One ``-p -y`` prompt writing ``touched.txt``; the id of the checkpoint before it."""
    mock.enqueue(
        {
            "function_calls": [
                {"name": "write_file", "args": {"file_path": "touched.txt", "content": "T\n"}}
            ]
        },
        {"text": "done"},
    )
    proc = run_gemtui(["-p", "touch it", "-y"], env=gemtui_env(home, mock.url), cwd=ws)
    assert proc.returncode == 0, proc.stderr
    listing = run_gemtui(["checkpoints", "--json"], env=gemtui_env(home), cwd=ws)
    rows = json.loads(listing.stdout)
    assert [r["files"] for r in rows] == [["touched.txt"]]
    return str(rows[0]["id"])


def _rewind(home: Path, ws: Path, point_id: str) -> subprocess.CompletedProcess[str]:
    return run_gemtui(["rewind", point_id], env=gemtui_env(home), cwd=ws)


def _undo_id(out: str) -> str:
    return out.rsplit("gemtui rewind ", 1)[1].strip()


def test_a_file_grown_past_the_cap_is_left_as_is_and_named(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home, "\n[checkpoints]\n" + CAP)
    (workspace / "grown.txt").write_text("small\n")
    point = _checkpoint(mock_llm_thread, isolated_home, workspace)
    grown = os.urandom(2500) + b"the person's work\n" * 200  # binary, past the cap
    (workspace / "grown.txt").write_bytes(grown)
    proc = _rewind(isolated_home, workspace, point)
    assert proc.returncode == 0, proc.stderr
    assert (workspace / "grown.txt").read_bytes() == grown
    assert "left as is: grown.txt (6.1 KB, over [checkpoints] max_file_size)" in proc.stdout
    assert "removed  touched.txt" in proc.stdout
    assert not (workspace / "touched.txt").exists()
    undo = _rewind(isolated_home, workspace, _undo_id(proc.stdout))
    assert undo.returncode == 0, undo.stderr
    assert (workspace / "touched.txt").read_text() == "T\n"
    assert (workspace / "grown.txt").read_bytes() == grown


def test_control_under_the_cap_the_same_file_is_rewound_and_the_undo_gives_it_back(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    """The rewind does act on that file when the undo checkpoint can hold it: the cap is
    what keeps it above, not a rewind that never touches it."""
    write_fast_config(isolated_home, "\n[checkpoints]\nmax_file_size = 100000\n")
    (workspace / "grown.txt").write_text("small\n")
    point = _checkpoint(mock_llm_thread, isolated_home, workspace)
    grown = os.urandom(2500) + b"the person's work\n" * 200
    (workspace / "grown.txt").write_bytes(grown)
    proc = _rewind(isolated_home, workspace, point)
    assert proc.returncode == 0, proc.stderr
    assert (workspace / "grown.txt").read_text() == "small\n"
    assert "left as is" not in proc.stdout
    undo = _rewind(isolated_home, workspace, _undo_id(proc.stdout))
    assert undo.returncode == 0, undo.stderr
    assert (workspace / "grown.txt").read_bytes() == grown


def test_every_form_of_unsaved_content_is_left_as_is_and_named(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home, "\n[checkpoints]\n" + CAP)
    (workspace / "d").mkdir()
    (workspace / "d" / "a.txt").write_text("a\n")
    (workspace / "bigthen.bin").write_bytes(b"B" * 3000)
    (workspace / "out.log").write_text("old log\n")
    (workspace / "f2.txt").write_text("was a file\n")
    (workspace / "small.bin").write_bytes(b"\x00\x01old")
    (workspace / "linked.txt").write_text("a file then\n")
    point = _checkpoint(mock_llm_thread, isolated_home, workspace)

    # a folder replaced by a file over the cap: restoring d/a.txt would unlink it
    (workspace / "d" / "a.txt").unlink()
    (workspace / "d").rmdir()
    (workspace / "d").write_bytes(b"D" * 3000)
    # over the cap at the checkpoint (never saved), small now: not ours to remove
    (workspace / "bigthen.bin").write_text("now small\n")
    # new since and over the cap: not in the undo checkpoint, never removed
    (workspace / "newbig.bin").write_bytes(b"N" * 4000)
    # ignored now (so never saved again), yet the checkpoint holds an older out.log
    (workspace / ".gitignore").write_text("out.log\n")
    (workspace / "out.log").unlink()
    _second_checkpoint(mock_llm_thread, isolated_home, workspace)
    (workspace / "out.log").write_text("new log, never saved\n")
    # a file replaced by a folder holding a file over the cap
    (workspace / "f2.txt").unlink()
    (workspace / "f2.txt").mkdir()
    (workspace / "f2.txt" / "huge.dat").write_bytes(b"H" * 5000)
    # a small binary changed: saved on both sides, rewound as usual
    (workspace / "small.bin").write_bytes(b"\x00\x02new")
    # a file replaced by a link to a big file elsewhere: the link is saved, the file not read
    outside = workspace.parent / "outside.bin"
    outside.write_bytes(b"O" * 5000)
    (workspace / "linked.txt").unlink()
    (workspace / "linked.txt").symlink_to(outside)

    proc = _rewind(isolated_home, workspace, point)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert (workspace / "d").read_bytes() == b"D" * 3000
    assert "left as is: d (3.0 KB, over [checkpoints] max_file_size)" in out
    assert "left as is: d/a.txt (d is in its way and was not saved)" in out
    assert (workspace / "bigthen.bin").read_text() == "now small\n"
    assert "left as is: bigthen.bin (over [checkpoints] max_file_size at the checkpoint" in out
    assert (workspace / "newbig.bin").read_bytes() == b"N" * 4000
    assert "left as is: newbig.bin (4.0 KB, over [checkpoints] max_file_size)" in out
    assert (workspace / "out.log").read_text() == "new log, never saved\n"
    assert "left as is: out.log (not saved" in out
    assert (workspace / "f2.txt" / "huge.dat").read_bytes() == b"H" * 5000
    assert "left as is: f2.txt (a folder now, holding f2.txt/huge.dat" in out
    assert "left as is: f2.txt/huge.dat (5.0 KB, over [checkpoints] max_file_size)" in out
    assert (workspace / "small.bin").read_bytes() == b"\x00\x01old"
    assert not (workspace / "touched.txt").exists()
    assert "NOT restored" not in out
    assert not (workspace / "linked.txt").is_symlink()
    assert (workspace / "linked.txt").read_text() == "a file then\n"
    assert outside.read_bytes() == b"O" * 5000

    # the undo puts back every saved change and still leaves the rest as it is
    undo = _rewind(isolated_home, workspace, _undo_id(out))
    assert undo.returncode == 0, undo.stderr
    assert os.readlink(workspace / "linked.txt") == str(outside)
    assert (workspace / "small.bin").read_bytes() == b"\x00\x02new"
    assert (workspace / "d").read_bytes() == b"D" * 3000
    assert (workspace / "out.log").read_text() == "new log, never saved\n"
    assert (workspace / "f2.txt" / "huge.dat").read_bytes() == b"H" * 5000
    assert (workspace / "touched.txt").read_text() == "T\n"


def _second_checkpoint(mock: MockLLMServer, home: Path, ws: Path) -> None:
    """Another prompt, so the shadow index sees ``out.log`` gone before it comes back
    ignored (a person's later session in the same folder)."""
    mock.enqueue(
        {"function_calls": [{"name": "run_shell_command", "args": {"command": "true"}}]},
        {"text": "done"},
    )
    proc = run_gemtui(["-p", "again", "-y"], env=gemtui_env(home, mock.url), cwd=ws)
    assert proc.returncode == 0, proc.stderr


def _without_root_powers(args: list[str], home: Path, ws: Path) -> subprocess.CompletedProcess[str]:
    """``gemtui ARGS`` with the DAC override capabilities dropped, so a mode-000 file is
    unreadable even to root (the tests run as root here)."""
    drop = "-dac_override,-dac_read_search"
    setpriv = ["setpriv", f"--bounding-set={drop}", f"--inh-caps={drop}"]
    return subprocess.run(
        [*setpriv, sys.executable, "-m", "gemtui", *args],
        env=gemtui_env(home),
        cwd=ws,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_an_unreadable_file_is_left_as_is_and_the_rest_is_rewound(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home, "\n[checkpoints]\n" + CAP)
    (workspace / "secret.txt").write_text("old\n")
    point = _checkpoint(mock_llm_thread, isolated_home, workspace)
    (workspace / "secret.txt").write_text("new, unreadable to gemtui\n")
    (workspace / "secret.txt").chmod(0)
    # control: without root's override the file really cannot be read
    cat = subprocess.run(
        ["setpriv", "--bounding-set=-dac_override,-dac_read_search", "cat", "secret.txt"],
        cwd=workspace,
        capture_output=True,
    )
    assert cat.returncode != 0
    proc = _without_root_powers(["rewind", point], isolated_home, workspace)
    assert proc.returncode == 0, proc.stderr
    assert "left as is: secret.txt (unreadable, so it could not be saved first)" in proc.stdout
    assert not (workspace / "touched.txt").exists()
    (workspace / "secret.txt").chmod(0o644)
    assert (workspace / "secret.txt").read_text() == "new, unreadable to gemtui\n"


def test_a_file_ignored_at_the_checkpoint_is_not_removed_by_the_rewind(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    """``.env`` was ignored (never saved) when the checkpoint was taken; a tool then stops
    ignoring it, so the next checkpoints hold it. Rewinding to the first one must not
    take its absence there for "created since" and delete it."""
    write_fast_config(isolated_home)
    (workspace / ".gitignore").write_text(".env\n")
    (workspace / ".env").write_text("TOKEN=the person's\n")
    write = {"file_path": ".gitignore", "content": "build/\n"}
    mock_llm_thread.enqueue(
        {"function_calls": [{"name": "write_file", "args": write}]},
        {"function_calls": [{"name": "write_file", "args": dict(write, file_path="x.txt")}]},
        {"text": "done"},
    )
    env = gemtui_env(isolated_home, mock_llm_thread.url)
    proc = run_gemtui(["-p", "tidy", "-y"], env=env, cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    rows = json.loads(_rewind_rows(isolated_home, workspace))
    assert [r["files"] for r in rows] == [["x.txt"], [".env", ".gitignore"]]
    # control: the later checkpoint really holds .env (it is no longer ignored)
    assert ".env" in _tree_of_undo_point(isolated_home, workspace, str(rows[0]["id"]))
    done = _rewind(isolated_home, workspace, str(rows[-1]["id"]))
    assert done.returncode == 0, done.stderr
    assert (workspace / ".gitignore").read_text() == ".env\n"
    assert not (workspace / "x.txt").exists()
    assert (workspace / ".env").read_text() == "TOKEN=the person's\n"
    assert "left as is: .env (ignored at the checkpoint, so not saved)" in done.stdout


def _rewind_rows(home: Path, ws: Path) -> str:
    listing = run_gemtui(["checkpoints", "--json"], env=gemtui_env(home), cwd=ws)
    assert listing.returncode == 0, listing.stderr
    return listing.stdout


def _tree_of_undo_point(home: Path, ws: Path, point_id: str) -> str:
    """The paths in a checkpoint's tree, read with git from the shadow repository."""
    from gemtui.checkpoints import CheckpointBook

    book = CheckpointBook(home / "data", ws)
    point = book.get(point_id)
    assert point is not None
    return book.repo.text("ls-tree", "-r", "--name-only", point.tree)
