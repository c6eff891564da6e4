"""Render a step as the Gemini API (and Code Assist) put it on the wire.

Shapes follow the real service: thought parts carry ``thought: true``, the last chunk holds
``finishReason`` and the full ``usageMetadata`` (usually with only ``{"text": ""}``), and
Code Assist wraps each chunk as ``{"response": chunk, "traceId": ...}``.
"""

from __future__ import annotations

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
    dumps,
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
    "stream_frames",
]

MODELS = ("gemini-2.5-pro", "gemini-2.5-flash", "gemini-2.5-flash-lite")

STATUS_NAMES = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    409: "ABORTED",
    429: "RESOURCE_EXHAUSTED",
    499: "CANCELLED",
    500: "INTERNAL",
    501: "NOT_IMPLEMENTED",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}

# The real API sends these finish reasons on a candidate without any content.
_NO_CONTENT = frozenset({"SAFETY", "MALFORMED_FUNCTION_CALL", "RECITATION", "PROHIBITED_CONTENT"})

_RPC = "type.googleapis.com/google.rpc."


def encode(frame: Frame) -> bytes:
    return ("data: " + frame.data + "\r\n\r\n").encode()


def estimate(body: Any, *, code_assist: bool = False) -> int:
    """Prompt estimate of a generate or countTokens request, envelope or not."""
    if not isinstance(body, dict):
        return 0
    if code_assist or "request" in body:
        body = body.get("request") or {}
    if isinstance(body, dict) and "generateContentRequest" in body:
        body = body["generateContentRequest"]
    return estimate_tokens(body, gemini=True)


def usage_metadata(u: ResolvedUsage) -> dict[str, Any]:
    meta: dict[str, Any] = {
        "promptTokenCount": u.prompt,
        "candidatesTokenCount": u.output,
        "totalTokenCount": u.total,
    }
    if u.cached is not None:
        meta["cachedContentTokenCount"] = u.cached
    if u.thoughts_given:
        meta["thoughtsTokenCount"] = u.thoughts
    return meta


def _call_part(call: FunctionCall) -> dict[str, Any]:
    fc: dict[str, Any] = {}
    if call.id is not None:
        fc["id"] = call.id
    fc["name"] = call.name
    fc["args"] = call.args
    part: dict[str, Any] = {"functionCall": fc}
    if call.thought_signature is not None:
        part["thoughtSignature"] = call.thought_signature
    return part


def _wrap(chunk: dict[str, Any], ctx: Ctx) -> dict[str, Any]:
    if ctx.code_assist:
        return {"response": chunk, "traceId": f"mock-trace-{ctx.request_no}"}
    return chunk


def _chunk(candidate: dict[str, Any] | None, usage: dict[str, Any], ctx: Ctx) -> dict[str, Any]:
    chunk: dict[str, Any] = {}
    if candidate is not None:
        chunk["candidates"] = [candidate]
    chunk["usageMetadata"] = usage
    chunk["modelVersion"] = ctx.model
    chunk["responseId"] = f"mock-{ctx.request_no}"
    return chunk


def _final_candidate(step: Step, parts: list[dict[str, Any]]) -> dict[str, Any]:
    cand: dict[str, Any] = {}
    if not (step.finish_reason in _NO_CONTENT and parts == [{"text": ""}]):
        cand["content"] = {"parts": parts, "role": "model"}
    if step.finish_reason is not None:
        cand["finishReason"] = step.finish_reason
    if step.grounding is not None:
        cand["groundingMetadata"] = step.grounding
    if step.citations is not None:
        cand["citationMetadata"] = step.citations
    cand["index"] = 0
    return cand


def stream_frames(step: Step, ctx: Ctx) -> list[Frame]:
    if step.raw_chunks is not None:
        return raw_frames(step)
    usage = resolve_usage(step, ctx.prompt_tokens)
    full = usage_metadata(usage)
    if step.fault == "no_candidates":
        return [Frame(dumps(_wrap(_chunk(None, full, ctx), ctx)))]
    partial = {"promptTokenCount": usage.prompt, "totalTokenCount": usage.prompt}
    pieces = plan(step)
    calls = pieces.pop() if pieces and pieces[-1].calls else None

    def template(part: dict[str, Any]) -> Template:
        cand: dict[str, Any] = {"content": {"parts": [part], "role": "model"}, "index": 0}
        if step.grounding is not None:
            cand["groundingMetadata"] = {}
        return Template.of(_wrap(_chunk(cand, partial, ctx), ctx))

    thought_t = template({"text": SENTINEL, "thought": True})
    text_t = template({"text": SENTINEL})
    frames = [
        Frame(thought_t.fill(p.thought), tokens=p.tokens)
        if p.thought
        else Frame(text_t.fill(p.text), tokens=p.tokens, text=True)
        for p in pieces
    ]
    parts = [_call_part(c) for c in calls.calls] if calls else [{"text": ""}]
    last = _chunk(_final_candidate(step, parts), full, ctx)
    frames.append(Frame(dumps(_wrap(last, ctx))))
    return frames


def response(step: Step, ctx: Ctx) -> dict[str, Any]:
    """The merged, non-streaming ``generateContent`` answer."""
    full = usage_metadata(resolve_usage(step, ctx.prompt_tokens))
    if step.fault == "no_candidates":
        return _wrap(_chunk(None, full, ctx), ctx)
    parts: list[dict[str, Any]] = []
    if step.thought:
        parts.append({"text": step.thought, "thought": True})
    if step.text:
        parts.append({"text": step.text})
    parts.extend(_call_part(c) for c in step.function_calls)
    return _wrap(_chunk(_final_candidate(step, parts or [{"text": ""}]), full, ctx), ctx)


def error_body(spec: ErrorSpec) -> dict[str, Any]:
    """Google's error shape, with only the details the step asked for."""
    details: list[dict[str, Any]] = []
    if spec.retry_delay is not None:
        details.append({"@type": _RPC + "RetryInfo", "retryDelay": spec.retry_delay})
    if spec.reason is not None or spec.quota_reset_delay is not None:
        info: dict[str, Any] = {"@type": _RPC + "ErrorInfo"}
        if spec.reason is not None:
            info["reason"] = spec.reason
            info["domain"] = "googleapis.com"
        if spec.quota_reset_delay is not None:
            info["metadata"] = {"quotaResetDelay": spec.quota_reset_delay}
        details.append(info)
    if spec.quota_id is not None:
        violation: dict[str, Any] = {"quotaId": spec.quota_id}
        if spec.quota_metric is not None:
            violation["quotaMetric"] = spec.quota_metric
        if spec.quota_dimensions is not None:
            violation["quotaDimensions"] = spec.quota_dimensions
        if spec.quota_value is not None:
            violation["quotaValue"] = spec.quota_value
        details.append({"@type": _RPC + "QuotaFailure", "violations": [violation]})
    err: dict[str, Any] = {
        "code": spec.status,
        "message": spec.text,
        "status": STATUS_NAMES.get(spec.status, "UNKNOWN"),
    }
    if details:
        err["details"] = details
    return {"error": err}


def models_list() -> dict[str, Any]:
    return {
        "models": [
            {
                "name": f"models/{m}",
                "version": "001",
                "displayName": m,
                "inputTokenLimit": 1_048_576,
                "outputTokenLimit": 65_536,
                "supportedGenerationMethods": ["generateContent", "countTokens"],
            }
            for m in MODELS
        ]
    }
