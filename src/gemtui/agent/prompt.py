"""The system instruction: gemtui's core prompt plus GEMINI.md / AGENTS.md context files."""

from __future__ import annotations

import platform
from pathlib import Path

__all__ = ["CONTEXT_FILES", "build_system_instruction", "find_context_files"]

CONTEXT_FILES = ("GEMINI.md", "AGENTS.md")

CORE_PROMPT = """\
You are gemtui, a coding agent working in the user's project from their terminal.
Work inside the workspace root {root}. Use the tools to read before you change anything;
keep changes small and in the project's style; explain briefly what you did.
Every change and command is shown to the user for approval; if a call is rejected, do not
retry it unchanged; ask or take another way. Platform: {platform}."""


def find_context_files(workspace: Path, home: Path | None = None) -> list[Path]:
    """Context files from the workspace up to the filesystem root (outermost first)."""
    found: list[Path] = []
    for directory in [workspace, *workspace.parents]:
        for name in CONTEXT_FILES:
            candidate = directory / name
            if candidate.is_file():
                found.append(candidate)
    return list(reversed(found))


def build_system_instruction(workspace: Path) -> str:
    parts = [CORE_PROMPT.format(root=workspace, platform=platform.system())]
    for path in find_context_files(workspace):
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        parts.append(f"--- Context from: {path} ---\n{text.strip()}\n--- End of context ---")
    return "\n\n".join(parts)
