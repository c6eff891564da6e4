"""write_todos: the model's plan as a checklist that a person can watch progress on."""

from __future__ import annotations

from typing import Any, Literal, Self, get_args

from pydantic import ConfigDict, Field, model_validator

from gemtui.tools.base import (
    ToolContext,
    ToolInvocation,
    ToolKind,
    ToolResult,
    TypedInvocation,
    TypedTool,
)
from gemtui.tools.params import ToolParams

Status = Literal["pending", "in_progress", "completed", "cancelled", "blocked"]
STATUSES: tuple[str, ...] = get_args(Status)


class Todo(ToolParams):
    """One item of the plan; nothing but its two fields (the schema says so)."""

    model_config = ConfigDict(
        extra="forbid", json_schema_extra={"description": "A single todo item."}
    )

    description: str = Field(description="The description of the task.")
    status: Status = Field(description="The current status of the task.")


class WriteTodosParams(ToolParams):
    """write_todos's arguments, as Gemini CLI declares them."""

    model_config = ConfigDict(extra="forbid")

    todos: list[Todo] = Field(
        description="The complete list of todo items. This will replace the existing list."
    )

    @model_validator(mode="after")
    def _sound(self) -> Self:
        for i, todo in enumerate(self.todos, 1):
            if not todo.description.strip():
                raise ValueError(f"Invalid parameters: todo {i} has an empty description.")
        if sum(1 for t in self.todos if t.status == "in_progress") > 1:
            raise ValueError('Invalid parameters: Only one task can be "in_progress" at a time.')
        return self


class WriteTodosInvocation(TypedInvocation[WriteTodosParams]):
    """One validated write_todos call."""

    async def execute(self, ctx: ToolContext) -> ToolResult:
        todos = [{"description": t.description, "status": t.status} for t in self.params.todos]
        if not todos:
            text = "Successfully cleared the todo list."
        else:
            listing = "\n".join(
                f"{i}. [{t['status']}] {t['description']}" for i, t in enumerate(todos, 1)
            )
            text = f"Successfully updated the todo list. The current list is now:\n{listing}"
        return ToolResult(llm_content=text, display=text, data={"todos": todos})


class WriteTodosTool(TypedTool[WriteTodosParams]):
    """Why: long tasks stay on track, and the person sees the plan and where it stands."""

    name = "write_todos"
    display_name = "WriteTodos"
    kind = ToolKind.THINK
    description = (
        "This tool can help you list out the current subtasks that are required to be "
        "completed for a given user request. The list of subtasks helps you keep track of the "
        "current task, organize complex queries and help ensure that you don't miss any "
        "steps. With this list, the user can also see the current progress you are making in "
        "executing a given task.\n\n"
        "Use it for complex requests that need multiple steps; do not use it for simple tasks "
        "that can be completed in less than 2 steps. Each call replaces the whole list.\n\n"
        "## Task state definitions\n\n"
        "- pending: Work has not begun on a given subtask.\n"
        "- in_progress: Marked just prior to beginning work on a given subtask. You should "
        "only have one subtask as in_progress at a time.\n"
        "- completed: Subtask was successfully completed with no errors or issues.\n"
        "- cancelled: The subtask is no longer needed.\n"
        "- blocked: Subtask is blocked and cannot be completed at this time.\n\n"
        "Update the list as soon as you start, finish or cancel a subtask."
    )
    params_model = WriteTodosParams

    def invoke(self, params: WriteTodosParams, args: dict[str, Any]) -> ToolInvocation:
        return WriteTodosInvocation(self, args, params)
