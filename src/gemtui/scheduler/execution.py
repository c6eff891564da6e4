"""Running one invocation, and turning what it gave back into functionResponse parts.

Whatever a tool does — return, raise ``ToolError``, raise something unexpected — the
model gets text it can act on and never a traceback (that goes to the log). Only task
cancellation passes through: the scheduler owns what a cancelled call answers.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace

from gemtui.bus.bus import EventBus
from gemtui.bus.events import TodosUpdated, ToolOutput
from gemtui.tools.base import ToolContext, ToolError, ToolInvocation, ToolResult
from gemtui.wire import FunctionResponse, Part

__all__ = [
    "CANCELLED_MESSAGE",
    "ExecutionOutcome",
    "error_parts",
    "execute_invocation",
    "result_parts",
]

log = logging.getLogger(__name__)

CANCELLED_MESSAGE = "Cancelled by the user."


@dataclass(frozen=True)
class ExecutionOutcome:
    """A finished run: ``error`` set means the call failed (``result`` may still be set)."""

    result: ToolResult | None
    error: str | None = None


def _context_for(ctx: ToolContext, bus: EventBus, call_id: str) -> ToolContext:
    """A copy of ``ctx`` whose live output is published as this call's ToolOutput."""
    downstream = ctx.on_output

    def on_output(text: str) -> None:
        bus.emit(ToolOutput, call_id=call_id, text=text)
        if downstream is not None:
            downstream(text)

    return replace(ctx, on_output=on_output)


async def execute_invocation(
    invocation: ToolInvocation, ctx: ToolContext, bus: EventBus, call_id: str
) -> ExecutionOutcome:
    """Run ``invocation``; raises only ``asyncio.CancelledError``."""
    name = invocation.tool.name
    try:
        result = await invocation.execute(_context_for(ctx, bus, call_id))
    except ToolError as e:
        return ExecutionOutcome(None, str(e) or f"{name} failed.")
    except Exception as e:  # a tool bug must not end the turn; the model gets one line
        log.exception("tool %s raised", name)
        detail = str(e) or type(e).__name__
        return ExecutionOutcome(None, f"{name} failed unexpectedly: {detail}")
    if not isinstance(result, ToolResult):
        log.error("tool %s returned %r instead of a ToolResult", name, type(result))
        return ExecutionOutcome(None, f"{name} failed unexpectedly: it returned no result.")
    todos = result.data.get("todos")
    if result.error is None and isinstance(todos, list | tuple):
        bus.emit(TodosUpdated, todos=tuple(dict(t) for t in todos if isinstance(t, dict)))
    return ExecutionOutcome(result, result.error)


def _response(call_id: str, name: str, response: dict[str, str]) -> Part:
    return Part(function_response=FunctionResponse(id=call_id, name=name, response=response))


def error_parts(call_id: str, name: str, message: str) -> list[Part]:
    """A refused, rejected, failed or cancelled call, as the model reads it."""
    return [_response(call_id, name, {"error": message})]


def result_parts(call_id: str, name: str, result: ToolResult) -> list[Part]:
    """A successful call, as Gemini CLI's convertToFunctionResponse shapes it.

    Text becomes ``response.output``. Binary parts (inlineData, fileData) cannot live
    inside the response, so they follow it as sibling parts, and when there is no text
    the output says how many came.
    """
    content = result.llm_content
    if isinstance(content, str):
        return [_response(call_id, name, {"output": content})]
    texts = [p.text for p in content if p.text is not None]
    binary = [p for p in content if p.inline_data is not None or p.file_data is not None]
    if texts:
        output = "\n".join(texts)
    elif binary:
        output = f"Binary content provided ({len(binary)} item(s))."
    else:
        output = ""
    return [_response(call_id, name, {"output": output}), *binary]
