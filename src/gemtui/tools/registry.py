"""The tools one agent may call, by name and alias, and their declarations for the model."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from gemtui.tools.base import Tool
from gemtui.wire import FunctionDeclaration

__all__ = ["ToolRegistry", "default_registry"]


class ToolRegistry:
    """Tools keyed by name; aliases (old Gemini CLI names) resolve to the same tool."""

    def __init__(self, tools: Iterable[Tool] = ()) -> None:
        self._tools: dict[str, Tool] = {}
        self._aliases: dict[str, str] = {}
        for tool in tools:
            self.register(tool)

    def register(self, tool: Tool, *, replace: bool = False) -> None:
        """Add ``tool``; a clash with an existing name or alias is an error unless ``replace``."""
        names = (tool.name, *tool.aliases)
        if not replace:
            for n in names:
                if n in self._tools or n in self._aliases:
                    raise ValueError(f"A tool named {n!r} is already registered")
        else:
            self.unregister(tool.name)
        self._tools[tool.name] = tool
        for alias in tool.aliases:
            self._aliases[alias] = tool.name

    def unregister(self, name: str) -> Tool | None:
        """Remove a tool (by name or alias) and its aliases; returns it if it was there."""
        tool = self.get(name)
        if tool is None:
            return None
        del self._tools[tool.name]
        for alias in [a for a, target in self._aliases.items() if target == tool.name]:
            del self._aliases[alias]
        return tool

    def get(self, name: str) -> Tool | None:
        tool = self._tools.get(name)
        if tool is None and name in self._aliases:
            tool = self._tools.get(self._aliases[name])
        return tool

    def names(self) -> list[str]:
        """Primary names, in registration order."""
        return list(self._tools)

    def tools(self) -> list[Tool]:
        return list(self._tools.values())

    def declarations(
        self, exclude: set[str] | frozenset[str] = frozenset()
    ) -> list[FunctionDeclaration]:
        """Declarations for the model, leaving out tools whose name or alias is excluded
        and those not offered now."""
        out: list[FunctionDeclaration] = []
        for tool in self._tools.values():
            if tool.name in exclude or any(a in exclude for a in tool.aliases):
                continue
            if not tool.offered():
                continue
            out.append(tool.declaration())
        return out

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self.get(name) is not None

    def __iter__(self) -> Iterator[Tool]:
        return iter(list(self._tools.values()))

    def __len__(self) -> int:
        return len(self._tools)


def default_registry() -> ToolRegistry:
    """A registry holding fresh instances of the built-in workspace tools."""
    from gemtui.tools.builtin import builtin_tools

    return ToolRegistry(builtin_tools())
