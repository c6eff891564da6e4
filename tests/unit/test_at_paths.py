"""@path attachments on a real tree: files, folders, globs, ignore files, escapes, media."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from gemtui.agent.at_paths import attach_files, find_at_paths
from gemtui.tools.base import ToolContext
from gemtui.tools.workspace import Workspace

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
)


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    root = tmp_path / "ws"
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "src" / "main.py").write_text("print('MAIN')\n")
    (root / "src" / "pkg" / "util.py").write_text("UTIL = 1\n")
    (root / "my notes.md").write_text("SPACED NAME\n")
    (root / "secret.env").write_text("TOKEN=abc\n")
    (root / ".gitignore").write_text("*.env\nbuild/\n")
    (root / "build").mkdir()
    (root / "build" / "out.py").write_text("BUILT\n")
    (root / "logo.png").write_bytes(PNG)
    (tmp_path / "outside.txt").write_text("OUTSIDE\n")
    return ToolContext(workspace=Workspace(root))


def test_finding_paths() -> None:
    assert find_at_paths("explain @src/main.py and @my\\ notes.md, mail a@b.com @") == [
        "src/main.py",
        "my notes.md,",
    ]
    assert find_at_paths("@first\tthen(@not)") == ["first"]


async def test_a_file_goes_after_the_prompt(ctx: ToolContext) -> None:
    out = await attach_files("explain @src/main.py.", ctx)
    assert out.files == ["src/main.py"]
    assert out.notes == []
    texts = [p.text for p in out.parts]
    assert texts[0] == "explain @src/main.py."
    assert texts[1] == "\n--- Content from referenced files ---\n"
    assert "--- src/main.py ---" in (texts[2] or "")
    assert "print('MAIN')" in (texts[2] or "")
    assert "Attached 1 file(s): src/main.py" in out.summary()


async def test_folders_globs_and_escaped_spaces(ctx: ToolContext) -> None:
    out = await attach_files("look at @src and @my\\ notes.md", ctx)
    assert sorted(out.files) == ["my notes.md", "src/main.py", "src/pkg/util.py"]
    body = out.parts[2].text or ""
    assert "UTIL = 1" in body
    assert "SPACED NAME" in body
    glob = await attach_files("all @src/**/*.py", ctx)
    assert sorted(glob.files) == ["src/main.py", "src/pkg/util.py"]


async def test_ignored_missing_and_outside_are_refused_with_notes(ctx: ToolContext) -> None:
    out = await attach_files("read @secret.env @build/out.py @nope.py @../outside.txt", ctx)
    assert out.parts == []
    assert out.files == []
    text = "\n".join(out.notes)
    assert "@secret.env" in text
    assert "ignored" in text
    assert "@build/out.py" in text
    assert "@nope.py: no such file or folder" in text
    assert "@../outside.txt" in text
    assert "TOKEN=abc" not in text
    assert "OUTSIDE" not in text
    (ctx.workspace.root / "link.txt").symlink_to(ctx.workspace.root.parent / "outside.txt")
    (ctx.workspace.root / "linkdir").symlink_to(ctx.workspace.root.parent)
    linked = await attach_files("read @link.txt and @linkdir and @linkdir/outside.txt", ctx)
    assert linked.files == []
    assert len(linked.notes) == 3
    assert "OUTSIDE" not in "".join(p.text or "" for p in linked.parts)
    mixed = await attach_files("read @src/main.py @secret.env", ctx)
    assert mixed.files == ["src/main.py"]
    assert "TOKEN=abc" not in "".join(p.text or "" for p in mixed.parts)


async def test_an_image_goes_as_inline_data(ctx: ToolContext) -> None:
    out = await attach_files("what is in @logo.png", ctx)
    assert out.files == ["logo.png"]
    inline = [p.inline_data for p in out.parts if p.inline_data is not None]
    assert len(inline) == 1
    assert inline[0].mime_type == "image/png"
    assert base64.b64decode(inline[0].data) == PNG


async def test_no_paths_means_no_attachment(ctx: ToolContext) -> None:
    out = await attach_files("mail me@example.com", ctx)
    assert out.parts == []
    assert out.notes == []
