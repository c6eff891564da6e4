"""Every tool's result made to fit: past ``output_limit`` characters, a preview and a file.

Applied once, where a run's outcome is formed (``execution.execute_invocation``), so a
built-in, an MCP tool and web_fetch are cut by the same rule and the card, the store and
the model all see the same preview. A tool that streams (the shell) saves its own output
as it goes through the same ``OutputStore`` and says so with ``data["output_file"]``;
it is left as it is.
"""

from __future__ import annotations

import logging
from pathlib import Path

from msgspec.structs import replace

from gemtui.redact import redact
from gemtui.tools.base import ToolContext, ToolResult
from gemtui.tools.saved_output import preview
from gemtui.wire import Part

__all__ = ["OUTPUT_FILE", "fit_error", "fit_result", "too_long"]

log = logging.getLogger(__name__)

OUTPUT_FILE = "output_file"
"""``ToolResult.data`` key: the file holding the whole output (views offer to open it)."""


def _save(text: str, ctx: ToolContext, call_id: str) -> Path | None:
    if ctx.outputs is None:
        return None
    try:
        return ctx.outputs.save(call_id, text)
    except OSError:
        log.warning("could not save the whole output of %s", call_id, exc_info=True)
        return None


def _fit(text: str, ctx: ToolContext, call_id: str) -> tuple[str, Path | None]:
    masked = redact(text)
    path = _save(masked, ctx, call_id)
    return preview(masked, ctx.output_limit, path), path


def fit_error(error: str, ctx: ToolContext, call_id: str) -> str:
    """A failure message within the limit (an MCP server's 3 MB error is still a result)."""
    if len(error) <= ctx.output_limit:
        return error
    return _fit(error, ctx, call_id)[0]


def too_long(result: ToolResult, limit: int) -> bool:
    """Whether ``fit_result`` has anything to do (cheap: no copy of the text)."""
    if OUTPUT_FILE in result.data:
        return False
    content = result.llm_content
    size = (
        len(content)
        if isinstance(content, str)
        else sum(len(p.text) + 1 for p in content if p.text is not None)
    )
    return size > limit or len(result.error or "") > limit or len(result.display) > limit


def fit_result(result: ToolResult, ctx: ToolContext, call_id: str) -> ToolResult:
    """``result`` with its model text, error and display each within ``ctx.output_limit``."""
    if OUTPUT_FILE in result.data:
        return result
    limit = ctx.output_limit
    content = result.llm_content
    path: Path | None = None
    changes: dict[str, object] = {}
    if isinstance(content, str):
        if len(content) > limit:
            changes["llm_content"], path = _fit(content, ctx, call_id)
    else:
        texts = [p.text for p in content if p.text is not None]
        joined = "\n".join(texts)
        if len(joined) > limit:
            cut, path = _fit(joined, ctx, call_id)
            others = [p for p in content if p.text is None]
            changes["llm_content"] = [Part(text=cut), *others]
    if result.error is not None and len(result.error) > limit:
        changes["error"], error_path = _fit(result.error, ctx, call_id)
        path = path or error_path
    display = result.display
    if len(display) > limit:
        shown = redact(display)
        if path is None:
            path = _save(shown, ctx, call_id)
        changes["display"] = preview(shown, limit, path)
    elif path is not None:
        changes["display"] = f"{display}\nWhole output ({_size(content)}): {path}".lstrip("\n")
    if path is not None:
        changes["data"] = {**result.data, OUTPUT_FILE: str(path)}
    return replace(result, **changes) if changes else result


def _size(content: str | list[Part]) -> str:
    n = len(content) if isinstance(content, str) else sum(len(p.text or "") for p in content)
    return f"{n:,} characters"
