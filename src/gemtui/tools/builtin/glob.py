"""glob: files matching a glob pattern, newest first, as absolute paths."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from pydantic import Field, field_validator

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
from gemtui.tools.params import ToolParams
from gemtui.tools.workspace import Workspace, glob_to_regex

MAX_RESULTS = 1000


class GlobParams(ToolParams):
    """glob's arguments, as Gemini CLI declares them."""

    pattern: str = Field(
        description="The glob pattern to match against (e.g., '**/*.py', 'docs/*.md')."
    )
    dir_path: str | None = Field(
        default=None,
        description="Optional: The absolute path to the directory to search within. "
        "If omitted, searches the root directory.",
    )
    case_sensitive: bool | None = Field(
        default=None,
        description="Optional: Whether the search should be case-sensitive. Defaults "
        "to false on macOS/Windows, true on Linux.",
    )
    respect_git_ignore: bool | None = Field(
        default=None,
        description="Optional: Whether to respect .gitignore patterns when finding "
        "files. Defaults to true.",
    )
    respect_gemini_ignore: bool | None = Field(
        default=None,
        description="Optional: Whether to respect .geminiignore patterns when finding "
        "files. Defaults to true.",
    )

    @field_validator("pattern")
    @classmethod
    def _pattern(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("The 'pattern' parameter cannot be empty.")
        return value

    @property
    def ignore_flags(self) -> tuple[bool, bool]:
        """(respect_git_ignore, respect_gemini_ignore), true where not given."""
        return self.respect_git_ignore is not False, self.respect_gemini_ignore is not False


def _default_case_sensitive() -> bool:
    return sys.platform not in ("darwin", "win32")


def _find(params: GlobParams, ws: Workspace, base: Path, token: CancelToken) -> list[Path]:
    pattern = params.pattern.strip()
    case_sensitive = params.case_sensitive
    if case_sensitive is None:
        case_sensitive = _default_case_sensitive()
    if os.path.isabs(pattern):
        # An absolute pattern inside the search directory becomes relative to it.
        prefix = os.fspath(base).rstrip(os.sep) + os.sep
        if not pattern.startswith(prefix):
            raise ToolError(
                f"Absolute pattern '{pattern}' is outside the search directory {base}; use a "
                "pattern relative to dir_path."
            )
        pattern = pattern[len(prefix) :]
    if ".." in pattern.split("/"):
        raise ToolError(f"Pattern '{pattern}' may not contain '..'; set dir_path instead.")
    regex = glob_to_regex(pattern, case_sensitive=case_sensitive)
    git, gemini = params.ignore_flags
    found: list[tuple[float, Path]] = []
    for path in ws.walk(base, respect_git_ignore=git, respect_gemini_ignore=gemini):
        token.check()
        rel = path.relative_to(base).as_posix()
        if regex.match(rel):
            try:
                mtime = path.stat().st_mtime
            except OSError:
                continue
            found.append((mtime, path))
    found.sort(key=lambda item: (-item[0], os.fspath(item[1])))
    return [p for _, p in found]


class GlobInvocation(TypedInvocation[GlobParams]):
    """One validated glob call."""

    async def execute(self, ctx: ToolContext) -> ToolResult:
        ws = ctx.workspace
        dir_arg = self.params.dir_path or "."
        git, gemini = self.params.ignore_flags
        base = ws.resolve_visible(
            dir_arg, respect_git_ignore=git, respect_gemini_ignore=gemini, reading=True
        )
        if not base.is_dir():
            raise ToolError(f"Search path is not a directory or does not exist: {dir_arg}")
        paths = await run_off_loop(lambda token: _find(self.params, ws, base, token))
        pattern = self.params.pattern
        where = ws.relative(base)
        if not paths:
            text = f'No files found matching pattern "{pattern}" within {where}'
            return ToolResult(llm_content=text, display="No files found")
        shown = paths[:MAX_RESULTS]
        text = (
            f'Found {len(paths)} file(s) matching "{pattern}" within {where}, sorted by '
            "modification time (newest first):\n" + "\n".join(os.fspath(p) for p in shown)
        )
        if len(paths) > MAX_RESULTS:
            text += f"\n... ({len(paths) - MAX_RESULTS} more not shown; narrow the pattern)"
        return ToolResult(
            llm_content=text,
            display=f"Found {len(paths)} matching file(s)",
            data={"paths": [os.fspath(p) for p in shown]},
        )


class GlobTool(TypedTool[GlobParams]):
    """Why: finding files by name is the cheapest way into a large codebase."""

    name = "glob"
    display_name = "FindFiles"
    kind = ToolKind.SEARCH
    description = (
        "Efficiently finds files matching specific glob patterns (e.g., `src/**/*.ts`, "
        "`**/*.md`), returning absolute paths sorted by modification time (newest first). "
        "Ideal for quickly locating files based on their name or path structure, especially "
        "in large codebases."
    )
    params_model = GlobParams

    def invoke(self, params: GlobParams, args: dict[str, Any]) -> ToolInvocation:
        return GlobInvocation(self, args, params)
