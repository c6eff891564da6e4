"""Pure mapping between Gemini-shaped requests/responses and OpenAI chat completions.

No I/O here, so every rule is unit-testable: roles (user→user, model→assistant,
functionResponse→``tool`` with the call's id), tool declarations as JSON Schema with
Gemini's upper-case types lowered, and a stream state that reassembles ``tool_calls``
deltas by index and turns ``reasoning_content`` and ``<think>`` into thought parts.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict, deque
from typing import Any, Protocol

from msgspec import Struct, field

from gemtui.providers.sse import check_held
from gemtui.providers.text_tools import function_response_text
from gemtui.providers.think_tags import ThinkSplitter
from gemtui.providers.tool_call_text import WholeTextCalls
from gemtui.wire import (
    Candidate,
    Content,
    FunctionCall,
    FunctionDeclaration,
    GenerateContentRequest,
    GenerateContentResponse,
    Part,
    UsageMetadata,
)

__all__ = [
    "CallIds",
    "OpenAIStream",
    "declarations_of",
    "finish_from_openai",
    "from_openai_completion",
    "normalize_schema",
    "system_text",
    "to_openai_request",
    "usage_from_openai",
]

_FINISH = {
    "stop": "STOP",
    "length": "MAX_TOKENS",
    "tool_calls": "STOP",
    "function_call": "STOP",
    "content_filter": "SAFETY",
}
_TOOL_CHOICE = {"ANY": "required", "NONE": "none", "AUTO": "auto"}


def normalize_schema(schema: Any) -> Any:
    """JSON Schema with Gemini's upper-case ``type`` values ("STRING", "OBJECT") lowered."""
    if isinstance(schema, dict):
        out: dict[str, Any] = {}
        for key, value in schema.items():
            if key == "type" and isinstance(value, str):
                out[key] = value.lower()
            elif key == "type" and isinstance(value, list):
                out[key] = [v.lower() if isinstance(v, str) else v for v in value]
            else:
                out[key] = normalize_schema(value)
        return out
    if isinstance(schema, list):
        return [normalize_schema(v) for v in schema]
    return schema


def declarations_of(request: GenerateContentRequest) -> list[FunctionDeclaration]:
    return [d for t in request.tools or [] for d in t.function_declarations or []]


def parameters_of(decl: FunctionDeclaration) -> dict[str, Any]:
    schema = decl.parameters_json_schema or decl.parameters
    if not schema:
        return {"type": "object", "properties": {}}
    out = normalize_schema(schema)
    out.setdefault("type", "object")
    return dict(out)


def system_text(request: GenerateContentRequest) -> str:
    si = request.system_instruction
    return "\n\n".join(p.text for p in si.parts if p.text) if si else ""


class CallIds:
    """Ids for calls and results, so a result always names its call.

    A call without an id gets one; a result without an id takes the oldest unanswered
    call of the same name. ``sanitize`` lets an API with an id pattern reuse the mapping.
    """

    def __init__(self, prefix: str = "call", sanitize: Any = None) -> None:
        self._prefix = prefix
        self._sanitize = sanitize or (lambda s: s)
        self._open: dict[str, deque[str]] = defaultdict(deque)
        self._n = 0

    def for_call(self, call: FunctionCall) -> str:
        self._n += 1
        cid = self._sanitize(call.id or f"{self._prefix}_{self._n}_{call.name}")
        self._open[call.name].append(cid)
        return str(cid)

    def for_result(self, rid: str | None, name: str) -> str:
        pending = self._open.get(name)
        if rid:
            cid = str(self._sanitize(rid))
            if pending and cid in pending:
                pending.remove(cid)
            return cid
        if pending:
            return pending.popleft()
        self._n += 1
        return str(self._sanitize(f"{self._prefix}_{self._n}_{name}"))


def _data_url(part: Part) -> str:
    assert part.inline_data is not None
    return f"data:{part.inline_data.mime_type};base64,{part.inline_data.data}"


