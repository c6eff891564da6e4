"""Diagnostics after an edit: the changed file's new problems appended to the tool's result."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gemtui.tools.base import ToolContext, ToolResult
    from gemtui.tools.workspace import Workspace

__all__ = ["after_edit", "root_of"]


def root_of(workspace: Workspace, path: Path) -> Path:
    """The workspace root holding ``path`` (a server runs per root)."""
    return next((r for r in workspace.roots if path.is_relative_to(r)), workspace.root)


async def after_edit(ctx: ToolContext, result: ToolResult) -> ToolResult:
    """``result`` with what the edit introduced (or why nothing can be said) appended, for
    the model and the card; unchanged when no language server serves the file."""
    servers, data = ctx.lsp, result.data
    if servers is None or result.error is not None or "file_path" not in data:
        return result
    path = Path(data["file_path"])
    if not servers.serves(path):
        return result
    before = None if data.get("is_new_file") else str(data.get("original", ""))
    rel = ctx.workspace.relative(path)
    note = await servers.check_edit(
        path, root_of(ctx.workspace, path), rel, before, str(data["proposed"])
    )
    if note is None:
        return result
    data["diagnostics"] = note
    if isinstance(result.llm_content, str):
        result.llm_content = f"{result.llm_content}\n\n{note}"
    result.display = f"{result.display}\n{note}" if result.display else note
    return result
