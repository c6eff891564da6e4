"""replace: exact-string edits to one file, previewed as a diff before approval.

Reading, planning, diffing and writing run off the event loop (they can take a while on
a file near the 20 MB cap) and both the file and the result are held to that cap.
"""

from __future__ import annotations

from abc import abstractmethod
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from msgspec import Struct
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
from gemtui.tools.builtin._files import (
    MAX_FILE_BYTES,
    read_regular,
    size_error,
    stat_regular,
    unified_diff,
    write_regular,
)
from gemtui.tools.edit_match import (
    AmbiguousMatch,
    EditMatchError,
    MatchStrategy,
    TooLarge,
    resolve_edit,
)
from gemtui.tools.offload import run_off_loop
from gemtui.tools.omissions import find_placeholders, placeholder_error
from gemtui.tools.params import ToolParams, non_empty

if TYPE_CHECKING:  # the fixer loads when an edit first misses, not with every session
    from gemtui.tools.edit_fixer import EditFix


class FileEditParams(ToolParams):
    """What replace and write_file share: the file they change (never blank)."""

    file_path: str

    @field_validator("file_path")
    @classmethod
    def _file_path(cls, value: str) -> str:
        return non_empty(value, "file_path")


class ReplaceParams(FileEditParams):
    """replace's arguments, as Gemini CLI declares them."""

    file_path: str = Field(description="The path to the file to modify.")
    instruction: str = Field(
        description="A clear, semantic instruction for the code change: why it is "
        "needed, where it happens, what changes and the desired outcome."
    )
    old_string: str = Field(
        description="The exact literal text to replace, preferably unescaped. For "
        "single replacements (default), include at least 3 lines of context BEFORE and "
        "AFTER the target text, matching whitespace and indentation precisely. If this "
        "string is not the exact literal text (i.e. you escaped it) or does not match "
        "exactly, the tool will fail."
    )
    new_string: str = Field(
        description="The exact literal text to replace `old_string` with, preferably "
        "unescaped. Provide the EXACT text. Ensure the resulting code is correct and "
        "idiomatic. Do not use omission placeholders like '(rest of methods ...)', "
        "'...', or 'unchanged code'; provide exact literal code."
    )
    allow_multiple: bool | None = Field(
        default=None,
        description="If true, the tool will replace all occurrences of `old_string`. "
        "If false (default), it will only succeed if exactly one occurrence is found.",
    )


E = TypeVar("E", bound=FileEditParams)


class PlannedEdit(Struct, frozen=True):
    """What an edit will do: the file, its content now (None if new) and after."""

    path: Path
    rel: str
    original: str | None
    proposed: str
    summary: str
    match: str | None = None
    """How replace found old_string: ``exact``, ``flexible`` or ``fuzzy``."""
    phrase: str = ""
    """The same for people: "matched with flexible whitespace"."""
    note: str = ""
    """Said on the approval title and the card when the match was not exact."""


def read_existing(path: Path, shown: str, *, lenient: bool = False) -> tuple[str | None, bool]:
    """(content with LF newlines or None if absent, whether the file used CRLF).

    CRLF files are edited as LF and written back as CRLF, so old_string from the model
    (always LF) still matches. ``lenient`` decodes non-UTF-8 bytes instead of refusing.
    """
    st = stat_regular(path, shown)  # a FIFO or device is refused, never opened
    if st is None:
        return None, False
    if st.st_size > MAX_FILE_BYTES:
        raise size_error(shown, st.st_size, "File size for editing")
    try:
        data = read_regular(path, shown)
    except OSError as exc:
        raise ToolError(f"Cannot read {shown}: {exc.strerror or exc}") from exc
    try:
        raw = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        if not lenient:
            raise ToolError(f"Cannot edit {shown}: it is not UTF-8 text.") from exc
        raw = data.decode("utf-8", errors="replace")
    crlf = "\r\n" in raw
    return (raw.replace("\r\n", "\n") if crlf else raw), crlf


def encode_capped(text: str, shown: str) -> bytes:
    """UTF-8 bytes of new content, refused past the cap read_file has too."""
    if len(text) > MAX_FILE_BYTES:  # a character is at least one byte: refuse unencoded
        raise size_error(shown, len(text), "New content size")
    data = text.encode("utf-8")
    if len(data) > MAX_FILE_BYTES:
        raise size_error(shown, len(data), "New content size")
    return data


