"""A saved tool output opened in the person's pager on the real terminal.

The app suspends (Textual's ``App.suspend``) while ``$PAGER`` (``less`` when unset) shows
the file, so a 5 MB output costs the transcript nothing. Where the terminal cannot be
handed over (a test, a web terminal) the path is shown instead.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess

from textual.app import App, SuspendNotSupported

__all__ = ["open_in_pager", "pager_command"]


def pager_command(path: str) -> list[str] | None:
    """``$PAGER`` (split like a shell would) or ``less``, with the file; None when neither runs."""
    words = shlex.split(os.environ.get("PAGER", "")) or ["less", "-R"]
    if shutil.which(words[0]) is None:
        return None
    return [*words, path]


def open_in_pager(app: App[object], path: str) -> None:
    """Show ``path`` in the pager; a notice naming the file when that cannot be done."""
    command = pager_command(path)
    if command is None:
        app.notify(f"No pager found ($PAGER, less); the whole output is in {path}")
        return
    try:
        with app.suspend():
            subprocess.call(command)
    except SuspendNotSupported:
        app.notify(f"This terminal cannot be handed to a pager; the whole output is in {path}")
    except OSError as exc:
        app.notify(f"Could not open {path}: {exc}", severity="error")
