"""Transcript benchmarks: streaming a long answer, adding a turn to a long session, memory.

Run with ``.venv/bin/python bench/transcript_bench.py``; ``bench/run.py`` can import
:func:`run_benchmarks`. Each time is the median of 5 runs, measured in a headless app
(120×40) by waiting for refreshes, never by sleeping:

(a) a ~2,000-token Markdown answer (headings, prose, lists, code) fed in ~5-token chunks
    as fast as the event loop takes them, until its last line is drawn (target < 1.0 s);
(b) one more turn (user message and a Markdown answer) added to a 1,000-turn transcript,
    until drawn (target < 50 ms);
(c) peak RSS of the process after (b) (target < 150 MB); also scrolling back from the end
    of that transcript to turn 1 until drawn (target < 100 ms).
"""

from __future__ import annotations

import asyncio
import resource
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from textual.app import App, ComposeResult  # noqa: E402
from textual.pilot import Pilot  # noqa: E402

from gemtui.tui.widgets.answer_render import AnswerRender  # noqa: E402
from gemtui.tui.widgets.transcript import Transcript  # noqa: E402

RUNS = 5
SIZE = (120, 40)
CHUNK_CHARS = 20
"""About five tokens of English or code."""
END_MARK = "END-OF-ANSWER"

_PROSE = (
    "The scheduler keeps one state machine per call and publishes a full snapshot after "
    "every transition, so views never patch state; they draw what they are given. "
)
_CODE = '''def load_settings(path: Path) -> Settings:
    """Read the TOML file and validate it."""
    with path.open("rb") as handle:
        data = tomllib.load(handle)
    for key, value in data.items():
        if key.startswith("_"):
            continue
        print(f"{key} = {value!r}")
    return Settings.model_validate(data)
'''


def long_answer(tokens: int = 2_000) -> str:
    """A Markdown answer of about ``tokens`` tokens (4 characters each)."""
    parts: list[str] = []
    section = 0
    while sum(map(len, parts)) < tokens * 4:
        section += 1
        parts.append(f"## Step {section}: what changes\n\n")
        parts.append(_PROSE * 2 + "\n\n")
        parts.append(
            "- read the **settings** file\n- validate with `pydantic`\n- report errors\n\n"
        )
        parts.append(f"```python\n{_CODE}```\n\n")
    parts.append(f"That is all. {END_MARK}\n")
    return "".join(parts)


def turn_answer(n: int) -> str:
    return (
        f"### Answer {n}\n\nHere is what I found in `src/module_{n}.py`:\n\n"
        "- the loader reads the file\n- the validator checks it\n\n"
        f"```python\ndef f_{n}(x: int) -> int:\n    return x * {n}\n```\n"
    )


class _BenchApp(App[None]):
    def compose(self) -> ComposeResult:
        yield Transcript()


def _visible_text(transcript: Transcript) -> str:
    return "\n".join(transcript.render_line(y).text for y in range(transcript.size.height))


async def _until_visible(transcript: Transcript, mark: str) -> None:
    """Wait for screen refreshes (not sleeps) until ``mark`` is drawn."""
    for _ in range(10_000):
        await transcript.wait_for_refresh()
        if not transcript.rendering_pending and mark in _visible_text(transcript):
            return
    raise RuntimeError(f"{mark!r} never became visible")


async def bench_stream(pilot: Pilot[None], transcript: Transcript) -> tuple[float, int]:
    """Seconds until the whole answer is drawn, and Markdown blocks rendered."""
    text = long_answer()
    chunks = [text[i : i + CHUNK_CHARS] for i in range(0, len(text), CHUNK_CHARS)]
    transcript.clear()
    await pilot.pause()
    start = time.perf_counter()
    transcript.begin_answer()
    for chunk in chunks:
        transcript.append_answer(chunk)
        await asyncio.sleep(0)  # let the app run between chunks, as network reads would
    await _until_visible(transcript, END_MARK)
    elapsed = time.perf_counter() - start
    renders = transcript._last_answer.stream.render_count if transcript._last_answer else 0
    transcript.end_answer()
    return elapsed, renders


