"""Workspace.resolve confinement, ignore rules and the glob translator."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gemtui.tools.base import ToolError
from gemtui.tools.workspace import Workspace, glob_to_regex


@pytest.fixture
def root(tmp_path: Path) -> Path:
    r = tmp_path / "ws"
    (r / "src" / "pkg").mkdir(parents=True)
    (r / "src" / "pkg" / "mod.py").write_text("x = 1\n")
    (r / "README.md").write_text("hi\n")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "secret.txt").write_text("SECRET\n")
    return r


@pytest.fixture
def ws(root: Path) -> Workspace:
    return Workspace(root)


def test_resolve_relative_absolute_and_root(ws: Workspace, root: Path) -> None:
    assert ws.resolve("src/pkg/mod.py") == root / "src" / "pkg" / "mod.py"
    assert ws.resolve(str(root / "README.md")) == root / "README.md"
    assert ws.resolve(".") == root
    assert ws.resolve("") == root
    assert ws.resolve("src/../README.md") == root / "README.md"
    assert ws.resolve("new/file.txt") == root / "new" / "file.txt"


def test_root_itself_is_realpathed(tmp_path: Path, root: Path) -> None:
    link = tmp_path / "link-to-ws"
    link.symlink_to(root)
    ws = Workspace(link)
    assert ws.root == root
    assert ws.resolve(str(link / "README.md")) == root / "README.md"


@pytest.mark.parametrize("path", ["..", "../outside/secret.txt", "src/../../outside"])
def test_dotdot_escape_refused(ws: Workspace, path: str) -> None:
    with pytest.raises(ToolError, match="outside the workspace root"):
        ws.resolve(path)


def test_absolute_outside_refused(ws: Workspace, tmp_path: Path) -> None:
    with pytest.raises(ToolError, match="outside the workspace root"):
        ws.resolve("/etc/passwd")
    with pytest.raises(ToolError, match="outside the workspace root"):
        ws.resolve(str(tmp_path / "outside" / "secret.txt"))


def test_sibling_with_common_prefix_is_outside(tmp_path: Path, ws: Workspace) -> None:
    (tmp_path / "ws-evil").mkdir()
    with pytest.raises(ToolError):
        ws.resolve(str(tmp_path / "ws-evil"))


def test_tilde_refused(ws: Workspace) -> None:
    with pytest.raises(ToolError, match="'~'"):
        ws.resolve("~/x")
    with pytest.raises(ToolError, match="'~'"):
        ws.resolve("~")


def test_tilde_allowed_when_home_is_inside(
    ws: Workspace, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(root))
    assert ws.resolve("~/README.md") == root / "README.md"


def test_symlink_escape_refused(ws: Workspace, root: Path, tmp_path: Path) -> None:
    (root / "link").symlink_to(tmp_path / "outside" / "secret.txt")
    (root / "dirlink").symlink_to(tmp_path / "outside")
    with pytest.raises(ToolError, match="symlink"):
        ws.resolve("link")
    with pytest.raises(ToolError, match="symlink"):
        ws.resolve("dirlink/secret.txt")
    with pytest.raises(ToolError, match="symlink"):
        ws.resolve("dirlink/new.txt")


def test_symlink_inside_allowed(ws: Workspace, root: Path) -> None:
    (root / "inner").symlink_to(root / "src")
    assert ws.resolve("inner/pkg/mod.py") == root / "src" / "pkg" / "mod.py"


def test_nul_byte_refused(ws: Workspace) -> None:
    with pytest.raises(ToolError, match="NUL"):
        ws.resolve("a\x00b")


def test_relative(ws: Workspace, root: Path) -> None:
    assert ws.relative(root) == "."
    assert ws.relative(root / "src" / "pkg") == "src/pkg"
    assert ws.relative("src/pkg/mod.py") == "src/pkg/mod.py"


def test_gitignore_root_and_nested(ws: Workspace, root: Path) -> None:
    (root / ".gitignore").write_text("*.log\nbuild/\n!keep.log\n")
    (root / "src" / ".gitignore").write_text("generated.py\n")
    (root / "build").mkdir()
    (root / "build" / "out.txt").write_text("")
    assert ws.is_ignored("debug.log")
    assert not ws.is_ignored("keep.log")
    assert ws.is_ignored("build")
    assert ws.is_ignored("build/out.txt")
    assert ws.is_ignored(root / "build" / "out.txt")
    assert ws.is_ignored("src/generated.py")
    assert ws.is_ignored("src/pkg/generated.py")
    assert not ws.is_ignored("generated.py")
    assert not ws.is_ignored("src/pkg/mod.py")
    assert not ws.is_ignored(".")
    assert not ws.is_ignored("/elsewhere/x.log")


def test_nested_gitignore_can_reinclude(ws: Workspace, root: Path) -> None:
    (root / ".gitignore").write_text("*.txt\n")
    (root / "src" / ".gitignore").write_text("!wanted.txt\n")
    assert ws.is_ignored("src/other.txt")
    assert not ws.is_ignored("src/wanted.txt")


def test_geminiignore_and_flags(ws: Workspace, root: Path) -> None:
    (root / ".geminiignore").write_text("secrets/\n")
    (root / ".gitignore").write_text("*.tmp\n")
    assert ws.is_ignored("secrets/key.pem")
    assert not ws.is_ignored("secrets/key.pem", respect_gemini_ignore=False)
    assert ws.is_ignored("a.tmp")
    assert not ws.is_ignored("a.tmp", respect_git_ignore=False)


def test_dot_git_always_ignored(ws: Workspace, root: Path) -> None:
    (root / ".git").mkdir()
    assert ws.is_ignored(".git")
    assert ws.is_ignored(".git/config")
    assert ws.is_ignored(".git/config", respect_git_ignore=False, respect_gemini_ignore=False)


def test_ignore_cache_sees_changes(ws: Workspace, root: Path) -> None:
    (root / ".gitignore").write_text("a.txt\n")
    assert ws.is_ignored("a.txt")
    assert ws._spec_cache  # parsed once, cached
    (root / ".gitignore").write_text("b.txt\nc.txt\n")
    assert not ws.is_ignored("a.txt")
    assert ws.is_ignored("b.txt")


def test_walk_prunes_ignored_and_outside_links(ws: Workspace, root: Path, tmp_path: Path) -> None:
    (root / ".gitignore").write_text("build/\n")
    (root / "build").mkdir()
    (root / "build" / "x.py").write_text("")
    (root / ".git").mkdir()
    (root / ".git" / "HEAD").write_text("")
    (root / "out-link").symlink_to(tmp_path / "outside" / "secret.txt")
    (root / "out-dir").symlink_to(tmp_path / "outside")
    (root / "in-link").symlink_to(root / "README.md")
    found = sorted(ws.relative(p) for p in ws.walk())
    assert found == [".gitignore", "README.md", "in-link", "src/pkg/mod.py"]
    assert [ws.relative(p) for p in ws.walk(root / "src")] == ["src/pkg/mod.py"]
    assert list(ws.walk(root / "build")) == []
    assert [ws.relative(p) for p in ws.walk(recursive=False)] == [
        ".gitignore",
        "README.md",
        "in-link",
    ]


@pytest.mark.parametrize(
    ("pattern", "path", "expected"),
    [
        ("*.py", "a.py", True),
        ("*.py", "src/a.py", False),
        ("**/*.py", "a.py", True),
        ("**/*.py", "src/deep/a.py", True),
        ("src/**", "src/deep/a.py", True),
        ("src/**/*.ts", "src/a.ts", True),
        ("src/**/*.ts", "lib/a.ts", False),
        ("*.{ts,tsx}", "a.tsx", True),
        ("*.{ts,tsx}", "a.js", False),
        ("file?.txt", "file1.txt", True),
        ("file[0-9].txt", "filex.txt", False),
        ("file[!0-9].txt", "filex.txt", True),
        ("./docs/*.md", "docs/a.md", True),
        ("a+b(c).txt", "a+b(c).txt", True),
    ],
)
def test_glob_to_regex(pattern: str, path: str, expected: bool) -> None:
    assert bool(glob_to_regex(pattern).match(path)) is expected


def test_glob_case_and_recursion_flags() -> None:
    assert glob_to_regex("*.PY", case_sensitive=False).match("a.py")
    assert not glob_to_regex("*.PY").match("a.py")
    assert not glob_to_regex("**/*.py", recursive=False).match("a/b/c.py")
    assert glob_to_regex("**/*.py", recursive=False).match("a/c.py")


def test_realpath_used_for_root_check(root: Path) -> None:
    ws = Workspace(str(root) + os.sep)
    assert ws.root == root
