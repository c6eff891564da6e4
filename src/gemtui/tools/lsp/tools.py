"""Read-only tools on the session's language servers: a file's diagnostics, and navigation
(go to definition, find references, document symbols).

``diagnostics`` is offered whenever a server is set up or found; the navigation tools only
while a server is running, so a model is never offered what cannot answer. A position is
a 1-based line and the symbol's name on it: models know names, rarely columns.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, ClassVar
from urllib.parse import unquote, urlparse

from pydantic import Field, WithJsonSchema, field_validator

from gemtui.tools.base import (
    Tool,
    ToolContext,
    ToolError,
    ToolInvocation,
    ToolKind,
    ToolResult,
    TypedInvocation,
    TypedTool,
)
from gemtui.tools.builtin.replace import read_existing
from gemtui.tools.lsp.edits import root_of
from gemtui.tools.lsp.manager import LanguageServers, Unavailable
from gemtui.tools.offload import run_off_loop
from gemtui.tools.params import ToolParams, non_empty

if TYPE_CHECKING:  # lsprotocol loads with the first answer, not with the session
    from gemtui.tools.lsp.connection import ServerConnection

__all__ = ["language_server_tools"]

MAX_RESULTS = 50
"""Locations or symbols one answer lists at most."""

WholeNumber = Annotated[int, WithJsonSchema({"type": "number"})]


class FileParams(ToolParams):
    """A file in the workspace."""

    file_path: str = Field(description="The path to the file.")

    @field_validator("file_path")
    @classmethod
    def _file_path(cls, value: str) -> str:
        return non_empty(value, "file_path")


class SymbolParams(FileParams):
    """A symbol at a line of a file."""

    line: WholeNumber = Field(description="The 1-based line the symbol is on.")
    symbol: str = Field(description="The symbol's name, as written on that line.")

    @field_validator("symbol")
    @classmethod
    def _symbol(cls, value: str) -> str:
        return non_empty(value, "symbol")


class _ServerInvocation(TypedInvocation[Any]):
    tool: _ServerTool

    async def _open(self, ctx: ToolContext) -> tuple[Path, Path, str]:
        """The file's path, its root and text (ignored files refused, as read_file does)."""
        arg = self.params.file_path
        path = ctx.workspace.resolve_visible(arg, reading=True)
        text = (await run_off_loop(lambda _: read_existing(path, arg, lenient=True)))[0]
        if text is None:
            raise ToolError(f"File not found: {arg}")
        return path, root_of(ctx.workspace, path), text

    async def execute(self, ctx: ToolContext) -> ToolResult:
        path, root, text = await self._open(ctx)
        try:
            lines = await self.tool.answer(self, ctx, path, root, text)
        except LookupError as exc:
            raise ToolError(str(exc)) from exc
        except Unavailable as exc:
            raise ToolError(f"The language server gave no answer: {exc}.") from exc
        body = "\n".join(lines)
        return ToolResult(llm_content=body, display=body)


class _ServerTool(TypedTool[Any]):
    kind = ToolKind.READ
    needs_running: ClassVar[bool] = True

    def __init__(self, servers: LanguageServers) -> None:
        self.servers = servers

    def offered(self) -> bool:
        return self.servers.running() if self.needs_running else bool(self.servers.specs)

    def invoke(self, params: Any, args: dict[str, Any]) -> ToolInvocation:
        return _ServerInvocation(self, args, params)

    async def answer(
        self, call: _ServerInvocation, ctx: ToolContext, path: Path, root: Path, text: str
    ) -> list[str]:
        raise NotImplementedError


class DiagnosticsTool(_ServerTool):
    """Why: the model can ask what is wrong with a file without running a build."""

    name = "diagnostics"
    display_name = "Diagnostics"
    description = (
        "Lists the language server's current errors and warnings for a file "
        "(file:line:col severity message). Edits already report what they introduce."
    )
    params_model = FileParams
    needs_running = False

    async def answer(
        self, call: _ServerInvocation, ctx: ToolContext, path: Path, root: Path, text: str
    ) -> list[str]:
        from gemtui.tools.lsp.diagnostics import format_lines

        found = await self.servers.current(path, root, text)
        rel = ctx.workspace.relative(path)
        return format_lines(rel, found, MAX_RESULTS) or [f"No diagnostics for {rel}."]


