"""A compact form of the tool declarations, for models with a small context window.

The full descriptions of the nine built-ins take about 2,500 tokens: a third of an
8k-token llama.cpp window, and enough to confuse a 0.5B model into not calling at all.
The compact form keeps, per tool, its name, its first sentence and its parameters with
their types and which are required; in text-tools mode it is one line per tool.
``tool_descriptions = "auto"`` (the default) picks it when the window is under 32k tokens.
"""

from __future__ import annotations

import re
from typing import Any

from gemtui.wire import FunctionDeclaration

__all__ = [
    "COMPACT_BELOW",
    "compact_declarations",
    "compact_guidance",
    "first_sentence",
    "wants_compact",
]

COMPACT_BELOW = 32_768
"""Context windows (tokens) below this get the compact form in ``auto`` mode."""

_SENTENCE_END = re.compile(r"(?<=[.!?])\s")


def wants_compact(mode: str, context_window: int) -> bool:
    """Whether ``tool_descriptions`` (full, compact, auto) asks for the compact form."""
    return mode == "compact" or (mode == "auto" and 0 < context_window < COMPACT_BELOW)


def first_sentence(text: str, limit: int = 160) -> str:
    """The description's first sentence (of its first paragraph), cut at ``limit``."""
    para = text.strip().split("\n\n", 1)[0].replace("\n", " ")
    sentence = _SENTENCE_END.split(para, maxsplit=1)[0].strip()
    return sentence if len(sentence) <= limit else sentence[: limit - 1].rstrip() + "…"


def _strip(schema: Any) -> Any:
    """The schema without descriptions, examples or defaults, at every level (a parameter
    that is itself named ``description`` stays)."""
    if isinstance(schema, dict):
        out: dict[str, Any] = {}
        for key, value in schema.items():
            if key in ("description", "examples", "default", "title"):
                continue
            if key in ("properties", "$defs", "definitions") and isinstance(value, dict):
                out[key] = {name: _strip(sub) for name, sub in value.items()}
            else:
                out[key] = _strip(value)
        return out
    if isinstance(schema, list):
        return [_strip(v) for v in schema]
    return schema


def compact_declarations(declarations: list[FunctionDeclaration]) -> list[FunctionDeclaration]:
    """The declarations with one-sentence descriptions and bare parameter schemas."""
    out = []
    for decl in declarations:
        update: dict[str, Any] = {"description": first_sentence(decl.description)}
        if decl.parameters_json_schema is not None:
            update["parameters_json_schema"] = _strip(decl.parameters_json_schema)
        if decl.parameters is not None:
            update["parameters"] = _strip(decl.parameters)
        out.append(decl.model_copy(update=update))
    return out


def _signature(decl: FunctionDeclaration) -> str:
    schema = decl.parameters_json_schema or decl.parameters or {}
    props = schema.get("properties") or {}
    required = set(schema.get("required") or [])
    params = []
    for name, prop in props.items():
        kind = str(prop.get("type", "any")).lower() if isinstance(prop, dict) else "any"
        params.append(f"{name}{'' if name in required else '?'}: {kind}")
    return f"{decl.name}({', '.join(params)})"


def _example(declarations: list[FunctionDeclaration]) -> str:
    """A real call for the example (a small model copies a concrete one far better than
    placeholders): ``read_file`` when it is offered."""
    names = {d.name for d in declarations}
    if "read_file" in names:
        return '{"tool_call": {"name": "read_file", "arguments": {"file_path": "README.md"}}}'
    return '{"tool_call": {"name": "TOOL_NAME", "arguments": {"PARAMETER": "VALUE"}}}'


def compact_guidance(declarations: list[FunctionDeclaration]) -> str:
    """Text-tools guidance in one line per tool (about 40 tokens each).

    It never quotes how results come back: small models then imitate the result
    heading instead of calling (the issue's "Tool result for" answers)."""
    lines = [
        "You can use tools. To call one, answer with only this JSON, one block per call:",
        "```json",
        _example(declarations),
        "```",
        "Tools (a ? marks an optional parameter):",
    ]
    lines += [f"- {_signature(d)}: {first_sentence(d.description)}" for d in declarations]
    lines.append("After your calls, stop and wait for their results.")
    return "\n".join(lines)
