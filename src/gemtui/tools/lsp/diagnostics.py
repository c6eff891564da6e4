"""What an edit introduced, in the compact lines a model reads: file:line:col severity message.

A diagnostic is "new" when the file after the edit has more of it than the file had
before, counted by severity, code, source and message but not position: an edit that
adds lines above an old warning moves it without making it the edit's.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from lsprotocol import types as lsp

__all__ = ["describe", "format_lines", "introduced", "severity_name"]

_SEVERITY = {
    lsp.DiagnosticSeverity.Error: "error",
    lsp.DiagnosticSeverity.Warning: "warning",
    lsp.DiagnosticSeverity.Information: "info",
    lsp.DiagnosticSeverity.Hint: "hint",
}

_Key = tuple[int, str, str, str]


def severity_name(diagnostic: lsp.Diagnostic) -> str:
    """``error``, ``warning``, ``info`` or ``hint`` (an unsaid severity counts as error)."""
    return _SEVERITY.get(diagnostic.severity or lsp.DiagnosticSeverity.Error, "error")


def _key(d: lsp.Diagnostic) -> _Key:
    severity = int(d.severity or lsp.DiagnosticSeverity.Error)
    return severity, str(d.code or ""), d.source or "", d.message


def introduced(
    before: Sequence[lsp.Diagnostic], after: Sequence[lsp.Diagnostic]
) -> list[lsp.Diagnostic]:
    """Errors and warnings of ``after`` not accounted for by ``before``, in file order."""
    left = Counter(_key(d) for d in before)
    out: list[lsp.Diagnostic] = []
    for d in sorted(after, key=lambda d: (d.range.start.line, d.range.start.character)):
        if (d.severity or lsp.DiagnosticSeverity.Error) > lsp.DiagnosticSeverity.Warning:
            continue
        key = _key(d)
        if left[key] > 0:
            left[key] -= 1
        else:
            out.append(d)
    return out


def format_lines(rel: str, diagnostics: Iterable[lsp.Diagnostic], limit: int) -> list[str]:
    """One line each (1-based line and column), at most ``limit`` and a count of the rest."""
    items = list(diagnostics)
    lines = []
    for d in items[:limit]:
        start = d.range.start
        message = " ".join(d.message.split())
        source = f" ({d.source})" if d.source else ""
        lines.append(
            f"{rel}:{start.line + 1}:{start.character + 1} {severity_name(d)} {message}{source}"
        )
    if len(items) > limit:
        lines.append(f"... and {len(items) - limit} more")
    return lines


def describe(server: str, rel: str, new: Sequence[lsp.Diagnostic], limit: int) -> str:
    """The note appended to an edit's result."""
    if not new:
        return f"Diagnostics ({server}): no new errors or warnings in {rel}."
    errors = sum(1 for d in new if severity_name(d) == "error")
    counts = [
        f"{n} {word}{'s' if n != 1 else ''}"
        for n, word in ((errors, "error"), (len(new) - errors, "warning"))
        if n
    ]
    head = f"Diagnostics ({server}): this edit introduced {' and '.join(counts)}:"
    return "\n".join([head, *format_lines(rel, new, limit)])
