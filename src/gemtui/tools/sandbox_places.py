"""What the sandbox holds read-only at each root, and what it hides under each home.

A writable root must not carry anything that runs code later, outside the sandbox: the
names in ``RUN_LATER_NAMES`` (a repository's ``.git``, the settings folders) are held
read-only whether they exist or not. An existing one is bound read-only as a whole (a
mount point cannot be renamed or removed, so ``mv .git .git2`` fails too); a missing one
gets an empty placeholder folder that gemtui creates just before the command and removes
when the last command using it ends, so nothing is left behind (an empty folder is not
even seen by ``git status``). A ``.git`` *file* (``gitdir:``) and a ``commondir`` are
followed into any root they point at, and the folder ``core.hooksPath`` names is held
like ``.git/hooks``. A root without a ``.git`` folder also holds ``HEAD`` (git takes a
folder with ``HEAD``, ``objects/`` and ``refs/`` for a bare repository). A name that is a
symbolic link cannot be a mount point: its folder's top level is then bound read-only,
each other entry bound writable again, so the link stays and nothing new appears beside
it. A home folder inside a root holds its start-up files the same way
(``HOME_RUN_LATER``), and hides its secrets (``HOME_SECRETS``, read by ``sandbox``).

Every folder between a root and a held path is bound onto itself (``pinned``): renaming
a folder moves the mounts inside it, so ``mv meta meta2`` would carry a held
``meta/gd`` away and free its name; a mount point cannot be renamed.

Covered: each root, the repository ``git`` finds from it (its own ``.git``, or one in a
folder above, which is outside every root and so read-only already), and the ``.git`` of
each submodule its index records (``git status`` recurses into a populated one). Not
covered: any other nested repository's ``.git`` in a sub-folder of a root, a submodule's
own ``core.hooksPath``, files a hook manager reads from the work tree
(``.pre-commit-config.yaml``, ``.husky/pre-commit``): those are the project's own code,
like its ``Makefile``; and two gemtui processes in one folder, which do not know each
other's placeholders.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import subprocess
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import ClassVar

from msgspec import Struct, field

from gemtui.tools.run_later import RUN_LATER_NAMES

__all__ = [
    "HOME_RUN_LATER",
    "HOME_SECRETS",
    "Placeholders",
    "RootGuard",
    "guard_roots",
    "home_places",
    "home_secrets",
    "user_homes",
]

_BARE_REPOSITORY_MARK = "HEAD"
"""Held at a root with no ``.git`` folder: a planted ``HEAD`` would make the root itself a
bare repository whose config (``core.pager``, ``core.fsmonitor``) runs at the next git."""

HOME_SECRETS: tuple[str, ...] = (
    ".ssh/",
    ".gnupg/",
    ".netrc",
    ".pgpass",
    ".vault-token",
    ".git-credentials",
    ".config/git/credentials",
    ".config/gh/",
    ".password-store/",
    ".local/share/keyrings/",
    ".local/share/python_keyring/",
    ".aws/",
    ".config/gcloud/",
    ".azure/",
    ".kube/",
    ".docker/config.json",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".npmrc",
    ".pypirc",
    ".gemini/oauth_creds.json",
    ".gemini/.env",
    ".claude/",
    ".claude.json",
    ".bash_history",
    ".zsh_history",
    ".python_history",
    ".local/share/fish/fish_history",
    ".psql_history",
    ".mysql_history",
    ".node_repl_history",
)
"""Secrets under a home folder, hidden when a sandbox root contains them (a folder ends in
``/``): keys, tokens, other agents' credentials, cloud and registry logins, shell history.
The one list: the sandbox and its tests read it."""


HOME_RUN_LATER: tuple[str, ...] = (
    ".gitconfig",
    ".config/git/",
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".bash_logout",
    ".profile",
    ".zshrc",
    ".zshenv",
    ".zprofile",
    ".zlogin",
    ".config/fish/",
    ".config/autostart/",
    ".config/systemd/",
    ".config/environment.d/",
    ".vimrc",
    ".config/nvim/",
    ".emacs",
    ".emacs.d/",
    ".local/lib/",
    ".local/bin/",
    "bin/",
)
"""Start-up files under a home folder a root contains (``--include-directories ~``):
each runs code at the next shell, git command, login or editor, outside the sandbox, so
it is held read-only like a root's ``RUN_LATER_NAMES`` (a folder ends in ``/``). The user
site-packages (``.local/lib/pythonX.Y/site-packages``: a ``.pth`` file runs at every
python start) and the folders on ``PATH`` (``.local/bin``, ``bin``) run later too. Policy
asks before any write there as well (``home_places``)."""


def user_homes() -> list[Path]:
    """``$HOME`` and the account's own home folder: with ``HOME`` pointed elsewhere, the
    real one (its ``~/.ssh``) would otherwise be reachable."""
    import pwd

    homes = {Path.home()}
    if os.environ.get("HOME"):
        homes.add(Path(os.environ["HOME"]))
    with contextlib.suppress(KeyError):  # a uid without an entry (some containers)
        homes.add(Path(pwd.getpwuid(os.getuid()).pw_dir))
    return sorted({h.resolve() for h in homes if str(h) not in ("", "/")})


def home_places(names: Iterable[str], homes: Iterable[Path] | None = None) -> list[Path]:
    """Each of ``names`` (``HOME_SECRETS``, ``HOME_RUN_LATER``) under every home folder,
    present or not: policy and checkpoints keep away from these whenever a root holds one."""
    return [
        home / n.rstrip("/") for home in (user_homes() if homes is None else homes) for n in names
    ]


def _resolved(path: Path) -> Path | None:
    try:
        return path.resolve()
    except (OSError, RuntimeError):  # a symlink loop
        return None


def _inside(path: Path, roots: Iterable[Path]) -> bool:
    return any(path.is_relative_to(root) for root in roots)


def home_secrets(home: Path) -> list[Path]:
    """The secrets present under ``home``, each as the real path (a symlink followed)."""
    found: list[Path] = []
    for name in HOME_SECRETS:
        real = _resolved(home / name.rstrip("/"))
        if real is not None and real.exists():
            found.append(real)
    return found


class RootGuard(Struct):
    """The mounts that keep what runs later read-only at every root."""

    existing: list[Path] = field(default_factory=list)
    """Bound read-only onto themselves."""
    missing: list[Path] = field(default_factory=list)
    """Need an empty placeholder folder, bound read-only."""
    locked: list[Path] = field(default_factory=list)
    """Folders whose top level is read-only (a guarded name there is a symlink)."""
    pinned: list[Path] = field(default_factory=list)
    """Folders between a root and a held path, bound writable onto themselves (a parent
    first) so that renaming one cannot carry a held path's mount away."""


