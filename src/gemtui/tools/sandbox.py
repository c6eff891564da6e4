"""Running a command under bubblewrap: the workspace roots writable, the rest read-only.

The whole file system is bound read-only, then covered where it must not be seen: the
home folder (and ``$HOME``) by an empty tmpfs, ``/tmp`` and ``/run`` fresh, gemtui's own
folders (``GEMTUI_HOME``, config, data, cache: the session database, the keyring's
files) by tmpfs; each root (the workspace, every ``--include-directories`` folder) is
bound back read-write on top. What a root holds that runs code later stays read-only,
present or not: the repository's metadata as a whole (a sandboxed command may not change
it: no ``git commit`` or ``git checkout`` inside, only reads) and the settings folders
(``sandbox_places``). gemtui's folders and the home secrets (``HOME_SECRETS``) are hidden
again inside any root that contains them. Namespaces are all unshared (no network unless
asked), capabilities dropped, the command dies with gemtui and gets a new session (no
TIOCSTI into the terminal), and its environment carries no secret gemtui knows.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Mapping
from pathlib import Path

from msgspec import Struct, field

from gemtui.errors import FatalConfigError
from gemtui.tools.run_later import RUN_LATER_NAMES
from gemtui.tools.sandbox_places import (
    Placeholders,
    RootGuard,
    guard_roots,
    home_secrets,
    user_homes,
)

__all__ = [
    "SandboxConfig",
    "SandboxedCommand",
    "require_bwrap",
    "sandbox_hint",
    "scrubbed_env",
    "wrap_command",
]

_SECRET_NAME = re.compile(
    r"(API_KEY|APIKEY|_TOKEN|SECRET|PASSWORD|PASSWD|_KEY|_PAT|CREDENTIALS?|_AUTH)$", re.I
)
_ALWAYS_DROPPED = ("SSH_AUTH_SOCK", "GPG_AGENT_INFO", "DBUS_SESSION_BUS_ADDRESS", "GEMTUI_HOME")


class SandboxConfig(Struct, frozen=True):
    """Where a sandboxed command may write and what it may reach."""

    workspace: Path
    network: bool = False
    read_only_paths: tuple[str, ...] = ()
    """Paths (``~`` allowed) shown read-only inside the hidden home, e.g. ``~/.gitconfig``."""
    hidden: tuple[Path, ...] = field(default_factory=tuple)
    """gemtui's own folders: never visible inside."""
    writable: tuple[Path, ...] = ()
    """More workspace roots (``--include-directories``), writable like the workspace."""


class SandboxedCommand(Struct):
    """A command line under bubblewrap, and the placeholders it holds until it ends.

    Call ``release`` once the process has exited (a context manager does it), so no
    empty placeholder folder stays in the workspace.
    """

    argv: list[str]
    placeholders: list[Path]

    def release(self) -> None:
        """The command ended: its placeholders go once no other command uses them."""
        held, self.placeholders = self.placeholders, []
        Placeholders.release(held)

    def __enter__(self) -> SandboxedCommand:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def require_bwrap() -> str:
    """The ``bwrap`` executable, or exit 52 naming the package to install."""
    found = shutil.which("bwrap")
    if found is None:
        raise FatalConfigError(
            "The sandbox needs bubblewrap (bwrap), which is not on PATH: install the"
            " `bubblewrap` package (apt-get install bubblewrap), or run without"
            " -s/--sandbox and [tools.sandbox] enabled."
        )
    return found


def _homes() -> list[Path]:
    """The home folders whose secrets are hidden and start-up files held (``user_homes``)."""
    return user_homes()


def _hide(path: Path) -> list[str]:
    if path.is_dir():
        return ["--tmpfs", str(path)]
    return ["--ro-bind", "/dev/null", str(path)]


def _roots(config: SandboxConfig) -> list[Path]:
    """Every writable root, resolved, a folder before the roots inside it."""
    roots = {config.workspace.resolve(), *(r.resolve() for r in config.writable)}
    return sorted(roots, key=lambda r: len(r.parts))


def _bind_roots(roots: list[Path], guard: RootGuard) -> list[str]:
    """Each root writable; then, a parent first (a bind comes from the host and covers
    every mount below it), each pinned folder onto itself, and each locked folder's top
    level read-only, its entries writable again but for the guarded ones and links."""
    args: list[str] = []
    for root in roots:
        args += ["--bind", str(root), str(root)]
    guarded = {*guard.existing, *guard.missing}
    steps = sorted({*guard.pinned, *guard.locked}, key=lambda p: (len(p.parts), str(p)))
    for folder in steps:
        if folder not in guard.locked:
            args += ["--bind", str(folder), str(folder)]
            continue
        args += ["--bind", str(folder), str(folder), "--remount-ro", str(folder)]
        for entry in sorted(folder.iterdir()):
            if not entry.is_symlink() and entry not in guarded:
                args += ["--bind", str(entry), str(entry)]
    return args


