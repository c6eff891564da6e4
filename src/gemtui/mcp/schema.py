"""MCP input schemas made acceptable to each provider's function-calling API.

Servers write full JSON Schema (``$ref``/``$defs``, ``anyOf``, ``format``, ``$schema``);
each API accepts a subset. Gemini takes an OpenAPI-like subset (no ``$ref``, only the
``enum`` and ``date-time`` string formats, no ``additionalProperties``); OpenAI and
Anthropic accept more but reject ``$ref`` to ``$defs`` they do not see and need an object
at the top. ``sanitize`` inlines references first, then drops what the target rejects.
"""

from __future__ import annotations

from typing import Any, Literal

__all__ = ["Target", "sanitize"]

Target = Literal["gemini", "openai", "anthropic"]

_DROP_ALWAYS = frozenset({"$schema", "$id", "$defs", "definitions", "$comment", "examples"})
_GEMINI_DROP = frozenset({"additionalProperties", "default", "const", "title", "oneOf", "allOf"})
_GEMINI_FORMATS = frozenset({"enum", "date-time"})
_MAX_DEPTH = 12
"""Recursive ``$ref``s stop here (an open object), so a self-referencing schema ends."""


def sanitize(schema: dict[str, Any] | None, target: Target) -> dict[str, Any]:
    """A copy of ``schema`` the ``target`` API accepts, always an object at the top."""
    if not schema:
        return {"type": "object", "properties": {}}
    defs = {**schema.get("definitions", {}), **schema.get("$defs", {})}
    out: dict[str, Any] = _clean(schema, defs, target, 0)
    if out.get("type") != "object":
        out = {"type": "object", "properties": out.get("properties", {})}
    out.setdefault("properties", {})
    return out


def _clean(node: Any, defs: dict[str, Any], target: Target, depth: int) -> Any:
    if isinstance(node, list):
        return [_clean(v, defs, target, depth) for v in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str):
        if depth >= _MAX_DEPTH or not ref.startswith(("#/$defs/", "#/definitions/")):
            return {"type": "object"}
        target_node = defs.get(ref.rsplit("/", 1)[-1], {})
        merged = {**target_node, **{k: v for k, v in node.items() if k != "$ref"}}
        return _clean(merged, defs, target, depth + 1)
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in _DROP_ALWAYS:
            continue
        if target == "gemini" and key in _GEMINI_DROP:
            continue
        if key == "properties" and isinstance(value, dict):
            out[key] = {k: _clean(v, defs, target, depth) for k, v in value.items()}
        elif key in ("items", "anyOf", "oneOf", "allOf", "additionalProperties"):
            out[key] = _clean(value, defs, target, depth)
        else:
            out[key] = value
    if target == "gemini":
        _gemini_fixups(out)
    if "required" in out and isinstance(out.get("properties"), dict):
        out["required"] = [r for r in out["required"] if r in out["properties"]]
    return out


def _gemini_fixups(out: dict[str, Any]) -> None:
    """Gemini wants one type (``nullable`` for ``[T, null]``) and few string formats."""
    kind = out.get("type")
    if isinstance(kind, list):
        rest = [k for k in kind if k != "null"]
        out["type"] = rest[0] if rest else "string"
        if len(rest) < len(kind):
            out["nullable"] = True
    if "anyOf" in out and isinstance(out["anyOf"], list):
        options = [o for o in out["anyOf"] if not (isinstance(o, dict) and o.get("type") == "null")]
        if len(options) < len(out["anyOf"]):
            out["nullable"] = True
        if len(options) == 1 and isinstance(options[0], dict):
            del out["anyOf"]
            out.update({k: v for k, v in options[0].items() if k not in out})
        else:
            out["anyOf"] = options
    if out.get("format") not in (None, *_GEMINI_FORMATS) and out.get("type") == "string":
        del out["format"]
    if "enum" in out:
        out["enum"] = [str(v) for v in out["enum"]]
        out.setdefault("type", "string")
