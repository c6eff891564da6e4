"""Running a command under bubblewrap: the workspace writable, the rest read-only.

The whole file system is bound read-only, then covered where it must not be seen: the
home folder (and ``$HOME``) by an empty tmpfs, ``/tmp`` and ``/run`` fresh, gemtui's own
folders (``GEMTUI_HOME``, config, data, cache: the session database, the keyring's
files) by tmpfs; the workspace is bound back read-write on top. Namespaces are all
unshared (no network unless asked), the command dies with gemtui and gets a new session
(no TIOCSTI into the terminal), and its environment carries no secret gemtui knows.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from gemtui.errors import FatalConfigError

__all__ = [
    "SandboxConfig",
    "require_bwrap",
    "sandbox_hint",
    "scrubbed_env",
    "wrap_command",
]

_SECRET_NAME = re.compile(
    r"(API_KEY|APIKEY|_TOKEN|SECRET|PASSWORD|PASSWD|_KEY|_PAT|CREDENTIALS?|_AUTH)$", re.I
)
_ALWAYS_DROPPED = ("SSH_AUTH_SOCK", "GPG_AGENT_INFO", "DBUS_SESSION_BUS_ADDRESS", "GEMTUI_HOME")


_GUARDED = (".git/hooks", ".git/config", ".gemtui", ".gemini", ".vscode")
"""Workspace paths a sandboxed command may not change: each makes something run later
outside the sandbox (git hooks, a git config's fsmonitor or pager, trusted settings)."""


@dataclass(frozen=True)
class SandboxConfig:
    """Where a sandboxed command may write and what it may reach."""

    workspace: Path
    network: bool = False
    read_only_paths: tuple[str, ...] = ()
    """Paths (``~`` allowed) shown read-only inside the hidden home, e.g. ``~/.gitconfig``."""
    hidden: tuple[Path, ...] = field(default_factory=tuple)
    """gemtui's own folders: never visible inside."""
    writable: tuple[Path, ...] = ()
    """More workspace roots (``--include-directories``), writable like the workspace."""


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
    homes = {Path.home()}
    if os.environ.get("HOME"):
        homes.add(Path(os.environ["HOME"]))
    return sorted({h.resolve() for h in homes if str(h) not in ("", "/")})


_HOME_SECRETS = (
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".kube",
    ".docker",
    ".netrc",
    ".git-credentials",
    ".pypirc",
    ".npmrc",
    ".password-store",
    ".config/gcloud",
    ".config/gh",
    ".local/share/keyrings",
    ".local/share/python_keyring",
)
"""Credentials under a home folder that a workspace containing it must not expose."""


def _hide_secrets(home: Path) -> list[str]:
    args: list[str] = []
    for name in _HOME_SECRETS:
        path = home / name
        if path.is_symlink() or not path.exists():
            continue
        if path.is_dir():
            args += ["--tmpfs", str(path)]
        else:
            args += ["--ro-bind", "/dev/null", str(path)]
    return args


def wrap_command(argv: list[str], config: SandboxConfig, bwrap: str = "bwrap") -> list[str]:
    """``argv`` run inside the sandbox (cwd is kept; it must be in the workspace)."""
    ws = config.workspace.resolve()
    args = [bwrap, "--die-with-parent", "--new-session", "--unshare-all"]
    if config.network:
        args.append("--share-net")
    args += ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    args += ["--tmpfs", "/tmp", "--tmpfs", "/run", "--tmpfs", "/var/tmp"]
    for home in _homes():
        args += ["--tmpfs", str(home)]
        for item in config.read_only_paths:
            path = Path(os.path.expanduser(item))
            if path.exists():
                args += ["--ro-bind", str(path), str(path)]
    inside: list[Path] = []
    for hidden in config.hidden:
        target = hidden.resolve()
        if target.is_relative_to(ws) and target != ws:
            inside.append(target)
        elif target.is_dir() and not ws.is_relative_to(target):
            args += ["--tmpfs", str(target)]
        elif target.exists() and not ws.is_relative_to(target):
            args += ["--ro-bind", "/dev/null", str(target)]
    for root in (ws, *(r.resolve() for r in config.writable)):
        args += ["--bind", str(root), str(root)]
        for name in _GUARDED:  # what would run later outside the sandbox stays read-only
            guarded = root / name
            if guarded.exists() and not guarded.is_symlink():
                args += ["--ro-bind", str(guarded), str(guarded)]
    for target in inside:
        if target.is_dir():
            args += ["--tmpfs", str(target)]
    for home in _homes():  # gemtui run in the home folder itself: its secrets stay hidden
        if home.is_relative_to(ws):
            args += _hide_secrets(home)
    return [*args, "--", *argv]


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


_DENIED = ("Read-only file system", "Permission denied", "EROFS", "EACCES")
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
            "[sandbox] This command ran in the bubblewrap sandbox: only the workspace is"
            " writable, and the home folder and gemtui's files are hidden."
        )
    if not network and any(s in output for s in _NO_NET):
        return (
            "[sandbox] This command ran in the bubblewrap sandbox without network"
            " ([tools.sandbox] network = false)."
        )
    return None
