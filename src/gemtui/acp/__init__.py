"""gemtui as an Agent Client Protocol agent (``gemtui --acp``), for editors such as Zed.

A front end like the TUI and headless: it takes the CLI's ``RunOptions`` whole, builds
sessions with ``build_session`` and turns their bus events into ACP updates. No engine
module imports this package.
"""

from __future__ import annotations

from gemtui.acp.server import run_acp

__all__ = ["run_acp"]
