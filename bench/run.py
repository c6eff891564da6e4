"""gemtui benchmarks (`make bench`): each figure is the median of 5 runs on this machine.

Measured here, not asserted in tests: timing assertions make flaky tests, numbers in a
closing note make honest progress. Sections whose code is not there yet say so.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
RUNS = 5


def median(values: list[float]) -> float:
    return statistics.median(values)


def report(name: str, value: float, unit: str, target: str) -> None:
    print(f"  {name:<58} {value:>12,.2f} {unit:<9} (target {target})", flush=True)


def _env(home: str, url: str | None = None) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("GEMINI", "GOOGLE", "OPENAI", "ANTHROPIC"))
    }
    env.update(GEMTUI_HOME=home, GEMINI_API_KEY="bench-key", PYTHONUNBUFFERED="1")
    if url:
        env["GOOGLE_GEMINI_BASE_URL"] = url
    return env


def bench_version() -> None:
    exe = ROOT / ".venv" / "bin" / "gemtui"
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "gemtui"]
    times = []
    for _ in range(RUNS):
        t = time.perf_counter()
        subprocess.run([*cmd, "--version"], check=True, capture_output=True)
        times.append(time.perf_counter() - t)
    report("gemtui --version wall time", median(times) * 1000, "ms", "< 150 ms")


def bench_first_byte() -> None:
    from gemtui.testing import MockLLMServer

    exe = ROOT / ".venv" / "bin" / "gemtui"
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "gemtui"]
    overheads, totals = [], []
    with tempfile.TemporaryDirectory() as home, MockLLMServer.in_thread() as srv:
        for _ in range(RUNS):
            srv.enqueue({"text": "first byte", "chunks": 1})
            t0 = time.monotonic()
            proc = subprocess.Popen(
                [*cmd, "-p", "hi"],
                env=_env(home, srv.url),
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                stdin=subprocess.DEVNULL,
                cwd=home,
            )
            assert proc.stdout is not None
            os.read(proc.stdout.fileno(), 1)
            t_byte = time.monotonic()
            proc.wait()
            received = srv.requests[-1].received_at
            overheads.append(t_byte - received)
            totals.append(t_byte - t0)
    report(
        "headless: request received by server → first byte on stdout",
        median(overheads) * 1000,
        "ms",
        "< 50 ms",
    )
    report("headless: launch → first byte on stdout (context)", median(totals) * 1000, "ms", "-")


class MockProcess:
    """The mock server in its own process, so its work is not counted as the engine's."""

    def __init__(self, steps: list[dict[str, Any]]) -> None:
        import json

        self._dir = tempfile.TemporaryDirectory()
        script = Path(self._dir.name) / "script.jsonl"
        script.write_text("\n".join(json.dumps(s) for s in steps), encoding="utf-8")
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "gemtui.testing.mockllm",
                "--port",
                "0",
                "--script",
                str(script),
                "--loop",
            ],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        self.url = line.strip().rsplit(" ", 1)[-1]

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=10)
        self._dir.cleanup()


CHUNKS = 20_000
"""One-token chunks in the answer the stream's CPU is measured over."""


