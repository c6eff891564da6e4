"""Render a step as the Anthropic Messages API streams it.

Every frame has an ``event:`` line (SDKs drop events without one) and JSON padded with
spaces; a thinking block ends with an empty ``thinking_delta`` then a ``signature_delta``;
tool input streams as ``input_json_delta`` fragments after a ``tool_use`` start with
``input: {}``.
"""

from __future__ import annotations

import base64
import json
from typing import Any

from gemtui.testing.script import (
    SENTINEL,
    Ctx,
    ErrorSpec,
    Frame,
    FunctionCall,
    ResolvedUsage,
    Step,
    Template,
    estimate_tokens,
    plan,
    raw_frames,
    resolve_usage,
)

__all__ = [
    "MODELS",
    "encode",
    "error_body",
    "estimate",
    "models_list",
    "response",
    "stop_reason",
    "stream_frames",
]

MODELS = ("claude-sonnet-4-5", "claude-opus-4-1", "claude-haiku-4-5")

_STOP = {
    "STOP": "end_turn",
    "MAX_TOKENS": "max_tokens",
    "SAFETY": "refusal",
    "PROHIBITED_CONTENT": "refusal",
    "MALFORMED_FUNCTION_CALL": "end_turn",
}
_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}


def _spaced(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False)


def encode(frame: Frame) -> bytes:
    return ("event: " + (frame.event or "message") + "\ndata: " + frame.data + "\n\n").encode()


def estimate(body: Any) -> int:
    return estimate_tokens(body, gemini=False)


def stop_reason(step: Step) -> str | None:
    if step.finish_reason is None:
        return None
    if step.function_calls and step.finish_reason == "STOP":
        return "tool_use"
    return _STOP.get(step.finish_reason, step.finish_reason.lower())


def _signature(ctx: Ctx) -> str:
    return base64.b64encode(f"mock-signature-{ctx.request_no}".encode()).decode()


def _tool_id(call: FunctionCall, ctx: Ctx, i: int) -> str:
    return call.id if call.id is not None else f"toolu_mock_{ctx.request_no}_{i}"


def _usage(u: ResolvedUsage, *, output: int) -> dict[str, Any]:
    usage: dict[str, Any] = {"input_tokens": u.prompt, "output_tokens": output}
    if u.cached is not None:
        usage["cache_read_input_tokens"] = u.cached
    return usage


def _message(
    step: Step, ctx: Ctx, content: list[dict[str, Any]], usage: dict[str, Any]
) -> dict[str, Any]:
    return {
        "id": f"msg_mock_{ctx.request_no}",
        "type": "message",
        "role": "assistant",
        "model": ctx.model,
        "content": content,
        "stop_reason": None,
        "stop_sequence": None,
        "usage": usage,
    }


def stream_frames(step: Step, ctx: Ctx) -> list[Frame]:
    if step.raw_chunks is not None:
        return raw_frames(step, lambda raw: raw.get("type") if isinstance(raw, dict) else None)
    u = resolve_usage(step, ctx.prompt_tokens)

    def ev(name: str, obj: dict[str, Any], tokens: int = 0) -> Frame:
        return Frame(_spaced(obj), name, tokens)

    start = {"type": "message_start", "message": _message(step, ctx, [], _usage(u, output=1))}
    frames = [ev("message_start", start)]
    if step.fault == "no_candidates":
        frames.append(ev("message_stop", {"type": "message_stop"}))
        return frames
    frames.append(ev("ping", {"type": "ping"}))
    pieces = plan(step)
    index = 0

    def block(kind: str, first: dict[str, Any], deltas: list[Frame]) -> None:
        nonlocal index
        head = {"type": "content_block_start", "index": index, "content_block": first}
        frames.append(ev("content_block_start", head))
        frames.extend(deltas)
        frames.append(ev("content_block_stop", {"type": "content_block_stop", "index": index}))
        index += 1

    def delta_template(delta_type: str, key: str) -> Template:
        delta = {"type": delta_type, key: SENTINEL}
        return Template.of({"type": "content_block_delta", "index": index, "delta": delta}, _spaced)

    def delta(obj: dict[str, Any]) -> Frame:
        return ev(
            "content_block_delta", {"type": "content_block_delta", "index": index, "delta": obj}
        )

    thoughts = [p for p in pieces if p.thought]
    if thoughts:
        t = delta_template("thinking_delta", "thinking")
        deltas = [Frame(t.fill(p.thought), "content_block_delta", p.tokens) for p in thoughts]
        deltas.append(delta({"type": "thinking_delta", "thinking": ""}))
        deltas.append(delta({"type": "signature_delta", "signature": _signature(ctx)}))
        block("thinking", {"type": "thinking", "thinking": "", "signature": ""}, deltas)
    texts = [p for p in pieces if p.text]
    if texts:
        t = delta_template("text_delta", "text")
        deltas = [Frame(t.fill(p.text), "content_block_delta", p.tokens, True) for p in texts]
        block("text", {"type": "text", "text": ""}, deltas)
    for i, call in enumerate(step.function_calls):
        text = json.dumps(call.args, ensure_ascii=False)
        mid = max(1, len(text) // 2)
        deltas = [
            delta({"type": "input_json_delta", "partial_json": frag})
            for frag in ("", text[:mid], text[mid:])
        ]
        first = {"type": "tool_use", "id": _tool_id(call, ctx, i), "name": call.name, "input": {}}
        block("tool_use", first, deltas)
    message_delta = {
        "type": "message_delta",
        "delta": {"stop_reason": stop_reason(step), "stop_sequence": None},
        "usage": {"output_tokens": u.output + u.thoughts},
    }
    frames.append(ev("message_delta", message_delta))
    frames.append(ev("message_stop", {"type": "message_stop"}))
    return frames


def response(step: Step, ctx: Ctx) -> dict[str, Any]:
    """A non-streaming ``message`` object."""
    u = resolve_usage(step, ctx.prompt_tokens)
    content: list[dict[str, Any]] = []
    if step.fault != "no_candidates":
        if step.thought:
            content.append(
                {"type": "thinking", "thinking": step.thought, "signature": _signature(ctx)}
            )
        if step.text:
            content.append({"type": "text", "text": step.text})
        for i, c in enumerate(step.function_calls):
            content.append(
                {"type": "tool_use", "id": _tool_id(c, ctx, i), "name": c.name, "input": c.args}
            )
    msg = _message(step, ctx, content, _usage(u, output=u.output + u.thoughts))
    msg["stop_reason"] = stop_reason(step)
    return msg


def error_body(spec: ErrorSpec) -> dict[str, Any]:
    kind = spec.reason or _TYPES.get(spec.status, "api_error")
    return {"type": "error", "error": {"type": kind, "message": spec.text}}


def models_list() -> dict[str, Any]:
    data = [
        {"type": "model", "id": m, "display_name": m, "created_at": "2025-01-01T00:00:00Z"}
        for m in MODELS
    ]
    return {"data": data, "has_more": False, "first_id": MODELS[0], "last_id": MODELS[-1]}
