"""Context files (GEMINI.md, AGENTS.md, CLAUDE.md, settings' ``context.fileName``): the project's
conventions and the person's own notes, found, expanded and put in the system instruction.

Where they come from, in the order they appear in the system instruction:

1. **user** — the user config dir (``$GEMTUI_HOME/config`` or the platform's), each name
   in order (GEMINI.md, AGENTS.md, CLAUDE.md, then the settings' names);
2. **project** — from the git root (the nearest folder above the workspace holding
   ``.git``; without one, the filesystem root) down to the workspace, outermost first;
3. **subfolder** — just in time: when a tool reads inside a subfolder of the workspace,
   the context files of the folders between the workspace and it, in the order found.

A context file is read only when it is a regular file whose real path stays inside its
own folder's tree (a ``GEMINI.md`` symlinked to ``~/.ssh/id_rsa`` is refused, with a
note), or is a context file of the person's own in the user config dir. The same real
file is included once.

``@path.md`` in a context file (not inside code) is replaced by that file, itself
expanded, up to ``MAX_IMPORT_DEPTH`` levels; an import that would loop, leave the scanned
tree (the git root, or the config dir for the user's files), or is not a regular file is
refused: an HTML comment stands in its place and ``notes`` says why.
"""

from __future__ import annotations

import re
import stat
from pathlib import Path
from typing import Literal

from msgspec import Struct, field

from gemtui.tools.memory_file import MEMORY_HEADING, add_memory, add_memory_text, saved_memories
from gemtui.wire.token_estimate import tokens_for_chars

__all__ = [
    "CONTEXT_FILES",
    "MAX_IMPORT_DEPTH",
    "MEMORY_HEADING",
    "ContextFile",
    "ContextFiles",
    "add_memory",
    "add_memory_text",
    "expand_imports",
    "git_root",
]

CONTEXT_FILES = ("GEMINI.md", "AGENTS.md", "CLAUDE.md")
MAX_IMPORT_DEPTH = 5
MAX_FILE_BYTES = 1_000_000
"""A context file or import larger than this is cut (a log renamed .md must not fill the
context window)."""

Scope = Literal["user", "project", "subfolder"]

# inline code spans are matched (and kept) so an @name inside them is not an import
_IMPORT = re.compile(r"(`[^`\n]*`)|(?<![^\s(\[])@([^\s`()\[\]]+?\.md)(?=[\s.,;:!?)\]]|$)")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def git_root(workspace: Path) -> Path | None:
    """The nearest folder at or above ``workspace`` holding ``.git`` (a dir or a file)."""
    for directory in [workspace, *workspace.parents]:
        if (directory / ".git").exists():
            return directory
    return None


def _read(path: Path) -> str:
    with path.open("rb") as f:
        data = f.read(MAX_FILE_BYTES + 1)
    text = data[:MAX_FILE_BYTES].decode("utf-8", errors="replace")
    return text + ("\n[cut at 1 MB]" if len(data) > MAX_FILE_BYTES else "")


def _regular(real: Path) -> bool:
    return stat.S_ISREG(real.stat().st_mode)


class _Expansion(Struct):
    root: Path
    notes: list[str]
    imports: list[Path]


def expand_imports(text: str, source: Path, root: Path, notes: list[str] | None = None) -> str:
    """``text`` (of the file ``source``) with its ``@x.md`` imports replaced, recursively.

    Imports resolve relative to the importing file's folder and must stay (real path)
    inside ``root``. Refusals go into ``notes`` and leave a comment in the text.
    """
    exp = _Expansion(root.resolve(), notes if notes is not None else [], [])
    return _expand(text, source, [source.resolve()], exp)


def _expand(text: str, source: Path, stack: list[Path], exp: _Expansion) -> str:
    out: list[str] = []
    fence: str | None = None
    for line in text.splitlines(keepends=True):
        marker = _FENCE.match(line)
        if fence is not None:
            if marker and marker.group(1)[0] == fence[0] and len(marker.group(1)) >= len(fence):
                fence = None
            out.append(line)
            continue
        if marker:
            fence = marker.group(1)
            out.append(line)
            continue
        out.append(_IMPORT.sub(lambda m: _replace(m, source, stack, exp), line))
    return "".join(out)


def _replace(match: re.Match[str], source: Path, stack: list[Path], exp: _Expansion) -> str:
    if match.group(1):  # inline code
        return match.group(0)
    ref = match.group(2)

    def refuse(reason: str) -> str:
        exp.notes.append(f"{source}: import @{ref} refused: {reason}")
        return f"<!-- Import refused: @{ref} ({reason}) -->"

    if len(stack) > MAX_IMPORT_DEPTH:
        return refuse(f"imports nest deeper than {MAX_IMPORT_DEPTH} levels")
    candidate = Path(ref) if Path(ref).is_absolute() else source.parent / ref
    try:
        real = candidate.resolve(strict=True)
        regular = _regular(real)
    except (OSError, RuntimeError):
        return refuse("no such file")
    if not _inside(real, exp.root):
        return refuse(f"it is outside {exp.root}")
    if not regular:
        return refuse("not a regular file")
    if real in stack:
        chain = " -> ".join(p.name for p in [*stack, real])
        return refuse(f"import cycle: {chain}")
    try:
        body = _read(real)
    except OSError as exc:
        return refuse(f"unreadable: {exc.strerror or exc}")
    exp.imports.append(real)
    inner = _expand(body, candidate, [*stack, real], exp).strip()
    return f"<!-- Imported from: {ref} -->\n{inner}\n<!-- End of import from: {ref} -->"


