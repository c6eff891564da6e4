"""write_todos: validation, text for the model and the structured list for views."""

from __future__ import annotations

from pathlib import Path

from gemtui.tools.base import ToolContext, ToolKind
from gemtui.tools.builtin import WriteTodosTool
from gemtui.tools.workspace import Workspace


async def test_write_todos_lists_and_returns_data(tmp_path: Path) -> None:
    tool = WriteTodosTool()
    assert tool.kind is ToolKind.THINK
    assert not tool.mutating
    todos = [
        {"description": "Read the code", "status": "completed"},
        {"description": "Fix the bug", "status": "in_progress"},
        {"description": "Run tests", "status": "pending"},
        {"description": "Old idea", "status": "cancelled"},
    ]
    args = {"todos": todos}
    assert tool.validate(args) is None
    inv = tool.build(args)
    ctx = ToolContext(workspace=Workspace(tmp_path))
    assert await inv.confirmation(ctx) is None
    result = await inv.execute(ctx)
    assert result.data["todos"] == todos
    assert result.llm_content == (
        "Successfully updated the todo list. The current list is now:\n"
        "1. [completed] Read the code\n"
        "2. [in_progress] Fix the bug\n"
        "3. [pending] Run tests\n"
        "4. [cancelled] Old idea"
    )


async def test_write_todos_empty_clears(tmp_path: Path) -> None:
    result = (
        await WriteTodosTool()
        .build({"todos": []})
        .execute(ToolContext(workspace=Workspace(tmp_path)))
    )
    assert "cleared" in str(result.llm_content)
    assert result.data["todos"] == []


def test_write_todos_validation() -> None:
    tool = WriteTodosTool()
    two = [
        {"description": "a", "status": "in_progress"},
        {"description": "b", "status": "in_progress"},
    ]
    assert 'Only one task can be "in_progress"' in (tool.validate({"todos": two}) or "")
    assert tool.validate({"todos": [{"description": "a", "status": "done"}]})
    assert tool.validate({"todos": [{"description": "a"}]})
    assert tool.validate({"todos": [{"description": " ", "status": "pending"}]})
    assert tool.validate({"todos": [{"description": "a", "status": "pending", "x": 1}]})
    assert tool.validate({}) is not None
