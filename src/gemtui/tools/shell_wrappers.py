"""Wrapper commands seen through: ``command``, ``env``, ``nice``, ``timeout``, ``sudo``,
``xargs``, ``find -exec``, ``bash -c`` and ``trap`` give the command they run, or say
that their options cannot be read with certainty (the walk then hides the command)."""

from __future__ import annotations

import re

from gemtui.tools.shell_words import Word

__all__ = [
    "OUTER_WRAPPERS",
    "TRANSPARENT_WRAPPERS",
    "find_exec",
    "joined",
    "shell_string",
    "trap_action",
]

# -- wrapper grammars --------------------------------------------------------------------
# Each takes the words (name first) and returns the inner command's words: [] when there
# is none, None when the options cannot be read with certainty.

_Unwrap = tuple[list[Word] | None, list[str]]


def _options(
    words: list[Word],
    with_arg: frozenset[str],
    flags: frozenset[str],
    *,
    long_with_arg: frozenset[str] = frozenset(),
    clusters: bool = True,
) -> list[Word] | None:
    """The words after a wrapper's options, or None when an option is unknown or unread."""
    i = 1
    while i < len(words):
        w = words[i]
        if w.value is None:
            return None
        v = w.value
        if v == "--":
            return words[i + 1 :]
        if not v.startswith("-") or v == "-":
            return words[i:]
        if v.startswith("--"):
            key = v.split("=", 1)[0]
            if key in long_with_arg:
                i += 1 if "=" in v else 2
                continue
            if key in flags:
                i += 1
                continue
            return None
        if v in with_arg:
            i += 2
            continue
        if v in flags:
            i += 1
            continue
        if clusters and len(v) > 2:
            letters = [f"-{c}" for c in v[1:]]
            if letters[0] in with_arg:  # value attached: -n5, -oL
                i += 1
                continue
            if all(f in flags for f in letters[:-1]) and letters[-1] in with_arg | flags:
                i += 2 if letters[-1] in with_arg else 1
                continue
        return None
    return []


def _f(*names: str) -> frozenset[str]:
    return frozenset(names)


def _unwrap_command(words: list[Word]) -> _Unwrap:
    return _options(words, _f(), _f("-p", "-v", "-V")), []


def _unwrap_plain(words: list[Word]) -> _Unwrap:
    rest = words[1:]
    if rest and rest[0].value == "--":
        rest = rest[1:]
    return rest, []


def _unwrap_exec(words: list[Word]) -> _Unwrap:
    return _options(words, _f("-a"), _f("-c", "-l")), []


def _unwrap_time(words: list[Word]) -> _Unwrap:
    return _options(
        words,
        _f("-f", "-o"),
        _f("-p", "-a", "-v", "-q", "--append", "--verbose", "--quiet", "--portability"),
        long_with_arg=_f("--format", "--output"),
    ), []


def _unwrap_nice(words: list[Word]) -> _Unwrap:
    rest = words[1:]
    if rest and rest[0].value is not None and re.fullmatch(r"-\d+", rest[0].value):
        rest = rest[1:]
        return _options([words[0], *rest], _f("-n"), _f()), []
    return _options(words, _f("-n"), _f(), long_with_arg=_f("--adjustment")), []


def _unwrap_timeout(words: list[Word]) -> _Unwrap:
    rest = _options(
        words,
        _f("-k", "-s"),
        _f("-v", "--verbose", "--preserve-status", "--foreground"),
        long_with_arg=_f("--kill-after", "--signal"),
    )
    if rest is None or not rest:
        return rest, []
    return rest[1:], []  # the duration


def _unwrap_stdbuf(words: list[Word]) -> _Unwrap:
    return _options(
        words, _f("-i", "-o", "-e"), _f(), long_with_arg=_f("--input", "--output", "--error")
    ), []


def _unwrap_setsid(words: list[Word]) -> _Unwrap:
    return _options(words, _f(), _f("-c", "-f", "-w", "--ctty", "--fork", "--wait")), []


def _unwrap_env(words: list[Word]) -> _Unwrap:
    rest = _options(
        words,
        _f("-u", "-C"),
        _f("-i", "-0", "-v", "--ignore-environment", "--null", "--debug"),
        long_with_arg=_f("--unset", "--chdir"),
    )
    if rest is None:
        return None, []
    env: list[str] = []
    while rest and rest[0].value is not None and re.match(r"[^=\s]+=", rest[0].value):
        env.append(rest[0].value.split("=", 1)[0])
        rest = rest[1:]
    if rest and rest[0].value is None:
        return None, env
    return rest, env