async def _cpu_per_chunk_once(url: str, chunks: int) -> float:
    """Client CPU seconds per chunk for one answer of ``chunks`` one-token chunks.

    Why CPU, not tokens/s: what a stream costs the person is the share of a core it
    takes, which a faster network or server does not change. ``process_time`` counts this
    process's threads only; the mock runs in its own process (``MockProcess``), so its
    work is not in the figure. The whole client is measured: HTTP, SSE, the provider,
    the chat, the executor and the bus, from ``Session.send`` to its return.
    """
    from gemtui.agent.provider_choice import ResolvedProvider
    from gemtui.agent.session import Session, SessionOptions
    from gemtui.bus import ContentDelta
    from gemtui.config.settings import Settings
    from gemtui.providers.gemini import GeminiGenerator
    from gemtui.providers.http import make_client
    from gemtui.providers.retry import RetryingGenerator
    from gemtui.testing import filler

    expected = len(filler(chunks, "tok"))
    gen = RetryingGenerator(GeminiGenerator(make_client(), "k", url))
    with tempfile.TemporaryDirectory() as ws:
        session = Session(
            Settings(),
            ResolvedProvider("gemini", "gemini", gen, "gemini-2.5-pro", 1_048_576),
            SessionOptions(workspace=Path(ws), interactive=False),
        )
        received = 0

        def count(ev: Any) -> None:
            nonlocal received
            if isinstance(ev, ContentDelta):
                received += len(ev.text)

        session.bus.subscribe(count)
        t = time.process_time()
        await session.send("go")
        cpu = time.process_time() - t
        await session.aclose()
    assert received == expected, (received, expected)
    return cpu / chunks


class StreamMock(MockProcess):
    """The mock in its own process, answering every request with ``CHUNKS`` one-token
    chunks (one SSE frame each, written as the wire-faithful mock writes them)."""

    def __init__(self, chunks: int = CHUNKS) -> None:
        from gemtui.testing import filler

        super().__init__([{"text": filler(chunks, "tok"), "chunk_tokens": 1}])


def cpu_per_chunk_runs(url: str, runs: int = RUNS, chunks: int = CHUNKS) -> list[float]:
    """Microseconds of client CPU per chunk, one figure a run, after a warm-up run
    (imports, the first connection)."""
    asyncio.run(_cpu_per_chunk_once(url, chunks))
    return [asyncio.run(_cpu_per_chunk_once(url, chunks)) * 1e6 for _ in range(runs)]


def bench_stream_cpu() -> None:
    mock = StreamMock()
    try:
        per_chunk = cpu_per_chunk_runs(mock.url)
    finally:
        mock.close()
    report(
        f"stream: client CPU per one-token chunk ({CHUNKS:,} chunks)",
        median(per_chunk),
        "µs",
        "≤ 40 µs",
    )


def _ctrl_c_once(cmd: list[str], home: str, url: str) -> float:
    """Seconds from SIGINT to the process's end, sent once the flood is on stdout."""
    import signal
    import threading

    proc = subprocess.Popen(
        [*cmd, "-p", "never stop"],
        env=_env(home, url),
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
        cwd=home,
    )
    assert proc.stdout is not None
    flowing = threading.Event()

    def drain(fd: int) -> None:  # read as a terminal would, so the flood never stalls
        total = 0
        while data := os.read(fd, 1 << 16):
            total += len(data)
            if total >= 256_000:
                flowing.set()
        flowing.set()

    threading.Thread(target=drain, args=(proc.stdout.fileno(),), daemon=True).start()
    flowing.wait(60)
    sent = time.monotonic()
    os.kill(proc.pid, signal.SIGINT)  # not send_signal: its poll() could reap the child
    _, status, _ = os.wait4(proc.pid, 0)  # blocks; no polling interval in the figure
    ended = time.monotonic()
    proc.returncode = os.waitstatus_to_exitcode(status)
    assert proc.returncode == 130, proc.returncode
    return ended - sent


def bench_ctrl_c_flood() -> None:
    exe = ROOT / ".venv" / "bin" / "gemtui"
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "gemtui"]
    # an endless answer in small chunks: the most per-chunk work, and under the answer cap
    flood = "".join(f"flood{i} " for i in range(60))  # distinct words: not a loop to cut
    mock = MockProcess([{"text": flood, "chunk_tokens": 4, "endless": True}])
    try:
        with tempfile.TemporaryDirectory() as home:
            times = [_ctrl_c_once(cmd, home, mock.url) for _ in range(RUNS)]
    finally:
        mock.close()
    report("headless: Ctrl-C → exit during a flood answer", median(times) * 1000, "ms", "< 200 ms")


