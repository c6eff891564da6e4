"""Agents side by side (issue 36): the TUI with a fleet of agents, measured headless.

Each agent is a real ``Session`` adopted by the engine's ``Fleet`` and shown through
``EngineFleet`` in the app, all on the one event loop; the wire-faithful mock runs in its
own process (``MockProcess``) and answers every agent at 200 tokens/s in 5-token chunks.
Figures (each run in a fresh child interpreter, so peak RSS is the fleet's own):

- ``fleet8_key_to_frame_p95_ms``: 8 agents streaming (the front one from a prompt typed in
  the app, 7 in the background), 60 keys typed in the prompt 50 ms apart: from a key's press
  to the first frame composed once the prompt holds it, 95th percentile (and the median);
  ``fleet1_…`` is the same with the front agent alone streaming, for comparison;
- ``fleet8_peak_rss_mb``: the child's peak RSS, with those 8 streams running;
- ``fleet_idle_cpu_ms``: process CPU over 2 s of the app idle with 8 idle agents, and
  with none (idle agents should cost nothing: the two should be about equal);
- ``agent_view_open_50_ms``: from pressing F5 to the agent view's first frame with 50
  agents listed (median of 5 openings).

Run: ``.venv/bin/python bench/fleet_bench.py``. Frames are timed where Textual hands a
composed update to the driver (``App._display``), which a headless run also reaches.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

RATE = 200.0
"""Tokens per second each agent's answer streams at."""
STREAMING = 8
KEYS = 60
IDLE_SECONDS = 2.0
LISTED = 50


def _session(url: str, workspace: Path) -> Any:
    from gemtui.agent.provider_choice import ResolvedProvider
    from gemtui.agent.session import Session, SessionOptions
    from gemtui.config.settings import Settings
    from gemtui.providers.gemini import GeminiGenerator
    from gemtui.providers.http import make_client

    workspace.mkdir(parents=True, exist_ok=True)
    gen = GeminiGenerator(make_client(), "k", url)
    provider = ResolvedProvider("gemini", "gemini", gen, "gemini-2.5-pro", 1_048_576)
    return Session(Settings(), provider, SessionOptions(workspace=workspace))


class FleetApp:
    """The app with ``count`` agents in an engine fleet (the first is the app's own)."""

    def __init__(self, url: str, root: Path, count: int) -> None:
        from gemtui.agent.assembly import Assembled, RunOptions
        from gemtui.agent.fleet import Fleet
        from gemtui.agent.store_attachment import StoreAttachment
        from gemtui.config.settings import Settings
        from gemtui.tui.app import GemtuiApp
        from gemtui.tui.fleet_adapter import EngineFleet

        self.fleet = Fleet(Settings(), max_parallel=count + 1)
        self.ids: list[str] = []
        front = _session(url, root / "a0")
        for i in range(count):
            session = front if i == 0 else _session(url, root / f"a{i}")
            built = Assembled(session, StoreAttachment(None))
            self.ids.append(self.fleet.adopt(built, name=f"agent {i}", start=i > 0))
        self.engine = EngineFleet(self.fleet, RunOptions(root / "a0"))
        self.app = GemtuiApp(settings=Settings(), session=front, workspace=root / "a0")
        self.frames: list[tuple[float, Callable[[], bool]]] = []
        self._watch: tuple[Callable[[], bool], asyncio.Future[float]] | None = None

    def hook_frames(self) -> None:
        """Stamp every composed frame; ``next_frame`` waits for one meeting a condition."""
        display = self.app._display

        def stamped(screen: Any, renderable: Any) -> None:
            display(screen, renderable)
            if renderable is not None and self._watch is not None:
                condition, done = self._watch
                if not done.done() and condition():
                    done.set_result(time.perf_counter())

        self.app._display = stamped  # type: ignore[method-assign]

    def next_frame(self, condition: Callable[[], bool]) -> asyncio.Future[float]:
        done: asyncio.Future[float] = asyncio.get_running_loop().create_future()
        self._watch = (condition, done)
        return done


async def _ready(fa: FleetApp, pilot: Any, *, attach: bool = True) -> None:
    app = fa.app
    while app.focused is None or app.screen.__class__.__name__ != "MainScreen":
        await pilot.pause()
    await pilot.pause()
    if attach:
        app.attach_fleet(fa.engine)
    fa.hook_frames()


