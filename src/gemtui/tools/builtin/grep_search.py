"""grep_search: a regex over file contents, grouped by file, honouring ignore files.

Uses ripgrep when it is installed (fast on big trees, a killable process) and otherwise a
scan with RE2 in a cancellable worker thread; RE2 and ripgrep both match in linear time,
so no pattern can hang the program. Both skip ignored, binary and special files and
report the same format.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import stat
from pathlib import Path
from typing import Annotated, Any

from pydantic import BeforeValidator, Field, field_validator

from gemtui.tools.base import (
    ToolContext,
    ToolError,
    ToolInvocation,
    ToolKind,
    ToolResult,
    TypedInvocation,
    TypedTool,
)
from gemtui.tools.builtin._files import (
    MAX_FILE_BYTES,
    MAX_LINE_CHARS,
    ensure_regular,
)
from gemtui.tools.builtin.grep_match import Match, _match_lines, _Query, _text_files
from gemtui.tools.offload import CancelToken, run_off_loop
from gemtui.tools.params import ToolParams, integral
from gemtui.tools.regex import PatternError, compile_linear
from gemtui.tools.workspace import Workspace

DEFAULT_TOTAL_MAX_MATCHES = 100


def _python_search(
    query: _Query, ws: Workspace, base: Path, token: CancelToken
) -> tuple[list[Match], bool]:
    """Scan files line by line with RE2; returns (matches, hit_total_limit)."""
    out: list[Match] = []
    for path, text in _text_files(query, ws, base, token):
        if _match_lines(query, path, text, out, token):
            return out, True
    return out, False


async def _rg_search(
    rg: str, query: _Query, pattern: str, ws: Workspace, base: Path
) -> tuple[list[Match], bool] | None:
    """Run ripgrep (JSON output); None when it fails so the caller can fall back."""
    cmd = [
        rg,
        "--json",
        "--ignore-case",
        "--hidden",
        "--no-require-git",
        "--sort",
        "path",
        "--glob",
        "!.git",
        "--max-filesize",
        str(MAX_FILE_BYTES),
    ]
    if query.include:
        cmd += ["--glob", query.include]
    if query.per_file is not None:
        cmd += ["--max-count", str(query.per_file)]
    cmd += ["-e", pattern, "--", os.fspath(base)]
    proc = await asyncio.create_subprocess_exec(
        *cmd,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
        cwd=os.fspath(ws.root),
    )
    out: list[Match] = []
    limited = False
    assert proc.stdout is not None
    try:
        async for raw in proc.stdout:
            try:
                event = json.loads(raw)
            except ValueError:
                continue
            if event.get("type") != "match":
                continue
            data = event["data"]
            path_text = data.get("path", {}).get("text")
            line = data.get("lines", {}).get("text")
            if path_text is None or line is None:
                continue
            path = Path(path_text)
            if not ws.visible(path):
                continue
            line = line.rstrip("\n").rstrip("\r")
            if query.exclude is not None and query.exclude.search(line):
                continue
            out.append(Match(path, int(data["line_number"]), line))
            if len(out) >= query.total:
                limited = True
                break
    finally:
        if proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
        await proc.wait()
    if not limited and proc.returncode not in (0, 1) and not out:
        return None
    return out, limited


def format_matches(
    matches: list[Match],
    ws: Workspace,
    *,
    pattern: str,
    where: str,
    include: str | None,
    names_only: bool,
    limited: bool,
    total: int,
) -> str:
    """Gemini CLI's layout: a summary line, then ``File: path`` blocks of ``L{n}: line``."""
    filt = f' (filter: "{include}")' if include else ""
    if not matches:
        return f'No matches found for pattern "{pattern}" in path "{where}"{filt}.'
    by_file: dict[str, list[Match]] = {}
    for m in matches:
        by_file.setdefault(ws.relative(m.path), []).append(m)
    limit_note = f" (results limited to {total} matches for performance)" if limited else ""
    if names_only:
        head = (
            f'Found {len(by_file)} file(s) with matches for pattern "{pattern}" in path '
            f'"{where}"{filt}{limit_note}:'
        )
        return head + "\n" + "\n".join(by_file)
    word = "match" if len(matches) == 1 else "matches"
    lines = [
        f'Found {len(matches)} {word} for pattern "{pattern}" in path "{where}"{filt}{limit_note}:',
        "---",
    ]
    for rel, found in by_file.items():
        lines.append(f"File: {rel}")
        for m in found:
            text = m.line
            if len(text) > MAX_LINE_CHARS:
                text = text[:MAX_LINE_CHARS] + "... [truncated]"
            lines.append(f"L{m.line_number}: {text}")
        lines.append("---")
    return "\n".join(lines)


def _linear(value: str | None, key: str) -> str | None:
    if value:
        try:
            compile_linear(value)
        except PatternError as exc:
            raise ValueError(
                f"Invalid regular expression in '{key}': {value!r}. Error: {exc}"
            ) from None
    return value


