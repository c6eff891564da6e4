"""Headless mode: ``gemtui -p`` and its output formats."""

from gemtui.headless.runner import HeadlessOptions, run_headless

__all__ = ["HeadlessOptions", "run_headless"]
