"""The few settings the TUI's first frame needs, read without pydantic.

Why: validating every setting imports pydantic (about 100 ms) before anything is drawn.
The first frame needs only ``[ui]``; the files are parsed here with ``tomllib`` (a syntax
error still exits 52 at once), and the full validation runs with the engine build, after
the frame, where a bad value still stops the app with exit 52.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gemtui.config.paths import user_config_file, workspace_config_file
from gemtui.config.toml_file import read_toml_file

__all__ = ["SCREEN_READER_ENV", "UiChoice", "read_ui_choice"]


@dataclass(frozen=True)
class UiChoice:
    """``[ui]`` as the first frame uses it (defaults as ``UiSettings``)."""

    theme: str = "auto"
    """A theme's name, or ``auto``: the default for this terminal (light or dark)."""
    show_thoughts: bool = True
    show_usage: bool = True
    vim_mode: bool = False
    screen_reader: bool = False
    """The linear plain-text screen (``[ui.accessibility] screenReader``, Gemini CLI's
    name, or ``GEMTUI_SCREEN_READER``); ``--screen-reader`` sets it too."""

    @classmethod
    def of(cls, ui: Any) -> UiChoice:
        """From validated ``UiSettings`` (after a settings reload)."""
        return cls(
            ui.theme, ui.show_thoughts, ui.show_usage, ui.vim_mode, ui.accessibility.screen_reader
        )


SCREEN_READER_ENV = "GEMTUI_SCREEN_READER"
"""Set to 1 (or true, yes, on): the screen-reader mode, whatever the files say."""


def _screen_reader(ui: dict[str, Any]) -> bool:
    """``[ui.accessibility] screenReader`` (or ``screen_reader``), the variable winning."""
    env = os.environ.get(SCREEN_READER_ENV, "").strip().lower()
    if env:
        return env in ("1", "true", "yes", "on")
    access = ui.get("accessibility")
    if not isinstance(access, dict):
        return False
    value = access.get("screenReader", access.get("screen_reader"))
    return value is True


def read_ui_choice(workspace: Path, *, trusted: bool) -> UiChoice:
    """``[ui]`` from the user file and (trusted) the folder's file, ``GEMTUI_THEME`` last.

    Values of the wrong type fall back to the defaults here; the full validation later
    names them with exit 52.
    """
    files = [user_config_file()]
    if trusted:
        files.append(workspace_config_file(workspace))
    merged: dict[str, Any] = {}
    for path in files:
        ui = (read_toml_file(path, "settings") or {}).get("ui")
        if isinstance(ui, dict):
            merged = _merge_ui(merged, ui)
    default = UiChoice()
    theme = os.environ.get("GEMTUI_THEME") or merged.get("theme")
    thoughts, usage = merged.get("show_thoughts"), merged.get("show_usage")
    vim = merged.get("vim_mode")
    return UiChoice(
        theme if isinstance(theme, str) else default.theme,
        thoughts if isinstance(thoughts, bool) else default.show_thoughts,
        usage if isinstance(usage, bool) else default.show_usage,
        vim if isinstance(vim, bool) else default.vim_mode,
        _screen_reader(merged),
    )


def _merge_ui(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    """``over`` on ``base``, ``accessibility`` merged key by key as the settings merge."""
    out = base | over
    old, new = base.get("accessibility"), over.get("accessibility")
    if isinstance(old, dict) and isinstance(new, dict):
        out["accessibility"] = old | new
    return out