class FileEditInvocation(TypedInvocation[E]):
    """Shared by replace and write_file: plan, preview, let a person modify, then write."""

    def __init__(self, tool: Tool, args: dict[str, Any], params: E) -> None:
        super().__init__(tool, args, params)
        self._modified: str | None = None
        self._before: str | None = None
        """The file's content when the preview was made (what a modification replaced)."""
        self._approved_match: str | None = None
        """How the previewed edit matched: a write that would match otherwise is refused."""
        self._held: tuple[str | None] | None = None
        """The file as a front end holds it (``ToolContext.files``), read before planning;
        None: plan from the disk."""

    def _existing(self, path: Path, shown: str, *, lenient: bool = False) -> str | None:
        """The file's current content (LF newlines), or None when it is new."""
        if self._held is not None:
            return self._held[0]
        return read_existing(path, shown, lenient=lenient)[0]

    async def _hold(self, ctx: ToolContext) -> None:
        """Read the file through the front end that holds it (bounds checked first)."""
        if ctx.files is None:
            return
        path, _ = self._target(ctx)
        held = await ctx.files.read_text(path)
        self._held = (None if held is None else held.replace("\r\n", "\n"),)

    @abstractmethod
    def plan(self, ctx: ToolContext) -> PlannedEdit:
        """Work out the new content, raising ToolError when the edit cannot apply."""

    content_arg = "new_string"
    """The argument holding the text to write, named in a placeholder refusal."""

    def _refuse_placeholders(self, text: str, known: tuple[str, ...]) -> None:
        """Refuse text that abbreviates code ("// ... existing code ...") before any write."""
        found = find_placeholders(text, known)
        if found:
            raise ToolError(placeholder_error(found, self.content_arg))

    def _target(self, ctx: ToolContext) -> tuple[Path, str]:
        arg = self.params.file_path
        path = ctx.workspace.resolve_visible(arg)
        return path, ctx.workspace.relative(path)

    async def confirmation(self, ctx: ToolContext) -> Confirmation | None:
        await self._hold(ctx)

        def preview(_: object) -> Confirmation:
            planned = self.plan(ctx)
            proposed = self._modified if self._modified is not None else planned.proposed
            encode_capped(proposed, self.params.file_path)
            original = planned.original or ""
            self._before = original
            self._approved_match = planned.match
            how = f" · {planned.phrase}" if planned.note else ""
            return Confirmation(
                kind="edit",
                title=f"Confirm Edit: {planned.rel}{how}",
                file_path=str(planned.path),
                original=original,
                proposed=proposed,
                diff=unified_diff(original, proposed, planned.rel),
            )

        return await run_off_loop(preview)

    def modify(self, proposed: str) -> None:
        """The person's edited full file content replaces what the model proposed."""
        self._modified = proposed

    @property
    def effective_args(self) -> dict[str, Any]:
        """After a modification, arguments that write what the person approved."""
        if self._modified is None:
            return self.args
        return self.modified_args(self._modified)

    def modified_args(self, proposed: str) -> dict[str, Any]:
        """``replace``: the whole file before becomes the person's whole file (as Gemini
        CLI records it), so the recorded call reproduces what was written."""
        return {**self.args, "old_string": self._before or "", "new_string": proposed}

    async def execute(self, ctx: ToolContext) -> ToolResult:
        from gemtui.tools.lsp.edits import after_edit

        if ctx.files is None:
            return await after_edit(ctx, await run_off_loop(lambda _: self._apply(ctx)))
        await self._hold(ctx)  # plan again from the buffer as it is now
        planned, proposed = await run_off_loop(lambda _: self._prepare(ctx))
        await ctx.files.write_text(planned.path, proposed)
        return await after_edit(ctx, self._report(planned, proposed))

    def _prepare(self, ctx: ToolContext) -> tuple[PlannedEdit, str]:
        """Plan again (the file may have changed since approval): the edit and its text."""
        planned = self.plan(ctx)
        if self._modified is None and self._approved_match not in (None, planned.match):
            raise ToolError(
                f"{planned.rel} changed after the edit was previewed: old_string is now "
                f"{planned.phrase}, not as approved. Nothing was changed; read the file again "
                "and retry."
            )
        proposed = self._modified if self._modified is not None else planned.proposed
        encode_capped(proposed, self.params.file_path)
        return planned, proposed

    def _apply(self, ctx: ToolContext) -> ToolResult:
        """Plan again, write to the disk, and report."""
        planned, proposed = self._prepare(ctx)
        path = planned.path
        arg = self.params.file_path
        _, crlf = read_existing(path, arg, lenient=True)
        text = proposed.replace("\r\n", "\n").replace("\n", "\r\n") if crlf else proposed
        data = encode_capped(text, arg)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            write_regular(path, data, arg)
        except OSError as exc:
            raise ToolError(f"Error writing to file {planned.rel}: {exc.strerror or exc}") from exc
        return self._report(planned, proposed)

    def _report(self, planned: PlannedEdit, proposed: str) -> ToolResult:
        """What the model and the views get once the new content is written."""
        path = planned.path
        original = planned.original or ""
        diff = unified_diff(original, proposed, planned.rel)
        text = planned.summary
        if planned.note and self._modified is None:
            text += " " + planned.note
        if self._modified is not None:
            text += (
                f"\nThe user modified the proposed content before it was written. The file "
                f"{planned.rel} now contains:\n{proposed}"
            )
        shown = diff or f"No changes to {planned.rel}"
        if planned.note and self._modified is None:
            shown = f"{planned.phrase}\n{shown}"
        return ToolResult(
            llm_content=text,
            display=shown,
            data={
                "file_path": str(path),
                "diff": diff,
                "original": original,
                "proposed": proposed,
                "is_new_file": planned.original is None,
                "user_modified": self._modified is not None,
                "match": planned.match,
            },
        )


