"""Which ``!`` lines need the terminal itself (an editor, a pager, ``git rebase -i``).

Those cannot run with their output captured into a card: the TUI steps aside (suspends)
and hands them the real terminal. Guessed from the command's words, as Gemini CLI's
shell mode does; an unknown program runs captured (a person can still quit it with Esc).
"""

from __future__ import annotations

import shlex

__all__ = ["needs_terminal"]

_PROGRAMS = frozenset(
    {
        "vi", "vim", "nvim", "view", "nano", "emacs", "micro", "helix", "hx", "joe", "ed",
        "less", "more", "most", "man", "top", "htop", "btop", "watch", "tmux", "screen",
        "ssh", "mosh", "ftp", "sftp", "telnet", "mysql", "psql", "sqlite3", "redis-cli",
        "ipython", "bpython", "irb", "ghci", "tig", "lazygit", "ranger", "mc", "nnn",
        "fzf", "dialog", "whiptail", "passwd",
    }
)  # fmt: skip
_REPLS = frozenset({"python", "python3", "node", "bash", "sh", "zsh", "fish", "lua", "R"})
_GIT_INTERACTIVE = (("rebase", "-i"), ("rebase", "--interactive"), ("add", "-p"),
                    ("add", "--patch"), ("add", "-i"), ("commit",), ("mergetool",))  # fmt: skip


def needs_terminal(line: str) -> bool:
    """Whether ``line`` starts a program that talks to the terminal directly."""
    try:
        words = shlex.split(line)
    except ValueError:
        return False
    while words and "=" in words[0] and not words[0].startswith("="):
        words = words[1:]  # VAR=value prefixes
    if words and words[0] in ("sudo", "env", "exec", "command", "nice", "time"):
        words = words[1:]
    if not words:
        return False
    program = words[0].rsplit("/", 1)[-1]
    if program in _PROGRAMS:
        return True
    if program in _REPLS:
        return len(words) == 1 or words[1:] in (["-i"], ["-"])
    if program == "git" and len(words) > 1:
        rest = words[1:]
        for pattern in _GIT_INTERACTIVE:
            if rest[: len(pattern)] == list(pattern) or (
                rest[0] == pattern[0] and len(pattern) > 1 and pattern[1] in rest
            ):
                has_message = any(
                    w in ("-m", "--message", "-F", "--file", "--no-edit") or w.startswith("-m")
                    for w in rest
                )
                return not (pattern == ("commit",) and has_message)
    return False
