"""Reading a TOML file that a person (or a repository) wrote: every failure is a config error.

Bytes that are not UTF-8, a syntax error, or nesting deep enough to exhaust Python's
recursion limit all end the same way: exit 52 with one line naming the file, never an
"unexpected error" and a traceback.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gemtui.errors import FatalConfigError

__all__ = ["parse_toml_text", "read_toml_file"]


def parse_toml_text(text: str, path: Path, what: str) -> dict[str, Any]:
    """``text`` parsed; ``what`` names the file's role in messages ("settings", "policy")."""
    import tomllib  # only once a file exists: a first start without settings never needs it

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise FatalConfigError(
            f"{path}: malformed TOML: {exc}. Fix the syntax at that line or move the file aside."
        ) from exc
    except RecursionError as exc:
        raise FatalConfigError(
            f"{path}: the {what} file nests too deeply to read (thousands of levels); "
            "flatten it or move it aside."
        ) from exc


def read_toml_file(path: Path, what: str) -> dict[str, Any] | None:
    """The file's tables, or None when it does not exist; anything else wrong exits 52."""
    try:
        if path.exists() and not path.is_file():  # a FIFO would block the read forever
            raise FatalConfigError(f"{path}: the {what} file is not a regular file")
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise FatalConfigError(f"{path}: cannot read {what}: {exc.strerror or exc}") from exc
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FatalConfigError(
            f"{path}: {what} file is not UTF-8 text (byte {exc.start}); "
            "save it as UTF-8 or move it aside."
        ) from exc
    return parse_toml_text(text, path, what)
