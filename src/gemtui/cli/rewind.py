"""``gemtui rewind ID``: put the folder back as it was before that checkpoint's tool ran."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from gemtui.cli.parser import EXIT_ERROR, EXIT_INPUT, Subcommands, add_subcommand

__all__ = ["add_parser"]


def add_parser(sub: Subcommands) -> None:
    p = add_subcommand(
        sub,
        "rewind",
        _run,
        "Restore this folder's files to a checkpoint (see `gemtui checkpoints`).",
    )
    p.add_argument("id", help="the checkpoint id")


def _run(args: argparse.Namespace) -> int:
    from gemtui.agent.checkpointing import book_for
    from gemtui.checkpoints import ShadowError, UnknownCheckpoint, rewind
    from gemtui.config.settings import load_settings

    book = book_for(Path(os.getcwd()), load_settings().checkpoints)
    try:
        result = rewind(book, args.id)
    except UnknownCheckpoint:
        sys.stderr.write(
            f"gemtui: no checkpoint {args.id!r} in this folder (see `gemtui checkpoints`)\n"
        )
        return EXIT_INPUT
    except ShadowError as e:
        sys.stderr.write(f"gemtui: {e}\n")
        return EXIT_ERROR
    out = sys.stdout
    plan, report = result.plan, result.report
    for path in plan.by_hand:
        out.write(f"changed by hand since, restored too: {path}\n")
    for path in report.restored:
        out.write(f"restored {path}\n")
    for path in report.removed:
        out.write(f"removed  {path}\n")
    for path in report.failed:
        out.write(f"NOT restored {path}\n")
    for left in plan.left:
        out.write(left.line() + "\n")
    if not plan.steps:
        out.write(
            "Nothing else to change.\n"
            if plan.left
            else "Nothing to change: the files are as they were.\n"
        )
    out.write(f"Undo this rewind with: gemtui rewind {result.saved.id}\n")
    return EXIT_ERROR if report.failed else 0
