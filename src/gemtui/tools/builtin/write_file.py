"""write_file: create or overwrite a whole file, previewed as a diff before approval."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import Field, field_validator

from gemtui.tools.base import ToolContext, ToolInvocation, ToolKind, TypedTool
from gemtui.tools.builtin._files import MAX_FILE_BYTES
from gemtui.tools.builtin.replace import FileEditInvocation, FileEditParams, PlannedEdit


class WriteFileParams(FileEditParams):
    """write_file's arguments, as Gemini CLI declares them."""

    file_path: str = Field(description="The path to the file to write to.")
    content: str = Field(
        description="The content to write to the file. Do not use omission "
        "placeholders like '(rest of methods ...)', '...', or 'unchanged code'; provide "
        "complete literal content."
    )

    @field_validator("content")
    @classmethod
    def _content(cls, value: str) -> str:
        if len(value) > MAX_FILE_BYTES:
            raise ValueError(
                f"The content is {len(value) / (1024 * 1024):.2f}MB, over the "
                f"{MAX_FILE_BYTES // (1024 * 1024)}MB limit for write_file."
            )
        return value


class WriteFileInvocation(FileEditInvocation[WriteFileParams]):
    """One validated write_file call."""

    content_arg = "content"

    def _target(self, ctx: ToolContext) -> tuple[Path, str]:
        """Inside the workspace, ignored or not.

        The ignore files keep contents from the model; a whole-file write shows it nothing
        of what was there, so it may create ``dist/x`` or ``.env`` (with approval). The
        workspace bounds and the protected-path policy (``.git/``, ``.gemtui/``) still hold.
        """
        path = ctx.workspace.resolve(self.params.file_path)
        return path, ctx.workspace.relative(path)

    def plan(self, ctx: ToolContext) -> PlannedEdit:
        path, rel = self._target(ctx)
        arg = self.params.file_path
        original = self._existing(path, arg, lenient=True)
        # A whole-file write with "... rest unchanged" in it would delete what it stands for.
        self._refuse_placeholders(self.params.content, (original or "",))
        summary = (
            f"Successfully created and wrote to new file: {arg}."
            if original is None
            else f"Successfully overwrote file: {arg}."
        )
        return PlannedEdit(path, rel, original, self.params.content, summary)

    def modified_args(self, proposed: str) -> dict[str, Any]:
        return {**self.args, "content": proposed}


class WriteFileTool(TypedTool[WriteFileParams]):
    """Why: new files, or rewrites too large for exact-string replacements."""

    name = "write_file"
    display_name = "WriteFile"
    kind = ToolKind.EDIT
    description = (
        "Writes content to a specified file in the local filesystem, creating parent "
        "directories as needed.\n\n"
        "The user has the ability to modify `content`. If modified, this will be stated in "
        "the response."
    )
    params_model = WriteFileParams

    def invoke(self, params: WriteFileParams, args: dict[str, Any]) -> ToolInvocation:
        return WriteFileInvocation(self, args, params)
