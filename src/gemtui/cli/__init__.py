"""The ``gemtui`` command line: ``main`` dispatches, each subcommand is a module beside it.

Layers, top to bottom: ``main`` (the command and its flags) → ``auth``, ``mcp``,
``sessions`` (subcommands) → ``parser`` (the argument parser and exit codes). Each imports
only downward; imports stay lazy so ``--version`` and ``--help`` are instant.
"""

from __future__ import annotations

from gemtui.cli.main import build_parser, run

__all__ = ["build_parser", "run"]
