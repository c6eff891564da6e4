"""The safety net's costs: a checkpoint of an unchanged 10,000-file repository, and
what the bubblewrap sandbox adds to one shell command."""

from __future__ import annotations

import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from gemtui.checkpoints import CheckpointBook  # noqa: E402

RUNS = 5
Report = Callable[[str, float, str, str], None]


def _repo(root: Path, files: int = 10_000) -> None:
    for i in range(files // 100):
        folder = root / f"pkg{i:03}"
        folder.mkdir()
        for j in range(100):
            (folder / f"mod{j:03}.py").write_text(f"# module {i}.{j}\nVALUE = {i * j}\n")
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)


def bench_checkpoints(report: Report) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        ws = Path(tmp) / "ws"
        ws.mkdir()
        _repo(ws)
        book = CheckpointBook(Path(tmp) / "data", ws)
        t = time.perf_counter()
        book.finish(book.begin(session="b", prompt="p", tool="write_file"))
        first = time.perf_counter() - t
        times = []
        for _ in range(RUNS):
            t = time.perf_counter()
            book.begin(session="b", prompt="p", tool="write_file")
            times.append(time.perf_counter() - t)
        report("first checkpoint of a 10,000-file repository", first * 1000, "ms", "once")
        report(
            "no-change checkpoint, 10,000-file repository",
            statistics.median(times) * 1000,
            "ms",
            "< 100 ms",
        )


def bench_sandbox(report: Report) -> None:
    if shutil.which("bwrap") is None:
        print("  sandbox: bwrap is not installed (apt-get install bubblewrap)", flush=True)
        return
    from gemtui.tools.sandbox import SandboxConfig, wrap_command

    with tempfile.TemporaryDirectory() as tmp:
        ws = Path(tmp)
        plain, boxed = [], []
        argv = ["/bin/sh", "-c", "true"]
        with wrap_command(argv, SandboxConfig(workspace=ws)) as wrapped:
            for _ in range(RUNS * 2):
                t = time.perf_counter()
                subprocess.run(argv, cwd=ws, check=True)
                plain.append(time.perf_counter() - t)
                t = time.perf_counter()
                subprocess.run(wrapped.argv, cwd=ws, check=True)
                boxed.append(time.perf_counter() - t)
        added = statistics.median(boxed) - statistics.median(plain)
        report("sandbox: time bwrap adds to one command", added * 1000, "ms", "< 30 ms")