def _gitdir_of(dotgit: Path) -> Path | None:
    """Where a ``.git`` file (``gitdir: X``) points."""
    try:
        first = dotgit.read_text(encoding="utf-8", errors="replace").splitlines()[:1]
    except OSError:
        return None
    if not first or not first[0].startswith("gitdir:"):
        return None
    return dotgit.parent / first[0].removeprefix("gitdir:").strip()


def _commondir_of(gitdir: Path) -> Path | None:
    try:
        text = (gitdir / "commondir").read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return None
    return gitdir / text if text else None


def _hold(path: Path, roots: list[Path], guard: RootGuard) -> None:
    """Keep ``path`` (wherever a link leads) read-only if a root would let it change."""
    real = _resolved(path)
    if real is None or not _inside(real, roots):
        return  # outside every root: read-only (or hidden) already
    if real.exists():
        guard.existing.append(real)
        return
    while not real.parent.exists():  # the first missing folder on the way holds it all
        real = real.parent
    if _inside(real, roots) and real not in roots:
        guard.missing.append(real)


def _follow_git(dotgit: Path, roots: list[Path], guard: RootGuard) -> None:
    """A ``.git`` file's ``gitdir`` and a repository's ``commondir`` are metadata too."""
    gitdir = _gitdir_of(dotgit) if dotgit.is_file() else dotgit
    if gitdir is None:
        return
    if gitdir != dotgit:
        _hold(gitdir, roots, guard)
    common = _commondir_of(gitdir)
    if common is not None:
        _hold(common, roots, guard)


