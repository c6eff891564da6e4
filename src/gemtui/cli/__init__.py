"""The ``gemtui`` command line: ``main`` parses, each subcommand is a module beside it.

Layers, top to bottom: ``main`` (the command and its flags, turned into one ``RunOptions``
for the front end it starts) → ``auth``, ``mcp``, ``sessions``, ``extensions``,
``checkpoints``, ``rewind`` (each adds its own argparse subparser) → ``parser`` (the
argument parser and exit codes). Each imports only downward; imports stay lazy so
``--version`` and ``--help`` are instant.
"""

from __future__ import annotations

from gemtui.cli.main import build_parser, run

__all__ = ["build_parser", "run"]
