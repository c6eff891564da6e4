"""What every tool is: a declaration for the model, a kind for policy, invocations to run.

A ``Tool`` validates arguments and builds a ``ToolInvocation`` (a ``TypedTool`` does both
from one typed parameter model, which also writes its declared schema); the scheduler asks the
invocation for a ``Confirmation`` preview (a diff, a command) before approval, then runs
it with a ``ToolContext``. Cancellation is task cancellation: an invocation must leave
nothing behind when its task is cancelled (kill the process group, close files).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from enum import StrEnum
from typing import TYPE_CHECKING, Any, ClassVar, Generic

from msgspec import Struct, field

from gemtui.bus.events import Confirmation
from gemtui.tools.background import BackgroundJobs
from gemtui.tools.declared import declared_schema
from gemtui.tools.netguard import FetchLimits
from gemtui.tools.params import P, parse_params
from gemtui.tools.tool_error import ToolError
from gemtui.wire import FunctionDeclaration, Part

if TYPE_CHECKING:
    from collections.abc import AsyncIterator
    from pathlib import Path

    from gemtui.tools.allowance import Allowance
    from gemtui.tools.file_access import FileAccess
    from gemtui.tools.lsp.manager import LanguageServers
    from gemtui.tools.sandbox import SandboxConfig
    from gemtui.tools.saved_output import OutputStore
    from gemtui.tools.terminal_access import TerminalAccess
    from gemtui.tools.workspace import Workspace
    from gemtui.wire import GenerateContentRequest, GenerateContentResponse

__all__ = [
    "MUTATING_KINDS",
    "Confirmation",
    "Tool",
    "ToolContext",
    "ToolError",
    "ToolInvocation",
    "ToolKind",
    "ToolResult",
    "TypedInvocation",
    "TypedTool",
]


class ToolKind(StrEnum):
    """What a tool does, so policy knows whether it changes anything."""

    READ = "read"
    EDIT = "edit"
    DELETE = "delete"
    MOVE = "move"
    SEARCH = "search"
    EXECUTE = "execute"
    THINK = "think"
    FETCH = "fetch"
    OTHER = "other"


MUTATING_KINDS = frozenset({ToolKind.EDIT, ToolKind.DELETE, ToolKind.MOVE, ToolKind.EXECUTE})
"""Kinds that change the workspace or the machine: never run unapproved in default mode."""


class ToolResult(Struct):
    """The outcome of one invocation.

    ``llm_content`` is what the model gets (text, or parts such as inlineData);
    ``display`` is what a person sees; ``error`` set means the call failed and the
    text goes back as ``functionResponse.response.error``.
    """

    llm_content: str | list[Part] = ""
    display: str = ""
    error: str | None = None
    data: dict[str, Any] = field(default_factory=dict)
    """Structured extras for views (e.g. the todo list of write_todos)."""


class ToolContext(Struct):
    """What an invocation may use while it runs."""

    workspace: Workspace
    on_output: Callable[[str], None] | None = None
    """Live output (shell), for views that show progress."""
    shell_timeout: float = 120.0
    output_limit: int = 30_000
    """Characters of one result the model gets; the whole of a longer one goes to a file."""
    outputs: OutputStore | None = None
    """Where whole outputs past ``output_limit`` are saved (None: previews only)."""
    call_id: str = ""
    """The call being run (set per call by the scheduler); names its saved output."""
    background: BackgroundJobs = field(default_factory=BackgroundJobs)
    """The session's background commands, ended when the session closes."""
    fetch: FetchLimits = field(default_factory=FetchLimits)
    """Where web_fetch may connect, and its timeout, size cap and redirect limit."""
    model_stream: (
        Callable[[GenerateContentRequest], AsyncIterator[GenerateContentResponse]] | None
    ) = None
    """Streams a one-off request to the session's current model (google_web_search asks it
    with the googleSearch tool); None where there is no model. It raises ``ToolError``
    when the provider cannot serve the request (no grounding)."""
    sandbox: SandboxConfig | None = None
    """Run shell commands under bubblewrap with this configuration (None: not sandboxed)."""
    files: FileAccess | None = None
    """Text files through a front end that holds them (an editor's buffers); None: disk."""
    terminals: TerminalAccess | None = None
    """Shell commands in a front end's terminals (an editor's); None: run here."""
    edit_fixer: bool = False
    """Let replace ask ``model_stream`` once to repair an old_string it cannot place."""
    memory_file: Path | None = None
    """The person's GEMINI.md that save_memory appends to (None: no memory here)."""
    web_searches: Allowance | None = None
    """The session's web searches left (``[tools] max_web_searches``), shared with its
    subagents; None: uncounted."""
    lsp: LanguageServers | None = None
    """The session's language servers: edits report what they broke (None: none here)."""


