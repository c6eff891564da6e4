"""read_file: one file for the model — a text window, or inline media (image, audio, PDF)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Annotated, Any, Self

from pydantic import Field, ValidationInfo, WithJsonSchema, field_validator, model_validator

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
    MAX_LINES,
    check_readable_file,
    classify,
    media_part,
    read_text,
    stat_regular,
    text_window,
    truncation_note,
)
from gemtui.tools.offload import run_off_loop
from gemtui.tools.params import ToolParams, non_empty

WholeNumber = Annotated[int, WithJsonSchema({"type": "number"})]
"""Declared a JSON ``number`` as Gemini CLI does; ``3.0`` is taken as 3, ``2.5`` refused."""


class ReadFileParams(ToolParams):
    """read_file's arguments, as Gemini CLI declares them (plus offset/limit for pages)."""

    file_path: str = Field(description="The path to the file to read.")
    start_line: WholeNumber | None = Field(
        default=None, description="Optional: The 1-based line number to start reading from."
    )
    end_line: WholeNumber | None = Field(
        default=None,
        description="Optional: The 1-based line number to end reading at (inclusive).",
    )
    offset: WholeNumber | None = Field(
        default=None,
        description=(
            "Optional: The 0-based character to start reading from, for reading a "
            "saved tool output (or a file of very long lines) in pieces. Not with "
            "start_line/end_line."
        ),
    )
    limit: WholeNumber | None = Field(
        default=None, description="Optional: How many characters to read from offset."
    )

    @field_validator("file_path")
    @classmethod
    def _file_path(cls, value: str) -> str:
        return non_empty(value, "file_path")

    @field_validator("start_line", "end_line", "offset", "limit", mode="before")
    @classmethod
    def _whole(cls, value: Any, info: ValidationInfo) -> Any:
        if isinstance(value, bool) or not isinstance(value, int | float):
            return value  # not a number: the type check says so
        least = 0 if info.field_name == "offset" else 1
        if not math.isfinite(value) or value != int(value) or value < least:
            raise ValueError(f"{info.field_name} must be a whole number of at least {least}")
        return int(value)

    @model_validator(mode="after")
    def _one_window(self) -> Self:
        start, end = self.start_line, self.end_line
        if start is not None and end is not None and start > end:
            raise ValueError("start_line cannot be greater than end_line")
        paged = self.offset is not None or self.limit is not None
        if paged and (start is not None or end is not None):
            raise ValueError(
                "Use either offset/limit (characters) or start_line/end_line (lines), not both"
            )
        return self


class ReadFileInvocation(TypedInvocation[ReadFileParams]):
    """One validated read_file call."""

    async def execute(self, ctx: ToolContext) -> ToolResult:
        arg = self.params.file_path
        saved = ctx.outputs.find(arg) if ctx.outputs is not None else None
        if saved is not None:  # a whole tool output gemtui kept: outside the workspace
            store = ctx.outputs
            assert store is not None
            try:
                text = await run_off_loop(lambda _: store.read(saved))
            except PermissionError as exc:  # swapped for a link after the check
                raise ToolError(f"{exc}; it was not read.") from None
            return self._text_result(text, str(saved), ctx, saved=str(saved))
        ws = ctx.workspace
        path = ws.resolve_visible(arg, reading=True)  # bounds and ignore files first, whoever reads
        rel = ws.relative(path)
        if ctx.files is not None and await run_off_loop(lambda _: _text_or_absent(path, arg)):
            held = await ctx.files.read_text(path)
            if held is not None:  # the editor's buffer, unsaved changes and all
                return self._text_result(held.replace("\r\n", "\n"), rel, ctx)
        check_readable_file(path, arg)
        kind = await run_off_loop(lambda _: classify(path, arg))
        if kind == "media":
            part = await run_off_loop(lambda _: media_part(path, arg))
            mime = part.inline_data.mime_type if part.inline_data else "media"
            return ToolResult(llm_content=[part], display=f"Read {mime} file: {rel}")
        if kind == "binary":
            raise ToolError(
                f"Cannot display content of binary file: {arg}. Only text files, images, "
                "audio and PDF files can be read."
            )
        text = await run_off_loop(lambda _: read_text(path, arg))
        if ctx.lsp is not None:  # a read comes before an edit: the server warms meanwhile
            from gemtui.tools.lsp.edits import root_of

            ctx.lsp.warm(path, root_of(ws, path), text)
        return self._text_result(text, rel, ctx)

    def _text_result(
        self, text: str, rel: str, ctx: ToolContext, *, saved: str | None = None
    ) -> ToolResult:
        params = self.params
        if params.offset is not None or params.limit is not None:
            return _page(text, rel, saved, params, ctx.output_limit)
        window = text_window(text, params.start_line, params.end_line)
        if not window.truncated:
            display = "" if window.total else "(empty file)"
            return ToolResult(llm_content=window.content, display=display)
        note = truncation_note(window, params.file_path)
        content = f"\n{note}\n\n--- FILE CONTENT (truncated) ---\n{window.content}"
        display = f"Read lines {window.first}-{window.last} of {window.total} from {rel}"
        return ToolResult(llm_content=content, display=display)


def _text_or_absent(path: Path, arg: str) -> bool:
    """Whether a front end may serve this file: text on disk, or not on disk at all
    (a buffer not saved yet). Media and binary files are always read from disk."""
    if stat_regular(path, arg) is None:
        return True
    check_readable_file(path, arg)
    return classify(path, arg) == "text"


def _page(
    text: str, rel: str, saved: str | None, params: ReadFileParams, output_limit: int
) -> ToolResult:
    """Characters ``offset`` .. ``offset + limit`` of ``text``: how a saved tool output
    (or a file of very long lines) is read in pieces that each fit the model's share.
    Only a saved output is named as the page's whole (views open it): a workspace file
    would go to the person's pager (its LESSOPEN filters) straight from the repository."""
    offset = params.offset or 0
    if text and offset >= len(text):
        raise ToolError(
            f"offset ({offset}) is beyond the end of the file, which has {len(text):,} characters."
        )
    # the status line fits beside the page, so the result is never saved again
    page = max(1, min(params.limit or output_limit, output_limit - PAGE_STATUS))
    end = min(offset + page, len(text))
    status = f"[Characters {offset:,}-{end:,} of {len(text):,} of {rel}."
    status += f" Next: offset={end}.]" if end < len(text) else " This is the end.]"
    return ToolResult(
        llm_content=f"{status}\n{text[offset:end]}",
        display=f"Read characters {offset:,}-{end:,} of {len(text):,} from {rel}",
        data={"output_file": saved} if saved else {},
    )


PAGE_STATUS = 200
"""Characters kept for a page's status line within the output limit."""


class ReadFileTool(TypedTool[ReadFileParams]):
    """Why: the model must see exact file contents before it edits anything."""

    name = "read_file"
    display_name = "ReadFile"
    kind = ToolKind.READ
    description = (
        "Reads and returns the content of a specified file. If the file is large, the "
        "content will be truncated. The tool's response will clearly indicate if truncation "
        "has occurred and will provide details on how to read more of the file using the "
        "'start_line' and 'end_line' parameters. Handles text, images (PNG, JPG, GIF, WEBP, "
        "SVG, BMP), audio files (MP3, WAV, AIFF, AAC, OGG, FLAC), and PDF files. For text "
        f"files, it can read specific line ranges (at most {MAX_LINES} lines per call)."
    )
    params_model = ReadFileParams

    def invoke(self, params: ReadFileParams, args: dict[str, Any]) -> ToolInvocation:
        return ReadFileInvocation(self, args, params)
