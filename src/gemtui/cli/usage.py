"""``gemtui usage [--json] [--days N]``: where the money went, for scripts.

Spend per day, per model and per agent over the last days, read from the store (every
session and agent of this user), priced with the table in force, saying for each model
which price was used: the provider's page and its date, or "your settings".
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from gemtui.cli.parser import EXIT_INPUT, Subcommands, add_subcommand

if TYPE_CHECKING:
    from gemtui.agent.usage_report import UsageReport

__all__ = ["add_parser"]


def add_parser(sub: Subcommands) -> None:
    p = add_subcommand(sub, "usage", _run, "Spend per day, per model and per agent.")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument("--days", default="30", help="how many days back, today included (default 30)")


def _run(args: argparse.Namespace) -> int:
    from gemtui.agent.prices import readers_prices
    from gemtui.agent.usage_report import MAX_DAYS, usage_report
    from gemtui.cli.sessions import _store_failed
    from gemtui.errors import FatalError
    from gemtui.store import SessionStore

    days = _days(args.days)
    if days is None:
        sys.stderr.write(
            f"gemtui usage: --days must be a whole number from 1 to {MAX_DAYS}, not {args.days!r}\n"
        )
        return EXIT_INPUT
    try:
        prices = readers_prices(Path(os.getcwd()).resolve())
    except FatalError as exc:
        sys.stderr.write(f"gemtui: {exc}\n")
        return exc.exit_code
    try:
        with SessionStore() as store:
            report = usage_report(store, days, prices=prices)
    except BrokenPipeError:
        raise
    except Exception as exc:  # an unusable store: one line, details in the log
        return _store_failed(exc)
    if args.json:
        sys.stdout.write(json.dumps(report.as_json(), ensure_ascii=False, indent=2) + "\n")
        return 0
    sys.stdout.write(_text(report))
    return 0


def _days(text: str) -> int | None:
    from gemtui.agent.usage_report import MAX_DAYS

    try:
        days = int(text)
    except ValueError:
        return None
    return days if 1 <= days <= MAX_DAYS else None


def _money(cost: float | None) -> str:
    return "no price" if cost is None else f"${cost:.4f}"


def _text(report: UsageReport) -> str:
    lines = [f"Spend since {report.since} ({report.days} days): ${report.total:.4f}", ""]
    lines += ["Per day:"] + [
        f"  {d.name}  {_money(d.cost):>12}  {d.tokens:>10} tok" for d in report.per_day if d.calls
    ]
    lines += ["", "Per model:"] + [
        f"  {m.name:<28} {_money(m.cost):>12}  {m.tokens:>10} tok  {m.calls:>5} calls"
        for m in report.per_model
    ]
    lines += ["", "Per agent:"] + [
        f"  {a.name:<28} {_money(a.cost):>12}  {a.tokens:>10} tok  {a.calls:>5} calls"
        for a in report.per_agent
    ]
    lines += ["", "Prices used (USD per million tokens):"] + [
        f"  {model:<28} {price.get('input', '?')} in / {price.get('output', '?')} out"
        f" — {price['source']}"
        if price["source"]
        else f'  {model:<28} no price known: give it one with [prices."{model}"] in config.toml'
        for model, price in sorted(report.prices.items())
    ]
    return "\n".join(lines) + "\n"
