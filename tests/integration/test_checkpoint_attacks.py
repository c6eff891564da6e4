"""A rewind cannot be turned against the person: links planted since a checkpoint are
replaced, never followed; ``.git`` is never written; the person's git config, hooks and
fsmonitor never run; a file over the size cap is left out and left alone."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from gemtui.checkpoints import CheckpointBook

from .helpers import gemtui_env, run_gemtui, write_fast_config


@pytest.fixture
def book(isolated_home: Path, workspace: Path) -> CheckpointBook:
    # the book the CLI opens for this folder (GEMTUI_HOME/data)
    return CheckpointBook(isolated_home / "data", workspace, max_file_size=1000)


def _rewind(home: Path, ws: Path, point_id: str) -> subprocess.CompletedProcess[str]:
    return run_gemtui(["rewind", point_id], env=gemtui_env(home), cwd=ws)


def test_a_symlinked_folder_planted_since_is_replaced_not_followed(
    book: CheckpointBook, isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    (workspace / "sub").mkdir()
    (workspace / "sub" / "file.txt").write_text("mine\n")
    point = book.begin(session="s", prompt="p", tool="run_shell_command")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "file.txt").write_text("outside, untouched\n")
    # the "tool" swaps the folder for a link out of the workspace
    (workspace / "sub" / "file.txt").unlink()
    (workspace / "sub").rmdir()
    (workspace / "sub").symlink_to(outside)
    book.finish(point)
    proc = _rewind(isolated_home, workspace, point.id)
    assert proc.returncode == 0, proc.stderr
    assert (outside / "file.txt").read_text() == "outside, untouched\n"
    assert sorted(p.name for p in outside.iterdir()) == ["file.txt"]
    assert not (workspace / "sub").is_symlink()
    assert (workspace / "sub" / "file.txt").read_text() == "mine\n"


def test_a_link_planted_as_a_file_is_replaced_not_written_through(
    book: CheckpointBook, isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    (workspace / "a.txt").write_text("A\n")
    point = book.begin(session="s", prompt="p", tool="run_shell_command")
    victim = tmp_path / "victim"
    victim.write_text("victim\n")
    (workspace / "a.txt").unlink()
    (workspace / "a.txt").symlink_to(victim)
    proc = _rewind(isolated_home, workspace, point.id)
    assert proc.returncode == 0, proc.stderr
    assert victim.read_text() == "victim\n"
    assert not (workspace / "a.txt").is_symlink()
    assert (workspace / "a.txt").read_text() == "A\n"


def test_git_folder_is_never_written_and_person_git_config_never_runs(
    isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    fake_home = tmp_path / "person"
    fake_home.mkdir()
    trap = tmp_path / "ran"
    script = tmp_path / "monitor.sh"
    script.write_text(f"#!/bin/sh\ntouch {trap}\n")
    script.chmod(0o755)
    (fake_home / ".gitconfig").write_text(
        f"[core]\n\tfsmonitor = {script}\n\thooksPath = {tmp_path}\n"
    )
    subprocess.run(["git", "init", "-q"], cwd=workspace, check=True)
    (workspace / ".git" / "config").write_text(
        f"[core]\n\tfsmonitor = {script}\n\trepositoryformatversion = 0\n"
    )
    for hook in ("pre-commit", "post-checkout", "post-index-change", "reference-transaction"):
        (workspace / ".git" / "hooks" / hook).write_text(f"#!/bin/sh\ntouch {trap}\n")
        (workspace / ".git" / "hooks" / hook).chmod(0o755)
        (tmp_path / hook).write_text(f"#!/bin/sh\ntouch {trap}\n")
        (tmp_path / hook).chmod(0o755)
    (workspace / ".gitattributes").write_text("* text eol=crlf filter=evil\n")
    (workspace / "lf.txt").write_bytes(b"a\nb\n")
    before = {p: p.read_bytes() for p in (workspace / ".git").rglob("*") if p.is_file()}
    env = {**os.environ, "HOME": str(fake_home)}
    old_home = os.environ["HOME"]
    os.environ["HOME"] = env["HOME"]
    try:
        book = CheckpointBook(isolated_home / "data", workspace)
        point = book.begin(session="s", prompt="p", tool="write_file")
        (workspace / "lf.txt").write_bytes(b"changed\n")
        (workspace / "new.txt").write_text("n\n")
        book.finish(point)
    finally:
        os.environ["HOME"] = old_home
    proc = _rewind(isolated_home, workspace, point.id)
    assert proc.returncode == 0, proc.stderr
    assert (workspace / "lf.txt").read_bytes() == b"a\nb\n"  # bytes, no eol conversion
    assert not (workspace / "new.txt").exists()
    assert not trap.exists()
    after = {p: p.read_bytes() for p in (workspace / ".git").rglob("*") if p.is_file()}
    assert after == before


def test_a_file_over_the_size_cap_is_left_out_and_left_alone(
    book: CheckpointBook, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home, "\n[checkpoints]\nmax_file_size = 1000\n")
    (workspace / "big.bin").write_bytes(b"x" * 2000)
    (workspace / "small.txt").write_text("s\n")
    point = book.begin(session="s", prompt="p", tool="run_shell_command")
    assert point.skipped == ["big.bin"]
    (workspace / "big.bin").write_bytes(b"y" * 3000)
    (workspace / "small.txt").write_text("t\n")
    proc = _rewind(isolated_home, workspace, point.id)
    assert proc.returncode == 0, proc.stderr
    assert (workspace / "big.bin").read_bytes() == b"y" * 3000
    assert (workspace / "small.txt").read_text() == "s\n"


def test_hand_edits_since_are_listed_first(
    book: CheckpointBook, isolated_home: Path, workspace: Path
) -> None:
    (workspace / "a.txt").write_text("a\n")
    point = book.begin(session="s", prompt="p", tool="write_file")
    (workspace / "a.txt").write_text("tool\n")
    book.finish(point)
    (workspace / "a.txt").write_text("by hand\n")
    proc = _rewind(isolated_home, workspace, point.id)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0] == "changed by hand since, restored too: a.txt"
    assert (workspace / "a.txt").read_text() == "a\n"


def test_retention_keeps_the_newest_and_gc_prunes(isolated_home: Path, workspace: Path) -> None:
    book = CheckpointBook(isolated_home / "data", workspace, keep=3, keep_days=0)
    for i in range(5):
        (workspace / "f.txt").write_text(f"{i}\n")
        book.finish(book.begin(session=f"s{i}", prompt="p", tool="write_file"))
    assert [p.session for p in book.all()] == ["s4", "s3", "s2"]


def test_a_path_into_git_or_out_of_the_folder_is_refused(
    book: CheckpointBook, workspace: Path, tmp_path: Path
) -> None:
    """Even a tampered shadow repository cannot make a restore write into .git or up."""
    from gemtui.checkpoints.restore import Change, apply_changes

    (workspace / ".git").mkdir()
    book.repo.ensure()
    blob = book.repo.text("hash-object", "-w", "--stdin", stdin=b"evil\n").strip()
    changes = [
        Change(".git/config", "A", "100644", blob),
        Change(".GIT/hooks/pre-commit", "A", "100755", blob),
        Change("../escape.txt", "A", "100644", blob),
        Change("a/../../escape2.txt", "A", "100644", blob),
        Change("ok.txt", "A", "100644", blob),
    ]
    report = apply_changes(book.repo, changes)
    assert report.restored == ["ok.txt"]
    assert len(report.failed) == 4
    assert list((workspace / ".git").iterdir()) == []
    assert not (tmp_path / "escape.txt").exists()
    assert not (workspace.parent / "escape2.txt").exists()
