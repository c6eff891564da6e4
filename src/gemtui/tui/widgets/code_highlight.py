"""Syntax highlighting, imported on first use.

``textual.highlight`` brings Pygments (≈20 ms of imports); an approval card or a diff is
never on the first frame, so the widgets that highlight call these instead (issue 26).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from textual.content import Content

__all__ = ["guess_language", "highlight", "language_of"]


def highlight(code: str, *, language: str | None = None, path: str | None = None) -> Content:
    """``code`` highlighted as ``language`` (Textual's highlighter, Pygments underneath)."""
    from textual.highlight import highlight as _highlight

    return _highlight(code, language=language, path=path)


def guess_language(code: str, path: str | None) -> str:
    """The language Pygments would pick for ``code`` at ``path``."""
    from textual.highlight import guess_language as _guess

    return _guess(code, path)


def language_of(path: str | None) -> str | None:
    """The language a file's suffix names (the modify dialog's editor), None if unknown."""
    if not path:
        return None
    return {
        ".py": "python",
        ".md": "markdown",
        ".json": "json",
        ".toml": "toml",
        ".yaml": "yaml",
        ".yml": "yaml",
        ".js": "javascript",
        ".ts": "javascript",
        ".rs": "rust",
        ".go": "go",
        ".html": "html",
        ".css": "css",
        ".sh": "bash",
        ".sql": "sql",
    }.get(Path(path).suffix)
