"""Cold start of the TUI: from launching a fresh interpreter to an interactive prompt.

Each run starts ``python`` in a subprocess that imports gemtui, builds the app against the
bundled demo replay (no network), and runs it headless with ``run_test``; once the first
frame is drawn and the prompt has focus, the child prints how long it took since the
parent spawned it (wall clock, so interpreter start-up and imports are included).
Median of 5. Run: ``.venv/bin/python bench/tui_startup.py``.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "src" / "gemtui" / "tui" / "demo.jsonl"
RUNS = 5

_CHILD = r"""
import asyncio, os, sys, tempfile, time
spawned = float(sys.argv[1])
os.environ.setdefault("GEMTUI_HOME", tempfile.mkdtemp())
from pathlib import Path
from gemtui.agent.assembly import RunOptions
from gemtui.config.ui_choice import read_ui_choice
from gemtui.tui.launch import build_app

async def main() -> None:
    workspace = Path(tempfile.mkdtemp())  # as launch_tui: [ui] now, the rest validated later
    ui = read_ui_choice(workspace, trusted=False)
    app = build_app(None, RunOptions(workspace=workspace, fake_responses=sys.argv[2]), ui=ui)
    async with app.run_test(size=(120, 40)) as pilot:
        while not (app.screen.__class__.__name__ == "MainScreen" and app.focused is not None):
            await pilot.pause()
        await pilot.pause()
        print(time.time() - spawned, flush=True)
        app.exit(0)

asyncio.run(main())
"""


async def _one_run() -> float:
    started = time.time()
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        _CHILD,
        repr(started),
        str(DEMO),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await proc.communicate()
    if proc.returncode != 0:
        raise RuntimeError(f"startup benchmark child failed: {err.decode()[-2000:]}")
    return float(out.decode().strip().splitlines()[-1])


async def run_benchmarks() -> dict[str, float]:
    """``tui_cold_start_s``: median seconds from spawn to an interactive prompt (5 runs)."""
    times = [await _one_run() for _ in range(RUNS)]
    return {
        "tui_cold_start_s": statistics.median(times),
        "tui_cold_start_min_s": min(times),
        "tui_cold_start_max_s": max(times),
    }


if __name__ == "__main__":
    print(json.dumps(asyncio.run(run_benchmarks()), indent=2))
