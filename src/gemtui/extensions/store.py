"""Installed extensions under ``<data dir>/extensions``: install, link, enable, remove.

An installed extension is a copy (``install``, from a folder or a git URL); a linked one
is a pointer to a folder the person keeps working on (``link``). Each records where it
came from in ``.gemtui-source.json`` so ``update`` can fetch it again. Enablement lives in
``enablement.json``: disabled for every folder, or only for some (``--workspace``).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from gemtui.config.paths import data_dir
from gemtui.extensions.manifest import MANIFEST, Extension, ExtensionError, read_extension

__all__ = ["ExtensionStore", "enabled_extensions"]

SOURCE = ".gemtui-source.json"


def _is_git_url(source: str) -> bool:
    return source.startswith(("https://", "http://", "git@", "ssh://", "file://")) or (
        source.endswith(".git") and not Path(source).exists()
    )


class ExtensionStore:
    """The extensions folder and its enablement file."""

    def __init__(self, root: Path | None = None) -> None:
        self.root = root or data_dir() / "extensions"

    # -- reading -----------------------------------------------------------------------------

    def _folder(self, name: str) -> Path:
        folder = self.root / name
        source = self._source(folder)
        if source.get("type") == "link":
            return Path(source["path"])
        return folder

    @staticmethod
    def _source(folder: Path) -> dict[str, Any]:
        try:
            data = json.loads((folder / SOURCE).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def installed(self) -> tuple[list[Extension], list[str]]:
        """Every installed extension, and the problems of those that cannot be read."""
        found: list[Extension] = []
        problems: list[str] = []
        if not self.root.is_dir():
            return found, problems
        for folder in sorted(p for p in self.root.iterdir() if p.is_dir()):
            try:
                found.append(read_extension(self._folder(folder.name)))
            except ExtensionError as exc:
                problems.append(str(exc))
        return found, problems

    def get(self, name: str) -> Extension:
        if not (self.root / name).is_dir():
            raise ExtensionError(f"no extension named {name!r} is installed")
        return read_extension(self._folder(name))

    # -- enablement --------------------------------------------------------------------------

    def _enablement(self) -> dict[str, Any]:
        try:
            data = json.loads((self.root / "enablement.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def _save_enablement(self, data: dict[str, Any]) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        (self.root / "enablement.json").write_text(json.dumps(data, indent=2, sort_keys=True))

    def is_enabled(self, name: str, workspace: Path) -> bool:
        entry = self._enablement().get(name, {})
        folder = str(workspace.resolve())
        if folder in entry.get("workspaces", {}):
            return bool(entry["workspaces"][folder])
        return not entry.get("disabled", False)

    def set_enabled(self, name: str, enabled: bool, workspace: Path | None = None) -> None:
        """Enable or disable ``name`` everywhere, or only for ``workspace``."""
        self.get(name)  # raises for an unknown name
        data = self._enablement()
        entry = data.setdefault(name, {})
        if workspace is None:
            entry["disabled"] = not enabled
            entry.pop("workspaces", None)
        else:
            entry.setdefault("workspaces", {})[str(workspace.resolve())] = enabled
        self._save_enablement(data)

    # -- changing ----------------------------------------------------------------------------

    def install(self, source: str) -> Extension:
        """Copy a folder (or clone a git URL) into the store."""
        if _is_git_url(source):
            with tempfile.TemporaryDirectory() as tmp:
                clone = Path(tmp) / "clone"
                done = subprocess.run(
                    ["git", "clone", "--depth", "1", "--", source, str(clone)],
                    capture_output=True,
                    text=True,
                    check=False,
                )
                if done.returncode != 0:
                    raise ExtensionError(f"git clone {source} failed: {done.stderr.strip()}")
                return self._copy_in(clone, {"type": "git", "source": source})
        folder = Path(source).expanduser().resolve()
        return self._copy_in(folder, {"type": "local", "source": str(folder)})

    def _copy_in(self, folder: Path, source: dict[str, str], *, replace: bool = False) -> Extension:
        ext = read_extension(folder)
        target = self.root / ext.name
        if target.exists() and not replace:
            raise ExtensionError(
                f"an extension named {ext.name!r} is already installed "
                f"(gemtui extensions uninstall {ext.name} first, or update it)"
            )
        self.root.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{ext.name}.", dir=self.root))
        try:
            copy = staging / "copy"
            shutil.copytree(folder, copy, symlinks=True, ignore=shutil.ignore_patterns(".git"))
            (copy / SOURCE).write_text(json.dumps(source))
            if target.exists():
                shutil.rmtree(target)
            copy.rename(target)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        return read_extension(target)

    def link(self, path: str) -> Extension:
        """Use a folder in place (changes show on the next start)."""
        folder = Path(path).expanduser().resolve()
        ext = read_extension(folder)
        target = self.root / ext.name
        if target.exists():
            raise ExtensionError(f"an extension named {ext.name!r} is already installed")
        target.mkdir(parents=True)
        (target / SOURCE).write_text(json.dumps({"type": "link", "path": str(folder)}))
        return ext

    def uninstall(self, name: str) -> None:
        self.get(name)
        shutil.rmtree(self.root / name)
        data = self._enablement()
        if data.pop(name, None) is not None:
            self._save_enablement(data)

    def update(self, name: str) -> Extension:
        """Fetch an installed extension again from where it came from."""
        self.get(name)
        source = self._source(self.root / name)
        kind = source.get("type")
        if kind == "link":
            return self.get(name)  # a link is always current
        if kind not in ("git", "local"):
            raise ExtensionError(f"{name}: its source is unknown; reinstall it")
        if kind == "git":
            with tempfile.TemporaryDirectory() as tmp:
                clone = Path(tmp) / "clone"
                done = subprocess.run(
                    ["git", "clone", "--depth", "1", "--", source["source"], str(clone)],
                    capture_output=True,
                    text=True,
                    check=False,
                )
                if done.returncode != 0:
                    raise ExtensionError(f"git clone failed: {done.stderr.strip()}")
                return self._copy_in(clone, source, replace=True)
        return self._copy_in(Path(source["source"]), source, replace=True)

    def import_gemini_cli(self, home: Path | None = None) -> tuple[list[str], list[str]]:
        """Copy the extensions Gemini CLI has installed; (imported, skipped with why)."""
        folder = (home or Path.home()) / ".gemini" / "extensions"
        done: list[str] = []
        skipped: list[str] = []
        if not folder.is_dir():
            return done, [f"{folder}: no Gemini CLI extensions there"]
        for candidate in sorted(p for p in folder.iterdir() if (p / MANIFEST).is_file()):
            try:
                ext = self._copy_in(candidate, {"type": "local", "source": str(candidate)})
            except (ExtensionError, OSError) as exc:
                skipped.append(f"{candidate.name}: {exc}")
                continue
            done.append(ext.name)
        return done, skipped


def enabled_extensions(workspace: Path, store: ExtensionStore | None = None) -> list[Extension]:
    """The extensions a session in ``workspace`` uses (unreadable ones are left out)."""
    store = store or ExtensionStore()
    found, _ = store.installed()
    return [e for e in found if store.is_enabled(e.name, workspace)]
