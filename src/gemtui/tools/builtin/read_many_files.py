"""read_many_files: several files matched by globs, concatenated for one model turn.

What one call returns is bounded (``MAX_OUTPUT_CHARS`` of text, ``MAX_MEDIA_BYTES`` of
inline media) so a broad pattern cannot produce a request body of hundreds of MB; files
left out are named in the answer, so the model can read them separately.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Any

from msgspec import Struct, field
from pydantic import Field

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
    check_readable_file,
    classify,
    media_part,
    media_type,
    read_text,
    text_window,
    truncation_note,
)
from gemtui.tools.builtin.list_directory import FileFilteringOptions
from gemtui.tools.file_access import FileAccess
from gemtui.tools.offload import CancelToken, run_off_loop
from gemtui.tools.params import ToolParams
from gemtui.tools.regex import LinearPattern
from gemtui.tools.workspace import Workspace, glob_to_regex, has_glob_magic
from gemtui.wire import Part

DEFAULT_EXCLUDES = (
    "**/node_modules/**",
    "**/.git/**",
    "**/.venv/**",
    "**/venv/**",
    "**/__pycache__/**",
    "**/.mypy_cache/**",
    "**/.pytest_cache/**",
    "**/.ruff_cache/**",
    "**/.vscode/**",
    "**/.idea/**",
    "**/dist/**",
    "**/build/**",
    "**/coverage/**",
    "**/*.{pyc,pyo,bin,exe,dll,so,dylib,class,jar,war,o,a,obj}",
    "**/*.{zip,tar,gz,bz2,xz,rar,7z}",
    "**/*.{doc,docx,xls,xlsx,ppt,pptx,odt,ods,odp}",
    "**/.DS_Store",
    "**/.env",
)
MAX_FILES = 500
MAX_OUTPUT_CHARS = 1_000_000
"""Text returned by one call (about a quarter of a million tokens)."""
MAX_MEDIA_BYTES = MAX_FILE_BYTES
"""Inline media (images, audio, PDF) returned by one call, before base64."""
LEFT_OUT_SHOWN = 50
"""How many left-out files the answer names one by one."""


Pattern = Annotated[str, Field(min_length=1)]
"""A glob pattern or a path; never empty."""


class ReadManyFilesParams(ToolParams):
    """read_many_files's arguments, as Gemini CLI declares them."""

    include: list[Pattern] = Field(
        min_length=1,
        description='An array of glob patterns or paths. Examples: ["src/**/*.ts"], '
        '["README.md", "docs/"]',
    )
    exclude: list[Pattern] = Field(
        default=[],
        description="Optional. Glob patterns for files/directories to exclude. Added "
        'to default excludes if useDefaultExcludes is true. Example: "**/*.log", "temp/"',
        json_schema_extra={"default": []},
    )
    recursive: bool = Field(
        default=True,
        description="Optional. Whether to search recursively (primarily controlled "
        "by `**` in glob patterns). Defaults to true.",
        json_schema_extra={"default": True},
    )
    use_default_excludes: bool = Field(
        default=True,
        alias="useDefaultExcludes",
        description="Optional. Whether to apply a list of default exclusion patterns "
        "(e.g., node_modules, .git, binary files). Defaults to true.",
        json_schema_extra={"default": True},
    )
    file_filtering_options: FileFilteringOptions | None = Field(
        default=None,
        description="Accepted for compatibility. Files ignored by .gitignore or "
        ".geminiignore are never read, whatever these options say.",
    )


class _Gathered(Struct):
    text_files: list[tuple[str, str]] = field(default_factory=list)
    media: list[tuple[str, Part]] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    """Files passed over by design (binary, media not asked for): shown to the person."""
    left_out: list[tuple[str, str]] = field(default_factory=list)
    """Files the model asked for but does not get (limits, errors): told to the model."""
    paths: dict[str, Path] = field(default_factory=dict)
    """Each text file's checked path, by its name in the answer."""


