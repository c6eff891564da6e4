"""The built-in tools' schemas kept in the package are what their models write, and a
tool's validator waits for its first call (issue 34: the engine's start does not build it)."""

from __future__ import annotations

import json
import subprocess
import sys

from gemtui.tools.base import ToolKind, TypedInvocation, TypedTool
from gemtui.tools.declared import TABLE
from gemtui.tools.declared_write import written_table
from gemtui.tools.params import ToolParams, function_schema


def test_the_kept_schemas_are_what_the_models_write_now() -> None:
    """Red after a parameter model changes until ``python -m gemtui.tools.declared_write``
    writes the file again (compared as text: the properties' order is declared too)."""
    written = json.dumps(written_table(), indent=1) + "\n"
    assert TABLE.read_text(encoding="utf-8") == written
    assert "gemtui.tools.builtin.run_shell_command:RunShellCommandParams" in written_table()


_FRESH = """
import gemtui.tools.builtin
from gemtui.tools.registry import default_registry
registry = default_registry()
tool = registry.get("read_file")
model = tool.params_model
declared = tool.declaration().parameters_json_schema
before = model.__pydantic_complete__
problem = tool.validate({"file_path": 3})
print(before, model.__pydantic_complete__, declared["required"], problem)
"""


def test_a_tools_validator_is_built_at_its_first_call_not_at_start() -> None:
    """In a fresh interpreter (other tests build validators in this one)."""
    out = subprocess.run(
        [sys.executable, "-c", _FRESH], capture_output=True, text=True, check=True
    ).stdout.split(maxsplit=3)
    assert out[:3] == ["False", "True", "['file_path']"]
    assert "is not of type 'string'" in out[3]


class _OwnParams(ToolParams):
    """A model the file does not know."""

    word: str


class _OwnTool(TypedTool[_OwnParams]):
    name = "own_tool"
    description = "A tool of a test's own."
    kind = ToolKind.READ
    params_model = _OwnParams

    def invoke(self, params: _OwnParams, args: dict[str, object]) -> TypedInvocation[_OwnParams]:
        raise NotImplementedError


def test_a_model_the_file_does_not_know_is_written_as_before() -> None:
    assert _OwnTool.parameters == function_schema(_OwnParams)
    assert _OwnTool.parameters["required"] == ["word"]
