"""No module under src/ grows past one screenful of responsibility (issue 26).

The limit lives here, once: a module that needs more lines is two modules.
"""

from __future__ import annotations

from pathlib import Path

MAX_MODULE_LINES = 600

SRC = Path(__file__).resolve().parents[2] / "src"


def test_no_module_is_over_the_limit() -> None:
    sizes = {
        str(path.relative_to(SRC)): len(path.read_text(encoding="utf-8").splitlines())
        for path in SRC.rglob("*.py")
    }
    assert len(sizes) > 100  # the tree was found
    over = {name: n for name, n in sizes.items() if n > MAX_MODULE_LINES}
    assert over == {}, f"split these modules (limit {MAX_MODULE_LINES} lines): {over}"