async def fill(transcript: Transcript, turns: int) -> None:
    for n in range(turns):
        transcript.add_user(f"Question {n}: what does module {n} do, and how do I test it?")
        transcript.begin_answer()
        transcript.append_answer(turn_answer(n))
        transcript.end_answer()


async def bench_add_turn(pilot: Pilot[None], transcript: Transcript, n: int) -> float:
    start = time.perf_counter()
    transcript.add_user(f"Question {n}: and one more thing?")
    transcript.begin_answer()
    transcript.append_answer(turn_answer(n))
    transcript.end_answer()
    await _until_visible(transcript, f"def f_{n}(x: int)")
    return time.perf_counter() - start


async def bench_scroll_back(transcript: Transcript) -> float:
    """Ms from the end of a 1,000-turn transcript to turn 1 drawn, and back."""
    start = time.perf_counter()
    transcript.scroll_home(animate=False, immediate=True)
    await _until_visible(transcript, "Question 0:")
    elapsed = time.perf_counter() - start
    transcript.scroll_end(animate=False, immediate=True)
    await transcript.wait_for_refresh()
    return elapsed * 1000


def bench_update_cost(transcript: Transcript) -> float:
    """Max ms to render one frame's update when every chunk gets its own frame.

    This is the worst case for the growing block; it should stay flat however long the
    answer already is, because finished blocks come from the cache.
    """
    text = long_answer()
    stream = AnswerRender()
    console, width = transcript.app.console, transcript.size.width
    worst = 0.0
    for start in range(0, len(text), CHUNK_CHARS):
        stream.append(text[start : start + CHUNK_CHARS])
        began = time.perf_counter()
        stream.render(console, width)
        if start > len(text) // 2:  # late in the answer: the cost must not have grown
            worst = max(worst, time.perf_counter() - began)
    return worst * 1000


def peak_rss_mb() -> float:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024


async def run_benchmarks() -> dict[str, float]:
    """Run all three and return ``{name: value}`` (seconds, milliseconds, megabytes)."""
    app = _BenchApp()
    results: dict[str, float] = {}
    async with app.run_test(headless=True, size=SIZE) as pilot:
        transcript = app.query_one(Transcript)
        streams = [await bench_stream(pilot, transcript) for _ in range(RUNS)]
        results["stream_2000_tokens_s"] = statistics.median(t for t, _ in streams)
        results["stream_block_renders"] = statistics.median(r for _, r in streams)
        results["update_render_late_ms"] = statistics.median(
            bench_update_cost(transcript) for _ in range(RUNS)
        )

        transcript.clear()
        await fill(transcript, 1_000)
        await pilot.pause()
        adds = [await bench_add_turn(pilot, transcript, 1_000 + i) for i in range(RUNS)]
        results["add_turn_at_1000_ms"] = statistics.median(adds) * 1000
        results["scroll_to_turn_1_ms"] = statistics.median(
            [await bench_scroll_back(transcript) for _ in range(RUNS)]
        )
        results["transcript_lines"] = float(transcript.line_count)
        results["peak_rss_mb"] = peak_rss_mb()
    return results


_LABELS = {
    "stream_2000_tokens_s": ("(a) 2,000-token answer in 5-token chunks, drawn", "s", "< 1.0 s"),
    "stream_block_renders": ("    Markdown blocks rendered for that answer", "", ""),
    "update_render_late_ms": ("    one frame's re-render late in that answer (max)", "ms", ""),
    "add_turn_at_1000_ms": ("(b) one more turn on a 1,000-turn transcript, drawn", "ms", "< 50 ms"),
    "scroll_to_turn_1_ms": ("    scroll back to turn 1 of 1,000, drawn", "ms", "< 100 ms"),
    "transcript_lines": ("    transcript lines", "", ""),
    "peak_rss_mb": ("(c) peak RSS", "MB", "< 150 MB"),
}


def main() -> None:
    results = asyncio.run(run_benchmarks())
    print("transcript benchmarks (median of 5)")
    for key, (label, unit, target) in _LABELS.items():
        note = f"(target {target})" if target else ""
        print(f"  {label:<54} {results[key]:>10,.3f} {unit:<3} {note}")


if __name__ == "__main__":
    main()