TRANSPARENT_WRAPPERS = {
    "command": _unwrap_command,
    "builtin": _unwrap_plain,
    "nohup": _unwrap_plain,
    "exec": _unwrap_exec,
    "time": _unwrap_time,
    "nice": _unwrap_nice,
    "timeout": _unwrap_timeout,
    "stdbuf": _unwrap_stdbuf,
    "setsid": _unwrap_setsid,
    "env": _unwrap_env,
}
"""Wrappers that only change how a program runs: a rule for the program covers them."""


def _unwrap_xargs(words: list[Word]) -> list[Word] | None:
    replace = ("-I", "-i", "--replace")
    if any(w.value is not None and w.value.startswith(replace) for w in words[1:]):
        return None  # the replacement string can rewrite any word, the name included
    rest = _options(
        words,
        _f("-a", "-d", "-E", "-L", "-n", "-P", "-s"),
        _f("-0", "-p", "-r", "-t", "-x", "-e", "-l", "--null", "--interactive", "--verbose",
           "--no-run-if-empty", "--exit", "--open-tty", "--show-limits"),
        long_with_arg=_f("--arg-file", "--delimiter", "--eof", "--max-lines", "--max-args",
                         "--max-procs", "--max-chars", "--process-slot-var"),
    )  # fmt: skip
    if rest == []:
        return [Word("echo", "echo")]
    return rest


def _unwrap_sudo(words: list[Word]) -> list[Word] | None:
    if any(w.value in ("-s", "-i", "-e", "--shell", "--login", "--edit") for w in words[1:]):
        return None  # runs through the target user's shell, or edits files
    return _options(
        words,
        _f("-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-T", "-U", "-R"),
        _f("-A", "-b", "-E", "-H", "-k", "-K", "-n", "-P", "-S", "-B", "-N",
           "--askpass", "--background", "--non-interactive", "--preserve-env", "--stdin",
           "--reset-timestamp", "--remove-timestamp", "--set-home", "--bell"),
        long_with_arg=_f("--user", "--group", "--close-from", "--chdir", "--host",
                         "--prompt", "--role", "--type", "--command-timeout", "--other-user",
                         "--chroot"),
    )  # fmt: skip


def _unwrap_doas(words: list[Word]) -> list[Word] | None:
    if any(w.value == "-s" for w in words[1:]):
        return None
    return _options(words, _f("-u", "-C"), _f("-n", "-L"))


OUTER_WRAPPERS = {"xargs": _unwrap_xargs, "sudo": _unwrap_sudo, "doas": _unwrap_doas}
"""Wrappers that matter themselves (privilege, input-driven arguments): both the wrapper
and the command it runs must be allowed."""


def find_exec(words: list[Word]) -> list[list[Word] | None]:
    out: list[list[Word] | None] = []
    if any(w.value is None for w in words):
        return [None]  # an expanded word may be -exec, or the program after it
    i = 1
    while i < len(words):
        if words[i].value in ("-exec", "-execdir", "-ok", "-okdir"):
            j = i + 1
            while j < len(words) and words[j].value not in (";", "+"):
                j += 1
            out.append(words[i + 1 : j] or None)
            i = j
        i += 1
    return out


def shell_string(words: list[Word]) -> str | None:
    """The text of ``bash -c TEXT``; None when the shell would read a script or stdin."""
    command_mode = False
    i = 1
    while i < len(words):
        v = words[i].value
        if v is None:
            return None
        if v in ("-o", "+o", "-O", "+O", "--rcfile", "--init-file"):
            i += 2
            continue
        if v == "--":
            i += 1
            break
        if v.startswith("--"):
            i += 1
            continue
        if v.startswith(("-", "+")) and len(v) > 1:
            command_mode |= v.startswith("-") and "c" in v[1:]
            i += 1
            continue
        break
    if not command_mode or i >= len(words):
        return None
    return words[i].value


def joined(words: list[Word]) -> str | None:
    if any(w.value is None for w in words):
        return None
    return " ".join(w.value or "" for w in words)


def trap_action(words: list[Word]) -> str | None:
    rest = words[1:]
    while rest and rest[0].value in ("-l", "-p", "--"):
        rest = rest[1:]
    if not rest:
        return ""
    action = rest[0].value
    if action is None:
        return None
    return "" if action == "-" else action
