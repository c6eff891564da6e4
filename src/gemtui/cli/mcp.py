"""``gemtui mcp list|add|remove|import``: the user's MCP servers managed from the shell.

They live in the user ``config.toml`` under ``[mcpServers.NAME]`` with Gemini CLI's keys;
``import`` copies a Gemini CLI user's ``~/.gemini/settings.json`` servers across (its
``timeout`` is in milliseconds there and here: the keys and units are Gemini CLI's).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import tomllib
from pathlib import Path
from typing import Any

from gemtui.cli.parser import Subcommands, add_subcommand
from gemtui.errors import EXIT_CONFIG, EXIT_INPUT

__all__ = ["add_parser"]

_KEYS = (
    "command", "args", "env", "cwd", "url", "httpUrl", "headers", "timeout", "trust",
    "includeTools", "excludeTools",
)  # fmt: skip


def _read(path: Path) -> dict[str, Any]:
    return tomllib.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def _write(path: Path, data: dict[str, Any]) -> None:
    from gemtui.config.settings import Settings
    from gemtui.config.user_config import dumps_toml

    Settings.model_validate(data)  # never write a file the next start would refuse
    text = dumps_toml(data) + "\n"
    tomllib.loads(text)
    path.parent.mkdir(parents=True, exist_ok=True)
    # a fresh temporary file (O_EXCL): never one a folder planted, link or not
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".config-", suffix=".toml.tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(tmp, path)  # a link at ``path`` is replaced, not followed
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _pairs(items: list[str], what: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ValueError(f"{what} must be NAME=VALUE, got {item!r}")
        out[key] = value
    return out


def _describe(name: str, conf: dict[str, Any]) -> str:
    if conf.get("command"):
        target = "stdio  " + " ".join([conf["command"], *conf.get("args", [])])
    elif conf.get("httpUrl"):
        target = f"http   {conf['httpUrl']}"
    else:
        target = f"sse    {conf.get('url', '?')}"
    return f"{name}  {target}" + ("  (trusted)" if conf.get("trust") else "")


def _from_gemini(conf: dict[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in conf.items() if k in _KEYS and v is not None}
    return out


def _run(args: argparse.Namespace) -> int:
    """Run one ``gemtui mcp`` action; bad input exits 42, an unreadable file 52."""
    from pydantic import ValidationError

    try:
        return _command(args)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(x) for x in err["loc"])
        sys.stderr.write(f"gemtui: invalid MCP server setting {where}: {err['msg']}\n")
        return EXIT_INPUT


def add_parser(commands: Subcommands) -> None:
    p = add_subcommand(commands, "mcp", _run, "The user's MCP servers.")
    sub = p.add_subparsers(dest="action", required=True)
    sub.add_parser("list", help="list the configured servers")
    add = sub.add_parser("add", help="add (or replace) a server")
    add.add_argument("name")
    add.add_argument(
        "argv",
        nargs=argparse.REMAINDER,
        help="a stdio server's program and args (options go before NAME)",
    )
    add.add_argument("--http", metavar="URL", help="a streamable HTTP server")
    add.add_argument("--sse", metavar="URL", help="an SSE server")
    add.add_argument("--env", action="append", default=[], metavar="NAME=VALUE")
    add.add_argument("--header", action="append", default=[], metavar="NAME=VALUE")
    add.add_argument("--timeout", type=float, help="milliseconds (as in Gemini CLI)")
    add.add_argument("--trust", action="store_true", help="run its tools without asking")
    rm = sub.add_parser("remove", help="remove a server")
    rm.add_argument("name")
    imp = sub.add_parser("import", help="copy Gemini CLI's mcpServers")
    imp.add_argument(
        "--from", dest="source", type=Path, default=Path.home() / ".gemini/settings.json"
    )


def _command(args: argparse.Namespace) -> int:
    from gemtui.config.paths import user_config_file

    if args.action == "add":
        args.command, args.args = (args.argv[0], args.argv[1:]) if args.argv else (None, [])
    path = user_config_file()
    try:
        data = _read(path)
    except (OSError, tomllib.TOMLDecodeError) as exc:
        sys.stderr.write(f"gemtui: cannot read {path}: {exc}\n")
        return EXIT_CONFIG
    servers: dict[str, Any] = data.setdefault("mcpServers", {})
    if args.action == "list":
        for name, entry in servers.items():
            print(_describe(name, entry))
        if not servers:
            print(f"No MCP servers in {path}.")
        return 0
    if args.action == "remove":
        if servers.pop(args.name, None) is None:
            sys.stderr.write(f"gemtui: no MCP server named {args.name!r} in {path}\n")
            return EXIT_INPUT
        _write(path, data)
        print(f"Removed {args.name}.")
        return 0
    if args.action == "import":
        try:
            source = json.loads(args.source.read_text(encoding="utf-8"))
            found = source.get("mcpServers", {}) if isinstance(source, dict) else {}
        except (OSError, ValueError) as exc:
            sys.stderr.write(f"gemtui: cannot read {args.source}: {exc}\n")
            return EXIT_CONFIG
        added = [n for n in found if n not in servers and isinstance(found[n], dict)]
        for name in added:
            servers[name] = _from_gemini(found[name])
        _write(path, data)
        print(f"Imported {len(added)} server(s)" + (f": {', '.join(added)}." if added else "."))
        return 0
    conf: dict[str, Any] = {}
    try:
        if sum(x is not None for x in (args.command, args.http, args.sse)) != 1:
            raise ValueError("give exactly one of COMMAND, --http URL or --sse URL")
        if args.command:
            conf.update(command=args.command, args=list(args.args))
        elif args.http:
            conf["httpUrl"] = args.http
        else:
            conf["url"] = args.sse
        if args.env:
            conf["env"] = _pairs(args.env, "--env")
        if args.header:
            conf["headers"] = _pairs(args.header, "--header")
    except ValueError as exc:
        sys.stderr.write(f"gemtui: {exc}\n")
        return EXIT_INPUT
    if args.timeout is not None:
        conf["timeout"] = args.timeout
    if args.trust:
        conf["trust"] = True
    servers[args.name] = conf
    _write(path, data)
    print(f"Added {_describe(args.name, conf)}.")
    return 0