async def _tool_round_trips(n: int) -> float:
    from bench_tools import NoopTool  # type: ignore[import-not-found]

    from gemtui.agent.executor import Executor
    from gemtui.bus import EventBus
    from gemtui.chat.chat import Chat
    from gemtui.providers.replay import ReplayGenerator
    from gemtui.scheduler import PolicyEngine, ToolScheduler
    from gemtui.tools.base import ToolContext
    from gemtui.tools.registry import ToolRegistry
    from gemtui.tools.workspace import Workspace

    call = {
        "candidates": [
            {
                "content": {
                    "role": "model",
                    "parts": [{"functionCall": {"name": "noop", "args": {"i": 1}}}],
                },
                "finishReason": "STOP",
            }
        ]
    }
    done = {
        "candidates": [
            {"content": {"role": "model", "parts": [{"text": "done"}]}, "finishReason": "STOP"}
        ]
    }
    entries = []
    for i in range(n):
        c = {
            "candidates": [
                {
                    "content": {
                        "role": "model",
                        "parts": [{"functionCall": {"name": "noop", "args": {"i": i}}}],
                    },
                    "finishReason": "STOP",
                }
            ]
        }
        entries.append({"chunks": [c]})
    entries.append({"chunks": [done]})
    del call
    gen = ReplayGenerator(entries)
    bus = EventBus("bench")
    with tempfile.TemporaryDirectory() as ws:
        sched = ToolScheduler(
            ToolRegistry([NoopTool()]),
            bus,
            PolicyEngine(),
            ToolContext(workspace=Workspace(Path(ws))),
            approval_mode="default",
            interactive=False,
        )
        chat = Chat(gen, model="m", retry_delays=())
        ex = Executor(chat, sched, bus)
        t = time.perf_counter()
        result = await ex.run("go")
        elapsed = time.perf_counter() - t
    assert result.reason == "GOAL", result
    return elapsed / n


def bench_tool_round_trip() -> None:
    per = [asyncio.run(_tool_round_trips(200)) for _ in range(RUNS)]
    report(
        "engine overhead per tool round trip (instant model, no-op tool)",
        median(per) * 1000,
        "ms",
        "< 2 ms",
    )


async def _parallel_reads() -> float:
    from bench_tools import SleepTool  # type: ignore[import-not-found]

    from gemtui.bus import EventBus
    from gemtui.scheduler import PolicyEngine, ToolScheduler
    from gemtui.tools.base import ToolContext
    from gemtui.tools.registry import ToolRegistry
    from gemtui.tools.workspace import Workspace
    from gemtui.wire import FunctionCall

    with tempfile.TemporaryDirectory() as ws:
        sched = ToolScheduler(
            ToolRegistry([SleepTool()]),
            EventBus("b"),
            PolicyEngine(),
            ToolContext(workspace=Workspace(Path(ws))),
            approval_mode="default",
            interactive=False,
        )
        calls = [
            FunctionCall(id=f"c{i}", name="sleep_read", args={"seconds": 0.2}) for i in range(10)
        ]
        t = time.perf_counter()
        await sched.run(calls)
        return time.perf_counter() - t


def bench_parallel() -> None:
    times = [asyncio.run(_parallel_reads()) for _ in range(RUNS)]
    report("10 parallel read-only calls of 200 ms each", median(times) * 1000, "ms", "< 300 ms")


def _optional(module: str, title: str) -> Callable[[], Awaitable[dict[str, float]]] | None:
    try:
        mod = __import__(module)
    except ImportError as exc:
        print(f"  {title}: not available yet ({exc})")
        return None
    return getattr(mod, "run_benchmarks", None)


POLICY_COMMAND = (
    "git status --short && CI=1 npm test -- --watch=false 2>&1 | tee test.log; "
    'for f in src/*.py; do echo "$f" $(wc -l < "$f"); done; (cd docs && make html) '
    "|| echo failed; git diff --stat HEAD~{n} > diff.txt"
)
"""A compound command of about 200 characters; ``{n}`` makes each one new to the cache."""


