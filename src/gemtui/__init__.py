"""gemtui: a full-screen terminal coding agent."""

import sys as _sys
import types as _types

__version__ = "0.1.0"
__all__ = ["__version__"]


def _without_httpx_cli() -> None:
    """Keep httpx from importing its command-line tool.

    ``import httpx`` tries ``httpx._main``, which imports click, rich and pygments whenever
    click is installed (the ``mcp`` SDK brings it through uvicorn): ≈50-100 ms on every
    launch for a CLI gemtui never runs. A stand-in module is registered first; httpx then
    finds its ``main`` there and imports nothing more.
    """
    if "httpx" in _sys.modules or "httpx._main" in _sys.modules:
        return
    stand_in = _types.ModuleType("httpx._main", "httpx's CLI, not loaded inside gemtui.")

    def main(*_args: object, **_kwargs: object) -> None:
        raise SystemExit("the httpx command line is not available inside gemtui")

    stand_in.main = main  # type: ignore[attr-defined]
    _sys.modules["httpx._main"] = stand_in


_without_httpx_cli()
