"""Client CPU per one-token chunk of two source trees, alternated in one run.

Why: this machine's speed drifts by 10-20 % between runs, so a change is judged against
its base in the same run, each round in fresh processes, alternating. Both trees are
measured by this checkout's ``bench/run.py`` (``CHUNKS`` one-token chunks through
``Session.send``, the mock in its own process, so only the client's CPU is counted).

    python bench/stream_cpu_ab.py BASE_SRC NEW_SRC [--rounds 3]

``BASE_SRC``/``NEW_SRC`` are ``src`` folders (``git archive BASE src | tar -x``, say).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent

_CHILD = f"""
import json, sys
sys.path.insert(0, {str(BENCH)!r})
import run
mock = run.StreamMock()
try:
    print(json.dumps(run.cpu_per_chunk_runs(mock.url)))
finally:
    mock.close()
"""


def _round(src: Path) -> float:
    """The median of ``RUNS`` runs of one tree, in a fresh process (its mock too)."""
    env = {**os.environ, "PYTHONPATH": str(src)}
    out = subprocess.run(
        [sys.executable, "-c", _CHILD], env=env, capture_output=True, text=True, check=True
    )
    return float(statistics.median(json.loads(out.stdout.strip().splitlines()[-1])))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("base", type=Path)
    parser.add_argument("new", type=Path)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    trees = {"base": args.base.resolve(), "new": args.new.resolve()}
    cpu: dict[str, list[float]] = {name: [] for name in trees}
    for _ in range(args.rounds):
        for name, src in trees.items():
            cpu[name].append(_round(src))
    for name, values in cpu.items():
        shown = ", ".join(f"{v:.1f}" for v in values)
        print(f"{name:<5} {statistics.median(values):>7.1f} µs CPU/chunk  (rounds: {shown})")
    ratio = statistics.median(cpu["new"]) / statistics.median(cpu["base"])
    print(f"new / base: {ratio:.2f}×")


if __name__ == "__main__":
    main()
