"""glob: files matching a glob pattern, newest first, as absolute paths."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from gemtui.tools.base import Tool, ToolContext, ToolError, ToolInvocation, ToolKind, ToolResult
from gemtui.tools.offload import CancelToken, run_off_loop
from gemtui.tools.workspace import Workspace, glob_to_regex

MAX_RESULTS = 1000


def _default_case_sensitive() -> bool:
    return sys.platform not in ("darwin", "win32")


def _find(args: dict[str, Any], ws: Workspace, base: Path, token: CancelToken) -> list[Path]:
    pattern: str = args["pattern"].strip()
    case_sensitive = args.get("case_sensitive")
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
    regex = glob_to_regex(pattern, case_sensitive=bool(case_sensitive))
    git = bool(args.get("respect_git_ignore", True))
    gemini = bool(args.get("respect_gemini_ignore", True))
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


class GlobInvocation(ToolInvocation):
    """One validated glob call."""

    async def execute(self, ctx: ToolContext) -> ToolResult:
        ws = ctx.workspace
        dir_arg = self.args.get("dir_path") or "."
        base = ws.resolve_visible(
            dir_arg,
            respect_git_ignore=bool(self.args.get("respect_git_ignore", True)),
            respect_gemini_ignore=bool(self.args.get("respect_gemini_ignore", True)),
        )
        if not base.is_dir():
            raise ToolError(f"Search path is not a directory or does not exist: {dir_arg}")
        paths = await run_off_loop(lambda token: _find(self.args, ws, base, token))
        pattern = self.args["pattern"]
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


class GlobTool(Tool):
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
    parameters = {
        "type": "object",
        "properties": {
            "pattern": {
                "description": "The glob pattern to match against (e.g., '**/*.py', 'docs/*.md').",
                "type": "string",
            },
            "dir_path": {
                "description": "Optional: The absolute path to the directory to search within. "
                "If omitted, searches the root directory.",
                "type": "string",
            },
            "case_sensitive": {
                "description": "Optional: Whether the search should be case-sensitive. Defaults "
                "to false on macOS/Windows, true on Linux.",
                "type": "boolean",
            },
            "respect_git_ignore": {
                "description": "Optional: Whether to respect .gitignore patterns when finding "
                "files. Defaults to true.",
                "type": "boolean",
            },
            "respect_gemini_ignore": {
                "description": "Optional: Whether to respect .geminiignore patterns when finding "
                "files. Defaults to true.",
                "type": "boolean",
            },
        },
        "required": ["pattern"],
    }

    def validate(self, args: dict[str, Any]) -> str | None:
        err = super().validate(args)
        if err:
            return err
        if not args["pattern"].strip():
            return "The 'pattern' parameter cannot be empty."
        return None

    def build(self, args: dict[str, Any]) -> ToolInvocation:
        return GlobInvocation(self, args)
