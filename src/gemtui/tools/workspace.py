"""The workspace root every tool path is confined to, and its ignore rules.

Tools take paths from the model, which may be wrong or hostile: ``..`` walks, absolute
paths, ``~`` and symlinks can all point outside the project. ``Workspace.resolve`` is the
single gate: it realpaths the argument and refuses anything whose real location is not
under the (realpath'ed) root. Ignore rules come from ``.gitignore`` (root and nested) and
``.geminiignore`` via ``pathspec`` (matched with RE2); ``.git/`` is always ignored.
``Workspace.visible`` is the one ignore check every tool shares: it applies the rules to a
path as named and to its real location, so a symlink cannot reveal an ignored file.
"""

from __future__ import annotations

import logging
import os
import re
import stat
import warnings
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from msgspec import Struct

from gemtui.tools.regex import LinearPattern, PatternError, compile_linear
from gemtui.tools.tool_error import ToolError

if TYPE_CHECKING:  # loaded with the first ignore file read (13 ms of the engine's start)
    import pathspec

log = logging.getLogger(__name__)

__all__ = ["Workspace", "glob_to_regex", "has_glob_magic"]

GITIGNORE = ".gitignore"
GEMINIIGNORE = ".geminiignore"


class _DirSpecs(Struct, frozen=True):
    """The parsed ignore files of one directory (None where the file is absent)."""

    git: pathspec.GitIgnoreSpec | None
    gemini: pathspec.GitIgnoreSpec | None


_Chain = list[tuple[tuple[str, ...], _DirSpecs]]


