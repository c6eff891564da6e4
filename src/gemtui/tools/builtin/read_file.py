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
        ws = ctx.workspace
        arg = self.args["file_path"]
        path = ws.resolve_visible(arg)  # bounds and ignore files first, whoever reads
        rel = ws.relative(path)
        if ctx.files is not None and await run_off_loop(lambda _: _text_or_absent(path, arg)):
            held = await ctx.files.read_text(path)
            if held is not None:  # the editor's buffer, unsaved changes and all
                return self._text_result(held.replace("\r\n", "\n"), arg, rel)
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
        return self._text_result(text, arg, rel)

    def _text_result(self, text: str, arg: str, rel: str) -> ToolResult:
        start = _as_int(self.args.get("start_line"))
        end = _as_int(self.args.get("end_line"))
        window = text_window(text, start, end)
        if not window.truncated:
            display = "" if window.total else "(empty file)"
            return ToolResult(llm_content=window.content, display=display)
        note = truncation_note(window, arg)
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
        return None

    def build(self, args: dict[str, Any]) -> ToolInvocation:
        return ReadFileInvocation(self, args)
