"""The workspace places whose contents make something run later, outside any approval.

One list, read by the sandbox (what a sandboxed command may not create or change) and by
policy (what a tool's write always asks about): a repository's metadata (``.git`` as a
folder or a ``gitdir:`` file; its ``config`` sets ``core.fsmonitor``, its hooks run on the
next ``git`` command), gemtui's and Gemini CLI's project settings (hooks, MCP servers,
commands), other agents' project folders gemtui reads (skills, ``.claude/`` hooks and
commands), and the editor's tasks and launch configurations.
"""

from __future__ import annotations

__all__ = ["RUN_LATER_NAMES"]

RUN_LATER_NAMES: tuple[str, ...] = (".git", ".gemtui", ".gemini", ".agents", ".claude", ".vscode")
"""Names, at a workspace root, of places that run code later (file or folder, present
or not)."""
