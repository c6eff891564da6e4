"""``gemtui extensions install|link|list|enable|disable|uninstall|update|import``.

Gemini CLI's extensions (``gemini-extension.json``), kept under gemtui's data dir. What an
enabled extension brings — MCP servers, context files, commands — joins the next session.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from gemtui.cli.parser import Subcommands, add_subcommand
from gemtui.errors import EXIT_INPUT

__all__ = ["add_parser"]


def add_parser(commands: Subcommands) -> None:
    p = add_subcommand(commands, "extensions", _run, "Gemini CLI extensions.")
    sub = p.add_subparsers(dest="action", required=True)
    sub.add_parser("install", help="copy a folder or clone a git URL").add_argument("source")
    sub.add_parser("link", help="use a folder in place").add_argument("path")
    sub.add_parser("list", help="installed extensions and what they bring")
    for action in ("enable", "disable"):
        q = sub.add_parser(action, help=f"{action} an extension")
        q.add_argument("name")
        q.add_argument("--workspace", action="store_true", help="only for this folder")
    sub.add_parser("uninstall", help="remove an extension").add_argument("name")
    sub.add_parser("update", help="fetch it again from its source").add_argument("name")
    sub.add_parser("import", help="copy the extensions Gemini CLI has installed")


def _run(args: argparse.Namespace) -> int:
    from gemtui.extensions import ExtensionError, ExtensionStore

    store = ExtensionStore()
    workspace = Path(os.getcwd()).resolve()
    out = sys.stdout
    try:
        if args.action == "install":
            ext = store.install(args.source)
            out.write(f"Installed {ext.name} {ext.version} into {store.root / ext.name}\n")
        elif args.action == "link":
            ext = store.link(args.path)
            out.write(f"Linked {ext.name} {ext.version} -> {ext.path}\n")
        elif args.action == "list":
            found, problems = store.installed()
            for ext in found:
                state = "enabled" if store.is_enabled(ext.name, workspace) else "disabled"
                servers = ", ".join(ext.mcp_servers) or "none"
                context = ", ".join(ext.context_files) or "none"
                commands = "yes" if ext.commands_dir.is_dir() else "no"
                out.write(
                    f"{ext.name} {ext.version} ({state}) {ext.path}\n"
                    f"  MCP servers: {servers}; context: {context}; commands: {commands}\n"
                )
            for problem in problems:
                sys.stderr.write(f"gemtui: cannot read an extension: {problem}\n")
            if not found and not problems:
                out.write("No extensions installed (gemtui extensions install PATH).\n")
        elif args.action in ("enable", "disable"):
            enabled = args.action == "enable"
            store.set_enabled(args.name, enabled, workspace if args.workspace else None)
            where = f" in {workspace}" if args.workspace else ""
            out.write(f"{args.name} {'enabled' if enabled else 'disabled'}{where}\n")
        elif args.action == "uninstall":
            store.uninstall(args.name)
            out.write(f"Uninstalled {args.name}\n")
        elif args.action == "update":
            ext = store.update(args.name)
            out.write(f"Updated {ext.name} to {ext.version}\n")
        else:
            done, skipped = store.import_gemini_cli()
            out.write(f"Imported {len(done)}: {', '.join(done) or 'none'}\n")
            for line in skipped:
                sys.stderr.write(f"gemtui: skipped {line}\n")
    except (ExtensionError, OSError) as exc:
        sys.stderr.write(f"gemtui: extensions {args.action}: {exc}\n")
        return EXIT_INPUT
    return 0