def _user_messages(content: Content, ids: CallIds) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    blocks: list[dict[str, Any]] = []
    for part in content.parts:
        fr = part.function_response
        if fr is not None:
            out.append(
                {
                    "role": "tool",
                    "tool_call_id": ids.for_result(fr.id, fr.name),
                    "content": function_response_text(fr),
                }
            )
        elif part.thought:
            continue
        elif part.text is not None:
            if part.text:
                blocks.append({"type": "text", "text": part.text})
        elif part.inline_data is not None:
            blocks.append({"type": "image_url", "image_url": {"url": _data_url(part)}})
        elif part.file_data is not None:
            blocks.append({"type": "text", "text": f"[file: {part.file_data.file_uri}]"})
    if blocks:
        if all(b["type"] == "text" for b in blocks):
            out.append({"role": "user", "content": "".join(b["text"] for b in blocks)})
        else:
            out.append({"role": "user", "content": blocks})
    return out


def _assistant_message(content: Content, ids: CallIds) -> dict[str, Any] | None:
    texts: list[str] = []
    calls: list[dict[str, Any]] = []
    for part in content.parts:
        if part.thought:
            continue  # reasoning is not sent back: servers reject or ignore it
        if part.function_call is not None:
            fc = part.function_call
            calls.append(
                {
                    "id": ids.for_call(fc),
                    "type": "function",
                    "function": {
                        "name": fc.name,
                        "arguments": json.dumps(fc.args, ensure_ascii=False),
                    },
                }
            )
        elif part.text:
            texts.append(part.text)
    if not texts and not calls:
        return None
    message: dict[str, Any] = {"role": "assistant", "content": "".join(texts) or None}
    if calls:
        message["tool_calls"] = calls
    return message


def to_openai_request(
    request: GenerateContentRequest, model: str, *, stream: bool = True
) -> dict[str, Any]:
    """The chat-completions body for ``request`` (nothing Gemini-only survives)."""
    messages: list[dict[str, Any]] = []
    system = system_text(request)
    if system:
        messages.append({"role": "system", "content": system})
    ids = CallIds()
    for content in request.contents:
        if content.role == "model":
            msg = _assistant_message(content, ids)
            if msg is not None:
                messages.append(msg)
        else:
            messages.extend(_user_messages(content, ids))
    body: dict[str, Any] = {"model": model, "messages": messages, "stream": stream}
    if stream:
        body["stream_options"] = {"include_usage": True}
    decls = declarations_of(request)
    if decls:
        body["tools"] = [
            {
                "type": "function",
                "function": {
                    "name": d.name,
                    "description": d.description,
                    "parameters": parameters_of(d),
                },
            }
            for d in decls
        ]
        fcc = request.tool_config.function_calling_config if request.tool_config else None
        if fcc is not None and fcc.mode in _TOOL_CHOICE:
            body["tool_choice"] = _TOOL_CHOICE[fcc.mode]
    cfg = request.generation_config
    if cfg is not None:
        for src, dst in (
            (cfg.temperature, "temperature"),
            (cfg.top_p, "top_p"),
            (cfg.max_output_tokens, "max_tokens"),
            (cfg.stop_sequences, "stop"),
        ):
            if src is not None:
                body[dst] = src
        wanted = cfg.response_json_schema or cfg.response_schema
        if wanted is not None:
            schema = normalize_schema(wanted)
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "response", "schema": schema},
            }
        elif cfg.response_mime_type == "application/json":
            body["response_format"] = {"type": "json_object"}
    return body


# -- responses --------------------------------------------------------------------------


def finish_from_openai(reason: str | None) -> str | None:
    if reason is None:
        return None
    return _FINISH.get(reason, "OTHER")


