"""``gemtui agents [--json]``: the agents running in this folder, then its recent ones.

Read from the store, so a headless ``gemtui -p`` (or a TUI's agents) in another terminal
shows up; a run said running whose process is gone reads as ``gone``. In a project's
main checkout its worktrees' agents are listed too (``gemtui -p … -w NAME`` works in
``.gemini/worktrees/NAME``), each with its worktree and branch.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gemtui.cli.parser import Subcommands, add_subcommand

if TYPE_CHECKING:
    from gemtui.store import SessionStore
    from gemtui.store.agents import AgentRow

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
    workspace = Path(os.getcwd()).resolve()
    try:
        with SessionStore() as store:  # an older store gains the agents table
            listed = _folder_agents(store, workspace, limit=max(args.limit, 1))
    except BrokenPipeError:
        raise
    except Exception as exc:  # an unusable store: one line, details in the log
        return _store_failed(exc)
    from gemtui.redact import redact, redact_data

    rows = [row for row, _ in listed]
    if args.json:
        out = redact_data([{**r.as_json(), **extra} for r, extra in listed])
        sys.stdout.write(json.dumps(out, ensure_ascii=False, indent=2) + "\n")
        return 0
    if not rows:
        sys.stdout.write("No agents in this folder yet.\n")
        return 0
    now = time.time()
    for r in rows:
        task = " ".join(redact(r.task).split())
        task = task if len(task) <= 50 else task[:49] + "…"
        gone = r.state == "gone"  # said running, but its process is no more
        elapsed = int((r.ended or (r.updated if gone else now)) - r.started)
        cost = f"  ${r.cost:.4f}" if r.cost is not None else ""
        state = "ended unexpectedly" if gone else r.state
        sys.stdout.write(
            f"{r.id[:12]}  {state:<18}  {r.model:<24}  {elapsed:>5}s  {r.tokens:>7} tok"
            f"{cost}  {r.branch or ''}  “{task}”\n"
        )
    return 0


def _folder_agents(
    store: SessionStore, workspace: Path, *, limit: int
) -> list[tuple[AgentRow, dict[str, Any]]]:
    """The folder's agents and those of its worktrees (``worktree`` and ``branch`` said),
    running ones first, then the newest."""
    from dataclasses import replace

    from gemtui.store.agents import RUNNING_STATES
    from gemtui.worktrees.linked import linked_worktrees

    listed: list[tuple[AgentRow, dict[str, Any]]] = [
        (row, {"worktree": None}) for row in store.agents(str(workspace), limit=limit)
    ]
    for linked in linked_worktrees(workspace):
        for row in store.agents(str(linked.path), limit=limit):
            shown = replace(row, branch=row.branch or linked.branch)
            listed.append((shown, {"worktree": str(linked.path)}))
    listed.sort(key=lambda pair: (pair[0].state not in RUNNING_STATES, -pair[0].updated))
    running = sum(1 for row, _ in listed if row.state in RUNNING_STATES)
    return listed[: max(limit, running)]
