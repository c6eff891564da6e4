"""Patterns, special files and sizes chosen to hurt: each is refused or bounded, fast."""

from __future__ import annotations

import asyncio
import gc
import socket
import threading
import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from gemtui.tools.base import ToolContext, ToolError, ToolResult
from gemtui.tools.builtin._files import MAX_FILE_BYTES
from gemtui.tools.offload import CancelToken, JobCancelled, run_off_loop
from gemtui.tools.regex import PatternError, compile_linear
from gemtui.tools.registry import default_registry
from gemtui.tools.workspace import Workspace, glob_to_regex

CATASTROPHIC = "^(a+)+$"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    r = tmp_path / "ws"
    r.mkdir()
    return r


@pytest.fixture
def ctx(root: Path) -> ToolContext:
    return ToolContext(workspace=Workspace(root))


async def run(ctx: ToolContext, name: str, **args: Any) -> ToolResult:
    tool = default_registry().get(name)
    assert tool is not None
    err = tool.validate(args)
    if err:
        raise ToolError(err)
    inv = tool.build(args)
    await inv.confirmation(ctx)
    return await inv.execute(ctx)


# -- patterns ----------------------------------------------------------------------------


def test_a_backtracking_pattern_runs_in_linear_time() -> None:
    # CPU time, so a busy machine does not fail it; backtracking would take years
    started = time.process_time()
    assert compile_linear(CATASTROPHIC).search("a" * 100_000 + "!") is None
    assert time.process_time() - started < 1


@pytest.mark.parametrize(
    ("pattern", "words"),
    [
        ("(?=a)b", "lookahead"),
        ("(?<!a)b", "lookahead/lookbehind"),
        (r"(a)\1", "backreferences"),
        ("(?P<x>a)(?P=x)", "backreferences"),
        ("(?>a+)b", "atomic groups"),
        ("a++b", "possessive"),
        ("(a", "invalid regular expression: missing )"),
    ],
)
def test_unsupported_syntax_is_refused_in_words_and_quietly(
    pattern: str, words: str, capfd: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(PatternError) as caught:
        compile_linear(pattern)
    assert words in str(caught.value)
    assert capfd.readouterr().err == "", "RE2 must not log parse errors on stderr"


def test_python_end_anchor_is_translated() -> None:
    assert compile_linear(r"end\Z").search("the end")
    assert not compile_linear(r"end\Z").search("end\n")
    assert compile_linear(r"a\\Z").search("a\\Z")  # an escaped backslash stays literal


def test_grep_search_refuses_a_lookaround_before_running() -> None:
    tool = default_registry().get("grep_search")
    assert tool is not None
    err = tool.validate({"pattern": "foo(?!bar)"})
    assert err is not None
    assert "lookahead" in err


async def test_grep_exclude_pattern_is_linear_too(ctx: ToolContext, root: Path) -> None:
    (root / "victim.txt").write_text("a" * 60 + "!\n")
    started = time.process_time()  # CPU time (the off-loop thread's too), not the clock's
    result = await run(ctx, "grep_search", pattern="!", exclude_pattern=CATASTROPHIC)
    assert "victim.txt" in str(result.llm_content)
    assert time.process_time() - started < 2


def test_glob_with_many_stars_over_a_long_name_is_fast() -> None:
    regex = glob_to_regex("*a" * 25 + "*c")
    started = time.process_time()  # CPU time: a busy machine does not fail it
    assert regex.match("a" * 250) is None
    assert time.process_time() - started < 1


def test_odd_glob_classes_compile_for_re2_without_warnings() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert glob_to_regex("[z-a]x").match("x") is None  # a reversed range matches nothing
        glob_to_regex("[[:alpha:]]*")  # compiles, no FutureWarning
        assert glob_to_regex("a[!]]b").match("aXb")


def test_a_hostile_gitignore_pattern_cannot_hang_a_walk(root: Path) -> None:
    (root / ".gitignore").write_text("*a" * 25 + "*c\n")
    (root / ("a" * 250)).write_text("x")
    ws = Workspace(root)
    started = time.process_time()  # CPU time: a busy machine does not fail it
    assert [p.name for p in ws.walk()] == [".gitignore", "a" * 250]
    assert time.process_time() - started < 1


# -- special files -----------------------------------------------------------------------


@pytest.fixture
def unix_socket(root: Path) -> Iterator[Path]:
    path = root / "service.sock"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.bind(str(path))
    yield path
    sock.close()


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("read_file", {"file_path": "service.sock"}),
        ("write_file", {"file_path": "service.sock", "content": "x"}),
        (
            "replace",
            {"file_path": "service.sock", "instruction": "i", "old_string": "a", "new_string": "b"},
        ),
        ("grep_search", {"pattern": "x", "dir_path": "service.sock"}),
    ],
)
async def test_sockets_are_refused_by_every_file_tool(
    ctx: ToolContext, unix_socket: Path, tool: str, args: dict[str, Any]
) -> None:
    with pytest.raises(ToolError, match="is a socket, not a regular file"):
        await run(ctx, tool, **args)
    assert unix_socket.is_socket()


# -- sizes -------------------------------------------------------------------------------


def _sparse(path: Path, size: int, head: bytes = b"needle\n") -> None:
    with path.open("wb") as fh:
        fh.write(head)
        fh.truncate(size)


