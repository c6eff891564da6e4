"""Built-in tools declare what Gemini CLI's tools declare, now that typed parameter models
write the schemas (issue 34): ``data/builtin_tool_schemas.json`` is the hand-written
declarations as they were before the models, snapshotted from the code at 296b5f3.

The only difference allowed is key order inside an object (JSON objects are unordered);
property order and ``required`` order are compared as lists, because a model reads them in
that order.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from gemtui.tools.base import Tool, ToolError, TypedInvocation, TypedTool
from gemtui.tools.builtin import builtin_tools
from gemtui.tools.params import function_schema
from gemtui.tools.validation import schema_error

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


# -- the models check what the schema says, no more and no less ----------------------------

KEYWORDS = {
    "type",
    "properties",
    "required",
    "description",
    "items",
    "enum",
    "minimum",
    "minItems",
    "minLength",
    "default",
    "additionalProperties",
}
"""Every keyword the hand-written schemas used; anything else is pydantic leaking through."""

VALID: dict[str, dict[str, Any]] = {
    "list_directory": {"dir_path": "."},
    "read_file": {"file_path": "a"},
    "read_many_files": {"include": ["a"]},
    "glob": {"pattern": "*"},
    "grep_search": {"pattern": "x"},
    "replace": {"file_path": "a", "instruction": "i", "old_string": "o", "new_string": "n"},
    "write_file": {"file_path": "a", "content": "c"},
    "run_shell_command": {"command": "ls"},
    "write_todos": {"todos": [{"description": "d", "status": "pending"}]},
    "web_fetch": {"prompt": "summarise https://example.com"},
    "google_web_search": {"query": "q"},
    "save_memory": {"fact": "f"},
}
"""The least each built-in accepts."""

GOOD = {"string": "x", "number": 2, "integer": 2, "boolean": True, "array": ["x"], "object": {}}
WRONG = {"string": 3, "number": "1", "integer": "1", "boolean": "true", "array": "x", "object": "x"}


def _both(name: str, args: dict[str, Any]) -> tuple[str | None, str | None]:
    """(the JSON-schema check of the declared schema, the tool's own check) for ``args``."""
    tool = TOOLS[name]
    return schema_error(BEFORE[name]["parametersJsonSchema"], args), tool.validate(args)


@pytest.mark.parametrize("name", list(BEFORE))
def test_schema_uses_only_the_keywords_it_used(name: str) -> None:
    assert _keywords(TOOLS[name].declaration().parameters_json_schema) <= KEYWORDS


@pytest.mark.parametrize("name", list(BEFORE))
def test_every_builtin_is_typed(name: str) -> None:
    assert isinstance(TOOLS[name], TypedTool)


@pytest.mark.parametrize("name", list(BEFORE))
def test_the_model_refuses_what_the_schema_refuses(name: str) -> None:
    """Missing, wrong-typed and null arguments fail both checks, in the same words, and a
    right-typed value for every property passes both."""
    schema = BEFORE[name]["parametersJsonSchema"]
    base = VALID[name]
    assert _both(name, base) == (None, None)
    cases: list[dict[str, Any]] = [
        {k: v for k, v in base.items() if k != req} for req in schema["required"]
    ]
    for prop, spec in schema["properties"].items():
        cases.append({**base, prop: WRONG[spec["type"]]})
        cases.append({**base, prop: None})
        if prop not in base and spec["type"] in GOOD:
            good = {**base, prop: GOOD[spec["type"]]}
            assert _both(name, good) == (None, None), good
    for args in cases:
        by_schema, by_model = _both(name, args)
        assert by_schema is not None, args
        assert by_model == by_schema, args


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("write_todos", {"todos": [{"description": "d", "status": "done"}]}),
        ("write_todos", {"todos": [{"description": "d", "status": "pending", "x": 1}]}),
        ("write_todos", {"todos": [{"description": "d"}]}),
        ("write_todos", {"todos": [], "extra": 1}),
        ("read_many_files", {"include": []}),
        ("read_many_files", {"include": [""]}),
        ("read_many_files", {"include": ["a"], "exclude": [""]}),
        ("grep_search", {"pattern": "x", "total_max_matches": 0}),
        ("grep_search", {"pattern": "x", "max_matches_per_file": 2.5}),
        ("list_directory", {"dir_path": ".", "file_filtering_options": {"respect_git_ignore": 1}}),
        ("list_directory", {"dir_path": ".", "ignore": [3]}),
        ("read_file", {"file_path": "a", "start_line": True}),
    ],
)
def test_nested_and_constrained_values_are_refused_by_both(name: str, args: dict[str, Any]) -> None:
    by_schema, by_model = _both(name, args)
    assert by_schema is not None
    assert by_model == by_schema


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("grep_search", {"pattern": "x", "total_max_matches": 3.0}),  # JSON's integer 3
        ("read_file", {"file_path": "a", "start_line": 2.0, "end_line": 4}),
        ("read_many_files", {"include": ["a"], "useDefaultExcludes": False}),
        ("list_directory", {"dir_path": ".", "file_filtering_options": {}}),
        ("glob", {"pattern": "*", "unknown_name": 1}),  # unknown names pass, as before
    ],
)
def test_what_the_schema_accepts_the_model_accepts(name: str, args: dict[str, Any]) -> None:
    assert _both(name, args) == (None, None)


def test_typed_values_reach_the_invocation() -> None:
    read = TOOLS["read_file"].build({"file_path": "a", "start_line": 2.0})
    assert isinstance(read, TypedInvocation)
    assert read.params.start_line == 2
    assert isinstance(read.params.start_line, int)
    many = TOOLS["read_many_files"].build({"include": ["a"], "useDefaultExcludes": False})
    assert isinstance(many, TypedInvocation)
    assert many.params.use_default_excludes is False
    assert many.args == {"include": ["a"], "useDefaultExcludes": False}  # as the model sent


@pytest.mark.parametrize(
    ("name", "args", "message"),
    [
        ("list_directory", {"dir_path": " "}, "The 'dir_path' parameter must be non-empty."),
        (
            "read_file",
            {"file_path": "a", "start_line": 0},
            "start_line must be a whole number of at least 1",
        ),
        (
            "read_file",
            {"file_path": "a", "start_line": 3, "end_line": 2},
            "start_line cannot be greater than end_line",
        ),
        ("glob", {"pattern": " "}, "The 'pattern' parameter cannot be empty."),
        (
            "grep_search",
            {"pattern": "("},
            "Invalid regular expression in 'pattern': '('. Error: invalid regular expression: missing ): (",
        ),
        (
            "replace",
            {**VALID["replace"], "file_path": ""},
            "The 'file_path' parameter must be non-empty.",
        ),
        ("run_shell_command", {"command": "  "}, "Command cannot be empty."),
        (
            "web_fetch",
            {"prompt": "no links"},
            "The 'prompt' must contain at least one valid URL (starting with http:// or https://).",
        ),
        ("google_web_search", {"query": " "}, "The 'query' parameter cannot be empty."),
        ("save_memory", {"fact": " "}, "Parameter 'fact' must be a non-empty string."),
    ],
)
def test_a_tools_own_rule_keeps_its_sentence(name: str, args: dict[str, Any], message: str) -> None:
    assert TOOLS[name].validate(args) == message
    with pytest.raises(ToolError, match=re.escape(message)):
        TOOLS[name].build(args)


def test_a_type_error_comes_before_a_rule() -> None:
    """The schema was checked before a tool's rules: the shape problem is named first."""
    problem = TOOLS["read_file"].validate({"file_path": " ", "end_line": "x"})
    assert str(problem).startswith("Invalid arguments at end_line")
