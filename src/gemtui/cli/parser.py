"""The argument parser every gemtui command uses, and the exit codes it can return."""

from __future__ import annotations

import argparse
import sys

__all__ = ["EXIT_ERROR", "EXIT_INPUT", "ArgParser"]

EXIT_ERROR = 1
EXIT_INPUT = 42


class ArgParser(argparse.ArgumentParser):
    """Exits 42 (input error) with usage instead of argparse's 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        sys.stderr.write(f"{self.prog}: error: {message}\n")
        raise SystemExit(EXIT_INPUT)