def _may_set_hooks_path(dotgit: Path) -> bool:
    """Whether any config git would read could name a hooks path: a quick look before
    asking git itself (a few ms per command); anything unreadable or an include means yes."""
    if any(name.startswith("GIT_CONFIG") for name in os.environ):
        return True
    gitdir = _gitdir_of(dotgit) if dotgit.is_file() else dotgit
    if gitdir is None:
        return False
    common = _commondir_of(gitdir) or gitdir
    xdg = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")
    files = [
        gitdir / "config",
        gitdir / "config.worktree",
        common / "config",
        Path.home() / ".gitconfig",
        xdg / "git" / "config",
        Path("/etc/gitconfig"),
    ]
    for file in files:
        try:
            text = file.read_text(encoding="utf-8", errors="replace").lower()
        except FileNotFoundError:
            continue
        except OSError:
            return True
        if "hookspath" in text or "include" in text:
            return True
    return False


def _hooks_path(root: Path) -> Path | None:
    """The repository's ``core.hooksPath`` (husky's ``.husky/_``), as git reads it: its
    hooks run at the next commit, wherever the setting points."""
    if not _may_set_hooks_path(root / ".git"):
        return None
    try:
        found = subprocess.run(
            ["git", "config", "--type=path", "--get", "core.hooksPath"],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    value = found.stdout.strip()
    return root / value if found.returncode == 0 and value else None


def _git_safely(root: Path, *args: str) -> str:
    """``git args`` at ``root`` with nothing of the repository's able to run: no hooks,
    no fsmonitor, no system or global config, no ``GIT_*`` from gemtui's environment."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env |= {"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
    env["GIT_OPTIONAL_LOCKS"] = "0"
    safe = ["-c", "core.fsmonitor=", "-c", "core.hooksPath=/dev/null"]
    try:
        found = subprocess.run(
            ["git", *safe, *args],
            cwd=root,
            env=env,
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    return found.stdout if found.returncode == 0 else ""


def _gitlinks(root: Path) -> list[Path]:
    """Each submodule path the index records (mode 160000): ``git status`` at the root
    recurses into a populated one and runs its config (``core.fsmonitor``)."""
    links: list[Path] = []
    for entry in _git_safely(root, "ls-files", "--stage", "-z").split("\0"):
        meta, _, name = entry.partition("\t")
        if meta.startswith("160000 ") and name:
            links.append(root / name)
    return links


def _pins(guard: RootGuard, roots: list[Path]) -> list[Path]:
    """Every existing folder between its deepest root and a held path, a parent first."""
    held = {*guard.existing, *guard.missing}
    pins: dict[Path, None] = {}
    for path in held:
        inner = [r for r in roots if path.is_relative_to(r) and r != path]
        if not inner:
            continue
        root = max(inner, key=lambda r: len(r.parts))
        for folder in reversed(path.parents):
            if not folder.is_relative_to(root) or folder == root or folder in held:
                continue
            if folder in guard.locked or folder.is_symlink() or not folder.is_dir():
                continue  # a locked folder is a mount point already
            pins[folder] = None
    return sorted(pins, key=lambda p: (len(p.parts), str(p)))


def _guard_folder(folder: Path, names: Iterable[str], roots: list[Path], guard: RootGuard) -> None:
    for name in names:
        path = folder / name.rstrip("/")
        if path.is_symlink():  # the link cannot be a mount point: its folder is locked
            if path.parent not in guard.locked:
                guard.locked.append(path.parent)
            _hold(path, roots, guard)
        elif path.exists():
            guard.existing.append(path)
        else:
            _hold(path, roots, guard)


def guard_roots(roots: list[Path], homes: Iterable[Path] = ()) -> RootGuard:
    """What to hold read-only in ``roots`` (resolved) so nothing planted runs later; in
    a home folder a root contains, its start-up files too (``HOME_RUN_LATER``)."""
    guard = RootGuard()
    for root in roots:
        names = list(RUN_LATER_NAMES)
        dotgit = root / ".git"
        if not dotgit.is_dir() or dotgit.is_symlink():
            names.append(_BARE_REPOSITORY_MARK)
        _guard_folder(root, names, roots, guard)
        if dotgit.exists():
            _follow_git(dotgit, roots, guard)
            hooks = _hooks_path(root)
            if hooks is not None:
                _hold(hooks, roots, guard)
            for link in _gitlinks(root):
                _hold(link / ".git", roots, guard)
                if (link / ".git").is_file():
                    _follow_git(link / ".git", roots, guard)
    for home in homes:
        if _inside(home, roots):
            _guard_folder(home, (*HOME_RUN_LATER, *RUN_LATER_NAMES), roots, guard)
    guard.locked.sort(key=lambda p: len(p.parts))
    # a locked folder's top level cannot change: no placeholder is needed there
    guard.missing = list(dict.fromkeys(p for p in guard.missing if p.parent not in guard.locked))
    guard.existing = list(dict.fromkeys(guard.existing))
    guard.pinned = _pins(guard, roots)
    return guard


class Placeholders:
    """Empty folders gemtui made so a missing guarded name can be bound read-only.

    Counted per path: two sandboxed commands at once (one in the background) share one
    placeholder, and it is removed when the last ends. Only an empty folder is removed,
    so a file the person (or an unsandboxed tool) wrote into it meanwhile stays.
    """

    _lock: ClassVar[threading.Lock] = threading.Lock()
    _held: ClassVar[dict[Path, int]] = {}
    """Placeholder folders by path, with how many running commands use each."""

    @classmethod
    def hold(cls, paths: Iterable[Path]) -> list[Path]:
        """Make each placeholder (or count one more user); the ones now held."""
        held: list[Path] = []
        with cls._lock:
            for path in paths:
                if path in cls._held:
                    cls._held[path] += 1
                else:
                    try:
                        path.mkdir()
                    except OSError:
                        continue  # made meanwhile, or a folder the command cannot write
                    cls._held[path] = 1
                held.append(path)
        return held

    @classmethod
    def share(cls, paths: Iterable[Path]) -> list[Path]:
        """Count one more user of each of ``paths`` that is a placeholder of ours: a
        command binding one another command made must keep it until it ends too (removing
        it would lift that command's mount, and the name would be free to create)."""
        with cls._lock:
            shared = [path for path in paths if path in cls._held]
            for path in shared:
                cls._held[path] += 1
        return shared

    @classmethod
    def release(cls, paths: Iterable[Path]) -> None:
        """One user fewer; the last removes the folder if it is still empty."""
        with cls._lock:
            for path in paths:
                count = cls._held.get(path, 0) - 1
                if count > 0:
                    cls._held[path] = count
                    continue
                cls._held.pop(path, None)
                with contextlib.suppress(OSError):
                    os.rmdir(path)

    @classmethod
    def release_all(cls) -> None:
        """At exit: whatever is still held goes (after background commands ended)."""
        from gemtui.tools.background import terminate_all

        terminate_all()
        with cls._lock:
            for path in list(cls._held):
                del cls._held[path]
                with contextlib.suppress(OSError):
                    os.rmdir(path)


atexit.register(Placeholders.release_all)
