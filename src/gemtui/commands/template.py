"""Turning ``/name args`` into the prompt a custom command sends.

Gemini CLI's template rules: ``{{args}}`` is replaced by what follows the command (shell-
quoted inside ``!{…}``, so an argument can never add a shell word); ``!{command}`` is
replaced by the command's output, with ``[Shell command exited with code N]`` when it
failed; ``@{path}`` by the file's (or folder's) content; a template without ``{{args}}``
gets the whole invocation appended after a blank line when arguments were given.

The template is split once, before anything is substituted: text that arrives through an
argument, a file or a command's output is never read as ``!{…}`` or ``@{…}`` again, so a
file in the repository cannot smuggle a shell line into the next step.

How shell lines and files are reached is the ``CommandRunner``'s business; the session's
runner sends each ``!{…}`` through the tool scheduler, so policy, approval, the sandbox and
the card a person sees are the ones the model's own ``run_shell_command`` calls get.
"""

from __future__ import annotations

import re
import shlex
from typing import Literal, Protocol

from gemtui.commands.toml_commands import CustomCommand

__all__ = [
    "ARGS",
    "CommandError",
    "CommandRunner",
    "expand_command",
    "expand_plain",
    "split_template",
]

ARGS = "{{args}}"

Kind = Literal["text", "shell", "file"]


class CommandError(Exception):
    """A custom command could not be expanded: the prompt is not sent, the person is told."""


class CommandRunner(Protocol):
    """What expansion needs from the session."""

    async def run_shell(self, line: str) -> tuple[str, int | None]:
        """Output and exit code of an approved line; raises ``CommandError`` if refused."""
        ...

    async def read_path(self, path: str) -> str:
        """A workspace file's or folder's text; raises ``CommandError`` if refused."""
        ...


def split_template(prompt: str) -> list[tuple[Kind, str]]:
    """The template as text, shell and file pieces; braces inside a piece may nest."""
    pieces: list[tuple[Kind, str]] = []
    start = i = 0
    while i < len(prompt):
        if not prompt.startswith(("!{", "@{"), i):
            i += 1
            continue
        kind: Kind = "shell" if prompt[i] == "!" else "file"
        depth, j = 1, i + 2
        while j < len(prompt) and depth:
            depth += {"{": 1, "}": -1}.get(prompt[j], 0)
            j += 1
        if depth:
            raise CommandError(f"unclosed {prompt[i]}{{…}} in the prompt (at character {i})")
        pieces.append(("text", prompt[start:i]))
        pieces.append((kind, prompt[i + 2 : j - 1].strip()))
        start = i = j
    pieces.append(("text", prompt[start:]))
    return [(k, v) for k, v in pieces if k != "text" or v]


_EXIT = re.compile(r"^Exit Code: (-?\d+)$", re.MULTILINE)


def exit_code_of(tool_output: str) -> int | None:
    """The exit code run_shell_command reported in its answer to the model."""
    match = _EXIT.search(tool_output)
    return int(match.group(1)) if match else None


_POSITIONAL = re.compile(r"\$ARGUMENTS|\$([1-9])")


def expand_plain(command: CustomCommand, args: str) -> str:
    """A Claude Code command's prompt: ``$ARGUMENTS`` is everything after the name, ``$1``
    … ``$9`` its words; nothing else is interpreted. Without either, the arguments follow
    the body as ``ARGUMENTS: …``, as Claude Code sends them."""
    words = args.split()

    def sub(match: re.Match[str]) -> str:
        if match.group(1) is None:
            return args
        index = int(match.group(1)) - 1
        return words[index] if index < len(words) else ""

    text, count = _POSITIONAL.subn(sub, command.prompt)
    if not count and args.strip():
        text = f"{text.rstrip()}\n\nARGUMENTS: {args}"
    return text


async def expand_command(command: CustomCommand, args: str, runner: CommandRunner) -> str:
    """The prompt ``/command args`` sends; raises ``CommandError``."""
    if command.plain:
        return expand_plain(command, args)
    pieces = split_template(command.prompt)
    out: list[str] = []
    for kind, value in pieces:
        if kind == "text":
            out.append(value.replace(ARGS, args))
        elif kind == "shell":
            line = value.replace(ARGS, shlex.quote(args))
            if not line:
                raise CommandError("an empty !{} in the prompt")
            output, code = await runner.run_shell(line)
            if code not in (0, None):
                output = f"{output.rstrip()}\n[Shell command exited with code {code}]"
            out.append(output)
        else:
            if not value:
                raise CommandError("an empty @{} in the prompt")
            out.append(await runner.read_path(value))
    text = "".join(out)
    if ARGS not in command.prompt and args.strip():
        text = f"{text.rstrip()}\n\n/{command.name} {args}"
    return text