class ContextFile(Struct, frozen=True):
    """One context file as it goes to the model (imports expanded)."""

    path: Path
    scope: Scope
    text: str
    imports: tuple[Path, ...] = ()

    @property
    def tokens(self) -> int:
        """A rough count (four characters a token), for ``/memory show``."""
        return tokens_for_chars(len(self.text))


class ContextFiles(Struct):
    """The context files of one session: ``load()`` them, ``discover()`` more as tools
    read subfolders, ``system_text()`` for the system instruction."""

    workspace: Path
    names: tuple[str, ...] = CONTEXT_FILES
    home: Path | None = None
    """The user config dir (None: ``config_dir()``)."""
    extra_dirs: tuple[tuple[Path, tuple[str, ...]], ...] = ()
    """More folders with their context file names, read after the user's: extensions'
    folders and further workspace roots (``--include-directories``)."""
    files: list[ContextFile] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    """What was refused and why (symlinks leaving their folder, import cycles…)."""
    _seen: set[Path] = field(default_factory=set)
    _scanned: set[Path] = field(default_factory=set)

    @property
    def user_dir(self) -> Path:
        if self.home is not None:
            return self.home
        from gemtui.config.paths import config_dir

        return config_dir()

    def __post_init__(self) -> None:
        self.workspace = self.workspace.resolve()

    @property
    def import_root(self) -> Path:
        """Where a project file's imports must stay: the git root, else the workspace."""
        return git_root(self.workspace) or self.workspace

    def load(self) -> ContextFiles:
        """Read (again) the user's and the project's context files; forgets subfolders'."""
        self.files, self.notes = [], []
        self._seen, self._scanned = set(), set()
        user = self.user_dir
        self._scan(user, "user", user)
        for folder, names in self.extra_dirs:
            self._scan(folder, "project", folder, names)
        top = git_root(self.workspace)
        chain = [self.workspace, *self.workspace.parents]
        if top is not None:
            chain = chain[: chain.index(top) + 1]
        for directory in reversed(chain):
            self._scan(directory, "project", self.import_root)
        return self

    def discover(self, path: Path) -> list[ContextFile]:
        """Context files of the folders between the workspace and ``path`` not read yet
        (just in time, as a tool reads there); returns the new ones."""
        workspace = self.workspace
        try:
            target = path.resolve()
        except (OSError, RuntimeError):
            return []
        if not _inside(target, workspace) or target == workspace:
            return []
        folder = target if target.is_dir() else target.parent
        between = [folder, *folder.parents]
        before = len(self.files)
        for directory in reversed(between[: between.index(workspace)]):
            self._scan(directory, "subfolder", self.import_root)
        return self.files[before:]

    def _scan(
        self, directory: Path, scope: Scope, root: Path, names: tuple[str, ...] | None = None
    ) -> None:
        if directory in self._scanned:
            return
        self._scanned.add(directory)
        for name in self.names if names is None else names:
            candidate = directory / name
            real = self._admit(candidate, directory)
            if real is None or real in self._seen:
                continue
            self._seen.add(real)
            try:
                text = _read(real)
            except OSError as exc:
                self.notes.append(f"{candidate}: unreadable ({exc.strerror or exc})")
                continue
            bound = root.resolve()
            if not _inside(directory.resolve(), bound):  # above the workspace, outside git
                bound = directory.resolve()
            exp = _Expansion(bound, self.notes, [])
            expanded = _expand(text, candidate, [real], exp).strip()
            self.files.append(ContextFile(candidate, scope, expanded, tuple(exp.imports)))

    def _admit(self, candidate: Path, directory: Path) -> Path | None:
        """The real path of a context file that may be read, else None (with a note when
        something is there but refused)."""
        if not candidate.is_symlink() and not candidate.exists():
            return None
        try:
            real = candidate.resolve(strict=True)
            regular = _regular(real)
        except (OSError, RuntimeError):
            self.notes.append(f"{candidate}: refused (a dangling link or a link loop)")
            return None
        if not regular:
            self.notes.append(f"{candidate}: refused (not a regular file)")
            return None
        if _inside(real, directory.resolve()):
            return real
        user = self.user_dir.resolve()
        if real.name in self.names and _inside(real, user):
            return real  # the person's own shared file, linked into a project
        self.notes.append(f"{candidate}: refused (it links outside {directory})")
        return None

    def system_text(self) -> str:
        """The context blocks for the system instruction, in the order documented above."""
        return "\n\n".join(
            f"--- Context from: {f.path} ---\n{f.text}\n--- End of context ---"
            for f in self.files
            if f.text
        )

    def summary(self) -> str:
        """What ``/memory show`` says: each file, its scope and tokens, then the notes."""
        if not self.files:
            lines = [f"No context files loaded (looked for {', '.join(self.names)})."]
        else:
            total = sum(f.tokens for f in self.files)
            lines = [f"{len(self.files)} context file(s), about {total:,} tokens:"]
            for f in self.files:
                extra = f", {len(f.imports)} import(s)" if f.imports else ""
                lines.append(f"  {f.path} ({f.scope}, ~{f.tokens:,} tokens{extra})")
        for f in self.files:
            facts = saved_memories(f.text) if f.scope == "user" else []
            if facts:
                lines.append(f"Saved memories ({f.path}):")
                lines.extend(f"  - {fact}" for fact in facts)
        lines.extend(f"Note: {n}" for n in self.notes)
        return "\n".join(lines)