class OldStringNotFound(ToolError):
    """No strategy placed old_string: the one failure the edit fixer may repair."""

    def __init__(self, message: str, content: str) -> None:
        super().__init__(message)
        self.content = content


class ReplaceInvocation(FileEditInvocation[ReplaceParams]):
    """One validated replace call: the file and its edit."""

    def __init__(self, tool: Tool, args: dict[str, Any], params: ReplaceParams) -> None:
        super().__init__(tool, args, params)
        self._fix: EditFix | None = None
        """The edit fixer's old_string and new_string, used instead of the model's."""
        self._fix_tried = False

    async def confirmation(self, ctx: ToolContext) -> Confirmation | None:
        await self._try_fixer(ctx)
        return await super().confirmation(ctx)

    async def execute(self, ctx: ToolContext) -> ToolResult:
        await self._try_fixer(ctx)
        return await super().execute(ctx)

    async def _try_fixer(self, ctx: ToolContext) -> None:
        """Once, when enabled and old_string cannot be placed: ask the model for the text
        it meant, and keep the answer only if it plans cleanly (it is then previewed)."""
        if self._fix_tried or not ctx.edit_fixer or ctx.model_stream is None:
            return
        self._fix_tried = True
        try:
            await run_off_loop(lambda _: self.plan(ctx))
            return
        except OldStringNotFound as exc:
            error, content = str(exc), exc.content
        except ToolError:
            return
        from gemtui.tools.edit_fixer import fix_old_string

        self._fix = await fix_old_string(
            ctx.model_stream,
            instruction=self.params.instruction,
            old=self.params.old_string,
            new=self.params.new_string,
            error=error,
            content=content,
        )
        if self._fix is None:
            return
        try:
            await run_off_loop(lambda _: self.plan(ctx))
        except ToolError:
            self._fix = None  # the fix does not place either: report the model's failure

    def plan(self, ctx: ToolContext) -> PlannedEdit:
        path, rel = self._target(ctx)
        arg = self.params.file_path
        fix = self._fix
        old = fix.old_string if fix else self.params.old_string
        new = fix.new_string if fix else self.params.new_string
        original = self._existing(path, arg)
        if original is None:
            if old == "":
                self._refuse_placeholders(new, ())
                return PlannedEdit(
                    path, rel, None, new, f"Created new file: {arg} with provided content."
                )
            raise ToolError(
                f"File not found: {arg}. Cannot apply edit. Use an empty old_string to create "
                "a new file."
            )
        if old == "":
            raise ToolError(
                f"Failed to edit. Attempted to create a file that already exists: {arg}. Use a "
                "non-empty old_string to edit it, or write_file to overwrite it."
            )
        if old == new:
            raise ToolError(
                f"No changes to apply. The old_string and new_string are identical in file: {arg}"
            )
        # Only the file vouches for a line: a placeholder the model also put in old_string
        # is not in the file, so old_string could only match approximately, and writing
        # new_string would then swap real code for the placeholder.
        found = find_placeholders(old, (original,))
        if found:
            raise ToolError(placeholder_error(found, "old_string"))
        self._refuse_placeholders(new, (original,))
        try:
            edit = resolve_edit(original, old, new, allow_multiple=bool(self.params.allow_multiple))
        except AmbiguousMatch as exc:
            every = (
                ""
                if exc.strategy is MatchStrategy.FUZZY
                else ", or set allow_multiple to true to replace every occurrence"
            )
            raise ToolError(
                f"Failed to edit, {exc} for old_string in file: {arg}. Add more surrounding "
                f"context to old_string so it matches exactly one place{every}. Nothing was "
                "changed."
            ) from exc
        except TooLarge as exc:
            raise size_error(arg, exc.size, "New content size") from exc
        except EditMatchError as exc:
            raise OldStringNotFound(
                f"Failed to edit, could not find the string to replace. {exc} in {arg}. "
                "Ensure you're not escaping content incorrectly and check whitespace, "
                "indentation, and context. Use the read_file tool to verify.",
                original,
            ) from exc
        noun = "replacement" if edit.count == 1 else "replacements"
        summary = f"Successfully modified file: {arg} ({edit.count} {noun})."
        if fix is not None:
            summary += (
                " old_string was not in the file; the edit fixer replaced it with the file's "
                f"text ({fix.explanation or 'no reason given'}). Re-read the file before "
                "editing it again."
            )
        return PlannedEdit(
            path,
            rel,
            original,
            edit.proposed,
            summary,
            match=edit.strategy.value,
            phrase=edit.strategy.phrase,
            note=edit.describe(),
        )


