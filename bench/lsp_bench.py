"""Language-server figures for `make bench`: how long an edit waits for its diagnostics on a
warm server (python-lsp-server with pyflakes), through the replace tool as the model calls it.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

SOURCE = "import os\n\n\ndef total(items):\n    return sum(items)\n"


async def edit_waits(edits: int = 40) -> list[float]:
    """Seconds each replace spent waiting for diagnostics, after one edit warmed pylsp."""
    from gemtui.tools.base import ToolContext
    from gemtui.tools.builtin.replace import ReplaceTool
    from gemtui.tools.lsp.manager import LanguageServers
    from gemtui.tools.lsp.servers import ServerSpec
    from gemtui.tools.workspace import Workspace

    spec = ServerSpec("pylsp", (sys.executable, "-m", "pylsp"), frozenset({".py"}))
    servers = LanguageServers([spec], wait=30)
    tool = ReplaceTool()
    waits: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "cart.py").write_text(SOURCE, encoding="utf-8")
        ctx = ToolContext(workspace=Workspace(Path(tmp)), lsp=servers)
        pairs = [("sum(items)", "sum(items) + shipping"), ("sum(items) + shipping", "sum(items)")]
        for n in range(edits + 1):
            old, new = pairs[n % 2]
            args = {"file_path": "cart.py", "instruction": "x", "old_string": old}
            call = tool.build({**args, "new_string": new})
            started = time.perf_counter()
            result = await call.execute(ctx)
            if n:  # the first edit starts the server
                waits.append(time.perf_counter() - started)
            assert "Diagnostics (pylsp)" in str(result.llm_content), result.llm_content
    await servers.aclose()
    return waits


def bench_lsp(report: Callable[[str, float, str, str], None]) -> None:
    """Median and p95 of a warm edit's wait (the whole replace, diagnostics included)."""
    waits = asyncio.run(edit_waits())
    p95 = statistics.quantiles(waits, n=20)[-1]
    report(
        "replace on a warm pylsp: diagnostics wait, median",
        statistics.median(waits) * 1000,
        "ms",
        "< 2000 ms",
    )
    report("replace on a warm pylsp: diagnostics wait, p95", p95 * 1000, "ms", "< 2000 ms")