class Workspace:
    """A project root: resolves tool paths inside it and answers ignore questions."""

    def __init__(self, root: Path | str, extra_roots: Iterable[Path | str] = ()) -> None:
        self.root = Path(os.path.realpath(os.fspath(root)))
        self._spec_cache: dict[str, tuple[tuple[int, int], _DirSpecs]] = {}
        self.others: list[Workspace] = []
        """More roots (``--include-directories``), each with its own ignore files."""
        self.readable: list[Workspace] = []
        """Read-only roots (an activated skill's folder): the read tools reach them when
        they ask ``reading=True``; every other path check refuses them."""
        for extra in extra_roots:
            self.add_root(extra)

    # -- paths ---------------------------------------------------------------------------

    @property
    def roots(self) -> list[Path]:
        """Every root: the main one first."""
        return [self.root, *(o.root for o in self.others)]

    def add_root(self, root: Path | str) -> Path:
        """Let tools reach ``root`` too (``/directory add``); returns its real path."""
        other = Workspace(root)
        if not other.root.is_dir():
            raise ToolError(f"{root} is not a directory")
        if other.root not in self.roots:
            self.others.append(other)
        return other.root

    def add_readable_root(self, root: Path | str) -> Path:
        """Let the read tools (only) reach ``root``; returns its real path."""
        other = Workspace(root)
        if not other.root.is_dir():
            raise ToolError(f"{root} is not a directory")
        if other.root not in [*self.roots, *(r.root for r in self.readable)]:
            self.readable.append(other)
        return other.root

    def _in_root(self, path: Path | str) -> bool:
        p = os.fspath(path)
        root = os.fspath(self.root)
        return p == root or p.startswith(root.rstrip(os.sep) + os.sep)

    def _owner(self, path: Path | str) -> Workspace | None:
        """The extra root's workspace holding an absolute path outside the main root."""
        p = os.path.normpath(os.fspath(path))
        if not os.path.isabs(p) or self._in_root(p):
            return None
        return next((o for o in (*self.others, *self.readable) if o._in_root(p)), None)

    def _where(self) -> str:
        if not self.others:
            return f"root {self.root}"
        return "roots " + ", ".join(str(r) for r in self.roots)

    def contains(self, path: Path | str, *, reading: bool = False) -> bool:
        """Whether an already-real absolute path is a root or below one (a read-only
        root counts only when ``reading``)."""
        if self._in_root(path):
            return True
        owner = self._owner(path)
        return owner is not None and (reading or owner not in self.readable)

    def resolve(self, path: str, *, reading: bool = False) -> Path:
        """The real absolute path for a tool argument, refused unless it stays inside.

        Relative paths are taken from the root. Symlinks are followed (realpath) before
        the check, so a link pointing outside is refused like ``..`` or ``/etc``. Only a
        tool that reads passes ``reading``: read-only roots are refused to the others.
        """
        if not isinstance(path, str):
            raise ToolError(f"Path must be a string, got {type(path).__name__}")
        if "\x00" in path:
            raise ToolError("Path contains a NUL byte")
        raw = path.strip()
        if raw.startswith("~"):
            expanded = os.path.expanduser(raw)
            real = os.path.realpath(expanded) if expanded != raw else ""
            if real and self.contains(real, reading=reading):
                return Path(real)
            raise ToolError(
                f"Path '{path}' starts with '~' (the home directory), which is outside the "
                f"workspace root {self.root}. Use a path relative to the workspace root or "
                "an absolute path inside it."
            )
        joined = raw if os.path.isabs(raw) else os.path.join(self.root, raw or ".")
        lexical = os.path.normpath(joined)
        try:
            real = os.path.realpath(joined)
        except (OSError, ValueError) as exc:
            raise ToolError(f"Cannot resolve path '{path}': {exc}") from exc
        if self.contains(real, reading=reading):
            return Path(real)
        if self.contains(lexical, reading=True) and not self.contains(lexical, reading=reading):
            raise ToolError(
                f"Path '{path}' is in a skill's folder, which tools may read but not change."
            )
        if not self.contains(lexical):
            raise ToolError(
                f"Path '{path}' resolves to {lexical}, which is outside the workspace "
                f"{self._where()}. Tools may only access files inside the workspace."
            )
        raise ToolError(
            f"Path '{path}' goes through a symlink that points outside the workspace "
            f"{self._where()} (real path {real}). Tools may only access files inside the "
            "workspace."
        )

    def resolve_visible(
        self,
        path: str,
        *,
        respect_git_ignore: bool = True,
        respect_gemini_ignore: bool = True,
        reading: bool = False,
    ) -> Path:
        """``resolve``, then refuse a path that the ignore files hide (see ``visible``).

        Every tool that reads, searches, lists or edits a path it was given goes through
        here, so they all refuse the same paths ``read_file`` refuses.
        """
        real = self.resolve(path, reading=reading)
        raw = path.strip()
        given = os.path.normpath(raw if os.path.isabs(raw) else os.path.join(self.root, raw or "."))
        if not self.visible(
            given if self.contains(given, reading=reading) else real,
            respect_git_ignore=respect_git_ignore,
            respect_gemini_ignore=respect_gemini_ignore,
        ):
            raise ToolError(f"Path '{path}' is ignored by configured ignore patterns.")
        return real

    def visible(
        self,
        path: Path | str,
        *,
        respect_git_ignore: bool = True,
        respect_gemini_ignore: bool = True,
    ) -> bool:
        """Whether a tool may show ``path``: inside the root, and neither the path as named
        nor its real location is ignored. A visible symlink to an ignored file, or a path
        through a link to an ignored directory, is as hidden as the file itself."""
        p = os.fspath(path)
        if not os.path.isabs(p):
            p = os.path.join(self.root, p)
        owner = self._owner(p)
        if owner is not None:
            return owner.visible(
                p,
                respect_git_ignore=respect_git_ignore,
                respect_gemini_ignore=respect_gemini_ignore,
            )
        real = os.path.realpath(p)
        if not self.contains(real, reading=True):
            return False
        flags = {
            "respect_git_ignore": respect_git_ignore,
            "respect_gemini_ignore": respect_gemini_ignore,
        }
        return not self.is_ignored(os.path.normpath(p), **flags) and not self.is_ignored(
            real, **flags
        )

    def relative(self, path: Path | str) -> str:
        """A root-relative POSIX path for display ('.' for the root itself)."""
        p = Path(path)
        if not p.is_absolute():
            p = self.root / p
        try:
            rel = p.relative_to(self.root)
        except ValueError:
            return p.as_posix()
        text = rel.as_posix()
        return text if text else "."

    # -- ignores -------------------------------------------------------------------------

    def _specs(self, directory: Path) -> _DirSpecs:
        """Parsed ignore files of ``directory``; re-read only when their mtime changes."""
        stamps: list[int] = []
        for name in (GITIGNORE, GEMINIIGNORE):
            try:
                st = os.stat(directory / name)
                stamps.append(st.st_mtime_ns ^ st.st_size)
            except OSError:
                stamps.append(-1)
        key = os.fspath(directory)
        stamp = (stamps[0], stamps[1])
        cached = self._spec_cache.get(key)
        if cached is not None and cached[0] == stamp:
            return cached[1]
        specs = _DirSpecs(
            git=_load_spec(directory / GITIGNORE) if stamps[0] != -1 else None,
            gemini=_load_spec(directory / GEMINIIGNORE) if stamps[1] != -1 else None,
        )
        self._spec_cache[key] = (stamp, specs)
        return specs

    def _rel_parts(self, path: Path | str) -> tuple[str, ...] | None:
        p = os.fspath(path)
        if not os.path.isabs(p):
            p = os.path.join(self.root, p)
        p = os.path.normpath(p)
        if not self._in_root(p):
            return None
        rel = os.path.relpath(p, self.root)
        return () if rel == "." else tuple(Path(rel).parts)

    def is_ignored(
        self,
        path: Path | str,
        *,
        respect_git_ignore: bool = True,
        respect_gemini_ignore: bool = True,
    ) -> bool:
        """Whether ``path`` (absolute, or relative to the root) is ignored.

        A path is ignored when it or any directory above it is: like git, a file cannot
        be re-included once its directory is excluded. Paths outside the root are not.
        """
        owner = self._owner(path)
        if owner is not None:
            return owner.is_ignored(
                path,
                respect_git_ignore=respect_git_ignore,
                respect_gemini_ignore=respect_gemini_ignore,
            )
        parts = self._rel_parts(path)
        if parts is None or not parts:
            return False
        if ".git" in parts:
            return True
        full = self.root.joinpath(*parts)
        final_is_dir = full.is_dir()
        chain: _Chain = [((), self._specs(self.root))]
        for i in range(1, len(parts) + 1):
            sub = parts[:i]
            is_dir = i < len(parts) or final_is_dir
            if _chain_ignores(chain, sub, is_dir, respect_git_ignore, respect_gemini_ignore):
                return True
            if i < len(parts):
                chain.append((sub, self._specs(self.root.joinpath(*sub))))
        return False

    def walk(
        self,
        start: Path | None = None,
        *,
        respect_git_ignore: bool = True,
        respect_gemini_ignore: bool = True,
        recursive: bool = True,
    ) -> Iterator[Path]:
        """Files under ``start`` (default the root), ignored ones and their dirs pruned.

        Symlinked directories are not descended (no loops, no escapes); symlinked files
        are yielded only when their real path stays inside the root.
        """
        base = Path(start) if start is not None else self.root
        owner = self._owner(base)
        if owner is not None:
            yield from owner.walk(
                base,
                respect_git_ignore=respect_git_ignore,
                respect_gemini_ignore=respect_gemini_ignore,
                recursive=recursive,
            )
            return
        parts = self._rel_parts(base)
        if parts is None:
            return
        if parts and self.is_ignored(
            base,
            respect_git_ignore=respect_git_ignore,
            respect_gemini_ignore=respect_gemini_ignore,
        ):
            return
        chain: _Chain = [((), self._specs(self.root))]
        for i in range(1, len(parts) + 1):
            chain.append((parts[:i], self._specs(self.root.joinpath(*parts[:i]))))
        yield from self._walk_dir(
            base, parts, chain, respect_git_ignore, respect_gemini_ignore, recursive
        )

    def _walk_dir(
        self,
        directory: Path,
        parts: tuple[str, ...],
        chain: _Chain,
        git: bool,
        gemini: bool,
        recursive: bool,
    ) -> Iterator[Path]:
        try:
            with os.scandir(directory) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError:
            return
        flags = {"respect_git_ignore": git, "respect_gemini_ignore": gemini}
        for entry in entries:
            if entry.name == ".git":
                continue
            sub = (*parts, entry.name)
            try:
                is_link = entry.is_symlink()
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            # a visible link must not reveal an ignored or outside file
            if is_link and (os.path.isdir(entry.path) or not self.visible(entry.path, **flags)):
                continue
            if _chain_ignores(chain, sub, is_dir, git, gemini):
                continue
            if is_dir:
                if recursive:
                    child = Path(entry.path)
                    chain.append((sub, self._specs(child)))
                    yield from self._walk_dir(child, sub, chain, git, gemini, recursive)
                    chain.pop()
            elif is_link or entry.is_file(follow_symlinks=False):
                yield Path(entry.path)