def _hide_secrets(roots: list[Path], fresh: list[Path]) -> list[str]:
    """Every home secret a command could see: inside a root, or in the read-only rest
    (a symlinked ``~/.ssh``'s target); one under a fresh tmpfs is not there to hide."""
    args: list[str] = []
    for home in _homes():
        for real in home_secrets(home):
            inside = any(real.is_relative_to(r) for r in roots)
            if inside or not any(real.is_relative_to(f) for f in fresh):
                args += _hide(real)
    return args


def wrap_command(argv: list[str], config: SandboxConfig, bwrap: str = "bwrap") -> SandboxedCommand:
    """``argv`` run inside the sandbox (cwd is kept; it must be in a root).

    Mounts, in order: the read-only system, fresh ``/tmp`` and homes, gemtui's folders
    hidden, the roots writable, what runs later read-only (placeholders made now for the
    missing names), then gemtui's folders and home secrets inside a root hidden again.
    Capabilities are dropped: as root, bwrap would keep them, and ``umount`` would lift
    every read-only bind.
    """
    roots = _roots(config)
    args = [bwrap, "--die-with-parent", "--new-session", "--unshare-all", "--cap-drop", "ALL"]
    if config.network:
        args.append("--share-net")
    args += ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    fresh = [Path("/tmp"), Path("/run"), Path("/var/tmp")]
    args += [a for f in fresh for a in ("--tmpfs", str(f))]
    for home in _homes():
        fresh.append(home)
        args += ["--tmpfs", str(home)]
        for item in config.read_only_paths:
            path = Path(os.path.expanduser(item))
            if path.exists():
                args += ["--ro-bind", str(path), str(path)]
    inside: list[Path] = []
    for hidden in config.hidden:
        target = hidden.resolve()
        if target in roots or not target.exists():
            continue
        if any(target.is_relative_to(r) for r in roots):
            inside.append(target)
        else:
            args += _hide(target)
    guard = guard_roots(roots, _homes())
    args += _bind_roots(roots, guard)
    placeholders = Placeholders.hold(guard.missing) + Placeholders.share(guard.existing)
    for path in [*guard.existing, *guard.missing]:  # a placeholder another made counts too
        if path.exists() and not path.is_symlink():
            args += ["--ro-bind", str(path), str(path)]
    for target in inside:
        args += _hide(target)
    args += _hide_secrets(roots, fresh)
    return SandboxedCommand([*args, "--", *argv], placeholders)


def scrubbed_env(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment without any secret: key variables, look-alike names, agent
    sockets, and any value that holds a secret gemtui has registered."""
    from gemtui.redact import KEY_ENV_VARS, current

    source = os.environ if environ is None else environ
    redactor = current()
    out: dict[str, str] = {}
    for name, value in source.items():
        if name in KEY_ENV_VARS or name in _ALWAYS_DROPPED or _SECRET_NAME.search(name):
            continue
        if redactor and redactor(value) != value:
            continue
        out[name] = value
    return out


_DENIED = (
    "Read-only file system",
    "Permission denied",
    "EROFS",
    "EACCES",
    "Device or resource busy",
)
_NO_NET = (
    "Network is unreachable",
    "Could not resolve host",
    "Temporary failure in name resolution",
    "Name or service not known",
    "Connection refused",
)


def sandbox_hint(output: str, *, network: bool) -> str | None:
    """One line telling the model and the person that the sandbox may be why it failed."""
    if any(s in output for s in _DENIED):
        return (
            "[sandbox] This command ran in the bubblewrap sandbox: only the workspace"
            " folders are writable, but not the repository's metadata (.git: no commit,"
            " checkout or new repository inside the sandbox) nor the folders whose"
            f" contents run later ({', '.join(n for n in RUN_LATER_NAMES if n != '.git')});"
            " the home folder, its credentials and gemtui's files are hidden."
        )
    if not network and any(s in output for s in _NO_NET):
        return (
            "[sandbox] This command ran in the bubblewrap sandbox without network"
            " ([tools.sandbox] network = false)."
        )
    return None
