"""The whole TUI streaming a 2,000-token Markdown answer from the mock server.

Unlike ``transcript_bench`` (the widget alone), this drives the real app: the mock in its
own process speaks the Gemini wire format, the Session streams through the bus and the
bridge into the transcript. Two figures, median of 5 (120×40, headless):

- ``tui_answer_unlimited_s``: from pressing Enter to the answer's last line drawn, with
  the mock sending as fast as it can (5-token chunks);
- ``tui_lag_200tps_ms``: at 200 tokens/s, from the last chunk reaching the engine (an
  inline bus subscriber stamps it) to that text drawn on screen.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from run import MockProcess
from transcript_bench import END_MARK, long_answer

RUNS = 5


async def _one(url: str, rate: float | None) -> float:
    from gemtui.agent.provider_choice import ResolvedProvider
    from gemtui.agent.session import Session, SessionOptions
    from gemtui.bus import AgentFinished, ContentDelta
    from gemtui.config.settings import Settings
    from gemtui.providers.gemini import GeminiGenerator
    from gemtui.providers.http import make_client
    from gemtui.tui.app import GemtuiApp

    with tempfile.TemporaryDirectory() as ws:
        gen = GeminiGenerator(make_client(), "k", url)
        provider = ResolvedProvider("gemini", "gemini", gen, "gemini-2.5-pro", 1_048_576)
        session = Session(Settings(), provider, SessionOptions(workspace=Path(ws)))
        stamps: dict[str, float] = {}

        def stamp(ev: Any) -> None:
            if isinstance(ev, ContentDelta) and END_MARK in ev.text:
                stamps["last_chunk"] = time.perf_counter()
            elif isinstance(ev, AgentFinished):
                stamps["finished"] = time.perf_counter()

        session.bus.subscribe(stamp)
        app = GemtuiApp(settings=Settings(), session=session, workspace=Path(ws))
        async with app.run_test(size=(120, 40)) as pilot:
            while app.focused is None or app.screen.__class__.__name__ != "MainScreen":
                await pilot.pause()
            await pilot.pause()
            transcript = app.main.transcript
            start = time.perf_counter()
            await pilot.press("g", "o", "enter")
            for _ in range(100_000):
                await transcript.wait_for_refresh()
                if "last_chunk" not in stamps or transcript.rendering_pending:
                    continue
                visible = "\n".join(
                    transcript.render_line(y).text for y in range(transcript.size.height)
                )
                if END_MARK in visible:
                    break
            drawn = time.perf_counter()
            app.exit()
        await session.aclose()
    if rate is None:
        return drawn - start
    return (drawn - stamps["last_chunk"]) * 1000


async def run_benchmarks() -> dict[str, float]:
    text = long_answer()
    results: dict[str, float] = {}
    for rate, name in ((None, "tui_answer_unlimited_s"), (200.0, "tui_lag_200tps_ms")):
        step: dict[str, Any] = {"text": text, "chunk_tokens": 5}
        if rate:
            step["tokens_per_second"] = rate
        mock = MockProcess([step])
        try:
            values = [await _one(mock.url, rate) for _ in range(RUNS)]
        finally:
            mock.close()
        results[name] = statistics.median(values)
    return results


if __name__ == "__main__":
    print(asyncio.run(run_benchmarks()))
