"""The system instruction: gemtui's core prompt plus GEMINI.md / AGENTS.md context files."""

from __future__ import annotations

import platform
import stat
from pathlib import Path

__all__ = ["CONTEXT_FILES", "build_system_instruction", "find_context_files"]

CONTEXT_FILES = ("GEMINI.md", "AGENTS.md")

CORE_PROMPT = """\
You are gemtui, a coding agent working in the user's project from their terminal.
Work inside the workspace root {root}. Use the tools to read before you change anything;
keep changes small and in the project's style; explain briefly what you did.
Every change and command is shown to the user for approval; if a call is rejected, do not
retry it unchanged; ask or take another way. Platform: {platform}."""


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def _readable_context_file(candidate: Path, directory: Path, allowed: tuple[Path, ...]) -> bool:
    """A regular file whose real path stays in its own folder's tree, or a context file
    of the person's own in an allowed folder (their config dir).

    A repository's ``GEMINI.md`` symlinked to ``~/.ssh/id_rsa`` would otherwise be sent to
    the model, and one linked to the config dir's ``config.toml`` would send the settings
    (MCP servers' tokens among them); a FIFO would block start-up.
    """
    try:
        real = candidate.resolve(strict=True)
        if not stat.S_ISREG(real.stat().st_mode):
            return False
    except (OSError, RuntimeError):  # dangling, unreadable or a symlink loop
        return False
    if _inside(real, directory.resolve()):
        return True
    return real.name in CONTEXT_FILES and any(_inside(real, root) for root in allowed)


def find_context_files(workspace: Path, home: Path | None = None) -> list[Path]:
    """Context files from the workspace up to the filesystem root (outermost first).

    ``home`` (the user's config dir by default) is where a context file may also point.
    """
    from gemtui.config.paths import config_dir

    allowed = ((home or config_dir()).resolve(),)
    found: list[Path] = []
    for directory in [workspace, *workspace.parents]:
        for name in CONTEXT_FILES:
            candidate = directory / name
            if _readable_context_file(candidate, directory, allowed):
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
