"""Input schemas of MCP tools made acceptable per provider: a schema with what each API
rejects (``$ref``/``$defs``, ``anyOf`` with null, formats, ``additionalProperties``)."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest

from gemtui.wire.schema import GEMINI_KEYWORDS, for_gemini, sanitize

NASTY: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "title": "Args",
    "$defs": {
        "Point": {
            "type": "object",
            "properties": {"x": {"type": "integer"}, "y": {"type": "integer"}},
            "required": ["x", "y"],
            "additionalProperties": False,
        },
        "Node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/Node"}}},
    },
    "properties": {
        "where": {"$ref": "#/$defs/Point"},
        "chain": {"$ref": "#/$defs/Node"},
        "when": {"anyOf": [{"type": "string", "format": "date-time"}, {"type": "null"}]},
        "site": {"type": "string", "format": "uri"},
        "level": {"type": ["integer", "null"]},
        "mode": {"enum": [1, 2]},
    },
    "required": ["where", "ghost"],
    "additionalProperties": False,
}


def _walk(node: Any) -> list[dict[str, Any]]:
    if isinstance(node, list):
        return [d for v in node for d in _walk(v)]
    if isinstance(node, dict):
        return [node] + [d for v in node.values() for d in _walk(v)]
    return []


@pytest.mark.parametrize("target", ["gemini", "openai", "anthropic"])
def test_refs_are_inlined_and_required_names_exist(target: str) -> None:
    out = sanitize(NASTY, target)  # type: ignore[arg-type]
    nodes = _walk(out)
    assert not [n for n in nodes if "$ref" in n or "$defs" in n or "$schema" in n]
    assert out["properties"]["where"]["properties"]["x"] == {"type": "integer"}
    assert out["required"] == ["where"]  # a required name without a property is dropped
    jsonschema.Draft202012Validator.check_schema(out)
    jsonschema.validate({"where": {"x": 1, "y": 2}}, out)


def test_gemini_gets_its_documented_keywords_only() -> None:
    schema = {
        **NASTY,
        "properties": {
            **NASTY["properties"],
            "count": {"type": "integer", "default": 10, "minimum": 1},
            "name": {"type": "string", "pattern": "^[a-z]+$", "minLength": 1},
            "pick": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
        },
    }
    out = sanitize(schema, "gemini")
    for node in _walk(out["properties"].values()):
        assert set(node) <= GEMINI_KEYWORDS, node
    props = out["properties"]
    assert props["count"] == {"type": "integer", "minimum": 1}  # default dropped
    assert props["name"] == {"type": "string"}  # pattern and minLength dropped
    assert props["pick"] == {"anyOf": [{"type": "string"}, {"type": "integer"}]}
    assert props["when"]["anyOf"][1] == {"type": "null"}  # JSON Schema's own null
    jsonschema.Draft202012Validator.check_schema(out)


def test_for_gemini_is_remembered_and_equal_to_sanitize() -> None:
    first = for_gemini(NASTY)
    assert first == sanitize(NASTY, "gemini")
    assert for_gemini(dict(NASTY)) is first


@pytest.mark.parametrize("target", ["openai", "anthropic"])
def test_openai_and_anthropic_keep_json_schema(target: str) -> None:
    out = sanitize(NASTY, target)  # type: ignore[arg-type]
    assert out["additionalProperties"] is False
    assert out["properties"]["when"]["anyOf"][1] == {"type": "null"}
    assert out["properties"]["site"]["format"] == "uri"


@pytest.mark.parametrize("target", ["gemini", "openai", "anthropic"])
def test_empty_or_non_object_schema_becomes_an_object(target: str) -> None:
    assert sanitize(None, target) == {"type": "object", "properties": {}}  # type: ignore[arg-type]
    assert sanitize({"type": "string"}, target)["type"] == "object"  # type: ignore[arg-type]