def _load_spec(path: Path) -> pathspec.GitIgnoreSpec | None:
    """A repository's ignore file, matched with RE2 so no pattern in it can hang a walk."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None  # a FIFO named .gitignore must not block the read
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    return _spec_from_lines(lines)


def _spec_from_lines(lines: list[str]) -> pathspec.GitIgnoreSpec:
    """The spec of an ignore file, skipping lines that cannot be compiled.

    A repository's ``.gitignore`` is not ours: a line such as ``[z-a]`` or a lone ``\\``
    made pathspec raise and every tool fail, and ``[[a]`` made ``re`` print a FutureWarning
    on the terminal. Git matches nothing for such lines, so they are skipped (and logged).
    """
    import pathspec

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        try:
            return pathspec.GitIgnoreSpec.from_lines(lines, backend="re2")
        except (re.error, ValueError):
            usable = []
            for line in lines:
                try:
                    pathspec.GitIgnoreSpec.from_lines([line], backend="re2")
                except (re.error, ValueError) as exc:
                    log.info("ignore pattern %r skipped: %s", line, exc)
                else:
                    usable.append(line)
            return pathspec.GitIgnoreSpec.from_lines(usable, backend="re2")


def _chain_ignores(
    chain: _Chain, sub: tuple[str, ...], is_dir: bool, git: bool, gemini: bool
) -> bool:
    """Whether the last component of ``sub`` is excluded by the specs above it.

    The two kinds of file are separate rule sets, as in Gemini CLI: a path is hidden when
    either hides it. Within one kind a deeper file wins over a shallower one (the last
    spec with an opinion decides), so a nested ``.gitignore`` with ``!secret.key`` can
    re-include what a parent ``.gitignore`` left out, but never what ``.geminiignore``
    hides from the model.
    """
    git_verdict: bool | None = None
    gemini_verdict: bool | None = None
    for dir_parts, specs in chain:
        if sub[: len(dir_parts)] != dir_parts or len(sub) <= len(dir_parts):
            continue
        rel = "/".join(sub[len(dir_parts) :]) + ("/" if is_dir else "")
        if git and specs.git is not None:
            result = specs.git.check_file(rel).include
            if result is not None:
                git_verdict = result
        if gemini and specs.gemini is not None:
            result = specs.gemini.check_file(rel).include
            if result is not None:
                gemini_verdict = result
    return bool(git_verdict) or bool(gemini_verdict)


_MAGIC = re.compile(r"[*?\[{]")


def has_glob_magic(pattern: str) -> bool:
    """Whether ``pattern`` holds glob syntax (else it names a path literally)."""
    return _MAGIC.search(pattern) is not None


def _glob_class(body: str) -> str:
    """A glob ``[...]`` body as a regex class, every character literal except ranges.

    Copying the body into the regex raw let ``[[a]``, ``[a--b]`` or ``[a&&b]`` reach the
    ``re`` module, which prints FutureWarnings about nested sets and set operations (or
    fails on ``[z-a]``). A reversed range matches nothing, as in ``fnmatch``.
    """
    negate = body[:1] in ("!", "^")
    if negate:
        body = body[1:]
    parts: list[str] = []
    k = 0
    while k < len(body):
        if k + 2 < len(body) and body[k + 1] == "-":
            low, high = body[k], body[k + 2]
            if low <= high:
                parts.append(f"{re.escape(low)}-{re.escape(high)}")
            k += 3
            continue
        parts.append(re.escape(body[k]))
        k += 1
    if negate:  # a negated class never spans a directory separator
        return "[^/" + "".join(parts) + "]"
    return "[" + "".join(parts) + "]" if parts else r"[^\x00-\x{10FFFF}]"  # matches nothing


def glob_to_regex(
    pattern: str, *, case_sensitive: bool = True, recursive: bool = True
) -> LinearPattern:
    """A linear-time (RE2) regex matching whole POSIX relative paths for a glob.

    Supports ``**`` (any number of directories), ``*``, ``?``, ``[...]`` (``[!...]``) and
    ``{a,b}`` alternatives. With ``recursive=False`` a ``**`` only spans one segment.
    RE2, because ``*a*a*a…b`` would backtrack for ages over a long file name with ``re``.
    """
    pat = pattern.replace("\\", "/") if os.sep == "\\" else pattern
    while pat.startswith("./"):
        pat = pat[2:]
    out: list[str] = []
    i, n = 0, len(pat)
    brace_depth = 0
    while i < n:
        c = pat[i]
        if c == "*":
            if i + 1 < n and pat[i + 1] == "*":
                at_seg_start = i == 0 or pat[i - 1] == "/"
                j = i + 2
                if at_seg_start and (j == n or pat[j] == "/"):
                    if not recursive:
                        out.append("[^/]*")
                        i = j
                    elif j == n:
                        out.append(".*")
                        i = j
                    else:
                        out.append("(?:.*/)?")
                        i = j + 1
                    continue
                out.append("[^/]*")
                i = j
                continue
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            start = i + 2 if i + 1 < n and pat[i + 1] in "!^" else i + 1
            if start < n and pat[start] == "]":  # `[]]` and `[!]]`: a leading ] is literal
                start += 1
            j = pat.find("]", start)
            if j == -1:
                out.append(re.escape(c))
            else:
                out.append(_glob_class(pat[i + 1 : j]))
                i = j
        elif c == "{":
            brace_depth += 1
            out.append("(?:")
        elif c == "}" and brace_depth:
            brace_depth -= 1
            out.append(")")
        elif c == "," and brace_depth:
            out.append("|")
        else:
            out.append(re.escape(c))
        i += 1
    out.extend(")" * brace_depth)
    try:
        return compile_linear("(?s:" + "".join(out) + r")\z", ignore_case=not case_sensitive)
    except PatternError as exc:
        raise ToolError(f"Invalid glob pattern '{pattern}': {exc}") from exc