async def test_replace_refuses_a_file_over_the_cap(ctx: ToolContext, root: Path) -> None:
    big = root / "big.txt"
    _sparse(big, MAX_FILE_BYTES + 1)
    with pytest.raises(ToolError, match="20MB limit"):
        await run(
            ctx,
            "replace",
            file_path="big.txt",
            instruction="i",
            old_string="needle",
            new_string="pin",
        )
    assert big.read_bytes()[:7] == b"needle\n"


async def test_write_file_refuses_to_overwrite_a_file_over_the_cap(
    ctx: ToolContext, root: Path
) -> None:
    big = root / "big.txt"
    _sparse(big, MAX_FILE_BYTES + 1)
    with pytest.raises(ToolError, match="20MB limit"):
        await run(ctx, "write_file", file_path="big.txt", content="small now")
    assert big.stat().st_size == MAX_FILE_BYTES + 1


def test_write_file_refuses_content_over_the_cap() -> None:
    tool = default_registry().get("write_file")
    assert tool is not None
    err = tool.validate({"file_path": "x.txt", "content": "x" * (MAX_FILE_BYTES + 1)})
    assert err is not None
    assert "20MB limit" in err


async def test_replace_refuses_a_result_over_the_cap(ctx: ToolContext, root: Path) -> None:
    path = root / "grow.txt"
    path.write_text("ab\n" * (MAX_FILE_BYTES // 6))  # 10 MB that would double
    with pytest.raises(ToolError, match="New content size exceeds the 20MB limit"):
        await run(
            ctx,
            "replace",
            file_path="grow.txt",
            instruction="i",
            old_string="ab",
            new_string="abcdef",
            allow_multiple=True,
        )
    assert path.stat().st_size == 3 * (MAX_FILE_BYTES // 6)


async def test_a_large_edit_leaves_the_event_loop_free(ctx: ToolContext, root: Path) -> None:
    """Reading, diffing and writing a file near the cap never stalls other tasks."""
    lines = [f"line {i:07} " + "x" * 80 + "\n" for i in range(180_000)]  # about 17 MB
    (root / "large.txt").write_text("".join(lines))
    gaps: list[float] = []
    stop = asyncio.Event()

    async def heartbeat() -> None:
        last = time.monotonic()
        while not stop.is_set():
            await asyncio.sleep(0.005)
            now = time.monotonic()
            gaps.append(now - last)
            last = now

    gc.collect()
    gc.freeze()  # a full collection over a big test process's heap is not what we measure
    try:
        beat = asyncio.create_task(heartbeat())
        await asyncio.sleep(0)
        started = time.monotonic()
        await run(
            ctx,
            "replace",
            file_path="large.txt",
            instruction="i",
            old_string="line 0090000 ",
            new_string="LINE 0090000 ",
        )
        took = time.monotonic() - started
        stop.set()
        await beat
    finally:
        gc.unfreeze()
    # On the loop, the longest stall is the whole edit (1.9 s of 2 s when measured); off
    # it, only the longest single step that holds the GIL (about 0.1 s).
    assert max(gaps) < took / 2, f"the loop stalled for {max(gaps):.2f}s of {took:.2f}s"


# -- off-loop jobs -----------------------------------------------------------------------


async def test_a_cancelled_job_returns_at_once_and_is_told_to_stop() -> None:
    started = threading.Event()
    go_on = threading.Event()
    tokens: list[CancelToken] = []
    finished = threading.Event()

    def job(token: CancelToken) -> None:
        tokens.append(token)
        started.set()
        go_on.wait()  # still working when the task is cancelled, and until told
        while True:
            try:
                token.check()
            except JobCancelled:
                finished.set()
                raise
            time.sleep(0.001)

    task = asyncio.create_task(run_off_loop(job))
    while not started.is_set():
        await asyncio.sleep(0.001)
    [thread] = [t for t in threading.enumerate() if t.name == "gemtui-file-job"]
    assert thread.daemon, "a daemon thread cannot hold up the interpreter's exit"
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task  # returns while the job is still held: it did not wait for the thread
    assert not finished.is_set()
    assert tokens[0].cancelled
    go_on.set()
    assert await asyncio.to_thread(finished.wait, 5)


async def test_an_edit_keeps_the_file_mode_and_leaves_no_temporary_file(
    ctx: ToolContext, root: Path
) -> None:
    path = root / "run.sh"
    path.write_text("echo old\n")
    path.chmod(0o751)
    (root / "link.sh").symlink_to("run.sh")
    await run(
        ctx, "replace", file_path="link.sh", instruction="i", old_string="old", new_string="new"
    )
    assert path.read_text() == "echo new\n"
    assert path.stat().st_mode & 0o777 == 0o751
    assert (root / "link.sh").is_symlink()
    assert sorted(p.name for p in root.iterdir()) == ["link.sh", "run.sh"]


def test_a_write_cut_short_leaves_the_old_content(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C abandons a writing thread; the rename is the only step that changes the file."""
    from gemtui.tools.builtin import _files

    path = root / "keep.txt"
    path.write_text("precious\n")

    def interrupted(src: str, dst: str) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(_files.os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        _files.write_regular(path, b"half", "keep.txt")
    assert path.read_text() == "precious\n"
    assert [p.name for p in root.iterdir()] == ["keep.txt"]