class ReplaceTool(TypedTool[ReplaceParams]):
    """Why: small exact edits are safer and cheaper than rewriting whole files."""

    name = "replace"
    display_name = "Edit"
    kind = ToolKind.EDIT
    description = (
        "Replaces text within a file. By default, the tool expects to find and replace exactly "
        "ONE occurrence of `old_string`. If you want to replace multiple occurrences of the "
        "exact same string, set `allow_multiple` to true. This tool requires providing "
        "significant context around the change to ensure precise targeting. Always use the "
        "read_file tool to examine the file's current content before attempting a text "
        "replacement.\n\n"
        "The user has the ability to modify the proposed content. If modified, this will be "
        "stated in the response.\n\n"
        "Expectation for required parameters:\n"
        "1. `old_string` MUST be the exact literal text to replace (including all whitespace, "
        "indentation, newlines, and surrounding code etc.).\n"
        "2. `new_string` MUST be the exact literal text to replace `old_string` with (also "
        "including all whitespace, indentation, newlines, and surrounding code etc.). Ensure "
        "the resulting code is correct and idiomatic and that `old_string` and `new_string` "
        "are different.\n"
        "3. `instruction` is the detailed instruction of what needs to be changed.\n"
        "4. NEVER escape `old_string` or `new_string`, that would break the exact literal text "
        "requirement.\n"
        "An empty `old_string` creates a new file (which must not exist yet) containing "
        "`new_string`.\n\n"
        "If `old_string` differs from the file only in indentation, trailing spaces or line "
        "endings (or, for a longer block, very slightly), the edit still lands at the one "
        "place it fits and the result says how it matched; if it fits more than one place, "
        "the tool fails and names the line of each."
    )
    params_model = ReplaceParams

    def invoke(self, params: ReplaceParams, args: dict[str, Any]) -> ToolInvocation:
        return ReplaceInvocation(self, args, params)