def usage_from_openai(usage: dict[str, Any]) -> UsageMetadata:
    """Gemini counts thoughts apart from candidates; OpenAI includes them in completion."""
    prompt = int(usage.get("prompt_tokens") or 0)
    completion = int(usage.get("completion_tokens") or 0)
    details = usage.get("completion_tokens_details") or {}
    reasoning = int(details.get("reasoning_tokens") or 0) if isinstance(details, dict) else 0
    cached_details = usage.get("prompt_tokens_details") or {}
    cached = cached_details.get("cached_tokens") if isinstance(cached_details, dict) else None
    return UsageMetadata(
        prompt_token_count=prompt,
        candidates_token_count=max(0, completion - reasoning),
        thoughts_token_count=reasoning or None,
        cached_content_token_count=int(cached) if cached is not None else None,
        total_token_count=int(usage.get("total_tokens") or prompt + completion),
    )


def _parse_args(text: str) -> dict[str, Any] | None:
    if not text.strip():
        return {}
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


class _PendingCall(Struct):
    id: str | None = None
    name: str = ""
    arguments: list[str] = field(default_factory=list)


class LoopWatch(Protocol):
    """The stream loop check (``agent.stream_loop``), as the provider sees it."""

    def feed(self, text: str) -> str | None:
        """Take the next piece of text; a message once it is looping."""
        ...


class OpenAIStream(Struct):
    """State of one streamed completion: feed each chunk, then ``final()``."""

    think: ThinkSplitter = field(default_factory=ThinkSplitter)
    calls: dict[int, _PendingCall] = field(default_factory=dict)
    finish: str | None = None
    usage: UsageMetadata | None = None
    held: int = 0
    """Characters of call arguments held until the end (bounded by ``check_held``)."""
    call_names: list[str] | None = None
    """The declared tools: a message whose text is nothing but calls to them (as Qwen and
    Hermes templates answer through llama.cpp and vLLM) becomes those calls."""
    text_calls: WholeTextCalls | None = None
    watch: LoopWatch | None = None
    """Sees the text held back as a possible call (all of it, under a grammar): a model
    looping there (llama.cpp's 0.5B wrote whitespace until its window filled) would never
    reach the screen's loop check, so the held text is let through once it loops, for
    that check to cut (it sees the same repeats, escaped)."""
    _escape: str = field(default="")
    """A backslash that ended the last held piece (its escape comes with the next)."""

    def __post_init__(self) -> None:
        if self.call_names and self.text_calls is None:
            self.text_calls = WholeTextCalls(self.call_names)

    def feed(self, chunk: dict[str, Any]) -> list[Part]:
        parts: list[Part] = []
        for choice in chunk.get("choices") or []:
            if not isinstance(choice, dict):
                continue
            delta = choice.get("delta") or choice.get("message") or {}
            reasoning = delta.get("reasoning_content") or delta.get("reasoning")
            if isinstance(reasoning, str) and reasoning:
                parts.append(Part(text=reasoning, thought=True))
            content = delta.get("content")
            if isinstance(content, str) and content:
                parts.extend(self._visible(self.think.feed(content)))
            for tc in delta.get("tool_calls") or []:
                self._add_call(tc)
            if choice.get("finish_reason"):
                self.finish = choice["finish_reason"]
        usage = chunk.get("usage")
        if isinstance(usage, dict):
            self.usage = usage_from_openai(usage)
        return parts

    def _add_call(self, tc: dict[str, Any]) -> None:
        index = tc.get("index", len(self.calls))
        pending = self.calls.setdefault(int(index), _PendingCall())
        if tc.get("id") and not pending.id:
            pending.id = tc["id"]
        fn = tc.get("function") or {}
        if fn.get("name") and not pending.name:
            pending.name = fn["name"]
        args = fn.get("arguments")
        if isinstance(args, dict):  # some servers send parsed arguments
            args = json.dumps(args)
        if isinstance(args, str):
            pending.arguments.append(args)
            self.held += len(args)
            check_held(self.held)

    def final(self) -> GenerateContentResponse:
        """Held-back text, the reassembled calls, finish reason and usage."""
        parts = self._visible(self.think.flush())
        finish = finish_from_openai(self.finish)
        malformed = False
        calls: list[Part] = []
        for index in sorted(self.calls):
            pending = self.calls[index]
            args = _parse_args("".join(pending.arguments))
            if args is None or not pending.name:
                malformed = True
                continue
            calls.append(
                Part(function_call=FunctionCall(id=pending.id, name=pending.name, args=args))
            )
        if self.text_calls is not None:
            held, text_calls = self.text_calls.finish(
                accept=not self.calls, cut_off=finish == "MAX_TOKENS"
            )
            if held:
                parts.append(Part(text=held))
            for name, args in text_calls:
                calls.append(Part(function_call=FunctionCall(name=name, args=args)))
        if malformed:
            finish = "MALFORMED_FUNCTION_CALL"  # the chat retries; a half call never runs
        else:
            parts.extend(calls)
        return make_response(parts, finish, self.usage)

    def _visible(self, pieces: list[tuple[bool, str]]) -> list[Part]:
        """Thought and text parts; text passes the whole-text call check when tools are
        declared."""
        if self.text_calls is None:
            return _pieces(pieces)
        out: list[Part] = []
        for is_thought, text in pieces:
            shown = text if is_thought else self.text_calls.feed(text)
            if not is_thought and self._loops_held(text):
                shown = self.text_calls.release()
            if shown:
                out.append(Part(text=shown, thought=True) if is_thought else Part(text=shown))
        return out

    def _loops_held(self, text: str) -> bool:
        """Whether ``text``, held back, made the held text a loop. The watch reads JSON
        strings unescaped, so an answer's code and tables are lines (the check lets their
        repeats be), not one long line of escaped ``\\n``."""
        calls = self.text_calls
        if self.watch is None or calls is None or calls.passthrough:
            return False
        text, self._escape = _unescape(self._escape + text)
        return self.watch.feed(text) is not None


