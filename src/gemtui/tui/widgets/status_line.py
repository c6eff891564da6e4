"""The status line: provider, model, approval mode, workspace, git branch, MCP servers,
turn state."""

from __future__ import annotations

from pathlib import Path

from textual.content import Content
from textual.reactive import reactive
from textual.widget import Widget

__all__ = ["StatusLine", "git_branch"]


def git_branch(workspace: Path) -> str | None:
    """The checked-out branch (or short commit) from ``.git/HEAD``, without spawning git."""
    for folder in (workspace, *workspace.parents):
        dot_git = folder / ".git"
        try:
            if dot_git.is_file():  # a worktree or submodule: "gitdir: <path>"
                pointer = dot_git.read_text(encoding="utf-8").strip()
                if not pointer.startswith("gitdir:"):
                    return None
                git_dir = (folder / pointer.removeprefix("gitdir:").strip()).resolve()
            elif dot_git.is_dir():
                git_dir = dot_git
            else:
                continue
            head = (git_dir / "HEAD").read_text(encoding="utf-8").strip()
        except OSError:
            return None
        if head.startswith("ref:"):
            return head.removeprefix("ref:").strip().removeprefix("refs/heads/")
        return head[:8] or None
    return None


class StatusLine(Widget):
    """One line at the bottom that always shows the approval mode."""

    DEFAULT_CSS = """
    StatusLine {
        height: 1;
        width: 1fr;
    }
    """

    provider: reactive[str] = reactive("")
    """Provider name (``gemini``, ``openai``, ``replay``…)."""
    model: reactive[str] = reactive("")
    """The model the next turn uses."""
    approval_mode: reactive[str] = reactive("default")
    """default, auto_edit, plan or yolo."""
    workspace: reactive[str] = reactive("")
    """The workspace folder, shortened with ``~``."""
    branch: reactive[str | None] = reactive(None)
    """The git branch, or None outside a repository."""
    busy: reactive[str] = reactive("")
    """What the engine is doing (``thinking``, ``3 queued``…), empty when idle."""
    mcp: reactive[str] = reactive("")
    """MCP servers at a glance (``MCP 2/3 ✗``), empty without servers."""
    mcp_trouble: reactive[bool] = reactive(False)
    """A server failed: the summary is shown in the error colour."""

    def render(self) -> Content:
        mode_style = {
            "yolo": "bold $text-error",
            "auto_edit": "bold $text-warning",
            "plan": "bold $text-accent",
        }.get(self.approval_mode, "bold $text-primary")
        pieces: list[Content | str | tuple[str, str]] = [
            (f" {self.approval_mode} ", f"reverse {mode_style}"),
            " ",
            (self.provider, "$text-secondary"),
            ":",
            (self.model, "bold"),
            "  ",
            (self.workspace, "$text-muted"),
        ]
        if self.branch:
            pieces += ["  ", (f"⎇ {self.branch}", "$text-success")]
        if self.mcp:
            pieces += ["  ", (self.mcp, "$text-error" if self.mcp_trouble else "$text-muted")]
        if self.busy:
            pieces += ["  ", (self.busy, "italic $text-warning")]
        return Content.assemble(*pieces)
