"""Each subagent offered to the model as a tool: ``<name>(task)`` runs it, its report returns.

With ``background: true`` the
call returns at once and the report comes later, as a message (``subagent_background``).
The delegation itself changes nothing (its kind is THINK, so policy lets it start and the
scheduler runs several at once); every call the subagent makes passes the same policy and
approval as the conversation's own. Its report (task mode's ``complete_task`` output) is
the tool's result.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from pydantic import BaseModel, Field

from gemtui.tools.base import Tool, ToolContext, ToolInvocation, ToolKind, ToolResult

if TYPE_CHECKING:
    from gemtui.agent.agent_defs import AgentDefinition
    from gemtui.bus import EventBus

__all__ = [
    "InvestigationReport",
    "SubagentRunner",
    "SubagentTool",
    "TaskReport",
    "subagent_tool",
]


class TaskReport(BaseModel):
    """What a general agent hands back."""

    report: str = Field(description="What you did and found, for the agent that asked.")


class RelevantFile(BaseModel):
    """One file an investigation found, and why it matters."""

    path: str
    why: str = Field(description="What this file has to do with the task.")


class InvestigationReport(BaseModel):
    """What the codebase investigator hands back."""

    summary: str = Field(description="The answer to the task, in a few paragraphs.")
    relevant_files: list[RelevantFile] = Field(default_factory=list)
    next_steps: list[str] = Field(default_factory=list)

    def shown(self) -> str:
        """The report as a person reads it on the delegation card (the model gets JSON)."""
        lines = [self.summary.strip()]
        if self.relevant_files:
            lines += ["", "Files:"]
            lines += [
                f"  {f.path} - {f.why}" if f.why else f"  {f.path}" for f in self.relevant_files
            ]
        if self.next_steps:
            lines += ["", "Next steps:"]
            lines += [f"  - {step}" for step in self.next_steps]
        return "\n".join(lines)


class SubagentRunner(Protocol):
    """What runs a delegated task (the session's ``Subagents``)."""

    async def run_task(
        self, tool: SubagentTool, task: str, ctx: ToolContext, *, background: bool = False
    ) -> ToolResult: ...


class SubagentTool(Tool):
    """The tool of one agent; a subclass per agent carries its name and description."""

    kind = ToolKind.THINK
    parameters: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {
            "task": {
                "type": "string",
                "description": (
                    "The whole task, self-contained: the agent sees nothing of this "
                    "conversation but what you write here."
                ),
            },
            "background": {
                "type": "boolean",
                "description": (
                    "true: start the agent in the background and go on with your own work "
                    "at once; its report arrives as a message when it is done."
                ),
            },
        },
        "required": ["task"],
    }

    def __init__(
        self,
        definition: AgentDefinition,
        runner: SubagentRunner,
        depth: int,
        bus: EventBus | None = None,
    ) -> None:
        self.definition = definition
        self.runner = runner
        self.depth = depth
        """How deep the conversation calling this tool is (0: the person's own)."""
        self.bus = bus
        """The bus of the agent calling this tool (None: the session's own)."""

    def validate(self, args: dict[str, Any]) -> str | None:
        problem = super().validate(args)
        if problem is None and not str(args.get("task", "")).strip():
            return "task must say what the agent is to do"
        return problem

    def build(self, args: dict[str, Any]) -> ToolInvocation:
        return _Delegation(self, args)


class _Delegation(ToolInvocation):
    tool: SubagentTool

    def describe(self) -> str:
        task = " ".join(str(self.args.get("task", "")).split())
        return f"{self.tool.name}: {task[:80]}{'…' if len(task) > 80 else ''}"

    async def execute(self, ctx: ToolContext) -> ToolResult:
        background = self.args.get("background") is True
        return await self.tool.runner.run_task(
            self.tool, str(self.args["task"]), ctx, background=background
        )


def subagent_tool(
    definition: AgentDefinition,
    runner: SubagentRunner,
    depth: int,
    bus: EventBus | None = None,
) -> SubagentTool:
    """A tool named after ``definition`` (a class per agent: a tool's name is a class field)."""
    cls = type(
        f"Subagent_{definition.name}",
        (SubagentTool,),
        {
            "name": definition.name,
            "display_name": definition.name,
            "description": definition.description,
        },
    )
    tool: SubagentTool = cls(definition, runner, depth, bus)
    return tool
