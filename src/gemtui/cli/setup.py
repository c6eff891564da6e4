"""``gemtui setup import [--yes] [--json]``: bring a Gemini CLI or Claude Code setup over.

It shows what it found on this machine and in this folder and what gemtui does with each
part; the parts that need copying (MCP servers into gemtui's config, Gemini CLI's
extensions, the person's own GEMINI.md / CLAUDE.md) are copied only after a yes: ``--yes``
for scripts, a y/N question on a terminal, and nothing at all otherwise. Exit 0; 52 when a
copy could not be written. No secret value is ever printed.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from gemtui.cli.parser import Subcommands, add_subcommand
from gemtui.errors import EXIT_CONFIG

if TYPE_CHECKING:
    from gemtui.config.setup_import import Copy, Plan

__all__ = ["add_parser"]


def add_parser(commands: Subcommands) -> None:
    p = add_subcommand(
        commands, "setup", _run, "Bring a Gemini CLI or Claude Code setup over to gemtui."
    )
    sub = p.add_subparsers(dest="action", required=True)
    imp = sub.add_parser(
        "import",
        help="show what a Gemini CLI / Claude Code setup holds; copy on yes",
        description="Show what a Gemini CLI or Claude Code setup on this machine and in "
        "this folder holds and what gemtui does with each part. MCP servers, Gemini CLI's "
        "extensions and your own GEMINI.md / CLAUDE.md are copied only after a yes (--yes, "
        "or y on a terminal); without a terminal and without --yes nothing changes. "
        "Secret values are never printed.",
    )
    imp.add_argument("--yes", "-y", action="store_true", help="copy without asking")
    imp.add_argument("--json", action="store_true", help="machine-readable output")


def _run(args: argparse.Namespace) -> int:
    from dataclasses import asdict

    from gemtui.config.setup_import import survey

    workspace = Path.cwd().resolve()
    plan = survey(workspace)
    if args.json:
        results = _apply(plan.copies) if args.yes else []
        out = {
            "workspace": str(workspace),
            "found": [asdict(f) for f in plan.findings],
            "copies": [c.public() for c in plan.copies],
            "results": [{"what": what, "status": status} for what, status in results],
        }
        print(json.dumps(out, indent=2))
        return EXIT_CONFIG if any(s == "failed" for _, s in results) else 0
    _show(plan, workspace)
    if not plan.copies:
        print("\nNothing to copy: gemtui uses the rest where it is.")
        return 0
    print("\nTo copy:")
    for copy in plan.copies:
        print(_plain(f"  {copy.kind}: {', '.join(copy.names)} → {copy.target}"))
    if not args.yes:
        if not sys.stdin.isatty():
            print("\nNothing changed (not a terminal): run `gemtui setup import --yes` to copy.")
            return 0
        try:
            answer = input("\nCopy these? [y/N] ").strip().lower()
        except EOFError:
            answer = ""
        if answer not in ("y", "yes"):
            print("Nothing changed.")
            return 0
    results = _apply(plan.copies)
    for what, status in results:
        print(_plain(f"  {status}: {what}"))
    return EXIT_CONFIG if any(s == "failed" for _, s in results) else 0


def _show(plan: Plan, workspace: Path) -> None:
    if not plan.findings:
        print(_plain(f"No Gemini CLI or Claude Code setup found (home, and {workspace})."))
        return
    for origin in dict.fromkeys(f.origin for f in plan.findings):
        print(_plain(f"{origin}:"))
        for f in (f for f in plan.findings if f.origin == origin):
            count = f" ({f.count})" if f.count > 1 else ""
            note = f" — {f.note}" if f.note else ""
            print(_plain(f"  {f.kind}{count} [{f.scope}] {f.path}: {f.use}{note}"))


def _apply(copies: list[Copy]) -> list[tuple[str, str]]:
    """Make each copy: (what, ``done``/``skipped``/``failed``) for each part."""
    done: list[tuple[str, str]] = []
    for copy in copies:
        try:
            done.extend(_apply_one(copy))
        except (OSError, ValueError) as exc:
            done.append((f"{copy.kind} → {copy.target}: {exc}", "failed"))
    return done


def _apply_one(copy: Copy) -> list[tuple[str, str]]:
    from pydantic import ValidationError

    from gemtui.cli.mcp import _from_gemini, _read, _write

    target = Path(copy.target)
    if copy.kind == "mcp":
        _refuse_links(target)
        data = _read(target)
        servers = data.setdefault("mcpServers", {})
        added = [n for n in copy.servers if n not in servers]
        for name in added:
            servers[name] = _from_gemini(copy.servers[name])
        try:
            _write(target, data)
        except ValidationError as exc:
            raise ValueError(
                f"a server's settings are not valid: {exc.errors()[0]['msg']}"
            ) from exc
        return [(f"MCP servers {', '.join(added)} → {target}", "done")]
    if copy.kind == "context":
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(copy.source, target)
        return [(f"{copy.source} → {target}", "done")]
    from gemtui.extensions import ExtensionStore

    imported, skipped = ExtensionStore().import_gemini_cli(Path(copy.source).parent.parent)
    return [(f"extension {n}", "done") for n in imported] + [(s, "skipped") for s in skipped]


def _refuse_links(target: Path) -> None:
    """A folder's ``.gemtui/config.toml`` is written only inside the folder: a committed
    link (``.gemtui -> ~/.config/gemtui``) would carry its servers into every folder."""
    from gemtui.config.paths import user_config_file

    if target == user_config_file():
        return
    folder = target.parent.parent
    if target.parent.is_symlink() or target.is_symlink():
        raise ValueError(f"{target} goes through a link; not written")
    if target.parent.exists() and target.parent.resolve() != folder.resolve() / ".gemtui":
        raise ValueError(f"{target} leads outside {folder}; not written")


def _plain(text: str) -> str:
    """Names and paths come from files a repository holds: a terminal escape in them must
    not redraw what the person is asked about, so control characters are shown escaped."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