def confine_pattern(raw: str, ws: Workspace) -> str:
    """A root-relative glob, refusing patterns that reach outside the workspace.

    The literal leading segments go through ``Workspace.resolve`` (so ``..``, absolute,
    ``~`` and symlink escapes fail loudly); ``..`` after a wildcard is refused too.
    """
    pat = raw.strip()
    segments = pat.split("/")
    literal: list[str] = []
    for seg in segments:
        if has_glob_magic(seg):
            break
        literal.append(seg)
    rest = segments[len(literal) :]
    if ".." in rest:
        raise ToolError(
            f"Pattern '{raw}' uses '..' after a wildcard; patterns must stay inside the workspace."
        )
    prefix = "/".join(literal) or "."
    if pat.startswith("/") and not literal[1:]:
        prefix = "/"
    ws.resolve(prefix)
    lexical = os.path.normpath(prefix if os.path.isabs(prefix) else os.path.join(ws.root, prefix))
    rel = os.path.relpath(lexical, ws.root)
    rel = "" if rel == "." else Path(rel).as_posix()
    tail = "/".join(rest)
    if pat.endswith("/") and not tail:
        rel += "/"
    return f"{rel}/{tail}" if rel and tail and not rel.endswith("/") else (rel + tail)


def _pattern_regexes(patterns: list[str], ws: Workspace, recursive: bool) -> list[LinearPattern]:
    """Glob regexes; a literal directory (or trailing '/') means everything under it."""
    out: list[LinearPattern] = []
    for raw in patterns:
        if not raw.strip():
            continue
        pat = confine_pattern(raw, ws)
        if not pat:
            pat = "**"
        if not has_glob_magic(pat) and (pat.endswith("/") or (ws.root / pat).is_dir()):
            pat = pat.rstrip("/") + "/**"
        out.append(glob_to_regex(pat, recursive=recursive))
    return out


def _exclude_regexes(patterns: list[str]) -> list[LinearPattern]:
    """Excludes without a '/' apply at any depth (``*.log``, ``temp/``)."""
    out: list[LinearPattern] = []
    for raw in patterns:
        pat = raw.strip()
        if not pat:
            continue
        pat = pat.rstrip("/")
        if "/" not in pat:
            pat = "**/" + pat
        out.append(glob_to_regex(pat))
        out.append(glob_to_regex(pat + "/**"))
    return out


def _explicitly_requested(rel: str, includes: list[str]) -> bool:
    """Media is sent only when an include names its extension or the file itself."""
    name = rel.rsplit("/", 1)[-1].lower()
    suffix = Path(name).suffix
    return any(suffix in inc.lower() or name in inc.lower() for inc in includes)


def _gather(params: ReadManyFilesParams, ws: Workspace, token: CancelToken) -> _Gathered:
    include = list(params.include)
    recursive = params.recursive
    # ``file_filtering_options`` is accepted for compatibility but cannot switch the
    # ignore files off here: no tool returns the contents read_file refuses.
    excludes = list(params.exclude)
    if params.use_default_excludes:
        excludes = [*DEFAULT_EXCLUDES, *excludes]
    inc_res = _pattern_regexes(include, ws, recursive)
    exc_res = _exclude_regexes(excludes)
    result = _Gathered()
    matched: list[tuple[str, Path]] = []
    for path in ws.walk():
        token.check()
        rel = ws.relative(path)
        if not any(r.match(rel) for r in inc_res):
            continue
        if any(r.match(rel) for r in exc_res):
            continue
        matched.append((rel, path))
    text_left = MAX_OUTPUT_CHARS
    media_left = MAX_MEDIA_BYTES
    for rel, path in matched[:MAX_FILES]:
        token.check()
        try:
            check_readable_file(path, rel)
            kind = classify(path, rel)
            if kind == "media":
                if not _explicitly_requested(rel, include):
                    result.skipped.append((rel, f"{media_type(path)} not explicitly requested"))
                    continue
                size = path.stat().st_size
                if size > media_left:
                    result.left_out.append((rel, "output limit of this call reached"))
                    continue
                media_left -= size
                result.media.append((rel, media_part(path, rel)))
            elif kind == "binary":
                result.skipped.append((rel, "binary file"))
            else:
                body = _body(read_text(path, rel), rel)
                if len(body) > text_left:
                    result.left_out.append((rel, "output limit of this call reached"))
                    text_left = 0  # keep the files in order: none after the first left out
                    continue
                text_left -= len(body)
                result.text_files.append((rel, body))
                result.paths[rel] = path
        except ToolError as exc:
            result.left_out.append((rel, str(exc)))
        except OSError as exc:
            result.left_out.append((rel, f"read error: {exc.strerror or exc}"))
    for rel, _ in matched[MAX_FILES:]:
        result.left_out.append((rel, f"more than {MAX_FILES} files matched"))
    return result


def _body(text: str, rel: str) -> str:
    """A file's text as the answer holds it (long ones windowed, with a note)."""
    window = text_window(text)
    if window.truncated:
        return f"{truncation_note(window, rel)}\n\n{window.content}"
    return window.content


