"""The argument parser every gemtui command uses, and the exit codes it can return."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import TypeAlias

__all__ = ["EXIT_ERROR", "EXIT_INPUT", "ArgParser", "Subcommands", "add_subcommand"]

EXIT_ERROR = 1
EXIT_INPUT = 42


class ArgParser(argparse.ArgumentParser):
    """Exits 42 (input error) with usage instead of argparse's 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        sys.stderr.write(f"{self.prog}: error: {message}\n")
        raise SystemExit(EXIT_INPUT)


Subcommands: TypeAlias = "argparse._SubParsersAction[ArgParser]"
"""Where a subcommand module adds its parser (``gemtui NAME …``)."""


def add_subcommand(
    sub: Subcommands, name: str, run: Callable[[argparse.Namespace], int], description: str
) -> ArgParser:
    """The parser of ``gemtui NAME``; parsing it sets ``run``, which the CLI then calls."""
    parser = sub.add_parser(name, description=description)
    parser.set_defaults(run=run)
    return parser
