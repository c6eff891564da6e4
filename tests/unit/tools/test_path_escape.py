"""Every tool with a path parameter refuses every way out of the workspace.

Escapes: ``..``, ``/etc/passwd``, an absolute path outside, a symlink pointing outside
and ``~`` (with HOME pointed at the outside directory, so a bug would really reach it).
Each must fail with a clear ToolError in ``confirmation()`` and ``execute()``, and the
outside directory must be byte-for-byte unchanged afterwards.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from gemtui.tools.base import ToolContext, ToolError
from gemtui.tools.registry import default_registry
from gemtui.tools.workspace import Workspace

ETC_PASSWD = Path("/etc/passwd")
_PASSWD_TEXT = ETC_PASSWD.read_text() if ETC_PASSWD.exists() else ""

ArgsFor = Callable[[str], dict[str, Any]]

# (tool name, does the path name a file or a directory, arguments for a path)
TOOL_CASES: list[tuple[str, str, ArgsFor]] = [
    ("list_directory", "dir", lambda p: {"dir_path": p}),
    ("read_file", "file", lambda p: {"file_path": p}),
    ("read_many_files", "file", lambda p: {"include": [p]}),
    ("glob", "dir", lambda p: {"pattern": "**/*", "dir_path": p}),
    ("grep_search", "dir", lambda p: {"pattern": "SECRET", "dir_path": p}),
    (
        "replace",
        "file",
        lambda p: {
            "file_path": p,
            "instruction": "x",
            "old_string": "SECRET",
            "new_string": "PWNED",
        },
    ),
    # For /etc/passwd the "new" content is its current content: a bug could not harm it.
    (
        "write_file",
        "file",
        lambda p: {"file_path": p, "content": _PASSWD_TEXT if p == "/etc/passwd" else "PWNED\n"},
    ),
    ("run_shell_command", "dir", lambda p: {"command": "cat secret.txt", "dir_path": p}),
]

ESCAPES = ["dotdot", "etc", "absolute", "symlink", "tilde"]


def snapshot(directory: Path) -> dict[str, str]:
    return {
        p.relative_to(directory).as_posix(): (
            hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "dir"
        )
        for p in sorted(directory.rglob("*"))
    }


def escape_path(kind: str, target: str, root: Path, outside: Path) -> str:
    name = "secret.txt" if target == "file" else "secretdir"
    if kind == "dotdot":
        return f"../outside/{name}"
    if kind == "etc":
        return "/etc/passwd" if target == "file" else "/etc"
    if kind == "absolute":
        return str(outside / name)
    if kind == "symlink":
        (root / "link").symlink_to(outside / name)
        return "link"
    if kind == "tilde":
        return f"~/{name}"
    raise AssertionError(kind)


@pytest.mark.parametrize("escape", ESCAPES)
@pytest.mark.parametrize(("name", "target", "args_for"), TOOL_CASES, ids=[c[0] for c in TOOL_CASES])
async def test_path_escape_refused(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    name: str,
    target: str,
    args_for: ArgsFor,
    escape: str,
) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "inside.txt").write_text("inside\n")
    outside = tmp_path / "outside"
    (outside / "secretdir").mkdir(parents=True)
    (outside / "secret.txt").write_text("SECRET\n")
    (outside / "secretdir" / "secret.txt").write_text("SECRET\n")
    monkeypatch.setenv("HOME", str(outside))
    before = snapshot(outside)
    passwd_before = ETC_PASSWD.read_bytes() if ETC_PASSWD.exists() else b""

    path = escape_path(escape, target, root, outside)
    tool = default_registry().get(name)
    assert tool is not None
    args = args_for(path)
    assert tool.validate(args) is None, "escapes are refused at run time, not by the schema"
    inv = tool.build(args)
    ctx = ToolContext(workspace=Workspace(root), shell_timeout=10)

    steps = ["confirmation", "execute"] if tool.mutating else ["execute"]
    if not tool.mutating:
        assert await inv.confirmation(ctx) is None  # read-only: no preview to build
    for step in steps:
        call = inv.confirmation(ctx) if step == "confirmation" else inv.execute(ctx)
        with pytest.raises(ToolError) as info:
            await call
        message = str(info.value)
        assert "workspace" in message, message
        assert "SECRET" not in message

    assert snapshot(outside) == before
    if ETC_PASSWD.exists():
        assert ETC_PASSWD.read_bytes() == passwd_before


@pytest.mark.parametrize("pattern", ["../outside/*.txt", "/etc/*", "src/**/../../../outside/*"])
async def test_read_many_files_glob_escapes(tmp_path: Path, pattern: str) -> None:
    root = tmp_path / "ws"
    (root / "src").mkdir(parents=True)
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.txt").write_text("SECRET\n")
    tool = default_registry().get("read_many_files")
    assert tool is not None
    with pytest.raises(ToolError):
        await tool.build({"include": [pattern]}).execute(ToolContext(workspace=Workspace(root)))


async def test_walking_tools_skip_outside_symlinks(tmp_path: Path) -> None:
    """A symlink inside the tree that points outside is never followed by a search."""
    root = tmp_path / "ws"
    root.mkdir()
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.txt").write_text("SECRET\n")
    (root / "leak.txt").symlink_to(tmp_path / "outside" / "secret.txt")
    (root / "leakdir").symlink_to(tmp_path / "outside")
    ctx = ToolContext(workspace=Workspace(root))
    reg = default_registry()
    for name, args in [
        ("read_many_files", {"include": ["**/*"]}),
        ("grep_search", {"pattern": "SECRET"}),
        ("glob", {"pattern": "**/*"}),
    ]:
        tool = reg.get(name)
        assert tool is not None
        result = await tool.build(args).execute(ctx)
        text = str(result.llm_content)
        if name == "grep_search":
            assert text.startswith("No matches found")  # the pattern itself says SECRET
        else:
            assert "SECRET" not in text
        assert "secret.txt" not in text
