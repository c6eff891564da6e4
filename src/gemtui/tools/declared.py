"""The built-in tools' declared parameter schemas, written once into the package.

Writing a schema from a pydantic model builds the model's validator first: for the
built-in tools that was ~25 ms of the engine's start, ahead of the first request, which
needs only the schemas (issue 34). ``declared_schemas.json`` holds what
:func:`~gemtui.tools.params.function_schema` writes for each of them, so a tool's
validator is built when the tool is first called. A model missing from the file (a tool
added since, a test's own) is written as before. ``tests/unit/tools/test_declared_schemas.py``
proves the file equal to what the models write; after changing a model, write it again:
``python -m gemtui.tools.declared_write``.
"""

from __future__ import annotations

import copy
import json
from functools import cache
from pathlib import Path
from typing import Any

from gemtui.tools.params import ToolParams, function_schema

__all__ = ["TABLE", "declared_schema", "key_of"]

TABLE = Path(__file__).with_name("declared_schemas.json")
"""Each built-in parameter model's schema, by ``module:qualname``."""


def key_of(model: type[ToolParams]) -> str:
    """The name a model's schema is kept under."""
    return f"{model.__module__}:{model.__qualname__}"


@cache
def _table() -> dict[str, dict[str, Any]]:
    try:
        loaded = json.loads(TABLE.read_text(encoding="utf-8"))
    except (OSError, ValueError):  # a broken install still works, a little slower
        return {}
    return loaded if isinstance(loaded, dict) else {}


def declared_schema(model: type[ToolParams]) -> dict[str, Any]:
    """``model``'s declared schema (a fresh copy), from the file when it is there."""
    kept = _table().get(key_of(model))
    return copy.deepcopy(kept) if kept is not None else function_schema(model)
