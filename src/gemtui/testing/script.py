"""The mock server's script: provider-neutral steps, and how a step splits into pieces.

A step says *what* the model answers (text, thoughts, calls, usage, a fault); the wire
modules decide *how* each provider puts it on the wire. Keeping the step neutral lets one
script drive the Gemini, OpenAI and Anthropic clients alike.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

__all__ = [
    "Ctx",
    "ErrorSpec",
    "Frame",
    "FunctionCall",
    "Piece",
    "ResolvedUsage",
    "Step",
    "StepLike",
    "Template",
    "Usage",
    "count_tokens_step",
    "error_step",
    "estimate_tokens",
    "fault_step",
    "filler",
    "load_script",
    "plan",
    "resolve_usage",
    "split_text",
    "text_step",
    "to_step",
    "tool_step",
    "word_count",
]

FaultKind = Literal[
    "reset_before",
    "reset_after",
    "cut_mid_frame",
    "malformed_frame",
    "no_candidates",
    "stall",
    "hold",
]


class _Model(BaseModel):
    # Typos in a script should fail loudly at enqueue time, not silently do nothing.
    model_config = ConfigDict(extra="forbid", frozen=True)


class FunctionCall(_Model):
    """A function call the mock model makes in a scripted step."""

    name: str
    args: dict[str, Any] = Field(default_factory=dict)
    id: str | None = None
    thought_signature: str | None = None


class Usage(_Model):
    """Token counts; any field left out is computed (see ``resolve_usage``)."""

    prompt: int | None = None
    output: int | None = None
    thoughts: int | None = None
    cached: int | None = None
    total: int | None = None


class ErrorSpec(_Model):
    """An HTTP error the mock server answers a step with."""

    status: int = 500
    message: str | None = None
    retry_delay: str | None = None
    quota_reset_delay: str | None = None
    reason: str | None = None
    quota_id: str | None = None
    quota_metric: str | None = None
    quota_dimensions: dict[str, str] | None = None
    quota_value: str | None = None
    headers: dict[str, str] = Field(default_factory=dict)

    @property
    def text(self) -> str:
        return self.message if self.message is not None else f"mock error {self.status}"


class Step(_Model):
    """One scripted model answer (or fault). See the package docstring for each key."""

    text: str | None = None
    thought: str | None = None
    function_calls: list[FunctionCall] = Field(default_factory=list)
    chunks: int = Field(default=1, ge=1)
    chunk_tokens: int | None = Field(default=None, ge=1)
    usage: Usage | None = None
    finish_reason: str | None = "STOP"
    grounding: dict[str, Any] | None = None
    citations: dict[str, Any] | None = None
    raw_chunks: list[Any] | None = None
    tokens_per_second: float | None = Field(default=None, gt=0)
    error: ErrorSpec | None = None
    fault: FaultKind | None = None
    after_chunks: int = Field(default=0, ge=0)
    at: int = Field(default=0, ge=0)
    seconds: float = Field(default=30.0, ge=0)
    endless: bool = False
    count_tokens: int | None = None
    headers: dict[str, str] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _endless_needs_text(self) -> Step:
        if self.endless and (not self.text or self.fault or self.error or self.raw_chunks):
            raise ValueError("an endless step repeats its text: give it text and no fault")
        return self


StepLike = Step | Mapping[str, Any]


def to_step(step: StepLike) -> Step:
    return step if isinstance(step, Step) else Step.model_validate(dict(step))


# -- helpers for building steps in tests ---------------------------------------------------


def filler(words: int, stem: str = "word") -> str:
    """``words`` different words (``word0 word1 …``, each followed by a space): a long
    answer that is not a loop. The same few words over and over are one, and the agent
    cuts such an answer while it streams, so a test after length alone uses this."""
    return "".join(f"{stem}{i} " for i in range(words))


def text_step(text: str, **kw: Any) -> Step:
    return Step(text=text, **kw)


def tool_step(name: str, args: Mapping[str, Any] | None = None, **kw: Any) -> Step:
    """A step answering with one function call (``id``/``thought_signature`` go in ``kw``)."""
    call_keys = {k: kw.pop(k) for k in ("id", "thought_signature") if k in kw}
    call = FunctionCall(name=name, args=dict(args or {}), **call_keys)
    return Step(function_calls=[call], **kw)


def error_step(status: int, message: str | None = None, **kw: Any) -> Step:
    return Step(error=ErrorSpec(status=status, message=message, **kw))


def fault_step(fault: FaultKind, **kw: Any) -> Step:
    return Step(fault=fault, **kw)


def count_tokens_step(n: int) -> Step:
    return Step(count_tokens=n)


def load_script(path: str | Path) -> list[Step]:
    """Read a script file: a JSON list of steps, or JSONL (one step per non-blank line)."""
    raw = Path(path).read_text(encoding="utf-8")
    if raw.lstrip().startswith("["):
        items = json.loads(raw)
    else:
        items = [json.loads(line) for line in raw.splitlines() if line.strip()]
    return [to_step(item) for item in items]


# -- tokens ---------------------------------------------------------------------------------

_TOKEN = re.compile(r"\s*\S+\s*")


def word_count(text: str | None) -> int:
    return len(text.split()) if text else 0


def _tokens(text: str) -> list[str]:
    """Whitespace-delimited words with their trailing whitespace (leading space joins word 1)."""
    toks = _TOKEN.findall(text)
    return toks if toks else [text]


def split_text(text: str, *, chunks: int = 1, chunk_tokens: int | None = None) -> list[str]:
    """Split ``text`` into pieces; linear in its length (a 50,000-token text is routine)."""
    if not text:
        return []
    if chunk_tokens is not None:
        toks = _tokens(text)
        return ["".join(toks[i : i + chunk_tokens]) for i in range(0, len(toks), chunk_tokens)]
    if chunks <= 1:
        return [text]
    toks = _tokens(text)
    if len(toks) >= chunks:
        n = len(toks)
        bounds = [i * n // chunks for i in range(chunks + 1)]
        return ["".join(toks[bounds[i] : bounds[i + 1]]) for i in range(chunks)]
    n = len(text)
    parts = [text[i * n // chunks : (i + 1) * n // chunks] for i in range(chunks)]
    return [p for p in parts if p]


def _compact(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def _char_total(obj: Any) -> int:
    """Characters of every string inside ``obj`` (used for non-Gemini prompt estimates)."""
    if isinstance(obj, str):
        return len(obj)
    if isinstance(obj, Mapping):
        return sum(_char_total(v) for k, v in obj.items() if k not in ("role", "type"))
    if isinstance(obj, list):
        return sum(_char_total(v) for v in obj)
    return 0


def _gemini_chars(contents: Any) -> int:
    if isinstance(contents, str):
        return len(contents)
    if isinstance(contents, Mapping):
        contents = [contents]
    if not isinstance(contents, list):
        return 0
    total = 0
    for content in contents:
        if isinstance(content, str):
            total += len(content)
            continue
        parts = content.get("parts", []) if isinstance(content, Mapping) else []
        for part in parts if isinstance(parts, list) else []:
            if not isinstance(part, Mapping):
                continue
            if isinstance(part.get("text"), str):
                total += len(part["text"])
            for key in ("functionCall", "functionResponse"):
                if key in part:
                    total += len(_compact(part[key]))
    return total


def estimate_tokens(request: Any, *, gemini: bool = True) -> int:
    """Deterministic token estimate: ceil(characters / 4).

    Gemini shape: text, functionCall JSON and functionResponse JSON of ``contents`` and
    ``systemInstruction``. Other shapes: every string in ``messages`` and ``system``.
    """
    if not isinstance(request, Mapping):
        return 0
    if gemini:
        chars = _gemini_chars(request.get("contents")) + _gemini_chars(
            request.get("systemInstruction") or request.get("system_instruction")
        )
    else:
        chars = _char_total(request.get("messages")) + _char_total(request.get("system"))
    return math.ceil(chars / 4)


# -- planning -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Piece:
    """One content chunk of a step: a thought slice, a text slice, or the function calls."""

    thought: str = ""
    text: str = ""
    calls: tuple[FunctionCall, ...] = ()
    tokens: int = 0


def plan(step: Step) -> list[Piece]:
    """Thoughts first, then text, then all function calls together (as Gemini sends them)."""
    pieces: list[Piece] = []
    for part in split_text(step.thought or "", chunks=step.chunks, chunk_tokens=step.chunk_tokens):
        pieces.append(Piece(thought=part, tokens=word_count(part)))
    for part in split_text(step.text or "", chunks=step.chunks, chunk_tokens=step.chunk_tokens):
        pieces.append(Piece(text=part, tokens=word_count(part)))
    if step.function_calls:
        pieces.append(Piece(calls=tuple(step.function_calls)))
    return pieces


@dataclass(frozen=True, slots=True)
class ResolvedUsage:
    """Token counts the mock reports for a step."""

    prompt: int
    output: int
    thoughts: int
    cached: int | None
    total: int
    thoughts_given: bool


def resolve_usage(step: Step, prompt_estimate: int) -> ResolvedUsage:
    u = step.usage or Usage()
    prompt = u.prompt if u.prompt is not None else prompt_estimate
    output = u.output if u.output is not None else word_count(step.text)
    thoughts = u.thoughts if u.thoughts is not None else word_count(step.thought)
    total = u.total if u.total is not None else prompt + output + thoughts
    return ResolvedUsage(
        prompt, output, thoughts, u.cached, total, u.thoughts is not None or bool(step.thought)
    )


@dataclass(frozen=True, slots=True)
class Ctx:
    """What a wire renderer needs to know about the request being answered."""

    model: str
    request_no: int
    prompt_tokens: int
    include_usage: bool = False
    code_assist: bool = False


@dataclass(slots=True)
class Frame:
    """One SSE event before encoding; ``tokens`` paces ``tokens_per_second``."""

    data: str
    event: str | None = None
    tokens: int = 0
    text: bool = False
    """Carries a slice of the answer's text (what an endless step repeats)."""

    def truncated(self) -> Frame:
        """The same frame with only the first half of its data: invalid JSON, any wire."""
        return Frame(self.data[: max(1, len(self.data) // 2)], self.event, self.tokens, self.text)


SENTINEL = "\x00mock-sentinel\x00"


@dataclass(frozen=True, slots=True)
class Template:
    """A JSON document rendered once with a hole, so 10,000 frames cost one escape each."""

    prefix: str
    suffix: str = field(default="")

    @classmethod
    def of(cls, obj: Any, dumps: Callable[[Any], str] | None = None) -> Template:
        text = (dumps or _dumps)(obj)
        hole = _dumps(SENTINEL)[1:-1]
        prefix, _, suffix = text.partition(hole)
        return cls(prefix, suffix)

    def fill(self, value: str) -> str:
        # the escape json.dumps does for a str (ensure_ascii off), without its per-call
        # set-up: a 50,000-token stream is 10,000 fills before the first byte goes out
        return self.prefix + _escape(value)[1:-1] + self.suffix


_escape: Callable[[str], str] = json.encoder.encode_basestring


def _dumps(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def dumps(obj: Any) -> str:
    """Compact JSON with non-ASCII (U+2028 included) left unescaped, as real servers do."""
    return _dumps(obj)


def raw_frames(step: Step, event_of: Any = None) -> list[Frame]:
    """``raw_chunks`` verbatim: strings as they are, anything else as JSON."""
    frames: list[Frame] = []
    for raw in step.raw_chunks or []:
        data = raw if isinstance(raw, str) else _dumps(raw)
        event = event_of(raw) if event_of is not None else None
        frames.append(Frame(data, event))
    return frames