class ToolInvocation(ABC):
    """One validated call of a tool with concrete arguments."""

    def __init__(self, tool: Tool, args: dict[str, Any]) -> None:
        self.tool = tool
        self.args = args

    def describe(self) -> str:
        """One line for transcripts: what this call will do."""
        return f"{self.tool.name}({', '.join(f'{k}={v!r}' for k, v in self.args.items())})"

    async def confirmation(self, ctx: ToolContext) -> Confirmation | None:
        """The preview for approval; None for calls that change nothing."""
        return None

    def modify(self, proposed: str) -> None:
        """Replace the proposed content or command with the person's edited version."""
        raise ToolError(f"{self.tool.name} cannot be modified before it runs")

    @property
    def effective_args(self) -> dict[str, Any]:
        """The arguments the call runs with: the model's, or what a person changed them to.

        This is what views show and the store records once a call was modified; the
        model's own functionCall stays in the history as the model made it.
        """
        return self.args

    @abstractmethod
    async def execute(self, ctx: ToolContext) -> ToolResult:
        """Run the call. Raise ToolError for a failure the model should read."""


class Tool(ABC):
    """A tool the model may call. Subclasses set the class attributes and ``build``."""

    name: ClassVar[str]
    display_name: ClassVar[str] = ""
    description: ClassVar[str] = ""
    kind: ClassVar[ToolKind] = ToolKind.OTHER
    parameters: ClassVar[dict[str, Any]] = {"type": "object", "properties": {}}
    aliases: ClassVar[tuple[str, ...]] = ()
    server: ClassVar[str | None] = None
    """The MCP server a tool came from (None for built-ins)."""

    @property
    def mutating(self) -> bool:
        return self.kind in MUTATING_KINDS

    def offered(self) -> bool:
        """Whether the model is offered this tool now (a language server's navigation
        tools only while one runs); a call of a tool not offered still runs."""
        return True

    def declaration(self) -> FunctionDeclaration:
        return FunctionDeclaration(
            name=self.name, description=self.description, parameters_json_schema=self.parameters
        )

    def validate(self, args: dict[str, Any]) -> str | None:
        """An error message when ``args`` break the JSON schema or the tool's rules."""
        from gemtui.tools.validation import schema_error

        return schema_error(self.parameters, args)

    @abstractmethod
    def build(self, args: dict[str, Any]) -> ToolInvocation:
        """An invocation for already-validated arguments."""


class TypedInvocation(ToolInvocation, Generic[P]):
    """An invocation of a ``TypedTool``: ``params`` are its checked, typed arguments
    (``args`` stay the model's own dict, for transcripts and the store)."""

    def __init__(self, tool: Tool, args: dict[str, Any], params: P) -> None:
        super().__init__(tool, args)
        self.params = params


class TypedTool(Tool, Generic[P]):
    """A tool whose parameters are a ``ToolParams`` model: its declared schema is generated
    from the model, and every call's arguments are checked against it here, in one place,
    so the tool reads typed attributes and keeps no hand-written schema or look-ups."""

    params_model: type[P]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        model = cls.__dict__.get("params_model")
        if model is not None:
            cls.parameters = declared_schema(model)  # the validator waits for a call

    def parse(self, args: dict[str, Any]) -> P:
        """``args`` as typed parameters; ToolError (the model's to read) when invalid."""
        parsed = parse_params(self.params_model, args)
        if isinstance(parsed, str):
            raise ToolError(parsed)
        return parsed

    def validate(self, args: dict[str, Any]) -> str | None:
        parsed = parse_params(self.params_model, args)
        return parsed if isinstance(parsed, str) else None

    def build(self, args: dict[str, Any]) -> ToolInvocation:
        return self.invoke(self.parse(args), args)

    @abstractmethod
    def invoke(self, params: P, args: dict[str, Any]) -> ToolInvocation:
        """An invocation for checked ``params`` (``args``: the same, as the model sent them)."""
