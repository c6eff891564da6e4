"""``make bench``'s sandbox figure runs against the sandbox's current API.

The bench is not part of ``make test``, so when ``wrap_command`` began returning a
``SandboxedCommand`` (placeholders released when the command ends) the bench broke
unnoticed and ``make bench`` stopped at its safety section. This runs that section's
sandbox figure for real (bwrap, a real command) and checks it reports one figure.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench"


def test_the_sandbox_bench_runs_and_reports_the_time_bwrap_adds() -> None:
    assert shutil.which("bwrap"), "bwrap is not installed: apt-get install bubblewrap"
    sys.path.insert(0, str(BENCH))
    try:
        from safety_bench import bench_sandbox  # type: ignore[import-not-found]
    finally:
        sys.path.remove(str(BENCH))
    reported: list[tuple[str, float, str, str]] = []
    bench_sandbox(lambda name, value, unit, target: reported.append((name, value, unit, target)))
    assert [(name, unit) for name, _, unit, _ in reported] == [
        ("sandbox: time bwrap adds to one command", "ms")
    ]
