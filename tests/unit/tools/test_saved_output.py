"""Saved tool outputs: the files are private and masked, and the store reads back only
the inodes it wrote, however the path is bent or the file swapped."""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

import pytest

from gemtui import redact
from gemtui.scheduler.output_fit import OUTPUT_FILE, fit_result, too_long
from gemtui.tools.base import ToolContext, ToolResult
from gemtui.tools.saved_output import KEEP_DAYS, MAX_SAVED_CHARS, OutputStore, preview
from gemtui.tools.workspace import Workspace
from gemtui.wire import Blob, Part


@pytest.fixture
def store(tmp_path: Path) -> OutputStore:
    return OutputStore.for_session(tmp_path / "data", "s1")


def test_files_are_private_masked_and_never_overwritten(store: OutputStore) -> None:
    redact.register("sk-live-0123456789")
    first = store.save("call/../../evil", "a key sk-live-0123456789 here")
    second = store.save("call/../../evil", "again")
    assert first.parent == second.parent == store.folder.resolve()
    assert first.name == "call_evil.txt"
    assert second.name == "call_evil-2.txt"
    assert stat.S_IMODE(first.stat().st_mode) == 0o600
    assert stat.S_IMODE(store.folder.stat().st_mode) == 0o700
    assert first.read_text() == "a key [redacted] here"


def test_find_accepts_only_its_own_files(store: OutputStore, tmp_path: Path) -> None:
    path = store.save("c1", "mine")
    assert store.find(str(path)) == path
    assert store.find(f"{path.parent}/../{path.parent.name}/{path.name}") == path
    assert store.find(path.name) is None  # relative: a workspace path, not ours
    stranger = path.parent / "stranger.txt"
    stranger.write_text("not written by the store")
    assert store.find(str(stranger)) is None
    secret = tmp_path / "secret"
    secret.write_text("SECRET")
    path.unlink()
    path.symlink_to(secret)
    assert store.find(str(path)) is None
    path.unlink()
    path.hardlink_to(secret)
    assert store.find(str(path)) is None


def test_a_file_swapped_between_find_and_read_is_refused(
    store: OutputStore, tmp_path: Path
) -> None:
    path = store.save("c1", "mine")
    found = store.find(str(path))
    assert found is not None
    secret = tmp_path / "secret"
    secret.write_text("SECRET")
    path.unlink()
    path.symlink_to(secret)
    with pytest.raises(PermissionError, match="no longer the file"):  # O_NOFOLLOW
        store.read(found)
    path.unlink()
    path.hardlink_to(secret)
    with pytest.raises(PermissionError):
        store.read(found)


def test_a_spill_stops_at_the_cap(store: OutputStore) -> None:
    spill = store.create("big")
    spill.write("x" * (MAX_SAVED_CHARS - 5))
    spill.write("y" * 10)
    spill.close()
    text = spill.path.read_text()
    assert text.startswith("x" * 100)
    assert text.count("y") == 5
    assert text.endswith("[... 5 more characters were not saved]\n")


def test_preview_keeps_head_and_tail_and_names_the_file(tmp_path: Path) -> None:
    text = "".join(f"{i:04d}\n" for i in range(1000))
    shown = preview(text, 100, tmp_path / "f.txt")
    assert shown.startswith(text[:50] + "\n... [4,900 characters left out] ...\n" + text[-50:])
    assert f"saved in {tmp_path / 'f.txt'}" in shown
    assert "offset=50 continues" in shown


def _ctx(tmp_path: Path, store: OutputStore, limit: int = 100) -> ToolContext:
    return ToolContext(workspace=Workspace(tmp_path), output_limit=limit, outputs=store)


def test_fit_leaves_short_results_alone(tmp_path: Path, store: OutputStore) -> None:
    result = ToolResult(llm_content="short", display="short")
    assert not too_long(result, 100)
    assert fit_result(result, _ctx(tmp_path, store), "c") is result


def test_fit_cuts_text_parts_and_keeps_the_binary_ones(tmp_path: Path, store: OutputStore) -> None:
    image = Part(inline_data=Blob(mime_type="image/png", data="AAAA"))
    long = "z" * 500
    result = ToolResult(llm_content=[Part(text=long), image], display=long)
    assert too_long(result, 100)
    fitted = fit_result(result, _ctx(tmp_path, store), "m1")
    assert isinstance(fitted.llm_content, list)
    text, kept = fitted.llm_content
    assert kept is image
    assert text.text is not None
    assert text.text.startswith("z" * 50 + "\n... [400 characters left out]")
    saved = Path(fitted.data[OUTPUT_FILE])
    assert saved.read_text() == long
    assert str(saved) in fitted.display
    # the saved file's path is as long as the test's temp dir (longer under xdist)
    assert len(fitted.display.replace(str(saved), "")) < 600


def test_fit_cuts_a_long_error_and_a_long_display(tmp_path: Path, store: OutputStore) -> None:
    result = ToolResult(error="e" * 1000, display="d" * 1000)
    fitted = fit_result(result, _ctx(tmp_path, store), "bad")
    assert fitted.error is not None
    saved = Path(fitted.data[OUTPUT_FILE])
    assert str(saved) in fitted.error
    # the saved file's path is as long as the test's temp dir (longer under xdist)
    assert len(fitted.error.replace(str(saved), "")) < 600
    assert saved.read_text() == "e" * 1000
    assert fitted.display.startswith("d" * 50)


def test_without_a_store_the_preview_says_nothing_was_saved(tmp_path: Path) -> None:
    ctx = ToolContext(workspace=Workspace(tmp_path), output_limit=100)
    fitted = fit_result(ToolResult(llm_content="q" * 1000), ctx, "c")
    assert isinstance(fitted.llm_content, str)
    assert "could not be saved" in fitted.llm_content
    assert OUTPUT_FILE not in fitted.data
    assert not list(tmp_path.rglob("tool-outputs"))


def test_old_sessions_folders_are_pruned_never_through_a_link(
    store: OutputStore, tmp_path: Path
) -> None:
    root = store.folder.parent
    old, fresh = root / "old", root / "fresh"
    for folder in (old, fresh):
        folder.mkdir(parents=True)
        (folder / "c.txt").write_text("x")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "keep.txt").write_text("keep")
    (root / "link").symlink_to(elsewhere)
    ancient = time.time() - (KEEP_DAYS + 1) * 86_400
    for path in (old, root / "link"):
        os.utime(path, (ancient, ancient), follow_symlinks=False)
    store.save("c1", "mine")
    assert not old.exists()
    assert fresh.exists()
    assert (elsewhere / "keep.txt").read_text() == "keep"
