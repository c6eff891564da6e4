"""Tool input schemas made acceptable to each provider's function-calling API.

MCP servers write full JSON Schema (``$ref``/``$defs``, ``anyOf``, ``format``, ``$schema``,
``default``…); each API accepts a subset. Gemini's ``parametersJsonSchema`` takes the
keywords of its documented JSON Schema subset (``GEMINI_KEYWORDS``; no ``default``,
``const``, ``pattern``, ``allOf``…); OpenAI and Anthropic accept more but reject ``$ref``
to ``$defs`` they do not see and need an object at the top. ``sanitize`` inlines
references first, then drops what the target rejects. Tools are declared with the
``openai`` form; the Gemini adapters narrow it per request (``for_gemini``).
"""

from __future__ import annotations

from typing import Any, Literal

__all__ = ["GEMINI_KEYWORDS", "Target", "for_gemini", "sanitize"]

Target = Literal["gemini", "openai", "anthropic"]

_DROP_ALWAYS = frozenset({"$schema", "$id", "$defs", "definitions", "$comment", "examples"})
GEMINI_KEYWORDS = frozenset(
    {
        "type", "format", "title", "description", "enum", "items", "prefixItems",
        "minItems", "maxItems", "minimum", "maximum", "anyOf", "properties",
        "additionalProperties", "required", "propertyOrdering",
    }
)  # fmt: skip
"""The JSON Schema keywords Gemini's ``parametersJsonSchema`` documents (``oneOf`` is read
as ``anyOf``; ``$ref``/``$defs`` are inlined before it sees them)."""
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
        if target == "gemini" and key not in GEMINI_KEYWORDS:
            if key == "oneOf":  # the same meaning for a tool's arguments
                out["anyOf"] = _clean(value, defs, target, depth)
            continue
        if key == "properties" and isinstance(value, dict):
            out[key] = {k: _clean(v, defs, target, depth) for k, v in value.items()}
        elif key in ("items", "anyOf", "oneOf", "allOf", "additionalProperties", "prefixItems"):
            out[key] = _clean(value, defs, target, depth)
        else:
            out[key] = value
    if "required" in out and isinstance(out.get("properties"), dict):
        out["required"] = [r for r in out["required"] if r in out["properties"]]
    return out


_GEMINI_CACHE: dict[str, dict[str, Any]] = {}


def for_gemini(schema: dict[str, Any]) -> dict[str, Any]:
    """``sanitize(schema, "gemini")``, remembered: the same tools go out with every request."""
    import json

    key = json.dumps(schema, sort_keys=True, default=str)
    found = _GEMINI_CACHE.get(key)
    if found is None:
        if len(_GEMINI_CACHE) > 512:  # tools come and go with MCP servers: stay bounded
            _GEMINI_CACHE.clear()
        found = _GEMINI_CACHE[key] = sanitize(schema, "gemini")
    return found
