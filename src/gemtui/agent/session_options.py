"""A session's per-run options: what the assembly decided from flags over settings."""

from __future__ import annotations

import uuid
from pathlib import Path

from msgspec import Struct, field

from gemtui.wire import Content

__all__ = ["SessionOptions"]


class SessionOptions(Struct):
    """A session's per-run options (from the assembly: flags over settings)."""

    workspace: Path
    approval_mode: str = "default"
    interactive: bool = True
    max_turns: int = -1
    session_id: str = field(default_factory=lambda: uuid.uuid4().hex)
    history: list[Content] | None = None
    stream_retry_delays: tuple[float, ...] = (1.0, 2.0, 4.0)
    trusted_workspace: bool = False
    """The folder is trusted: its own ``.gemtui/policy.toml`` rules apply."""
    include_directories: tuple[str, ...] = ()
    """More workspace roots (``--include-directories``, ``[workspace]``)."""
    sandbox: bool = False
    """``-s``: shell commands run under bubblewrap whatever ``[tools.sandbox]`` says."""
    at_screen: bool = False
    """A person waits at the screen to type (the TUI's start): what the first request
    does not need (the skills) is found once the session starts, not before."""
