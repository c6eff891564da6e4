"""read_file: one file for the model — a text window, or inline media (image, audio, PDF)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gemtui.tools.base import Tool, ToolContext, ToolError, ToolInvocation, ToolKind, ToolResult
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


class ReadFileInvocation(ToolInvocation):
    """One validated read_file call."""

    async def execute(self, ctx: ToolContext) -> ToolResult:
        arg = self.args["file_path"]
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
        path = ws.resolve_visible(arg)  # bounds and ignore files first, whoever reads
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
        return self._text_result(text, rel, ctx)

    def _text_result(
        self, text: str, rel: str, ctx: ToolContext, *, saved: str | None = None
    ) -> ToolResult:
        if self.args.get("offset") is not None or self.args.get("limit") is not None:
            return _page(text, rel, saved, self.args, ctx.output_limit)
        start = _as_int(self.args.get("start_line"))
        end = _as_int(self.args.get("end_line"))
        window = text_window(text, start, end)
        if not window.truncated:
            display = "" if window.total else "(empty file)"
            return ToolResult(llm_content=window.content, display=display)
        note = truncation_note(window, self.args["file_path"])
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
    text: str, rel: str, saved: str | None, args: dict[str, Any], output_limit: int
) -> ToolResult:
    """Characters ``offset`` .. ``offset + limit`` of ``text``: how a saved tool output
    (or a file of very long lines) is read in pieces that each fit the model's share.
    Only a saved output is named as the page's whole (views open it): a workspace file
    would go to the person's pager (its LESSOPEN filters) straight from the repository."""
    offset = _as_int(args.get("offset")) or 0
    if text and offset >= len(text):
        raise ToolError(
            f"offset ({offset}) is beyond the end of the file, which has {len(text):,} characters."
        )
    # the status line fits beside the page, so the result is never saved again
    page = max(1, min(_as_int(args.get("limit")) or output_limit, output_limit - PAGE_STATUS))
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


def _as_int(value: Any) -> int | None:
    return None if value is None else int(value)


class ReadFileTool(Tool):
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
    parameters = {
        "type": "object",
        "properties": {
            "file_path": {"description": "The path to the file to read.", "type": "string"},
            "start_line": {
                "description": "Optional: The 1-based line number to start reading from.",
                "type": "number",
            },
            "end_line": {
                "description": "Optional: The 1-based line number to end reading at (inclusive).",
                "type": "number",
            },
            "offset": {
                "description": (
                    "Optional: The 0-based character to start reading from, for reading a "
                    "saved tool output (or a file of very long lines) in pieces. Not with "
                    "start_line/end_line."
                ),
                "type": "number",
            },
            "limit": {
                "description": "Optional: How many characters to read from offset.",
                "type": "number",
            },
        },
        "required": ["file_path"],
    }

    def validate(self, args: dict[str, Any]) -> str | None:
        err = super().validate(args)
        if err:
            return err
        if not args["file_path"].strip():
            return "The 'file_path' parameter must be non-empty."
        start, end = args.get("start_line"), args.get("end_line")
        for key, value in (("start_line", start), ("end_line", end)):
            if value is not None and (value != int(value) or value < 1):
                return f"{key} must be a whole number of at least 1"
        if start is not None and end is not None and start > end:
            return "start_line cannot be greater than end_line"
        offset, limit = args.get("offset"), args.get("limit")
        if (offset is not None or limit is not None) and (start is not None or end is not None):
            return "Use either offset/limit (characters) or start_line/end_line (lines), not both"
        if offset is not None and (offset != int(offset) or offset < 0):
            return "offset must be a whole number of at least 0"
        if limit is not None and (limit != int(limit) or limit < 1):
            return "limit must be a whole number of at least 1"
        return None

    def build(self, args: dict[str, Any]) -> ToolInvocation:
        return ReadFileInvocation(self, args)
