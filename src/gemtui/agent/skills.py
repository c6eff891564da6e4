"""Agent Skills (agentskills.io): folders holding a ``SKILL.md`` the model opens on demand.

A ``SKILL.md`` starts with YAML front matter giving ``name`` and ``description``; its
body is the instructions. Only the name and description reach the system instruction;
the body and the folder's file list join the conversation when the model calls
``activate_skill`` (see ``skill_tool``), so a large library costs a few lines per skill.

Folders are read in order, a later one winning a name (Gemini CLI's tiers): the enabled
extensions' ``skills/``, then the user's (``~/.claude/skills``, ``~/.gemini/skills``,
``~/.agents/skills``), then the workspace's (``.claude/skills``, ``.gemini/skills``,
``.agents/skills``) — the workspace's only when the folder is trusted, since a cloned
repository must not hand the model instructions of its choosing. Within a tier
``.agents`` wins over ``.gemini`` (the shared alias other agents read too).

A broken ``SKILL.md`` is named with its file and line, and skipped: never fatal.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

from msgspec import Struct, field

if TYPE_CHECKING:
    from gemtui.extensions import Extension

__all__ = [
    "SKILL_FILE",
    "Skill",
    "SkillError",
    "SkillSet",
    "folder_listing",
    "load_skills",
    "read_skill",
    "skill_dirs",
    "user_skills_dir",
]

SKILL_FILE = "SKILL.md"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
_FRONT = re.compile(r"\A---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|\Z)", re.DOTALL)
_MAX_FILE = 256 * 1024
"""A SKILL.md past this size is refused (it is instructions, not a data file)."""
_MAX_LISTED = 200
"""Files named in a folder listing; past this many, the rest are counted."""
_MAX_WALKED = 10_000
"""Files a listing looks at: a folder past it is said to hold more (never walked whole)."""
_MAX_DESCRIPTION = 1024
"""The standard's limit on a description; longer ones are cut in the prompt."""


class SkillError(ValueError):
    """A ``SKILL.md`` that cannot be used; ``str()`` is ``path:line: what is wrong``."""

    def __init__(self, path: Path, line: int, message: str) -> None:
        super().__init__(f"{path}:{line}: {message}")
        self.path = path
        self.line = line


class Skill(Struct, frozen=True):
    """One skill: what the model is told of it, and what activating it opens."""

    name: str
    description: str
    body: str
    folder: Path
    source: str
    """``extension:NAME``, ``user`` or ``workspace``."""

    @property
    def path(self) -> Path:
        return self.folder / SKILL_FILE


class SkillSet(Struct):
    """The skills found, by name, and the files that did not load (each ``path:line: why``)."""

    skills: dict[str, Skill] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


def user_skills_dir(home: Path | None = None) -> Path:
    """Where ``gemtui skills install`` puts a skill: Gemini CLI's user folder."""
    return (home if home is not None else Path.home()) / ".gemini" / "skills"


def skill_dirs(
    workspace: Path,
    *,
    trusted: bool,
    home: Path | None = None,
    extensions: tuple[Extension, ...] | list[Extension] = (),
) -> list[tuple[str, Path]]:
    """The skill folders in load order (a later one wins a name): source and folder."""
    home = home if home is not None else Path.home()
    dirs = [(f"extension:{ext.name}", ext.path / "skills") for ext in extensions]
    dirs += [("user", home / tool / "skills") for tool in (".claude", ".gemini", ".agents")]
    if trusted:
        dirs += [
            ("workspace", workspace / tool / "skills") for tool in (".claude", ".gemini", ".agents")
        ]
    return dirs


def load_skills(
    workspace: Path,
    *,
    trusted: bool,
    home: Path | None = None,
    extensions: tuple[Extension, ...] | list[Extension] = (),
) -> SkillSet:
    """Every skill found in ``skill_dirs``; a broken one is a problem, not an error."""
    found = SkillSet()
    for source, folder in skill_dirs(workspace, trusted=trusted, home=home, extensions=extensions):
        try:
            candidates = sorted(p for p in folder.iterdir() if (p / SKILL_FILE).is_file())
        except OSError:
            continue
        for candidate in candidates:
            try:
                skill = read_skill(candidate, source=source)
            except SkillError as exc:
                found.problems.append(str(exc))
                continue
            found.skills[skill.name] = skill
    return found


def read_skill(folder: Path, *, source: str = "user") -> Skill:
    """The skill in ``folder``; ``SkillError`` names the file and line of what is wrong."""
    import yaml  # only when a skill exists: start-up without one skips it

    path = folder / SKILL_FILE
    try:
        if path.stat().st_size > _MAX_FILE:
            raise SkillError(path, 1, f"larger than {_MAX_FILE // 1024} KiB")
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SkillError(path, 1, f"cannot be read: {exc}") from exc
    text = text.lstrip("\ufeff")
    match = _FRONT.match(text)
    if match is None:
        raise SkillError(path, 1, "no YAML front matter (a '---' block with name and description)")
    try:
        meta = yaml.safe_load(match.group(1)) or {}
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        line = 2 + (mark.line if mark is not None else 0)  # the front matter starts on line 2
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise SkillError(path, line, f"bad YAML front matter: {problem}") from exc
    if not isinstance(meta, dict):
        raise SkillError(path, 2, "the front matter is not a mapping of keys to values")
    name = meta.get("name")
    if isinstance(name, bool | int | float):  # ``name: on`` is YAML 1.1's true: the text
        name = _key_text(match.group(1), "name")
    if not isinstance(name, str) or not name.strip():
        raise SkillError(path, _key_line(match.group(1), "name"), "a 'name' is required")
    name = name.strip()
    if not _NAME.match(name):
        raise SkillError(
            path,
            _key_line(match.group(1), "name"),
            f"name {name!r}: use letters, digits, '-', '_' and '.' (at most 64)",
        )
    description = meta.get("description")
    if not isinstance(description, str) or not description.strip():
        raise SkillError(
            path,
            _key_line(match.group(1), "description"),
            "a 'description' is required (the model reads it to choose the skill)",
        )
    body = text[match.end() :].strip()
    return Skill(
        name=name,
        description=" ".join(description.split())[:_MAX_DESCRIPTION],
        body=body,
        folder=Path(os.path.realpath(folder)),
        source=source,
    )


def _key_text(front: str, key: str) -> str:
    """The text after ``key:`` in the front matter, as written."""
    line = front.splitlines()[_key_line(front, key) - 2] if _key_line(front, key) > 1 else ""
    return line.partition(":")[2].strip().strip("'\"")


def _key_line(front: str, key: str) -> int:
    """The file line of ``key:`` in the front matter (its first line when absent)."""
    for number, line in enumerate(front.splitlines(), start=2):
        if line.startswith(f"{key}:"):
            return number
    return 1


def folder_listing(folder: Path) -> str:
    """The skill folder's files, one relative path a line (links not followed), so the
    model knows which scripts and references it may read."""
    names: list[str] = []
    total = 0
    for top, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d != ".git")
        for name in sorted(files):
            total += 1
            if len(names) < _MAX_LISTED:
                names.append(os.path.relpath(os.path.join(top, name), folder))
        if total >= _MAX_WALKED:
            break
    extra = total - len(names)
    more = f"\n… and {extra}{'+' if total >= _MAX_WALKED else ''} more" if extra else ""
    return f"{folder}/\n" + "\n".join(f"  {n}" for n in names) + more
