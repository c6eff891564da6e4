"""The system instruction: gemtui's core prompt, then the context files (GEMINI.md,
AGENTS.md…) in the order ``agent.context_files`` documents: the user's, then the
project's from the git root down to the workspace, then subfolders' found just in time."""

from __future__ import annotations

import platform
from pathlib import Path

from gemtui.agent.context_files import CONTEXT_FILES, ContextFiles

__all__ = ["CONTEXT_FILES", "build_system_instruction"]

CORE_PROMPT = """\
You are gemtui, a coding agent working in the user's project from their terminal.
Work inside the workspace root {root}. Use the tools to read before you change anything;
keep changes small and in the project's style; explain briefly what you did.
Every change and command is shown to the user for approval; if a call is rejected, do not
retry it unchanged; ask or take another way. Platform: {platform}."""


def build_system_instruction(workspace: Path, context: ContextFiles | None = None) -> str:
    """The core prompt plus ``context`` (by default the workspace's files, loaded now)."""
    parts = [CORE_PROMPT.format(root=workspace, platform=platform.system())]
    files = context if context is not None else ContextFiles(workspace).load()
    text = files.system_text()
    if text:
        parts.append(text)
    return "\n\n".join(parts)
