"""Built-in tools declare what Gemini CLI's tools declare, now that typed parameter models
write the schemas (issue 34): ``data/builtin_tool_schemas.json`` is the hand-written
declarations as they were before the models, snapshotted from the code at 296b5f3.

The only difference allowed is key order inside an object (JSON objects are unordered);
property order and ``required`` order are compared as lists, because a model reads them in
that order.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gemtui.tools.base import Tool, TypedTool
from gemtui.tools.builtin import builtin_tools
from gemtui.tools.params import function_schema

BEFORE: dict[str, dict[str, Any]] = json.loads(
    (Path(__file__).parent / "data" / "builtin_tool_schemas.json").read_text(encoding="utf-8")
)

TOOLS = {tool.name: tool for tool in builtin_tools()}

FORBIDDEN = {"title", "$ref", "$defs", "anyOf", "allOf", "oneOf", "const", "null"}


def _orders(node: Any, at: str = "") -> list[tuple[str, list[str]]]:
    """Every ``properties`` key order and ``required`` list in ``node``, by location."""
    if isinstance(node, list):
        return [o for i, item in enumerate(node) for o in _orders(item, f"{at}/{i}")]
    if not isinstance(node, dict):
        return []
    found = []
    if isinstance(node.get("properties"), dict):
        found.append((f"{at}/properties", list(node["properties"])))
    if isinstance(node.get("required"), list):
        found.append((f"{at}/required", list(node["required"])))
    for key, value in node.items():
        if key == "properties":
            for name, sub in value.items():
                found += _orders(sub, f"{at}/properties/{name}")
        elif key != "required":
            found += _orders(value, f"{at}/{key}")
    return found


def _keywords(node: Any) -> set[str]:
    """Every schema keyword used in ``node`` (property names are not keywords)."""
    if isinstance(node, list):
        return {k for item in node for k in _keywords(item)}
    if not isinstance(node, dict):
        return set()
    found = set(node)
    for key, value in node.items():
        if key == "properties":
            found |= {k for sub in value.values() for k in _keywords(sub)}
        else:
            found |= _keywords(value)
    if "type" in node and node["type"] == "null":
        found.add("null")
    return found


def test_every_builtin_is_in_the_snapshot() -> None:
    assert list(TOOLS) == list(BEFORE)


@pytest.mark.parametrize("name", list(BEFORE))
def test_declaration_is_what_it_was(name: str) -> None:
    decl = TOOLS[name].declaration()
    expected = BEFORE[name]
    assert decl.name == expected["name"]
    assert decl.description == expected["description"]
    assert decl.parameters_json_schema == expected["parametersJsonSchema"]
    assert _orders(decl.parameters_json_schema) == _orders(expected["parametersJsonSchema"])


@pytest.mark.parametrize("name", list(BEFORE))
def test_schema_carries_no_pydantic_artefacts(name: str) -> None:
    schema = TOOLS[name].declaration().parameters_json_schema
    assert not _keywords(schema) & FORBIDDEN


def _typed(tool: Tool) -> bool:
    return isinstance(tool, TypedTool)


@pytest.mark.parametrize("name", [n for n, t in TOOLS.items() if _typed(t)])
def test_typed_schema_comes_from_the_model(name: str) -> None:
    tool = TOOLS[name]
    assert isinstance(tool, TypedTool)
    assert tool.parameters == function_schema(tool.params_model)