async def _from_front_end(gathered: _Gathered, files: FileAccess) -> None:
    """Each text file as the front end holds it (an editor's unsaved buffer), in the
    same windows and within the same total as the disk's text."""
    text_left = MAX_OUTPUT_CHARS
    kept: list[tuple[str, str]] = []
    for rel, body in gathered.text_files:
        try:
            held = await files.read_text(gathered.paths[rel])
        except ToolError as exc:
            gathered.left_out.append((rel, str(exc)))
            continue
        if held is not None:
            body = _body(held.replace("\r\n", "\n"), rel)
        if len(body) > text_left:
            gathered.left_out.append((rel, "output limit of this call reached"))
            text_left = 0
            continue
        text_left -= len(body)
        kept.append((rel, body))
    gathered.text_files = kept


def left_out_note(left_out: list[tuple[str, str]]) -> str:
    """What the model did not get and why, so it can read those files on their own."""
    if not left_out:
        return ""
    lines = [
        f"\nNOTE: {len(left_out)} matching file(s) were left out of this answer "
        f"(at most {MAX_OUTPUT_CHARS:,} characters of text and {MAX_FILES} files per call); "
        "read them with read_file or a narrower read_many_files call:"
    ]
    lines += [f"- {rel} ({why})" for rel, why in left_out[:LEFT_OUT_SHOWN]]
    if len(left_out) > LEFT_OUT_SHOWN:
        lines.append(f"- ... and {len(left_out) - LEFT_OUT_SHOWN} more")
    return "\n".join(lines)


class ReadManyFilesInvocation(TypedInvocation[ReadManyFilesParams]):
    """One validated read_many_files call."""

    async def execute(self, ctx: ToolContext) -> ToolResult:
        gathered = await run_off_loop(lambda token: _gather(self.params, ctx.workspace, token))
        if ctx.files is not None:  # the paths were checked above, whoever reads them
            await _from_front_end(gathered, ctx.files)
        chunks = [f"--- {rel} ---\n\n{body}\n\n" for rel, body in gathered.text_files]
        count = len(gathered.text_files) + len(gathered.media)
        note = left_out_note(gathered.left_out)
        skipped = gathered.skipped + gathered.left_out
        if count == 0:
            text = (
                "No files matching the criteria were found or all were skipped."
                f" (include: {', '.join(self.params.include)})"
            )
            if gathered.skipped:
                text += "\nSkipped:\n" + "\n".join(
                    f"- {r} ({why})" for r, why in gathered.skipped[:LEFT_OUT_SHOWN]
                )
            text += note
            return ToolResult(llm_content=text, display=text)
        if gathered.text_files:
            chunks.append("--- End of content ---")
        text = "".join(chunks) + note
        display = f"Read {count} file{'s' if count != 1 else ''}."
        if skipped:
            display += f" Skipped {len(skipped)}:\n" + "\n".join(
                f"- {r} ({why})" for r, why in skipped[:20]
            )
        data = {
            "files": [r for r, _ in gathered.text_files] + [r for r, _ in gathered.media],
            "skipped": skipped,
        }
        if not gathered.media:
            return ToolResult(llm_content=text, display=display, data=data)
        parts: list[Part] = [Part(text=text)] if text else []
        for rel, part in gathered.media:
            parts.append(Part(text=f"--- {rel} ---"))
            parts.append(part)
        return ToolResult(llm_content=parts, display=display, data=data)


class ReadManyFilesTool(TypedTool[ReadManyFilesParams]):
    """Why: one call for a group of files saves the model many round trips."""

    name = "read_many_files"
    display_name = "ReadManyFiles"
    kind = ToolKind.READ
    description = (
        "Reads content from multiple files specified by glob patterns within the workspace "
        "root. For text files, it concatenates their content into a single string, with a "
        "'--- {filePath} ---' separator before each file and '--- End of content ---' after "
        "the last. Images, audio and PDF files are included (as inline data) only when their "
        "file names or extensions are explicitly included in 'include'; other binary files "
        "are skipped. Glob patterns are relative to the workspace root (e.g. 'src/**/*.py'). "
        "Files ignored by .gitignore or .geminiignore are skipped, and default excludes "
        "(dependency directories, build output, binaries) apply unless 'useDefaultExcludes' "
        "is false."
    )
    params_model = ReadManyFilesParams

    def invoke(self, params: ReadManyFilesParams, args: dict[str, Any]) -> ToolInvocation:
        return ReadManyFilesInvocation(self, args, params)
