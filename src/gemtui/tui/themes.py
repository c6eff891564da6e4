"""Themes as TOML files, checked by hand and turned into ``textual.theme.Theme``.

Built-in themes live in the repository's top-level ``themes/`` folder, shipped in the
wheel as ``gemtui/_themes``; user themes come from ``config_dir()/themes/*.toml``.
Loading returns the loaded and the failed files, so one bad file never blocks start-up.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from textual.app import App
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
    "install_themes",
    "load_themes",
    "user_theme_dir",
]

DEFAULT_THEME = "gemtui"
LIGHT_DEFAULT_THEME = "gemtui-day"
AUTO_THEME = "auto"
"""The ``[ui] theme`` that means: the default, light or dark as the terminal says."""

APP_VARIABLES = ("diff-added", "diff-removed", "tool-pending")
"""Our own tokens; every theme should set them (defaults come from success/error/warning)."""


_COLOUR_FIELDS = (
    "primary", "secondary", "accent", "foreground", "background", "surface", "panel",
    "boost", "success", "warning", "error",
)  # fmt: skip


@dataclass(frozen=True)
class ThemeFile:
    """The schema of one theme file (Textual's theme fields plus app ``variables``).

    Checked by hand, not with pydantic: themes load before the first frame, and pydantic
    alone would cost about a third of a bare Textual app's start-up.
    """

    name: str
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
    variables: dict[str, str] = field(default_factory=dict)
    """Textual variables and our own tokens (``diff-added``, ``tool-pending``, …)."""

    @classmethod
    def parse(cls, data: dict[str, Any]) -> ThemeFile:
        """The file's tables as a theme; ``ValueError`` names the first bad key."""
        unknown = sorted(set(data) - {*_COLOUR_FIELDS, "name", "dark", "ansi", "variables"})
        if unknown:
            raise ValueError(f"{unknown[0]}: not a theme setting")
        name = data.get("name")
        if not isinstance(name, str) or not name:
            raise ValueError("name: a non-empty string is required")
        if "primary" not in data:
            raise ValueError("primary: required")
        for key in _COLOUR_FIELDS:
            if key in data and not isinstance(data[key], str):
                raise ValueError(f"{key}: a colour string is required")
        dark, ansi = data.get("dark", True), data.get("ansi", False)
        if not isinstance(dark, bool) or not isinstance(ansi, bool):
            raise ValueError("dark and ansi: true or false")
        variables = data.get("variables", {})
        if not isinstance(variables, dict) or not all(
            isinstance(v, str) for v in variables.values()
        ):
            raise ValueError("variables: a table of strings is required")
        colours = {k: data[k] for k in _COLOUR_FIELDS if k in data}
        return cls(name=name, dark=dark, ansi=ansi, variables=dict(variables), **colours)

    def colours(self) -> dict[str, str]:
        return {k: v for k in _COLOUR_FIELDS if (v := getattr(self, k))}

    def to_theme(self) -> Theme:
        from textual.theme import Theme

        fields: dict[str, Any] = {**self.colours(), "dark": self.dark, "ansi": self.ansi}
        return Theme(name=self.name, variables=dict(self.variables), **fields)


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

    values = spec.colours()
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
    spec = ThemeFile.parse(data)
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


def install_themes(app: App[Any], wanted: str) -> tuple[str, list[ThemeFailure]]:
    """Register every theme with ``app``: the theme to start with (``wanted``, else the
    default for this terminal) and the files that failed, to be told once it runs."""
    loaded, failed = load_themes()
    for theme in loaded:
        app.register_theme(theme)
    chosen = wanted if wanted in app.available_themes else default_theme()
    if DEFAULT_THEME not in app.available_themes:  # pragma: no cover - broken install
        chosen = "textual-dark"
    return chosen, failed
