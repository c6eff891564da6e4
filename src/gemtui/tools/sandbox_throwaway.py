"""What a sandboxed command keeps when it ends, and what is thrown away.

Under ``-s`` only the workspace and the ``--include-directories`` roots are the real
folders. ``/tmp``, ``/var/tmp``, ``/run`` and the home folder are the sandbox's own empty
ones, gone when the command ends: a write there succeeds, then vanishes. A command that
names one of them (or makes a temporary file, or installs ``--user``/``--global``) gets
one line saying so, for the model and on its card; other commands get nothing, so the
model's context is not taxed on every call.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path

from gemtui.tools.sandbox import SandboxConfig

__all__ = ["THROWAWAY", "THROWAWAY_NOTE", "throwaway_note"]

THROWAWAY = ("/tmp", "/var/tmp", "/run", "~")
"""The places a sandboxed command may write that are not kept ("~": the home folder)."""

THROWAWAY_NOTE = (
    "[sandbox] /tmp, /var/tmp, /run and ~ are thrown away when the command ends; only the"
    " workspace (and --include-directories) keeps writes."
)
"""The line itself: what matters first, so a narrow card still shows it."""

_END = r"[^\s'\";|&<>()`]*"
_SYSTEM = re.compile(r"(?<![\w.~$-])(?:/var)?/(?:tmp|run)(?![\w.-])" + _END)
_HOME = re.compile(r"(?<![\w.$-])(?:~|\$HOME\b|\$\{HOME\})" + _END)
_NEEDS_A_PLACE = re.compile(r"\bmktemp\b|\bTMPDIR\b|--user\b|--global\b|\bpip\d* install\b")


def _homes() -> list[str]:
    homes = {str(Path.home())}
    if os.environ.get("HOME"):
        homes.add(os.environ["HOME"])
    return [h.rstrip("/") for h in homes if h.rstrip("/")]


def _kept(path: str, roots: Iterable[Path]) -> bool:
    """Whether ``path`` lies in a folder the sandbox writes through (a workspace root)."""
    real = Path(os.path.normpath(path))
    return any(real.is_relative_to(root) for root in roots)


def throwaway_note(command: str, config: SandboxConfig) -> str | None:
    """``THROWAWAY_NOTE`` when ``command`` may write where nothing is kept, else None.

    A path inside a workspace root is kept even under ``/tmp`` or the home folder (the
    roots are bound back on top), so it does not count.
    """
    roots = [config.workspace, *config.writable]
    roots = [*roots, *(r.resolve() for r in roots)]
    homes = _homes()
    if _NEEDS_A_PLACE.search(command):
        return THROWAWAY_NOTE
    for match in _SYSTEM.finditer(command):
        if not _kept(match.group(0), roots):
            return THROWAWAY_NOTE
    for match in _HOME.finditer(command):
        token = match.group(0)
        rest = re.sub(r"^(?:~|\$HOME|\$\{HOME\})", "", token)
        if rest and not rest.startswith("/"):  # ~user: another person's home, also empty
            return THROWAWAY_NOTE
        if not any(_kept(home + rest, roots) for home in homes):
            return THROWAWAY_NOTE
    for home in homes:
        for match in re.finditer(rf"(?<![\w.-]){re.escape(home)}(?![\w.-]){_END}", command):
            if not _kept(match.group(0), roots):
                return THROWAWAY_NOTE
    return None
