"""list_directory: the entries of one directory, directories first."""

from __future__ import annotations

import os
from typing import Any

from gemtui.tools.base import Tool, ToolContext, ToolError, ToolInvocation, ToolKind, ToolResult
from gemtui.tools.offload import CancelToken, run_off_loop
from gemtui.tools.workspace import glob_to_regex

FILTERING_OPTIONS_SCHEMA: dict[str, Any] = {
    "description": "Optional: Whether to respect ignore patterns from .gitignore or .geminiignore",
    "type": "object",
    "properties": {
        "respect_git_ignore": {
            "description": "Optional: Whether to respect .gitignore patterns when listing "
            "files. Defaults to true.",
            "type": "boolean",
        },
        "respect_gemini_ignore": {
            "description": "Optional: Whether to respect .geminiignore patterns when listing "
            "files. Defaults to true.",
            "type": "boolean",
        },
    },
}


def filtering_flags(args: dict[str, Any]) -> tuple[bool, bool]:
    """(respect_git_ignore, respect_gemini_ignore) from ``file_filtering_options``."""
    opts = args.get("file_filtering_options") or {}
    return bool(opts.get("respect_git_ignore", True)), bool(opts.get("respect_gemini_ignore", True))


class ListDirectoryInvocation(ToolInvocation):
    """One validated list_directory call."""

    async def execute(self, ctx: ToolContext) -> ToolResult:
        return await run_off_loop(lambda token: self._list(ctx, token))

    def _list(self, ctx: ToolContext, token: CancelToken) -> ToolResult:
        """Off the loop: a directory of a million entries takes a while to sort and check."""
        ws = ctx.workspace
        arg = self.args["dir_path"]
        git, gemini = filtering_flags(self.args)
        path = ws.resolve_visible(arg, respect_git_ignore=git, respect_gemini_ignore=gemini)
        if not path.exists():
            raise ToolError(f"Directory not found or inaccessible: {arg}")
        if not path.is_dir():
            raise ToolError(f"Path is not a directory: {arg}")
        patterns = [glob_to_regex(p) for p in self.args.get("ignore") or []]
        dirs: list[str] = []
        files: list[str] = []
        ignored = 0
        try:
            entries = sorted(os.scandir(path), key=lambda e: e.name.lower())
        except OSError as exc:
            raise ToolError(f"Cannot list directory {arg}: {exc.strerror or exc}") from exc
        for entry in entries:
            token.check()
            if any(p.match(entry.name) for p in patterns):
                continue
            if not ws.visible(entry.path, respect_git_ignore=git, respect_gemini_ignore=gemini):
                ignored += 1
                continue
            (dirs if entry.is_dir() else files).append(entry.name)
        shown = ws.relative(path)
        if not dirs and not files:
            text = f"Directory {shown} is empty."
            if ignored:
                text += f" ({ignored} ignored)"
            return ToolResult(llm_content=text, display=text)
        listing = "\n".join([f"[DIR] {d}" for d in dirs] + files)
        text = f"Directory listing for {path}:\n{listing}"
        if ignored:
            text += f"\n\n({ignored} ignored)"
        count = len(dirs) + len(files)
        display = f"Listed {count} item{'s' if count != 1 else ''}."
        if ignored:
            display += f" ({ignored} ignored)"
        return ToolResult(llm_content=text, display=display)


class ListDirectoryTool(Tool):
    """Why: the model explores the tree one level at a time before reading files."""

    name = "list_directory"
    display_name = "ReadFolder"
    kind = ToolKind.READ
    description = (
        "Lists the names of files and subdirectories directly within a specified directory "
        "path. Can optionally ignore entries matching provided glob patterns."
    )
    parameters = {
        "type": "object",
        "properties": {
            "dir_path": {"description": "The path to the directory to list", "type": "string"},
            "ignore": {
                "description": "List of glob patterns to ignore",
                "items": {"type": "string"},
                "type": "array",
            },
            "file_filtering_options": FILTERING_OPTIONS_SCHEMA,
        },
        "required": ["dir_path"],
    }

    def validate(self, args: dict[str, Any]) -> str | None:
        err = super().validate(args)
        if err:
            return err
        if not args["dir_path"].strip():
            return "The 'dir_path' parameter must be non-empty."
        return None

    def build(self, args: dict[str, Any]) -> ToolInvocation:
        return ListDirectoryInvocation(self, args)