_ESCAPED = re.compile(r"\\(.)", re.DOTALL)
_ESCAPES = {"n": "\n", "t": "\t", "r": "", "b": "", "f": ""}


def _unescape(text: str) -> tuple[str, str]:
    """``text`` with JSON escapes read (``\\n`` a line break; ``\\uXXXX`` left as
    letters), and a trailing lone backslash kept for the next piece."""
    trailing = len(text) - len(text.rstrip("\\"))
    held = "\\" if trailing % 2 else ""
    body = text[:-1] if held else text
    return _ESCAPED.sub(lambda m: _ESCAPES.get(m.group(1), m.group(1)), body), held


def _pieces(pieces: list[tuple[bool, str]]) -> list[Part]:
    return [Part(text=t, thought=True) if th else Part(text=t) for th, t in pieces if t]


def make_response(
    parts: list[Part], finish: str | None = None, usage: UsageMetadata | None = None
) -> GenerateContentResponse:
    candidates = None
    if parts or finish is not None:
        content = Content(role="model", parts=parts)
        candidates = [Candidate(content=content, finish_reason=finish, index=0)]
    return GenerateContentResponse(candidates=candidates, usage_metadata=usage)


def from_openai_completion(
    data: dict[str, Any], call_names: list[str] | None = None
) -> GenerateContentResponse:
    """A non-streaming ``chat.completion`` as one response."""
    state = OpenAIStream(call_names=call_names)
    parts: list[Part] = []
    for choice in (data.get("choices") or [])[:1]:
        delta = {"delta": choice.get("message") or {}, "finish_reason": choice.get("finish_reason")}
        parts = state.feed({"choices": [delta]})
    if isinstance(data.get("usage"), dict):
        state.feed({"usage": data["usage"]})
    final = state.final()
    cand = final.candidates[0] if final.candidates else None
    tail = list(cand.content.parts) if cand and cand.content else []
    return make_response(parts + tail, cand.finish_reason if cand else None, final.usage_metadata)
