"""``gemtui agents [--json]``: the agents running in this folder, then its recent ones.

Read from the store, so a headless ``gemtui -p`` (or a TUI's agents) in another terminal
shows up; a run said running whose process is gone reads as ``gone``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from gemtui.cli.parser import Subcommands, add_subcommand

__all__ = ["add_parser"]


def add_parser(sub: Subcommands) -> None:
    p = add_subcommand(sub, "agents", _run, "This folder's running and recent agents.")
    p.add_argument("--json", action="store_true", help="print them as a JSON array")
    p.add_argument("--limit", type=int, default=20, help="at most this many (default 20)")


def _run(args: argparse.Namespace) -> int:
    from gemtui.cli.sessions import _store_failed
    from gemtui.config.secrets import register_stored_secrets
    from gemtui.store import SessionStore

    register_stored_secrets()  # a task holding a secret is masked on the way out
    workspace = str(Path(os.getcwd()).resolve())
    try:
        with SessionStore() as store:  # an older store gains the agents table
            rows = store.agents(workspace, limit=max(args.limit, 1))
    except BrokenPipeError:
        raise
    except Exception as exc:  # an unusable store: one line, details in the log
        return _store_failed(exc)
    from gemtui.redact import redact, redact_data

    if args.json:
        out = redact_data([r.as_json() for r in rows])
        sys.stdout.write(json.dumps(out, ensure_ascii=False, indent=2) + "\n")
        return 0
    if not rows:
        sys.stdout.write("No agents in this folder yet.\n")
        return 0
    now = time.time()
    for r in rows:
        task = " ".join(redact(r.task).split())
        task = task if len(task) <= 50 else task[:49] + "…"
        elapsed = int((r.ended or now) - r.started)
        cost = f"  ${r.cost:.4f}" if r.cost is not None else ""
        sys.stdout.write(
            f"{r.id[:12]}  {r.state:<15}  {r.model:<24}  {elapsed:>5}s  {r.tokens:>7} tok"
            f"{cost}  {r.branch or ''}  “{task}”\n"
        )
    return 0
