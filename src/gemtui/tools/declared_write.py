"""Write ``tools/declared_schemas.json`` from the built-in tools' parameter models:
``python -m gemtui.tools.declared_write`` after changing one (a test says when).

Apart from ``tools.declared`` so that module, which ``tools.base`` reads, imports no tool.
"""

from __future__ import annotations

import json
from typing import Any

from gemtui.tools.declared import TABLE, key_of
from gemtui.tools.params import ToolParams, function_schema

__all__ = ["written_table"]


def written_table() -> dict[str, dict[str, Any]]:
    """What the file should hold: the schema every built-in tool's model writes now."""
    import gemtui.tools.builtin
    import gemtui.tools.lsp.tools  # noqa: F401 - the language-server tools
    from gemtui.tools.base import TypedTool

    models: dict[str, type[ToolParams]] = {}
    pending: list[type[Any]] = [TypedTool]
    while pending:
        cls = pending.pop()
        pending.extend(cls.__subclasses__())
        model = cls.__dict__.get("params_model")
        if model is not None and cls.__module__.startswith("gemtui."):
            models[key_of(model)] = model
    return {key: function_schema(models[key]) for key in sorted(models)}


def main() -> None:
    """Write ``declared_schemas.json`` from the models."""
    TABLE.write_text(json.dumps(written_table(), indent=1) + "\n", "utf-8")
    print(f"wrote {TABLE}")


if __name__ == "__main__":
    main()
