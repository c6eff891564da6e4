"""Hooks in Gemini CLI's ``settings.json`` format: commands run on the agent's events.

``config`` reads the definitions (the workspace's only in a trusted folder); ``runner``
runs them (JSON on stdin, JSON on stdout, exit 2 blocks, a timeout each), publishing
every run as ``HookRan``. Nothing here imports a view.
"""

from __future__ import annotations

from gemtui.hooks.config import (
    HOOK_EVENTS,
    HookSet,
    HookSpec,
    hook_files,
    load_hooks,
    project_hook_files,
)
from gemtui.hooks.runner import HookRunner

__all__ = [
    "HOOK_EVENTS",
    "HookRunner",
    "HookSet",
    "HookSpec",
    "hook_files",
    "load_hooks",
    "project_hook_files",
]
