"""``gemtui sessions``: browse saved sessions in the TUI or list them (``--json``)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from gemtui.cli.parser import EXIT_ERROR, Subcommands, add_subcommand

__all__ = ["add_parser"]


def add_parser(sub: Subcommands) -> None:
    """``gemtui sessions [list [--json]]``: the browser, or the list on stdout."""
    p = add_subcommand(sub, "sessions", _run, "Saved sessions.")
    p.add_argument("action", nargs="?", choices=("list",))
    p.add_argument("--json", action="store_true")


def _run(args: argparse.Namespace) -> int:
    from gemtui.config.secrets import register_stored_secrets
    from gemtui.errors import FatalError

    register_stored_secrets()  # titles an older gemtui saved unmasked are masked on the way out
    try:
        if args.action is None:
            from gemtui.tui.sessions_launch import launch_sessions_browser

            return launch_sessions_browser(workspace=Path(os.getcwd()).resolve())
        from gemtui.store.cli import print_sessions

        return print_sessions(as_json=args.json)
    except BrokenPipeError:
        raise
    except FatalError as exc:  # the settings (read once the store opened): their own words
        sys.stderr.write(f"gemtui: {exc}\n")
        return exc.exit_code
    except Exception as exc:  # an unusable or broken store: one line here, details in the log
        return _store_failed(exc)


def _store_failed(exc: Exception) -> int:
    import logging

    from gemtui.config.paths import data_dir
    from gemtui.logs import setup_logging

    where = setup_logging()
    logging.getLogger("gemtui").error("cannot read the saved sessions", exc_info=exc)
    from gemtui.store import StoreUnavailableError, StoreVersionError

    if isinstance(exc, StoreUnavailableError | StoreVersionError):
        reason = str(exc)  # names the file and what to do
    elif isinstance(exc, OSError) and exc.strerror:
        reason = f"{exc.strerror}: {exc.filename}" if exc.filename else exc.strerror
    else:
        reason = f"{type(exc).__name__}: {exc}"
    details = f" (details in {where})" if where else ""
    sys.stderr.write(f"gemtui: cannot read the saved sessions in {data_dir()}: {reason}{details}\n")
    return EXIT_ERROR
