"""Themes as TOML files, validated by pydantic and turned into ``textual.theme.Theme``.

Built-in themes live in the repository's top-level ``themes/`` folder, shipped in the
wheel as ``gemtui/_themes``; user themes come from ``config_dir()/themes/*.toml``.
Loading returns the loaded and the failed files, so one bad file never blocks start-up.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field, ValidationError

if TYPE_CHECKING:
    from textual.theme import Theme

__all__ = [
    "APP_VARIABLES",
    "AUTO_THEME",
    "DEFAULT_THEME",
    "LIGHT_DEFAULT_THEME",
    "ThemeFailure",
    "ThemeFile",
    "builtin_theme_dir",
    "default_theme",
    "load_themes",
    "user_theme_dir",
]

DEFAULT_THEME = "gemtui"
LIGHT_DEFAULT_THEME = "gemtui-day"
AUTO_THEME = "auto"
"""The ``[ui] theme`` that means: the default, light or dark as the terminal says."""

APP_VARIABLES = ("diff-added", "diff-removed", "tool-pending")
"""Our own tokens; every theme should set them (defaults come from success/error/warning)."""


class ThemeFile(BaseModel):
    """The schema of one theme file (Textual's theme fields plus app ``variables``)."""

    model_config = ConfigDict(extra="forbid")
    name: str = Field(min_length=1)
    primary: str
    secondary: str | None = None
    accent: str | None = None
    foreground: str | None = None
    background: str | None = None
    surface: str | None = None
    panel: str | None = None
    boost: str | None = None
    success: str | None = None
    warning: str | None = None
    error: str | None = None
    dark: bool = True
    ansi: bool = False
    """Use the terminal's own 16 colours (``ansi_blue``, ``ansi_default``…) as given,
    not converted to RGB: a theme that follows the terminal's palette asks for this."""
    variables: dict[str, str] = Field(default_factory=dict)
    """Textual variables and our own tokens (``diff-added``, ``tool-pending``, …)."""

    def to_theme(self) -> Theme:
        from textual.theme import Theme

        return Theme(**self.model_dump())


@dataclass(frozen=True)
class ThemeFailure:
    """A theme file that could not be used, and why."""

    path: Path
    message: str


def default_theme(environ: Mapping[str, str] | None = None) -> str:
    """The default theme for this terminal: light when ``COLORFGBG`` (set by rxvt, Konsole,
    iTerm2 and others as ``fg;bg``) names a light background, else dark."""
    value = (os.environ if environ is None else environ).get("COLORFGBG", "")
    background = value.rsplit(";", 1)[-1].strip()
    return LIGHT_DEFAULT_THEME if background in {"7", "15"} else DEFAULT_THEME


def builtin_theme_dir() -> Path | None:
    """The built-in themes: the source checkout's ``themes/`` or the wheel's ``_themes``."""
    checkout = Path(__file__).resolve().parents[3] / "themes"
    if checkout.is_dir() and any(checkout.glob("*.toml")):
        return checkout
    from importlib.resources import files

    try:
        packaged = Path(str(files("gemtui") / "_themes"))
    except (ModuleNotFoundError, TypeError):  # pragma: no cover - gemtui is importable
        return None
    return packaged if packaged.is_dir() else None


def user_theme_dir() -> Path:
    from gemtui.config.paths import config_dir

    return config_dir() / "themes"


def _check_colours(spec: ThemeFile) -> str | None:
    from textual.color import Color, ColorParseError

    fields = spec.model_dump(exclude={"name", "dark", "ansi", "variables"})
    values = {k: v for k, v in fields.items() if v}
    values.update({k: v for k, v in spec.variables.items() if k in APP_VARIABLES})
    for key, value in values.items():
        try:
            Color.parse(value)
        except ColorParseError:
            return f"{key}: {value!r} is not a colour"
    from textual.css.tokenize import tokenize_values
    from textual.css.tokenizer import TokenError

    for key, value in spec.variables.items():  # any variable must at least be valid CSS
        try:
            tokenize_values({key: str(value)})
        except TokenError:
            return f"variables.{key}: {value!r} is not a valid CSS value"
    return None


def _load_one(path: Path) -> Theme:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"cannot read: {exc}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"malformed TOML: {exc}") from exc
    try:
        spec = ThemeFile.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "file"
        raise ValueError(f"{where}: {first['msg']}") from exc
    problem = _check_colours(spec)
    if problem:
        raise ValueError(problem)
    return spec.to_theme()


def load_themes(
    folders: Iterable[Path | None] | None = None,
) -> tuple[list[Theme], list[ThemeFailure]]:
    """Every theme in ``folders`` (default: built-in, then user); later names win."""
    if folders is None:
        folders = (builtin_theme_dir(), user_theme_dir())
    loaded: dict[str, Theme] = {}
    failed: list[ThemeFailure] = []
    for folder in folders:
        if folder is None or not folder.is_dir():
            continue
        for path in sorted(folder.glob("*.toml")):
            try:
                theme = _load_one(path)
            except ValueError as exc:
                failed.append(ThemeFailure(path, str(exc)))
                continue
            loaded[theme.name] = theme
    return list(loaded.values()), failed
