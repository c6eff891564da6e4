"""Glob character classes reach the regex engine escaped: no Python warning, no re.error.

Copying a ``[...]`` body into the regex raw let ``[[a]``, ``[a--b]``, ``[a&&b]``,
``[a||b]`` and ``[a~~b]`` make ``re`` print FutureWarnings (nested set, set operations)
on the person's terminal, and ``[z-a]`` raise. Warnings are errors here (``-W error``).
"""

from __future__ import annotations

import warnings

import pytest

from gemtui.tools.workspace import glob_to_regex


@pytest.mark.parametrize(
    ("pattern", "matches", "misses"),
    [
        ("[[a]*", ["[1.txt", "a1.txt"], ["b.txt"]),
        ("[a--b]", ["b"], ["a", "-"]),  # `a--` is a reversed range: nothing
        ("[a&&b]", ["a", "&", "b"], ["c"]),
        ("[a||b]", ["a", "|", "b"], ["c"]),
        ("[a~~b]", ["a", "~", "b"], ["c"]),
        ("[z-a]x", [], ["ax", "zx", "x"]),
        ("[]]", ["]"], ["a"]),
        ("[!]]", ["a"], ["]", "/"]),
        ("[!a]", ["b"], ["a", "/"]),
        ("[a-c].py", ["b.py"], ["d.py"]),
        ("[\\d]", ["\\", "d"], ["1"]),
        ("[-a]", ["-", "a"], ["b"]),
        ("[.^$]", [".", "^", "$"], ["a"]),
    ],
)
def test_glob_classes_compile_quietly_and_match_literally(
    pattern: str, matches: list[str], misses: list[str]
) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        regex = glob_to_regex(pattern)
    for name in matches:
        assert regex.match(name), (pattern, name)
    for name in misses:
        assert not regex.match(name), (pattern, name)
