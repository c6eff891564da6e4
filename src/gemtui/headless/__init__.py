"""Headless mode: ``gemtui -p`` and its output formats."""

from gemtui.headless.runner import run_headless

__all__ = ["run_headless"]
