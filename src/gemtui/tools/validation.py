"""JSON-schema validation of tool arguments (jsonschema, imported on first use)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any


@lru_cache(maxsize=256)
def _validator(schema_json: str) -> Any:
    import json

    from jsonschema import Draft202012Validator

    return Draft202012Validator(json.loads(schema_json))


def schema_error(schema: dict[str, Any], args: dict[str, Any]) -> str | None:
    """The first schema violation as one readable line, or None when ``args`` are valid."""
    import json

    validator = _validator(json.dumps(schema, sort_keys=True))
    errors = sorted(validator.iter_errors(args), key=lambda e: list(e.path))
    if not errors:
        return None
    err = errors[0]
    where = "/".join(str(p) for p in err.path)
    return f"Invalid arguments{f' at {where}' if where else ''}: {err.message}"