def _column(text: str, line: int, symbol: str) -> int:
    lines = text.splitlines()
    if not 1 <= line <= len(lines):
        raise ToolError(f"Line {line} is outside the file (it has {len(lines)} lines).")
    found = re.search(rf"(?<!\w){re.escape(symbol)}(?!\w)", lines[line - 1])
    if found is None:
        raise ToolError(f"{symbol!r} is not on line {line}: {lines[line - 1].strip()!r}")
    return found.start()


def _locations(answer: Any, ctx: ToolContext) -> list[str]:
    from lsprotocol import types as lsp

    items = answer if isinstance(answer, list) else [] if answer is None else [answer]
    out: list[str] = []
    for item in items[:MAX_RESULTS]:
        uri, rng = (
            (item.target_uri, item.target_selection_range)
            if isinstance(item, lsp.LocationLink)
            else (item.uri, item.range)
        )
        where = Path(unquote(urlparse(uri).path))
        shown = ctx.workspace.relative(where) if ctx.workspace.contains(where) else str(where)
        out.append(f"{shown}:{rng.start.line + 1}:{rng.start.character + 1}")
    if len(items) > MAX_RESULTS:
        out.append(f"... and {len(items) - MAX_RESULTS} more")
    return out


class _PositionTool(_ServerTool):
    params_model = SymbolParams

    async def answer(
        self, call: _ServerInvocation, ctx: ToolContext, path: Path, root: Path, text: str
    ) -> list[str]:
        line, symbol = call.params.line, call.params.symbol
        column = _column(text, line, symbol)
        answer = await self.servers.ask(
            path, root, text, lambda c: self.request(c, path, line - 1, column)
        )
        return _locations(answer, ctx) or [f"No {self.noun} found for {symbol!r}."]

    noun: ClassVar[str] = ""

    async def request(self, c: ServerConnection, path: Path, line: int, column: int) -> Any:
        raise NotImplementedError


class GoToDefinitionTool(_PositionTool):
    """Why: where a name is defined, without grepping for look-alikes."""

    name = "go_to_definition"
    display_name = "GoToDefinition"
    description = "Finds where the symbol on a line is defined (file:line:col), by language server."
    noun = "definition"

    async def request(self, c: ServerConnection, path: Path, line: int, column: int) -> Any:
        return await c.definition(path, line, column)


class FindReferencesTool(_PositionTool):
    """Why: every use of a name before changing it, precisely."""

    name = "find_references"
    display_name = "FindReferences"
    description = (
        "Lists every reference to the symbol on a line (file:line:col), by language server."
    )
    noun = "references"

    async def request(self, c: ServerConnection, path: Path, line: int, column: int) -> Any:
        return await c.references(path, line, column)


def _symbol_lines(items: list[Any], depth: int, out: list[str]) -> None:
    from lsprotocol import types as lsp

    for item in items:
        if len(out) >= MAX_RESULTS:
            return
        kind = lsp.SymbolKind(item.kind).name.lower()
        start = (item.range if isinstance(item, lsp.DocumentSymbol) else item.location.range).start
        out.append(f"{'  ' * depth}{kind} {item.name} (line {start.line + 1})")
        if isinstance(item, lsp.DocumentSymbol) and item.children:
            _symbol_lines(list(item.children), depth + 1, out)


class DocumentSymbolsTool(_ServerTool):
    """Why: a file's outline in one call, cheaper than reading it whole."""

    name = "document_symbols"
    display_name = "DocumentSymbols"
    description = "Lists the classes, functions and variables a file defines, with their lines."
    params_model = FileParams

    async def answer(
        self, call: _ServerInvocation, ctx: ToolContext, path: Path, root: Path, text: str
    ) -> list[str]:
        answer = await self.servers.ask(path, root, text, lambda c: c.symbols(path))
        out: list[str] = []
        _symbol_lines(list(answer or []), 0, out)
        return out or [f"No symbols in {ctx.workspace.relative(path)}."]


def language_server_tools(servers: LanguageServers) -> list[Tool]:
    """The read-only tools on ``servers``, for the session's registry."""
    return [
        DiagnosticsTool(servers),
        GoToDefinitionTool(servers),
        FindReferencesTool(servers),
        DocumentSymbolsTool(servers),
    ]
