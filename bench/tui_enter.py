"""Enter → request in the real app, with Enter pressed 0.6 s after the first frame.

The peer harness presses Enter 0.6 s after the prompt is drawn; on a slow machine the
engine's start (imports, the session's assembly) may still hold the interpreter then, and
the request leaves only once it is done. Each run starts a fresh interpreter that builds
the app as ``launch_tui`` does (settings validated and the engine built after the first
frame), against the mock in this process (so its work is not the app's); the child says
when Enter was pressed, the mock when the request arrived (both on the monotonic clock).
Median of 5 (120×40, headless); ``BENCH_ENTER_DELAY`` (s) presses it sooner or later.
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gemtui.testing import MockLLMServer

RUNS = 5
DELAY_S = float(os.environ.get("BENCH_ENTER_DELAY", "0.6"))
"""How long after the first frame Enter is pressed (the peer harness's wait)."""

_CHILD = r"""
import asyncio, sys, tempfile, time
from pathlib import Path
from textual.events import Key, Ready
from gemtui.agent.assembly import RunOptions, trusted_run
from gemtui.config.ui_choice import read_ui_choice
from gemtui.tui.launch import build_app

async def main() -> None:
    workspace, delay = Path(sys.argv[1]), float(sys.argv[2])
    run = trusted_run(RunOptions(workspace=workspace))
    ui = read_ui_choice(workspace, trusted=run.trusted)
    app = build_app(None, run.options, ui=ui, trust=run.trust)
    drawn = asyncio.Event()

    def hook(message: object) -> None:  # Ready: the first frame is on the terminal
        if isinstance(message, Ready):
            drawn.set()

    def press(key: str, character: str) -> None:
        # as a terminal's keys arrive: now, whatever the app is busy with (Pilot's press
        # waits for the process to idle after each key, which held them back while the
        # engine started and timed Pilot's wait, not the app)
        event = Key(key, character)
        event.set_sender(app)
        app.post_message(event)

    async with app.run_test(size=(120, 40), message_hook=hook) as pilot:
        await drawn.wait()
        enter = time.monotonic() + delay  # when the person presses it, late loop or not
        await asyncio.sleep(delay / 2)  # the harness types first, then waits again
        for character in "hi":
            press(character, character)
        await asyncio.sleep(max(0.0, enter - time.monotonic()))
        press("enter", "\r")
        print(enter, flush=True)
        while app.session is None or len(app.session.history) < 2 or app.controller.turn_running:
            await pilot.pause()  # until the answer is in (the key is posted, not yet handled)
        app.exit(0)

asyncio.run(main())
"""


def _streams(srv: MockLLMServer) -> list[float]:
    """When each streaming request arrived (the model calls, not the side probes)."""
    return [r.received_at for r in srv.requests if ":streamGenerateContent" in r.path]


def _one_run(srv: MockLLMServer) -> float:
    with tempfile.TemporaryDirectory() as home, tempfile.TemporaryDirectory() as ws:
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("GEMINI", "GOOGLE", "OPENAI", "ANTHROPIC"))
        }
        env.update(GEMTUI_HOME=home, GEMINI_API_KEY="bench-key", GOOGLE_GEMINI_BASE_URL=srv.url)
        before = len(_streams(srv))
        out = subprocess.run(
            [sys.executable, "-c", _CHILD, ws, str(DELAY_S)],
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        if out.returncode != 0:
            raise RuntimeError(f"enter benchmark child failed: {out.stderr[-2000:]}")
        enter = float(out.stdout.strip().splitlines()[-1])
        return _streams(srv)[before] - enter


async def run_benchmarks() -> dict[str, float]:
    """``tui_enter_to_request_ms``: median ms from Enter (0.6 s after the first frame) to
    the request reaching the mock (5 runs)."""
    from gemtui.testing import MockLLMServer

    with MockLLMServer.in_thread([{"text": "hello", "chunks": 1}], loop=True) as srv:
        times = [await asyncio.to_thread(_one_run, srv) for _ in range(RUNS)]
    return {
        "tui_enter_to_request_ms": statistics.median(times) * 1000,
        "tui_enter_to_request_max_ms": max(times) * 1000,
    }


if __name__ == "__main__":
    print(json.dumps(asyncio.run(run_benchmarks()), indent=2))
