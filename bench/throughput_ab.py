"""Engine stream throughput of two source trees, alternated in one run.

Why: this machine's speed drifts by 10-20 % between runs, so a change is judged against
its base in the same run, each round in fresh processes, alternating. Both trees are
measured by this checkout's ``bench/run.py`` (50,000 tokens in 5-token chunks through
``Session.send``, the mock in its own process).

    python bench/throughput_ab.py BASE_SRC NEW_SRC [--rounds 3]

``BASE_SRC``/``NEW_SRC`` are ``src`` folders (a ``git worktree`` of the base, say).
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
import asyncio, json, sys
sys.path.insert(0, {str(BENCH)!r})
import run
from gemtui.testing import filler
mock = run.MockProcess([{{"text": filler(50_000, "tok"), "chunk_tokens": 5}}])
try:
    asyncio.run(run._throughput_once(mock.url, 50_000))  # warm-up: imports, connection
    print(json.dumps([asyncio.run(run._throughput_once(mock.url, 50_000)) for _ in range(5)]))
finally:
    mock.close()
"""


def _round(src: Path) -> float:
    """The median of 5 runs of one tree, in a fresh process."""
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
    rates: dict[str, list[float]] = {name: [] for name in trees}
    for _ in range(args.rounds):
        for name, src in trees.items():
            rates[name].append(_round(src))
    for name, values in rates.items():
        shown = ", ".join(f"{v:,.0f}" for v in values)
        print(f"{name:<5} {statistics.median(values):>10,.0f} tok/s  (rounds: {shown})")
    ratio = statistics.median(rates["new"]) / statistics.median(rates["base"])
    print(f"new / base: {ratio:.2f}×")


if __name__ == "__main__":
    main()
