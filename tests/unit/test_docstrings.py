"""Every public class and every settings field says why it exists (issue 10, §7).

A class or a ``config.toml`` key without a reason is how dead code and knobs that do
nothing (``stream_retries``) crept in; this keeps the next one from arriving silently.
"""

from __future__ import annotations

import ast
from pathlib import Path

import gemtui

SRC = Path(gemtui.__file__).parent


def _has_docstring_after(body: list[ast.stmt], index: int) -> bool:
    nxt = body[index + 1] if index + 1 < len(body) else None
    return (
        isinstance(nxt, ast.Expr)
        and isinstance(nxt.value, ast.Constant)
        and isinstance(nxt.value.value, str)
    )


def test_every_public_class_has_a_docstring() -> None:
    missing = [
        f"{path.relative_to(SRC)}:{node.lineno} {node.name}"
        for path in sorted(SRC.rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.ClassDef)
        and not node.name.startswith("_")
        and not ast.get_docstring(node)
    ]
    assert missing == []


def test_every_settings_field_has_a_docstring() -> None:
    tree = ast.parse((SRC / "config" / "settings.py").read_text(encoding="utf-8"))
    missing = [
        f"{node.name}.{stmt.target.id}"
        for node in tree.body
        if isinstance(node, ast.ClassDef)
        for i, stmt in enumerate(node.body)
        if isinstance(stmt, ast.AnnAssign)
        and isinstance(stmt.target, ast.Name)
        and not _has_docstring_after(node.body, i)
    ]
    assert missing == []
