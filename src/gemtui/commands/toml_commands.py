"""Where custom commands come from and what a valid command file holds.

As in Gemini CLI: a file's path below its ``commands`` folder names the command, a
sub-folder becoming a namespace (``git/commit.toml`` → ``/git:commit``); the file needs a
string ``prompt`` and may have a string ``description``. Folders are read in order and a
later one wins a name: the user's (``~/.gemini/commands``, then gemtui's own), then the
workspace's (``.gemini/commands``, then ``.gemtui/commands``) — the workspace's only when
the folder is trusted, since a cloned repository must not hand the person commands that
run shell lines. A file that cannot be read or parsed is a problem named in a notice;
the other commands still load.

Claude Code's commands load too, from ``~/.claude/commands`` (first of the user's) and the
workspace's ``.claude/commands`` (first of the workspace's): a ``*.md`` file whose body is
the prompt, with optional YAML front matter (``description``, ``argument-hint``), named like
ours (``frontend/component.md`` → ``/frontend:component``). Such a command is ``plain``: its
body is sent as written, with ``$ARGUMENTS`` (and ``$1`` … ``$9``) replaced — never read as
``!{…}`` or ``@{…}``, which mean nothing to Claude Code.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

from msgspec import Struct, field

from gemtui.config.paths import config_dir

__all__ = ["CommandSet", "CustomCommand", "command_dirs", "load_commands"]

MAX_FILE_BYTES = 256 * 1024
"""A command file larger than this is refused (a prompt, not a data file)."""


class CustomCommand(Struct, frozen=True):
    """One ``.toml`` command: its name (without the slash), its template and origin."""

    name: str
    prompt: str
    description: str
    path: Path
    source: str
    """``user``, ``workspace`` or ``extension NAME``: shown by ``/commands``."""
    plain: bool = False
    """Claude Code's format: ``$ARGUMENTS`` is replaced, nothing else is interpreted."""
    argument_hint: str = ""


class CommandSet(Struct):
    """The loaded commands by lower-case name, and the files that failed."""

    commands: dict[str, CustomCommand] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    def find(self, name: str) -> CustomCommand | None:
        """The command for ``/name`` or ``name`` (case-insensitive), if any."""
        return self.commands.get(name.removeprefix("/").lower())

    def help(self) -> dict[str, str]:
        """``/name`` → one-line help, for /help, completion and the palette."""
        return {
            f"/{c.name}": c.description or f"Custom command ({c.source})"
            for c in sorted(self.commands.values(), key=lambda c: c.name)
        }


def command_dirs(
    workspace: Path, *, trusted: bool, home: Path | None = None
) -> list[tuple[str, Path]]:
    """The command folders in load order (later wins), each with its source label."""
    home = home if home is not None else Path.home()
    dirs = [
        ("user", home / ".claude" / "commands"),
        ("user", home / ".gemini" / "commands"),
        ("user", config_dir() / "commands"),
    ]
    if trusted:
        dirs += [
            ("workspace", workspace / ".claude" / "commands"),
            ("workspace", workspace / ".gemini" / "commands"),
            ("workspace", workspace / ".gemtui" / "commands"),
        ]
    return dirs


def load_commands(dirs: list[tuple[str, Path]]) -> CommandSet:
    """Read every ``*.toml`` under each folder; never raises."""
    found = CommandSet()
    for source, folder in dirs:
        claude = folder.parent.name == ".claude"
        try:
            files = sorted(folder.rglob("*.md" if claude else "*.toml")) if folder.is_dir() else []
        except OSError as exc:
            found.problems.append(f"{folder}: {exc.strerror or exc}")
            continue
        for path in files:
            try:
                command = (
                    _read_markdown(path, folder, source) if claude else _read(path, folder, source)
                )
            except ValueError as exc:
                found.problems.append(f"{path}: {exc}")
                continue
            found.commands[command.name.lower()] = command
    return found


def _name(path: Path, folder: Path) -> str:
    rel = path.relative_to(folder).with_suffix("")
    name = ":".join(rel.parts)
    if not name or any(not part or part.isspace() or " " in part for part in rel.parts):
        raise ValueError("a command name may not contain spaces")
    return name


def _text(path: Path) -> str:
    try:
        if not path.is_file():
            raise ValueError("not a regular file")
        if path.stat().st_size > MAX_FILE_BYTES:
            raise ValueError(f"larger than {MAX_FILE_BYTES // 1024} KB")
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ValueError(exc.strerror or str(exc)) from exc
    except UnicodeDecodeError as exc:
        raise ValueError("not UTF-8 text") from exc


_FRONT = re.compile(r"\A---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|\Z)(.*)\Z", re.DOTALL)


def _read_markdown(path: Path, folder: Path, source: str) -> CustomCommand:
    """A Claude Code command: optional front matter, then the prompt."""
    name, text = _name(path, folder), _text(path).lstrip("\ufeff")
    meta: Any = {}
    match = _FRONT.match(text)
    if match is not None:
        import yaml  # only when such a file exists

        try:
            meta = yaml.safe_load(match.group(1)) or {}
        except yaml.YAMLError as exc:
            raise ValueError(f"bad YAML front matter: {exc}") from exc
        if not isinstance(meta, dict):
            raise ValueError("the front matter is not a mapping")
        text = match.group(2)
    if not text.strip():
        raise ValueError("the body (the prompt) is empty")
    description, hint = meta.get("description", ""), meta.get("argument-hint", "")
    if not isinstance(description, str) or not isinstance(hint, str):
        raise ValueError("'description' and 'argument-hint' must be text")
    return CustomCommand(
        name, text.strip(), description.strip(), path, source, plain=True, argument_hint=hint
    )


def _read(path: Path, folder: Path, source: str) -> CustomCommand:
    name = _name(path, folder)
    try:
        data = tomllib.loads(_text(path))
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"invalid TOML: {exc}") from exc
    prompt = data.get("prompt")
    if not isinstance(prompt, str) or not prompt.strip():
        raise ValueError("needs a 'prompt' string")
    description = data.get("description", "")
    if not isinstance(description, str):
        raise ValueError("'description' must be a string")
    return CustomCommand(name, prompt, description.strip(), path, source)