PositiveInteger = Annotated[int, Field(ge=1), BeforeValidator(integral)]
"""A count of matches: at least 1."""


class GrepSearchParams(ToolParams):
    """grep_search's arguments, as Gemini CLI declares them."""

    pattern: str = Field(
        description="The regular expression (regex) pattern to search for within file "
        "contents (e.g., 'function\\s+myFunction', 'import\\s+\\{.*\\}\\s+from\\s+.*')."
    )
    dir_path: str | None = Field(
        default=None,
        description="Optional: The absolute path to the directory to search within. "
        "If omitted, searches the workspace root.",
    )
    include_pattern: str | None = Field(
        default=None,
        description="Optional: A glob pattern to filter which files are searched "
        "(e.g., '*.js', '*.{ts,tsx}', 'src/**'). If omitted, searches all files "
        "(respecting potential global ignores).",
    )
    exclude_pattern: str | None = Field(
        default=None,
        description="Optional: A regular expression pattern to exclude from the "
        "search results. If a line matches both the pattern and the exclude_pattern, "
        "it will be omitted.",
    )
    names_only: bool | None = Field(
        default=None,
        description="Optional: If true, only the file paths of the matches will be "
        "returned, without the line content or line numbers. This is useful for "
        "gathering a list of files.",
    )
    max_matches_per_file: PositiveInteger | None = Field(
        default=None,
        description="Optional: Maximum number of matches to return per file. Use this "
        "to prevent being overwhelmed by repetitive matches in large files.",
    )
    total_max_matches: PositiveInteger | None = Field(
        default=None,
        description="Optional: Maximum number of total matches to return. Use this to "
        "limit the overall size of the response. Defaults to 100 if omitted.",
    )

    @field_validator("pattern")
    @classmethod
    def _pattern(cls, value: str) -> str:
        if not value:
            raise ValueError("The 'pattern' parameter cannot be empty.")
        _linear(value, "pattern")
        return value

    @field_validator("exclude_pattern")
    @classmethod
    def _exclude(cls, value: str | None) -> str | None:
        return _linear(value, "exclude_pattern")


class GrepSearchInvocation(TypedInvocation[GrepSearchParams]):
    """One validated grep_search call."""

    async def execute(self, ctx: ToolContext) -> ToolResult:
        ws = ctx.workspace
        params = self.params
        dir_arg = params.dir_path or "."
        base = ws.resolve_visible(dir_arg, reading=True)
        try:
            mode = os.stat(base).st_mode
        except OSError as exc:
            raise ToolError(f"Path does not exist: {dir_arg}") from exc
        if not stat.S_ISDIR(mode):
            ensure_regular(mode, dir_arg)  # a FIFO or device would block the search
        pattern = params.pattern
        exclude = params.exclude_pattern
        try:
            regex = compile_linear(pattern, ignore_case=True)
            exclude_regex = compile_linear(exclude) if exclude else None
        except PatternError as exc:
            raise ToolError(f"Invalid regular expression: {exc}") from exc
        query = _Query(
            regex=regex,
            exclude=exclude_regex,
            include=params.include_pattern or None,
            per_file=params.max_matches_per_file,
            total=params.total_max_matches or DEFAULT_TOTAL_MAX_MATCHES,
        )
        result: tuple[list[Match], bool] | None = None
        rg = shutil.which("rg")
        if ctx.files is not None:  # an editor's buffers, not the disk's older text
            from gemtui.tools.builtin.grep_held import held_search

            result = await held_search(ctx.files, query, ws, base)
        elif rg is not None and stat.S_ISDIR(mode):
            result = await _rg_search(rg, query, pattern, ws, base)
        if result is None:
            result = await run_off_loop(lambda token: _python_search(query, ws, base, token))
        matches, limited = result
        text = format_matches(
            matches,
            ws,
            pattern=pattern,
            where=ws.relative(base),
            include=query.include,
            names_only=bool(params.names_only),
            limited=limited,
            total=query.total,
        )
        files = len({m.path for m in matches})
        display = (
            f"Found {len(matches)} match(es) in {files} file(s)" if matches else "No matches found"
        )
        return ToolResult(llm_content=text, display=display)


class GrepSearchTool(TypedTool[GrepSearchParams]):
    """Why: the model finds where things are defined or used without reading every file."""

    name = "grep_search"
    display_name = "SearchText"
    kind = ToolKind.SEARCH
    aliases = ("search_file_content",)
    description = (
        "Searches for a regular expression pattern within file contents (case-insensitive). "
        f"Max {DEFAULT_TOTAL_MAX_MATCHES} matches by default. Files ignored by .gitignore or "
        ".geminiignore, and binary files, are skipped."
    )
    params_model = GrepSearchParams

    def invoke(self, params: GrepSearchParams, args: dict[str, Any]) -> ToolInvocation:
        return GrepSearchInvocation(self, args, params)
