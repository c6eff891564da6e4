"""save_memory: the model keeps a fact for later sessions in the person's GEMINI.md.

It writes outside the workspace into a file that joins every later system instruction,
so it is an edit like any other: asked for (with the diff of GEMINI.md) outside yolo
mode, and the fact is cleaned so it stays one list item (``tools.memory_file``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import Field, field_validator

from gemtui.tools.base import (
    Confirmation,
    Tool,
    ToolContext,
    ToolError,
    ToolInvocation,
    ToolKind,
    ToolResult,
    TypedInvocation,
    TypedTool,
)
from gemtui.tools.builtin._files import unified_diff
from gemtui.tools.memory_file import add_memory_text, clean_fact
from gemtui.tools.offload import run_off_loop
from gemtui.tools.params import ToolParams

__all__ = ["SaveMemoryTool"]


def _memory_file(ctx: ToolContext) -> Path:
    if ctx.memory_file is None:
        raise ToolError("save_memory has no memory file in this session.")
    return ctx.memory_file


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8") if path.exists() else ""
    except (OSError, UnicodeDecodeError) as exc:
        raise ToolError(f"Cannot read the memory file {path}: {exc}") from exc


class SaveMemoryParams(ToolParams):
    """save_memory's arguments, as Gemini CLI declares them."""

    fact: str = Field(
        description="The fact or preference to remember: one clear, self-contained sentence."
    )

    @field_validator("fact")
    @classmethod
    def _fact(cls, value: str) -> str:
        if not clean_fact(value):
            raise ValueError("Parameter 'fact' must be a non-empty string.")
        return value


class SaveMemoryInvocation(TypedInvocation[SaveMemoryParams]):
    """One fact to append; the preview is the diff of the memory file."""

    def __init__(self, tool: Tool, args: dict[str, Any], params: SaveMemoryParams) -> None:
        super().__init__(tool, args, params)
        self._modified: str | None = None

    def describe(self) -> str:
        return f"save_memory({clean_fact(self.params.fact)!r})"

    def _planned(self, ctx: ToolContext) -> tuple[Path, str, str]:
        path = _memory_file(ctx)
        original = _read(path)
        proposed = self._modified
        if proposed is None:
            proposed = add_memory_text(original, self.params.fact)
        return path, original, proposed

    async def confirmation(self, ctx: ToolContext) -> Confirmation | None:
        def preview(_: object) -> Confirmation:
            path, original, proposed = self._planned(ctx)
            return Confirmation(
                kind="edit",
                title=f"Confirm Memory Save: {path}",
                file_path=str(path),
                original=original,
                proposed=proposed,
                diff=unified_diff(original, proposed, path.name),
            )

        return await run_off_loop(preview)

    def modify(self, proposed: str) -> None:
        """The person's edited GEMINI.md replaces the proposed one."""
        self._modified = proposed

    async def execute(self, ctx: ToolContext) -> ToolResult:
        return await run_off_loop(lambda _: self._apply(ctx))

    def _apply(self, ctx: ToolContext) -> ToolResult:
        path, original, proposed = self._planned(ctx)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(proposed, encoding="utf-8")
        except OSError as exc:
            raise ToolError(f"Cannot write the memory file {path}: {exc.strerror or exc}") from exc
        fact = clean_fact(self.params.fact)
        text = f'Okay, I\'ve remembered that: "{fact}"'
        if self._modified is not None:
            text += " (the user edited the memory file before it was saved)"
        return ToolResult(
            llm_content=text,
            display=unified_diff(original, proposed, path.name) or f"No change to {path}",
            data={"file_path": str(path), "fact": fact},
        )


class SaveMemoryTool(TypedTool[SaveMemoryParams]):
    """Why: a preference the person states once should not need repeating next session."""

    name = "save_memory"
    display_name = "SaveMemory"
    kind = ToolKind.EDIT
    description = (
        "Saves a specific fact or preference to long-term memory, so it is known in future "
        "sessions. Use it when the user asks you to remember something, or states a clear, "
        "lasting fact about themselves or how they like to work. Do not use it for "
        "conversation details that only matter now, or for long text. The fact is one short "
        "sentence."
    )
    params_model = SaveMemoryParams

    def invoke(self, params: SaveMemoryParams, args: dict[str, Any]) -> ToolInvocation:
        return SaveMemoryInvocation(self, args, params)
