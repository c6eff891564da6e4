"""JSON-schema validation of tool arguments (jsonschema, imported on first use), and the
repair of the near misses small models make (a wrong parameter name, JSON in a string)."""

from __future__ import annotations

import difflib
import json
import re
from functools import lru_cache
from typing import Any

from msgspec import Struct

__all__ = ["Repair", "repair_args", "schema_error"]


@lru_cache(maxsize=256)
def _validator(schema_json: str) -> Any:
    from jsonschema import Draft202012Validator

    return Draft202012Validator(json.loads(schema_json))


def schema_error(schema: dict[str, Any], args: dict[str, Any]) -> str | None:
    """The first schema violation as one readable line, or None when ``args`` are valid."""
    validator = _validator(json.dumps(schema, sort_keys=True))
    errors = sorted(validator.iter_errors(args), key=lambda e: list(e.path))
    if not errors:
        return None
    err = errors[0]
    where = "/".join(str(p) for p in err.path)
    return f"Invalid arguments{f' at {where}' if where else ''}: {err.message}"


# -- repair ------------------------------------------------------------------------------

_ALIASES: dict[str, tuple[str, ...]] = {
    "path": ("file_path", "dir_path", "path"),
    "file": ("file_path",),
    "filename": ("file_path",),
    "filepath": ("file_path",),
    "file_name": ("file_path",),
    "dir": ("dir_path",),
    "directory": ("dir_path",),
    "folder": ("dir_path",),
    "dirpath": ("dir_path",),
    "cmd": ("command",),
    "shell_command": ("command",),
    "text": ("content",),
    "contents": ("content",),
    "old": ("old_string",),
    "new": ("new_string",),
    "old_text": ("old_string",),
    "new_text": ("new_string",),
    "query": ("pattern",),
    "regex": ("pattern",),
}
"""Names small models use for our parameters (Gemini CLI's names), tried before the
general close match."""

_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,),
    "array": (list,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
}


class Repair(Struct, frozen=True):
    """Arguments made valid, and what was changed, in words for the tool card."""

    args: dict[str, Any]
    notes: tuple[str, ...]

    def summary(self) -> str:
        return "arguments repaired: " + "; ".join(self.notes)


def _normal(name: str) -> str:
    """``filePath``, ``File-Path`` and ``file_path`` alike."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).replace("-", "_").lower()


def _target(key: str, props: dict[str, Any], taken: set[str]) -> str | None:
    free = [p for p in props if p not in taken]
    norm = _normal(key)
    for p in free:
        if _normal(p) == norm:
            return p
    for alias in _ALIASES.get(norm, ()):
        if alias in free:
            return alias
    close = difflib.get_close_matches(norm, free, n=2, cutoff=0.75)
    return close[0] if len(close) == 1 else None


def _types_of(schema: Any) -> set[str]:
    kind = schema.get("type") if isinstance(schema, dict) else None
    if isinstance(kind, str):
        return {kind.lower()}
    if isinstance(kind, list):
        return {k.lower() for k in kind if isinstance(k, str)}
    return set()


def _from_json_string(value: str, kinds: set[str]) -> Any:
    try:
        parsed = json.loads(value)
    except ValueError:
        return None
    for kind in kinds - {"string"}:
        wanted = _JSON_TYPES.get(kind)
        if wanted is None or (isinstance(parsed, bool) and bool not in wanted):
            continue
        if isinstance(parsed, wanted):
            return parsed
    return None


def repair_args(schema: dict[str, Any], args: dict[str, Any]) -> Repair | None:
    """``args`` repaired when they fail ``schema`` only through near-miss names (``path``
    for ``file_path``, ``cmd`` for ``command``, ``filePath``, a unique close match) or a
    JSON string where an object, array, number or boolean is expected; None when they are
    valid already or the repair would not make them valid."""
    if schema_error(schema, args) is None:
        return None
    props: dict[str, Any] = schema.get("properties") or {}
    if not props:
        return None
    fixed: dict[str, Any] = {}
    notes: list[str] = []
    unknown = [k for k in args if k not in props]
    fixed.update({k: v for k, v in args.items() if k in props})
    for key in unknown:
        target = _target(key, props, set(fixed))
        if target is None:
            fixed[key] = args[key]
        else:
            fixed[target] = args[key]
            notes.append(f"{key} → {target}")
    for key, value in list(fixed.items()):
        kinds = _types_of(props.get(key))
        if isinstance(value, str) and kinds and "string" not in kinds:
            parsed = _from_json_string(value, kinds)
            if parsed is not None:
                fixed[key] = parsed
                notes.append(f"{key} parsed from a JSON string")
    if not notes or schema_error(schema, fixed) is not None:
        return None
    return Repair(fixed, tuple(notes))
