"""list_directory: the entries of one directory, directories first."""

from __future__ import annotations

import os
from typing import Any

from pydantic import ConfigDict, Field, field_validator

from gemtui.tools.base import (
    ToolContext,
    ToolError,
    ToolInvocation,
    ToolKind,
    ToolResult,
    TypedInvocation,
    TypedTool,
)
from gemtui.tools.offload import CancelToken, run_off_loop
from gemtui.tools.params import ToolParams, non_empty
from gemtui.tools.workspace import glob_to_regex


class FileFilteringOptions(ToolParams):
    """Which ignore files a listing or a gathering respects (both, unless told)."""

    model_config = ConfigDict(
        json_schema_extra={
            "description": (
                "Optional: Whether to respect ignore patterns from .gitignore or .geminiignore"
            )
        }
    )

    respect_git_ignore: bool | None = Field(
        default=None,
        description="Optional: Whether to respect .gitignore patterns when listing "
        "files. Defaults to true.",
    )
    respect_gemini_ignore: bool | None = Field(
        default=None,
        description="Optional: Whether to respect .geminiignore patterns when listing "
        "files. Defaults to true.",
    )

    @property
    def flags(self) -> tuple[bool, bool]:
        """(respect_git_ignore, respect_gemini_ignore), true where not given."""
        return self.respect_git_ignore is not False, self.respect_gemini_ignore is not False


NO_FILTERING_OPTIONS = FileFilteringOptions()
"""``file_filtering_options`` not given: respect both ignore files."""


class ListDirectoryParams(ToolParams):
    """list_directory's arguments, as Gemini CLI declares them."""

    dir_path: str = Field(description="The path to the directory to list")
    ignore: list[str] | None = Field(default=None, description="List of glob patterns to ignore")
    file_filtering_options: FileFilteringOptions | None = None

    @field_validator("dir_path")
    @classmethod
    def _dir_path(cls, value: str) -> str:
        return non_empty(value, "dir_path")


class ListDirectoryInvocation(TypedInvocation[ListDirectoryParams]):
    """One validated list_directory call."""

    async def execute(self, ctx: ToolContext) -> ToolResult:
        return await run_off_loop(lambda token: self._list(ctx, token))

    def _list(self, ctx: ToolContext, token: CancelToken) -> ToolResult:
        """Off the loop: a directory of a million entries takes a while to sort and check."""
        ws = ctx.workspace
        arg = self.params.dir_path
        git, gemini = (self.params.file_filtering_options or NO_FILTERING_OPTIONS).flags
        path = ws.resolve_visible(
            arg, respect_git_ignore=git, respect_gemini_ignore=gemini, reading=True
        )
        if not path.exists():
            raise ToolError(f"Directory not found or inaccessible: {arg}")
        if not path.is_dir():
            raise ToolError(f"Path is not a directory: {arg}")
        patterns = [glob_to_regex(p) for p in self.params.ignore or []]
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


class ListDirectoryTool(TypedTool[ListDirectoryParams]):
    """Why: the model explores the tree one level at a time before reading files."""

    name = "list_directory"
    display_name = "ReadFolder"
    kind = ToolKind.READ
    description = (
        "Lists the names of files and subdirectories directly within a specified directory "
        "path. Can optionally ignore entries matching provided glob patterns."
    )
    params_model = ListDirectoryParams

    def invoke(self, params: ListDirectoryParams, args: dict[str, Any]) -> ToolInvocation:
        return ListDirectoryInvocation(self, args, params)
