"""Which typed ``!`` lines count as read-only: only plain reads, by name, nothing hidden."""

from __future__ import annotations

import pytest

from gemtui.tools.shell_read_only import typed_read_only


@pytest.mark.parametrize(
    "line", ["ls", "ls -la", "pwd", "cat src/a.py", "grep -r a .", "ls | wc -l"]
)
def test_plain_reads_count(line: str) -> None:
    assert typed_read_only(line)


@pytest.mark.parametrize(
    "line",
    [
        "ls; rm x",
        "ls && rm x",
        "ls & rm x",
        "ls\nrm x",
        "ls > f",
        "echo hi >> f",
        "cat $(rm x)",
        "cat `rm x`",
        "cat <(rm x)",
        "ls | sh",
        "ls $HOME",
        "X=1 ls",
        "./ls",
        "/bin/ls",
        "nice ls",
        "(rm x)",
        "find . -delete",
        "rg --pre sh x",
        "git status",
        "",
    ],
)
def test_anything_that_could_write_or_run_another_program_does_not(line: str) -> None:
    assert not typed_read_only(line)
