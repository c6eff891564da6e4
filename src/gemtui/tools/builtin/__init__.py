"""The built-in workspace tools, with Gemini CLI's names and parameters."""

from __future__ import annotations

from gemtui.tools.base import Tool
from gemtui.tools.builtin.glob import GlobTool
from gemtui.tools.builtin.grep_search import GrepSearchTool
from gemtui.tools.builtin.list_directory import ListDirectoryTool
from gemtui.tools.builtin.read_file import ReadFileTool
from gemtui.tools.builtin.read_many_files import ReadManyFilesTool
from gemtui.tools.builtin.replace import ReplaceTool
from gemtui.tools.builtin.run_shell_command import RunShellCommandTool
from gemtui.tools.builtin.save_memory import SaveMemoryTool
from gemtui.tools.builtin.web_fetch import WebFetchTool
from gemtui.tools.builtin.web_search import GoogleWebSearchTool
from gemtui.tools.builtin.write_file import WriteFileTool
from gemtui.tools.builtin.write_todos import WriteTodosTool

__all__ = [
    "GlobTool",
    "GoogleWebSearchTool",
    "GrepSearchTool",
    "ListDirectoryTool",
    "ReadFileTool",
    "ReadManyFilesTool",
    "ReplaceTool",
    "RunShellCommandTool",
    "SaveMemoryTool",
    "WebFetchTool",
    "WriteFileTool",
    "WriteTodosTool",
    "builtin_tools",
]


def builtin_tools() -> list[Tool]:
    """Fresh instances of every built-in workspace tool, in declaration order."""
    return [
        ListDirectoryTool(),
        ReadFileTool(),
        ReadManyFilesTool(),
        GlobTool(),
        GrepSearchTool(),
        ReplaceTool(),
        WriteFileTool(),
        RunShellCommandTool(),
        WriteTodosTool(),
        WebFetchTool(),
        GoogleWebSearchTool(),
        SaveMemoryTool(),
    ]
