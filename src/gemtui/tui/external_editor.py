"""Ctrl+G: the prompt's text in the person's own editor, and back.

The editor is ``$VISUAL``, else ``$EDITOR`` (split as a shell would: ``code -w``), else
``vi`` or ``nano`` when installed. It edits a file in a fresh private folder (0700, the
file 0600: a prompt may hold a secret) that is removed afterwards. The typed text is never
lost: when the editor cannot start, exits non-zero or leaves a file that cannot be read,
the prompt keeps what it had and a line says why.

The app hands the terminal over with Textual's ``App.suspend``; a headless app (Pilot)
has no terminal to hand over, so the editor runs without one (a stand-in script does).
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from textual.app import App, SuspendNotSupported

__all__ = ["EditOutcome", "edit_text", "editor_command", "run_editor_for"]

FALLBACK_EDITORS = ("vi", "nano")
"""Tried in order when neither ``$VISUAL`` nor ``$EDITOR`` is set."""


@dataclass(frozen=True)
class EditOutcome:
    """What the editor gave back: the new text, or why there is none."""

    text: str | None
    """The edited text (None: keep the prompt as it was)."""
    problem: str = ""
    """Why the text was not taken, for a line the person reads."""


def editor_command(env: Mapping[str, str]) -> list[str] | str:
    """The editor to run (its words), or a sentence saying why there is none."""
    for name in ("VISUAL", "EDITOR"):
        try:
            words = shlex.split(env.get(name, ""))
        except ValueError as exc:  # `vi "unclosed`: said, never a crash
            return f"${name} cannot be read as a command ({exc}): {env.get(name, '')!r}"
        if words:
            if shutil.which(words[0], path=env.get("PATH")) is None:
                return f"${name} is {words[0]!r}, which is not installed or not on PATH"
            return words
    for fallback in FALLBACK_EDITORS:
        if shutil.which(fallback, path=env.get("PATH")) is not None:
            return [fallback]
    missing = " and ".join(FALLBACK_EDITORS)
    return f"no editor: $VISUAL and $EDITOR are unset, and {missing} are not installed"


def edit_text(text: str, command: list[str]) -> EditOutcome:
    """Run ``command`` on a private temporary file holding ``text``; wait for it.

    Blocks: the caller hands the terminal over first (``run_editor_for``).
    """
    folder = Path(tempfile.mkdtemp(prefix="gemtui-prompt-"))  # 0700
    path = folder / "prompt.md"
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        try:
            status = subprocess.call([*command, str(path)])
        except OSError as exc:
            return EditOutcome(None, f"could not start {command[0]}: {exc.strerror or exc}")
        if status != 0:
            return EditOutcome(None, f"{command[0]} exited with status {status}")
        try:
            edited = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            return EditOutcome(None, f"could not read the edited text back: {exc}")
        # Editors end the last line with a newline the person did not type.
        return EditOutcome(edited[:-1] if edited.endswith("\n") else edited)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def run_editor_for(app: App[object], text: str) -> EditOutcome:
    """Edit ``text`` in the person's editor on the real terminal (suspending the app)."""
    command = editor_command(os.environ)
    if isinstance(command, str):
        return EditOutcome(None, command)
    if app.is_headless:  # no terminal to hand over (tests): the editor runs without one
        return edit_text(text, command)
    try:
        with app.suspend():
            return edit_text(text, command)
    except SuspendNotSupported:
        return EditOutcome(None, "this terminal cannot be handed over to an editor")
