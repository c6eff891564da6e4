"""``gemtui skills list [--json] | install PATH | uninstall NAME | enable NAME | disable NAME``.

As Gemini CLI's ``gemini skills``: ``install`` copies a skill folder (one holding
``SKILL.md``, or a folder whose subfolders each hold one) into the user's skills,
``~/.gemini/skills/NAME``, where Gemini CLI installs them too; ``uninstall`` removes one
from there. ``enable``/``disable`` keep ``[skills] disabled`` in the user config.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from gemtui.cli.parser import Subcommands, add_subcommand
from gemtui.errors import EXIT_INPUT, FatalError

if TYPE_CHECKING:
    from gemtui.agent.skills import Skill

__all__ = ["add_parser"]


def add_parser(commands: Subcommands) -> None:
    p = add_subcommand(commands, "skills", _run, "Agent Skills (SKILL.md folders).")
    sub = p.add_subparsers(dest="action", required=True)
    listing = sub.add_parser("list", help="the skills found here, and whether each is enabled")
    listing.add_argument("--json", action="store_true", help="one JSON array")
    sub.add_parser("install", help="copy a skill folder into ~/.gemini/skills").add_argument("path")
    sub.add_parser("uninstall", help="remove a skill from ~/.gemini/skills").add_argument("name")
    sub.add_parser("enable", help="offer a skill to the model again").add_argument("name")
    sub.add_parser("disable", help="stop offering a skill to the model").add_argument("name")


def _run(args: argparse.Namespace) -> int:
    from gemtui.agent.skills import SkillError

    workspace = Path(os.getcwd()).resolve()
    try:
        if args.action == "list":
            return _list(workspace, as_json=args.json)
        if args.action == "install":
            return _install(Path(args.path).expanduser())
        if args.action == "uninstall":
            return _uninstall(args.name)
        return _set_enabled(args.name, args.action == "enable")
    except (SkillError, OSError) as exc:
        sys.stderr.write(f"gemtui: skills {args.action}: {exc}\n")
        return EXIT_INPUT
    except FatalError as exc:  # a settings or trusted-folders file that cannot be read
        sys.stderr.write(f"gemtui: skills {args.action}: {exc.message}\n")
        return exc.exit_code


def _disabled() -> list[str]:
    from gemtui.config.settings import load_settings

    return list(load_settings().skills.disabled)


def _list(workspace: Path, *, as_json: bool) -> int:
    from gemtui.agent.skills import load_skills
    from gemtui.config.trust import workspace_trust
    from gemtui.extensions import enabled_extensions

    trusted = workspace_trust(workspace).trusted
    found = load_skills(workspace, trusted=trusted, extensions=enabled_extensions(workspace))
    disabled = set(_disabled())
    skills = sorted(found.skills.values(), key=lambda s: s.name)
    for problem in found.problems:
        sys.stderr.write(f"gemtui: skill not loaded: {problem}\n")
    if as_json:
        rows = [_row(s, enabled=s.name not in disabled) for s in skills]
        sys.stdout.write(json.dumps(rows, ensure_ascii=False, indent=2) + "\n")
        return 0
    out = sys.stdout
    for s in skills:
        state = "disabled" if s.name in disabled else "enabled"
        out.write(f"{s.name} ({s.source}, {state}) {s.folder}\n  {s.description}\n")
    if not skills:
        out.write("No skills found (gemtui skills install PATH, or ~/.gemini/skills/NAME/).\n")
    from gemtui.config.trust import WORKSPACE_SKILL_DIRS

    if not trusted and any((workspace / d).is_dir() for d in WORKSPACE_SKILL_DIRS):
        out.write(
            f"This folder is not trusted: its own skills ({workspace}/.gemini/skills, "
            ".agents/skills, .claude/skills) are left out.\n"
        )
    return 0


def _row(skill: Skill, *, enabled: bool) -> dict[str, object]:
    return {
        "name": skill.name,
        "description": skill.description,
        "path": str(skill.folder),
        "source": skill.source,
        "enabled": enabled,
    }


def _install(source: Path) -> int:
    from gemtui.agent.skills import SKILL_FILE, read_skill, user_skills_dir

    if not source.is_dir():
        sys.stderr.write(f"gemtui: skills install: {source} is not a folder\n")
        return EXIT_INPUT
    if (source / SKILL_FILE).is_file():
        folders = [source]
    else:  # a collection: each subfolder with a SKILL.md (one level, as Gemini CLI)
        folders = sorted(p for p in source.iterdir() if (p / SKILL_FILE).is_file())
    if not folders:
        sys.stderr.write(f"gemtui: skills install: no {SKILL_FILE} in {source} or its folders\n")
        return EXIT_INPUT
    skills = [read_skill(folder) for folder in folders]  # all valid, or nothing is copied
    target_root = user_skills_dir()
    for skill in skills:
        if (target_root / skill.name).exists():
            sys.stderr.write(
                f"gemtui: skills install: {skill.name} is already installed in "
                f"{target_root / skill.name} (gemtui skills uninstall {skill.name} first)\n"
            )
            return EXIT_INPUT
    target_root.mkdir(parents=True, exist_ok=True)
    for skill in skills:
        target = target_root / skill.name
        shutil.copytree(skill.folder, target, symlinks=True, ignore=shutil.ignore_patterns(".git"))
        sys.stdout.write(f"Installed {skill.name} into {target}\n")
    return 0


def _uninstall(name: str) -> int:
    from gemtui.agent.skills import SkillError, read_skill, user_skills_dir

    root = user_skills_dir()
    for folder in sorted(root.iterdir()) if root.is_dir() else []:
        try:
            skill = read_skill(folder)
        except SkillError:
            skill = None
        if folder.name == name or (skill is not None and skill.name == name):
            if folder.is_symlink():  # a linked skill: the link goes, its folder stays
                folder.unlink()
            else:
                shutil.rmtree(folder)
            sys.stdout.write(f"Uninstalled {name} from {folder}\n")
            return 0
    sys.stderr.write(f"gemtui: skills uninstall: no skill named {name!r} in {root}\n")
    return EXIT_INPUT


def _set_enabled(name: str, enabled: bool) -> int:
    from gemtui.config.user_config import save_choice

    disabled = [n for n in _disabled() if n != name] + ([] if enabled else [name])
    path = save_choice("skills", "disabled", disabled)
    sys.stdout.write(f"{name} {'enabled' if enabled else 'disabled'} (saved in {path})\n")
    return 0
