"""Indentation for a flexible match: new_string moved from the indentation old_string was
quoted with to the file's, so a block quoted flush-left or with spaces for tabs still lands
at the depth the file has it."""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["reindent"]


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


def _unit(lines: list[str], base: str) -> int:
    """The indentation step of space-indented ``lines`` beyond ``base`` (4 if none)."""
    steps = [len(_indent(x)) - len(base) for x in lines if x.strip()]
    return min((d for d in steps if d > 0), default=4)


def reindent(lines: list[str], core: list[str], window: list[str]) -> list[str]:
    """new_string's lines moved from old_string's indentation to the file's.

    Each non-blank line of old_string sits on one line of the file, so each of its
    indentations maps to one of the file's. When that map is consistent, new lines take
    the mapped indentation (or the base shift, space steps turned into tabs or back); when
    it is not (old_string was flattened), a line takes the indentation of the file line it
    repeats, or else of the line after the last one it repeated.
    """
    mapping: dict[str, str] = {}
    consistent = True
    for old, got in zip(core, window, strict=True):
        if old.strip() and mapping.setdefault(_indent(old), _indent(got)) != _indent(got):
            consistent = False
    if not consistent:
        return _positional(lines, core, window)
    if all(k == v for k, v in mapping.items()):
        return lines
    shift = _shifter(core, window)
    out: list[str] = []
    for line in lines:
        lead = _indent(line)
        if not line.strip():
            out.append("")
        elif lead in mapping:
            out.append(mapping[lead] + line.lstrip())
        else:
            out.append(shift(lead) + line.lstrip())
    return out


def _positional(lines: list[str], core: list[str], window: list[str]) -> list[str]:
    keys = [line.strip() for line in core]
    out: list[str] = []
    last = -1
    for line in lines:
        text = line.strip()
        if not text:
            out.append("")
            continue
        at = next((k for k in range(last + 1, len(keys)) if keys[k] == text), None)
        if at is not None:
            last = at
            out.append(_indent(window[at]) + text)
        else:
            out.append(_indent(window[min(last + 1, len(window) - 1)]) + text)
    return out


def _shifter(core: list[str], window: list[str]) -> Callable[[str], str]:
    """An indentation of old_string's style turned into the file's: the base indentation
    swapped, space steps turned into tabs (or back) when the two differ."""
    old_base, file_base = _indent(core[0]), _indent(window[0])
    old_tabs = any(_indent(x).startswith("\t") for x in core)
    file_tabs = any(_indent(x).startswith("\t") for x in window)
    old_unit = 1 if old_tabs else _unit(core, old_base)
    file_step = "\t" if file_tabs else " " * _unit(window, file_base)

    def shift(lead: str) -> str:
        if not lead.startswith(old_base):  # less indented: keep the same difference
            short = len(old_base) - len(lead)
            return file_base[: max(0, len(file_base) - short)]
        extra = lead[len(old_base) :]
        if old_tabs != file_tabs:
            width = len(extra.expandtabs(old_unit)) if old_tabs else len(extra)
            extra = file_step * (width // old_unit) + " " * (width % old_unit)
        return file_base + extra

    return shift
