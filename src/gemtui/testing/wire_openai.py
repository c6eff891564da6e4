"""Render a step as an OpenAI-compatible chat-completions server streams it.

Tool calls arrive keyed by ``index`` with id and name first and the arguments as string
fragments after; thoughts come as ``reasoning_content`` (what vLLM, llama.cpp and Ollama
send); ``stream_options.include_usage`` adds ``"usage": null`` everywhere and a final
usage chunk with ``choices: []``; ``data: [DONE]`` ends the stream.
"""

from __future__ import annotations

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
    "finish_reason",
    "models_list",
    "response",
    "stream_frames",
]

MODELS = ("mock-model", "qwen3-coder", "gpt-4o-mini")
CREATED = 1_700_000_000  # fixed, so rendered frames are reproducible

_FINISH = {
    "STOP": "stop",
    "MAX_TOKENS": "length",
    "SAFETY": "content_filter",
    "RECITATION": "content_filter",
    "PROHIBITED_CONTENT": "content_filter",
    "MALFORMED_FUNCTION_CALL": "stop",
}
_TYPES = {
    400: "invalid_request_error",
    401: "invalid_request_error",
    403: "permission_error",
    404: "invalid_request_error",
    429: "requests",
}
_CODES = {401: "invalid_api_key", 404: "model_not_found", 429: "rate_limit_exceeded"}


def encode(frame: Frame) -> bytes:
    return ("data: " + frame.data + "\n\n").encode()


def estimate(body: Any) -> int:
    return estimate_tokens(body, gemini=False)


def finish_reason(step: Step) -> str | None:
    if step.finish_reason is None:
        return None
    if step.function_calls and step.finish_reason == "STOP":
        return "tool_calls"
    return _FINISH.get(step.finish_reason, step.finish_reason.lower())


def usage_dict(u: ResolvedUsage) -> dict[str, Any]:
    usage: dict[str, Any] = {
        "prompt_tokens": u.prompt,
        "completion_tokens": u.output + u.thoughts,
        "total_tokens": u.total,
    }
    if u.thoughts_given:
        usage["completion_tokens_details"] = {"reasoning_tokens": u.thoughts}
    if u.cached is not None:
        usage["prompt_tokens_details"] = {"cached_tokens": u.cached}
    return usage


def _call_id(call: FunctionCall, ctx: Ctx, i: int) -> str:
    return call.id if call.id is not None else f"call_mock_{ctx.request_no}_{i}"


def _fragments(args: dict[str, Any]) -> list[str]:
    """Split the JSON arguments into two fragments, as streaming servers do."""
    text = json.dumps(args, ensure_ascii=False)
    mid = max(1, len(text) // 2)
    return [text[:mid], text[mid:]]


def stream_frames(step: Step, ctx: Ctx) -> list[Frame]:
    if step.raw_chunks is not None:
        return raw_frames(step)
    usage = usage_dict(resolve_usage(step, ctx.prompt_tokens))
    base: dict[str, Any] = {
        "id": f"chatcmpl-mock-{ctx.request_no}",
        "object": "chat.completion.chunk",
        "created": CREATED,
        "model": ctx.model,
        "system_fingerprint": "fp_mock",
    }

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
        out = {**base, "choices": [choice]}
        if ctx.include_usage:
            out["usage"] = None
        return out

    frames: list[Frame] = []
    if step.fault != "no_candidates":
        frames.append(Frame(dumps(chunk({"role": "assistant", "content": ""}))))
        thought_t = Template.of(chunk({"reasoning_content": SENTINEL}))
        text_t = Template.of(chunk({"content": SENTINEL}))
        for p in plan(step):
            if p.thought:
                frames.append(Frame(thought_t.fill(p.thought), tokens=p.tokens))
            elif p.text:
                frames.append(Frame(text_t.fill(p.text), tokens=p.tokens, text=True))
        for i, call in enumerate(step.function_calls):
            fn = {"name": call.name, "arguments": ""}
            head = {"index": i, "id": _call_id(call, ctx, i), "type": "function", "function": fn}
            frames.append(Frame(dumps(chunk({"tool_calls": [head]}))))
            for frag in _fragments(call.args):
                delta = {"tool_calls": [{"index": i, "function": {"arguments": frag}}]}
                frames.append(Frame(dumps(chunk(delta))))
        finish = finish_reason(step)
        if finish is not None:
            frames.append(Frame(dumps(chunk({}, finish))))
    if ctx.include_usage or step.fault == "no_candidates":
        last = {**base, "choices": []}
        if ctx.include_usage:
            last["usage"] = usage
        frames.append(Frame(dumps(last)))
    frames.append(Frame("[DONE]"))
    return frames


def response(step: Step, ctx: Ctx) -> dict[str, Any]:
    """A non-streaming ``chat.completion`` object."""
    usage = usage_dict(resolve_usage(step, ctx.prompt_tokens))
    out: dict[str, Any] = {
        "id": f"chatcmpl-mock-{ctx.request_no}",
        "object": "chat.completion",
        "created": CREATED,
        "model": ctx.model,
        "choices": [],
        "usage": usage,
    }
    if step.fault == "no_candidates":
        return out
    message: dict[str, Any] = {"role": "assistant", "content": step.text, "refusal": None}
    if step.thought:
        message["reasoning_content"] = step.thought
    if step.function_calls:
        message["tool_calls"] = [
            {
                "id": _call_id(c, ctx, i),
                "type": "function",
                "function": {"name": c.name, "arguments": json.dumps(c.args, ensure_ascii=False)},
            }
            for i, c in enumerate(step.function_calls)
        ]
    choice = {
        "index": 0,
        "message": message,
        "logprobs": None,
        "finish_reason": finish_reason(step),
    }
    out["choices"] = [choice]
    return out


def error_body(spec: ErrorSpec) -> dict[str, Any]:
    kind = spec.reason or _TYPES.get(spec.status, "server_error")
    code = spec.reason or _CODES.get(spec.status)
    return {"error": {"message": spec.text, "type": kind, "param": None, "code": code}}


def models_list() -> dict[str, Any]:
    return {
        "object": "list",
        "data": [
            {"id": m, "object": "model", "created": CREATED, "owned_by": "mock"} for m in MODELS
        ],
    }
