"""Where gemtui keeps its files. ``GEMTUI_HOME`` relocates all of them (tests do this)."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = [
    "config_dir",
    "data_dir",
    "log_dir",
    "user_config_file",
    "workspace_config_file",
]


def _home() -> Path | None:
    value = os.environ.get("GEMTUI_HOME")
    return Path(value).expanduser() if value else None


def config_dir() -> Path:
    home = _home()
    if home is not None:
        return home / "config"
    from platformdirs import user_config_path

    return user_config_path("gemtui", appauthor=False)


def data_dir() -> Path:
    home = _home()
    if home is not None:
        return home / "data"
    from platformdirs import user_data_path

    return user_data_path("gemtui", appauthor=False)


def log_dir() -> Path:
    home = _home()
    if home is not None:
        return home / "logs"
    from platformdirs import user_log_path

    return user_log_path("gemtui", appauthor=False)


def user_config_file() -> Path:
    return config_dir() / "config.toml"


def workspace_config_file(workspace: Path) -> Path:
    """The folder's own settings file, applied only when the folder is trusted."""
    return workspace / ".gemtui" / "config.toml"
