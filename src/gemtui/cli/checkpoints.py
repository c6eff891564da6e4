"""``gemtui checkpoints [--json]``: this workspace's checkpoints, newest first."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from gemtui.cli.parser import EXIT_ERROR, Subcommands, add_subcommand

__all__ = ["add_parser"]


def add_parser(sub: Subcommands) -> None:
    p = add_subcommand(sub, "checkpoints", _run, "List this folder's checkpoints.")
    p.add_argument("--json", action="store_true", help="print them as a JSON array")


def _run(args: argparse.Namespace) -> int:
    from gemtui.agent.checkpointing import book_for
    from gemtui.checkpoints import ShadowError
    from gemtui.config.settings import load_settings

    try:
        points = book_for(Path(os.getcwd()), load_settings().checkpoints).all()
    except ShadowError as e:
        sys.stderr.write(f"gemtui: {e}\n")
        return EXIT_ERROR
    if args.json:
        sys.stdout.write(json.dumps([p.row() for p in points], ensure_ascii=False, indent=2))
        sys.stdout.write("\n")
        return 0
    if not points:
        sys.stdout.write("No checkpoints in this folder yet.\n")
        return 0
    width = max(2, *(len(p.id) for p in points))
    sys.stdout.write(  # a header, and the session: two sessions in one folder interleave
        f"{'ID':<{width}}  {'CREATED':<19}  {'SESSION':<8}  {'TOOL':<18}  FILES  “PROMPT”\n"
    )
    for point in points:
        prompt = " ".join(point.prompt.split())
        prompt = prompt if len(prompt) <= 50 else prompt[:49] + "…"
        files = ", ".join(point.files[:3]) + (" …" if len(point.files) > 3 else "")
        sys.stdout.write(
            f"{point.id:<{width}}  {point.created[:19].replace('T', ' ')}  "
            f"{point.session[:8]:<8}  {point.tool:<18}  {files or '(no change)'}  “{prompt}”\n"
        )
    sys.stdout.write("Undo with: gemtui rewind ID\n")
    return 0
