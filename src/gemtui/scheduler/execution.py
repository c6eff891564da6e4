"""Running one invocation, and turning what it gave back into functionResponse parts.

Whatever a tool does — return, raise ``ToolError``, raise something unexpected — the
model gets text it can act on and never a traceback (that goes to the log). Only task
cancellation passes through: the scheduler owns what a cancelled call answers.
"""

from __future__ import annotations

import logging

from msgspec import Struct
from msgspec.structs import replace

from gemtui.bus.bus import EventBus
from gemtui.bus.events import TodosUpdated, ToolOutput
from gemtui.scheduler.output_fit import fit_error, fit_result, too_long
from gemtui.tools.base import ToolContext, ToolError, ToolInvocation, ToolResult
from gemtui.tools.offload import run_off_loop
from gemtui.wire import FunctionCall, FunctionResponse, Part

__all__ = [
    "CANCELLED_MESSAGE",
    "ExecutionOutcome",
    "PartialOutput",
    "calls_refused",
    "cancelled_with_output",
    "error_parts",
    "execute_invocation",
    "result_parts",
]

log = logging.getLogger(__name__)

CANCELLED_MESSAGE = "Cancelled by the user."


class ExecutionOutcome(Struct, frozen=True):
    """A finished run: ``error`` set means the call failed (``result`` may still be set)."""

    result: ToolResult | None
    error: str | None = None


class PartialOutput:
    """What a running call has printed so far (its tail), so that a cancel keeps it: the
    person saw it on the card and the model should read it too, marked as cut."""

    LIMIT = 16_000
    """Characters kept (the tail: where a command stood when it was stopped)."""

    def __init__(self) -> None:
        self._text = ""
        self._dropped = 0

    def add(self, text: str) -> None:
        self._text += text
        if len(self._text) > 2 * self.LIMIT:  # trim in steps, not on every chunk
            cut = len(self._text) - self.LIMIT
            self._text, self._dropped = self._text[cut:], self._dropped + cut

    def text(self) -> str:
        """The output received, the earlier part left out when it was long."""
        text = self._text
        dropped = self._dropped
        if len(text) > self.LIMIT:
            dropped += len(text) - self.LIMIT
            text = text[-self.LIMIT :]
        return f"[… {dropped} earlier characters left out]\n{text}" if dropped else text


def cancelled_with_output(partial: str) -> tuple[str, str]:
    """(what the model reads, what the card shows) for a call stopped after it printed."""
    shown = partial.rstrip("\n") + "\n⊘ cut here: cancelled by the user"
    told = (
        f"{CANCELLED_MESSAGE} It was stopped while running; the output it had printed "
        f"until then follows, cut where it stopped:\n{partial.rstrip()}\n[cut]"
    )
    return told, shown


def _context_for(
    ctx: ToolContext, bus: EventBus, call_id: str, partial: PartialOutput | None = None
) -> ToolContext:
    """A copy of ``ctx`` whose live output is published as this call's ToolOutput."""
    downstream = ctx.on_output

    def on_output(text: str) -> None:
        bus.emit(ToolOutput, call_id=call_id, text=text)
        if partial is not None:
            partial.add(text)
        if downstream is not None:
            downstream(text)

    return replace(ctx, on_output=on_output, call_id=call_id)


async def execute_invocation(
    invocation: ToolInvocation,
    ctx: ToolContext,
    bus: EventBus,
    call_id: str,
    partial: PartialOutput | None = None,
) -> ExecutionOutcome:
    """Run ``invocation``; raises only ``asyncio.CancelledError`` (what it printed until
    then is in ``partial``). Whatever it gave back is cut to ``ctx.output_limit`` here,
    the whole of it saved to a file (``output_fit``): one rule for every tool."""
    name = invocation.tool.name
    try:
        result = await invocation.execute(_context_for(ctx, bus, call_id, partial))
    except ToolError as e:
        return ExecutionOutcome(None, fit_error(str(e), ctx, call_id) or f"{name} failed.")
    except Exception as e:  # a tool bug must not end the turn; the model gets one line
        log.exception("tool %s raised", name)
        detail = str(e) or type(e).__name__
        return ExecutionOutcome(None, f"{name} failed unexpectedly: {detail}")
    if not isinstance(result, ToolResult):
        log.error("tool %s returned %r instead of a ToolResult", name, type(result))
        return ExecutionOutcome(None, f"{name} failed unexpectedly: it returned no result.")
    if too_long(result, ctx.output_limit):
        done = result
        result = await run_off_loop(lambda _: fit_result(done, ctx, call_id), name="gemtui-fit")
    todos = result.data.get("todos")
    if result.error is None and isinstance(todos, list | tuple):
        bus.emit(TodosUpdated, todos=tuple(dict(t) for t in todos if isinstance(t, dict)))
    return ExecutionOutcome(result, result.error)


def _response(call_id: str, name: str, response: dict[str, str]) -> Part:
    return Part(function_response=FunctionResponse(id=call_id, name=name, response=response))


def error_parts(call_id: str, name: str, message: str) -> list[Part]:
    """A refused, rejected, failed or cancelled call, as the model reads it."""
    return [_response(call_id, name, {"error": message})]


def calls_refused(calls: list[FunctionCall], why: str) -> list[Part]:
    """Each call answered with ``why`` as its error (a call without an id by its name)."""
    return [p for c in calls for p in error_parts(c.id or c.name, c.name, why)]


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
