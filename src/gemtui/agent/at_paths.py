"""``@path`` in a prompt: the file (or a folder's files, or a glob's) goes with the message.

As Gemini CLI does it: an ``@`` at the start of the prompt or after white space starts a
path, which runs to the next unescaped white space (``\\ `` keeps a space); trailing
punctuation is dropped when the path without it exists. Each path is resolved inside the
workspace (no ``..``, absolute or symlink escape) and must not be hidden by the ignore
files; the files are read with ``read_many_files``, so its ignore rules, default excludes
and size caps apply, and images and PDFs named this way go as inline data. The message
becomes the prompt's text, then ``--- Content from referenced files ---`` and the files.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from gemtui.tools.base import ToolContext, ToolError
from gemtui.tools.workspace import has_glob_magic
from gemtui.wire import Part
from gemtui.wire.attachments import ATTACHED_MARK

__all__ = ["Attachments", "attach_files", "find_at_paths"]

_AT = re.compile(r"(?:^|(?<=\s))@((?:\\\s|[^\s])+)")
_TRAILING = ".,;:!?)]}\"'"


def find_at_paths(prompt: str) -> list[str]:
    """The ``@`` paths of ``prompt`` in order, unescaped (``\\ `` → space)."""
    paths = []
    for match in _AT.finditer(prompt):
        raw = re.sub(r"\\(\s)", r"\1", match.group(1))
        if raw:
            paths.append(raw)
    return paths


@dataclass
class Attachments:
    """What ``@`` paths added to a message: the parts, and what to tell the person."""

    parts: list[Part] = field(default_factory=list)
    """The message: the prompt's text first, then the files (empty: send the text alone)."""
    files: list[str] = field(default_factory=list)
    """Workspace-relative paths attached."""
    notes: list[str] = field(default_factory=list)
    """Paths not attached and why (missing, ignored, outside, skipped)."""

    def summary(self) -> str:
        """One notice for the transcript and stderr."""
        lines = []
        if self.files:
            shown = ", ".join(self.files[:10])
            more = f" and {len(self.files) - 10} more" if len(self.files) > 10 else ""
            lines.append(f"Attached {len(self.files)} file(s): {shown}{more}")
        lines.extend(self.notes)
        return "\n".join(lines)


def _spec(raw: str, ctx: ToolContext) -> str:
    """The read_many_files pattern for one ``@`` path; raises ToolError."""
    ws = ctx.workspace
    candidates = [raw]
    stripped = raw.rstrip(_TRAILING)
    if stripped != raw:
        candidates.append(stripped)
    for candidate in candidates:
        if has_glob_magic(candidate):
            return candidate
        try:
            path = ws.resolve(candidate)
        except ToolError:
            if candidate is candidates[-1]:
                raise
            continue
        try:
            exists, folder = path.exists(), path.is_dir()
        except OSError as exc:
            raise ToolError(f"@{candidate}: {exc.strerror or exc}") from exc
        if exists:
            ws.resolve_visible(candidate)  # ignored files are refused, as read_file does
            return ws.relative(path) + ("/" if folder else "")
    raise ToolError(f"@{stripped}: no such file or folder in the workspace")


async def attach_files(prompt: str, ctx: ToolContext) -> Attachments:
    """The message for ``prompt`` with its ``@`` paths' files attached."""
    from gemtui.tools.builtin.read_many_files import ReadManyFilesTool

    out = Attachments()
    specs: list[str] = []
    for raw in find_at_paths(prompt):
        try:
            spec = _spec(raw, ctx)
        except ToolError as exc:
            message = str(exc)
            out.notes.append(message if message.startswith("@") else f"@{raw}: {message}")
            continue
        if spec not in specs:
            specs.append(spec)
    if not specs:
        return out
    tool = ReadManyFilesTool()
    try:
        result = await tool.build({"include": specs}).execute(ctx)
    except ToolError as exc:
        out.notes.append(f"Could not attach {', '.join(specs)}: {exc}")
        return out
    out.files = [str(f) for f in result.data.get("files", [])]
    for rel, why in result.data.get("skipped", []):
        out.notes.append(f"Not attached: {rel} ({why})")
    if not out.files:
        out.notes.append(f"Nothing to attach for {', '.join(specs)}")
        return out
    content = result.llm_content
    parts = [Part(text=content)] if isinstance(content, str) else list(content)
    out.parts = [Part(text=prompt), Part(text=ATTACHED_MARK), *parts]
    return out