async def _streaming(url: str, agents: int) -> dict[str, float]:
    import resource

    with tempfile.TemporaryDirectory() as root:
        fa = FleetApp(url, Path(root), agents)
        async with fa.app.run_test(size=(120, 40)) as pilot:
            await _ready(fa, pilot)
            for agent_id in fa.ids[1:]:
                fa.fleet.send(agent_id, "go")
            await pilot.press(*"go", "enter")  # the front agent, from the prompt
            prompt = fa.app.main.prompt
            while fa.app.main.transcript.rendering_pending or not fa.app.turn_running:
                await pilot.pause()
            lags = []
            for i in range(KEYS):
                want = i + 1
                drawn = fa.next_frame(lambda want=want: len(prompt.text) >= want)
                pressed = time.perf_counter()
                await pilot.press("x")
                lags.append((await drawn - pressed) * 1000)
                await asyncio.sleep(0.05)  # a person typing, not a test's synchronisation
            working = fa.fleet.counts().working
            assert fa.app.turn_running, "the front answer ended before the typing did"
            assert working == agents - 1, [(i.state, i.error) for i in fa.fleet.agents()]
            rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            fa.app.session.cancel()  # type: ignore[union-attr]
            await fa.fleet.aclose()
            fa.app.exit()
    lags.sort()
    return {
        f"fleet{agents}_key_to_frame_p95_ms": lags[int(len(lags) * 0.95) - 1],
        f"fleet{agents}_key_to_frame_median_ms": statistics.median(lags),
        f"fleet{agents}_peak_rss_mb": rss,
    }


async def _idle_cpu(url: str, agents: int) -> float:
    with tempfile.TemporaryDirectory() as root:
        fa = FleetApp(url, Path(root), max(agents, 1))
        async with fa.app.run_test(size=(120, 40)) as pilot:
            await _ready(fa, pilot, attach=agents > 0)
            await pilot.pause()
            t = time.process_time()
            await asyncio.sleep(IDLE_SECONDS)  # the interval measured, idle on purpose
            cpu = time.process_time() - t
            await fa.fleet.aclose()
            fa.app.exit()
    return cpu * 1000


async def _view_open(url: str) -> float:
    from gemtui.tui.screens.agents import AgentsScreen

    times = []
    with tempfile.TemporaryDirectory() as root:
        fa = FleetApp(url, Path(root), LISTED)
        async with fa.app.run_test(size=(120, 40)) as pilot:
            await _ready(fa, pilot)
            for _ in range(5):
                shown = fa.next_frame(lambda: isinstance(fa.app.screen, AgentsScreen))
                pressed = time.perf_counter()
                await pilot.press("f5")
                times.append((await shown - pressed) * 1000)
                assert fa.app.screen.query_one("#agents-table").row_count == LISTED  # type: ignore[attr-defined]
                await pilot.press("escape")
                await pilot.pause()
            await fa.fleet.aclose()
            fa.app.exit()
    return statistics.median(times)


def _child(figure: str, url: str) -> dict[str, float]:
    from gemtui.collector import pause_collector

    # as ``gemtui`` starts: the collector waits until the engine is handed over, then what
    # start-up built is frozen and the session's own settings apply (gemtui.collector)
    pause_collector()
    if figure == "streaming":
        return asyncio.run(_streaming(url, STREAMING))
    if figure == "front":
        return asyncio.run(_streaming(url, 1))
    if figure == "idle":
        return {
            "fleet_idle_cpu_ms_8_agents": asyncio.run(_idle_cpu(url, STREAMING)),
            "fleet_idle_cpu_ms_no_fleet": asyncio.run(_idle_cpu(url, 0)),
        }
    return {"agent_view_open_50_ms": asyncio.run(_view_open(url))}


def _in_child(figure: str, url: str) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, __file__, "--child", figure, url], capture_output=True, text=True
    )
    if out.returncode != 0:
        raise RuntimeError(f"fleet benchmark child failed: {out.stderr[-3000:]}")
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


async def run_benchmarks() -> dict[str, float]:
    from run import MockProcess
    from transcript_bench import long_answer

    step = {"text": long_answer(60_000), "chunk_tokens": 5, "tokens_per_second": RATE}
    mock = MockProcess([step])
    try:
        results: dict[str, float] = {}
        for figure in ("streaming", "front", "idle", "view"):
            results.update(_in_child(figure, mock.url))
    finally:
        mock.close()
    return results


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        print(json.dumps(_child(sys.argv[2], sys.argv[3])))
    else:
        print(json.dumps(asyncio.run(run_benchmarks()), indent=2))
