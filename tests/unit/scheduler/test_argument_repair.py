"""Argument repair: near-miss names and JSON in strings are fixed, run and noted; anything
else still goes back to the model as the validation error."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gemtui.bus import EventBus, ToolCallState
from gemtui.bus.events import ToolCallStateChanged
from gemtui.scheduler import PolicyEngine, ToolScheduler
from gemtui.tools.base import ToolContext
from gemtui.tools.registry import default_registry
from gemtui.tools.validation import repair_args
from gemtui.tools.workspace import Workspace
from gemtui.wire import FunctionCall

READ_SCHEMA = {
    "type": "object",
    "properties": {
        "file_path": {"type": "string"},
        "start_line": {"type": "number"},
        "end_line": {"type": "number"},
    },
    "required": ["file_path"],
}


@pytest.mark.parametrize(
    ("schema_props", "required", "args", "fixed", "note"),
    [
        (
            {"file_path": "string"},
            ["file_path"],
            {"path": "a"},
            {"file_path": "a"},
            "path → file_path",
        ),
        ({"dir_path": "string"}, ["dir_path"], {"path": "."}, {"dir_path": "."}, "path → dir_path"),
        (
            {"dir_path": "string"},
            ["dir_path"],
            {"dir": "src"},
            {"dir_path": "src"},
            "dir → dir_path",
        ),
        ({"command": "string"}, ["command"], {"cmd": "ls"}, {"command": "ls"}, "cmd → command"),
        (
            {"file_path": "string"},
            ["file_path"],
            {"filePath": "a"},
            {"file_path": "a"},
            "filePath → file_path",
        ),
        (
            {"old_string": "string"},
            ["old_string"],
            {"old_strin": "x"},
            {"old_string": "x"},
            "old_strin → old_string",
        ),
        (
            {"todos": "array"},
            ["todos"],
            {"todos": '[{"description": "a"}]'},
            {"todos": [{"description": "a"}]},
            "todos parsed from a JSON string",
        ),
        (
            {"options": "object"},
            ["options"],
            {"options": '{"deep": true}'},
            {"options": {"deep": True}},
            "options parsed from a JSON string",
        ),
        (
            {"limit": "integer"},
            ["limit"],
            {"limit": "10"},
            {"limit": 10},
            "limit parsed from a JSON string",
        ),
        (
            {"ratio": "number"},
            ["ratio"],
            {"ratio": "0.5"},
            {"ratio": 0.5},
            "ratio parsed from a JSON string",
        ),
        (
            {"flag": "boolean"},
            ["flag"],
            {"flag": "true"},
            {"flag": True},
            "flag parsed from a JSON string",
        ),
    ],
)
def test_every_repair(
    schema_props: dict[str, str], required: list[str], args: dict, fixed: dict, note: str
) -> None:
    schema = {
        "type": "object",
        "properties": {k: {"type": v} for k, v in schema_props.items()},
        "required": required,
    }
    repair = repair_args(schema, args)
    assert repair is not None
    assert repair.args == fixed
    assert repair.notes == (note,)


@pytest.mark.parametrize(
    "args",
    [
        {"file_path": "a"},  # valid already: nothing to repair
        {"banana": "a"},  # no close name
        {"path": 3},  # renamed, still the wrong type
        {"file_path": "a", "start_line": "one"},  # not JSON
        {"file_path": "a", "start_line": "true"},  # JSON, but a boolean is not a number
    ],
)
def test_no_repair_when_it_would_not_help(args: dict[str, Any]) -> None:
    assert repair_args(READ_SCHEMA, args) is None


def test_an_ambiguous_close_name_is_not_guessed() -> None:
    schema = {
        "type": "object",
        "properties": {"path_a": {"type": "string"}, "path_b": {"type": "string"}},
        "required": ["path_a"],
    }
    assert repair_args(schema, {"path_c": "x"}) is None


def test_a_name_already_given_is_not_overwritten() -> None:
    schema = {
        "type": "object",
        "properties": {"file_path": {"type": "string"}, "n": {"type": "integer"}},
        "required": ["n"],
    }
    repair = repair_args(schema, {"file_path": "a", "path": "b", "n": "2"})
    assert repair is not None
    assert repair.args == {"file_path": "a", "path": "b", "n": 2}


async def _run(tmp_path: Path, call: FunctionCall) -> tuple[Any, list[Any]]:
    bus = EventBus("s")
    events: list[Any] = []
    bus.subscribe(events.append)
    scheduler = ToolScheduler(
        default_registry(),
        bus,
        PolicyEngine(),
        ToolContext(workspace=Workspace(tmp_path)),
        approval_mode="yolo",
        interactive=False,
    )
    result = await scheduler.run([call])
    snaps = [e.call for e in events if isinstance(e, ToolCallStateChanged)]
    return result, snaps


async def test_repaired_call_runs_and_its_card_says_so(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("Pelicans nest on islands.\n")
    call = FunctionCall(id="c1", name="read_file", args={"path": "notes.txt", "end_line": "1"})
    result, snaps = await _run(tmp_path, call)
    response = result.parts[0].function_response
    assert response is not None
    assert "Pelicans" in str(response.response.get("output"))
    assert snaps[-1].state is ToolCallState.SUCCESS
    assert snaps[-1].repair == (
        "arguments repaired: path → file_path; end_line parsed from a JSON string"
    )
    assert all(s.repair == snaps[-1].repair for s in snaps)
    assert call.args == {"file_path": "notes.txt", "end_line": 1}  # history shows the fix


async def test_repaired_shell_command_runs(tmp_path: Path) -> None:
    result, snaps = await _run(
        tmp_path, FunctionCall(id="c1", name="run_shell_command", args={"cmd": "echo hi"})
    )
    assert snaps[-1].state is ToolCallState.SUCCESS
    assert "hi" in str(result.parts[0].function_response.response)
    assert snaps[-1].repair == "arguments repaired: cmd → command"


async def test_unrepairable_call_gets_the_validation_error_as_before(tmp_path: Path) -> None:
    call = FunctionCall(id="c1", name="read_file", args={"banana": "notes.txt"})
    result, snaps = await _run(tmp_path, call)
    error = result.parts[0].function_response.response.get("error")
    assert "file_path" in str(error)
    assert "required" in str(error)
    assert snaps[-1].state is ToolCallState.ERROR
    assert snaps[-1].repair is None
    assert call.args == {"banana": "notes.txt"}