def bench_policy() -> None:
    """Median policy decision (bash parse included) for a 200-character compound command."""
    from gemtui.scheduler import PolicyDecision, PolicyEngine, PolicyRule
    from gemtui.tools.builtin import RunShellCommandTool

    tool = RunShellCommandTool()
    engine = PolicyEngine(
        [
            PolicyRule(PolicyDecision.ALLOW, tool_name=tool.name, command_prefix=(p,))
            for p in ("git status", "npm test", "tee", "echo", "wc", "make", "git diff")
        ]
        + [PolicyRule(PolicyDecision.DENY, tool_name=tool.name, command_prefix=("rm",))]
    )
    t = time.perf_counter()
    engine.decide(tool, {"command": POLICY_COMMAND.format(n=0)}, "default")
    first = time.perf_counter() - t
    times = []
    for n in range(1, 1001):
        command = POLICY_COMMAND.format(n=n)
        t = time.perf_counter()
        engine.decide(tool, {"command": command}, "default")
        times.append(time.perf_counter() - t)
    length = len(POLICY_COMMAND.format(n=500))
    report(f"policy decision, {length}-char compound command", median(times) * 1000, "ms", "< 1 ms")
    report("policy decision, first call (loads the bash grammar)", first * 1000, "ms", "-")


def bench_tui() -> None:
    for module, title in (
        ("tui_startup", "TUI start-up"),
        ("tui_enter", "TUI Enter → request"),
        ("tui_stream", "TUI streaming"),
        ("transcript_bench", "TUI transcript"),
        ("store_bench", "session store"),
        ("fleet_bench", "agents side by side"),
    ):
        fn = _optional(module, title)
        if fn is None:
            continue
        results = asyncio.run(fn())
        for name, value in results.items():
            print(f"  {name:<58} {value:>12,.2f}", flush=True)


def bench_mcp() -> None:
    import mcp_bench  # type: ignore[import-not-found]

    offered = [asyncio.run(mcp_bench.tools_offered()) for _ in range(RUNS)]
    report(
        "MCP start until the first server's tools are offered",
        median(offered) * 1000,
        "ms",
        "< 2000 ms",
    )
    pairs = [asyncio.run(mcp_bench.call_overhead()) for _ in range(RUNS)]
    report(
        "MCP call via the SDK alone (mcp-server-time, stdio)",
        median([p[0] for p in pairs]) * 1000,
        "ms",
        "-",
    )
    report(
        "engine overhead per MCP call (gemtui tool minus SDK)",
        median([p[1] - p[0] for p in pairs]) * 1000,
        "ms",
        "< 1 ms",
    )


def bench_lsp() -> None:
    from lsp_bench import bench_lsp as run  # type: ignore[import-not-found]

    run(report)


def bench_safety() -> None:
    from safety_bench import bench_checkpoints, bench_sandbox

    bench_checkpoints(report)
    bench_sandbox(report)


def main() -> int:
    sections: list[tuple[str, Callable[[], None]]] = [
        ("Foundation", bench_version),
        ("Foundation", bench_first_byte),
        ("Foundation", bench_stream_cpu),
        ("Foundation", bench_ctrl_c_flood),
        ("Engine", bench_tool_round_trip),
        ("Engine", bench_parallel),
        ("Engine", bench_policy),
        ("TUI and store", bench_tui),
        ("Safety net", bench_safety),
        ("Language servers", bench_lsp),
        # last: the TUI's peak RSS is this process's, and the MCP SDK would count in it
        ("MCP", bench_mcp),
    ]
    last = None
    for title, fn in sections:
        if title != last:
            print(f"{title} (median of {RUNS}):", flush=True)
            last = title
        fn()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
