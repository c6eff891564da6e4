"""replace and write_file: exact-match rules, previews, person edits, line endings."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from gemtui.tools.base import ToolContext, ToolError, ToolInvocation
from gemtui.tools.builtin import ReplaceTool, WriteFileTool
from gemtui.tools.workspace import Workspace
from gemtui.wire import Candidate, Content, GenerateContentRequest, GenerateContentResponse, Part

SOURCE = "def f():\n    return 1\n\n\ndef g():\n    return 1\n"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "mod.py").write_text(SOURCE)
    return tmp_path


@pytest.fixture
def ctx(root: Path) -> ToolContext:
    return ToolContext(workspace=Workspace(root))


def replace(**args: Any) -> ToolInvocation:
    args.setdefault("instruction", "change it")
    tool = ReplaceTool()
    assert tool.validate(args) is None
    return tool.build(args)


def write(**args: Any) -> ToolInvocation:
    tool = WriteFileTool()
    assert tool.validate(args) is None
    return tool.build(args)


async def test_replace_single_occurrence(ctx: ToolContext, root: Path) -> None:
    inv = replace(
        file_path="pkg/mod.py",
        old_string="def f():\n    return 1",
        new_string="def f():\n    return 2",
    )
    conf = await inv.confirmation(ctx)
    assert conf is not None
    assert conf.kind == "edit"
    assert conf.file_path == str(root / "pkg" / "mod.py")
    assert conf.original == SOURCE
    assert conf.proposed == SOURCE.replace("return 1", "return 2", 1)
    assert conf.diff is not None
    assert conf.diff.startswith("--- a/pkg/mod.py\n+++ b/pkg/mod.py\n")
    assert "-    return 1\n+    return 2\n" in conf.diff
    assert (root / "pkg" / "mod.py").read_text() == SOURCE  # preview writes nothing
    result = await inv.execute(ctx)
    assert result.error is None
    assert "Successfully modified file" in str(result.llm_content)
    assert (root / "pkg" / "mod.py").read_text() == conf.proposed
    assert result.data["diff"] == conf.diff


async def test_replace_no_match(ctx: ToolContext) -> None:
    inv = replace(file_path="pkg/mod.py", old_string="return 3", new_string="return 4")
    with pytest.raises(ToolError, match="could not find the string"):
        await inv.execute(ctx)
    with pytest.raises(ToolError, match="0 occurrences"):
        await inv.confirmation(ctx)


async def test_replace_multiple_matches(ctx: ToolContext, root: Path) -> None:
    inv = replace(file_path="pkg/mod.py", old_string="return 1", new_string="return 2")
    with pytest.raises(ToolError, match="expected 1 occurrence but found 2"):
        await inv.execute(ctx)
    assert (root / "pkg" / "mod.py").read_text() == SOURCE
    many = replace(
        file_path="pkg/mod.py", old_string="return 1", new_string="return 2", allow_multiple=True
    )
    result = await many.execute(ctx)
    assert "2 replacements" in str(result.llm_content)
    assert (root / "pkg" / "mod.py").read_text() == SOURCE.replace("return 1", "return 2")


async def test_replace_identical_strings(ctx: ToolContext) -> None:
    inv = replace(file_path="pkg/mod.py", old_string="return 1", new_string="return 1")
    with pytest.raises(ToolError, match="identical"):
        await inv.execute(ctx)


async def test_replace_creates_new_file(ctx: ToolContext, root: Path) -> None:
    inv = replace(file_path="new/dir/file.txt", old_string="", new_string="hello\n")
    conf = await inv.confirmation(ctx)
    assert conf is not None
    assert conf.original == ""
    assert conf.proposed == "hello\n"
    assert conf.diff is not None
    assert "+hello" in conf.diff
    result = await inv.execute(ctx)
    assert "Created new file" in str(result.llm_content)
    assert (root / "new" / "dir" / "file.txt").read_text() == "hello\n"
    assert result.data["is_new_file"] is True


async def test_replace_empty_old_string_on_existing_file(ctx: ToolContext) -> None:
    inv = replace(file_path="pkg/mod.py", old_string="", new_string="x")
    with pytest.raises(ToolError, match="already exists"):
        await inv.execute(ctx)


async def test_replace_missing_file(ctx: ToolContext) -> None:
    inv = replace(file_path="nope.py", old_string="a", new_string="b")
    with pytest.raises(ToolError, match="File not found"):
        await inv.execute(ctx)


async def test_replace_modify_replaces_full_content(ctx: ToolContext, root: Path) -> None:
    inv = replace(file_path="pkg/mod.py", old_string="def g", new_string="def h")
    inv.modify("person's version\n")
    conf = await inv.confirmation(ctx)
    assert conf is not None
    assert conf.proposed == "person's version\n"
    result = await inv.execute(ctx)
    assert (root / "pkg" / "mod.py").read_text() == "person's version\n"
    assert "user modified" in str(result.llm_content).lower()
    assert result.data["user_modified"] is True


async def test_replace_keeps_crlf(ctx: ToolContext, root: Path) -> None:
    path = root / "win.txt"
    path.write_bytes(b"one\r\ntwo\r\nthree\r\n")
    await replace(file_path="win.txt", old_string="one\ntwo", new_string="uno\ndos").execute(ctx)
    assert path.read_bytes() == b"uno\r\ndos\r\nthree\r\n"


def test_replace_validation() -> None:
    tool = ReplaceTool()
    assert tool.validate({"file_path": "a", "old_string": "x", "new_string": "y"})  # no instruction
    assert tool.validate({"file_path": " ", "instruction": "i", "old_string": "", "new_string": ""})


async def test_write_file_creates_parents(ctx: ToolContext, root: Path) -> None:
    inv = write(file_path="a/b/c.txt", content="hi\n")
    conf = await inv.confirmation(ctx)
    assert conf is not None
    assert conf.kind == "edit"
    assert conf.original == ""
    assert conf.diff == "--- a/a/b/c.txt\n+++ b/a/b/c.txt\n@@ -0,0 +1 @@\n+hi\n"
    assert not (root / "a").exists()
    result = await inv.execute(ctx)
    assert (root / "a" / "b" / "c.txt").read_text() == "hi\n"
    assert "Successfully created and wrote to new file" in str(result.llm_content)


async def test_write_file_overwrite_diff_and_modify(ctx: ToolContext, root: Path) -> None:
    inv = write(file_path=str(root / "pkg" / "mod.py"), content="new\n")
    conf = await inv.confirmation(ctx)
    assert conf is not None
    assert conf.original == SOURCE
    assert conf.proposed == "new\n"
    assert conf.diff is not None
    assert "-def f():" in conf.diff
    assert "+new" in conf.diff
    inv.modify("edited\n")
    result = await inv.execute(ctx)
    assert (root / "pkg" / "mod.py").read_text() == "edited\n"
    assert "Successfully overwrote file" in str(result.llm_content)


async def test_write_file_into_directory_refused(ctx: ToolContext) -> None:
    with pytest.raises(ToolError, match="directory"):
        await write(file_path="pkg", content="x").execute(ctx)


async def test_write_file_may_write_an_ignored_path_but_replace_may_not_read_one(
    ctx: ToolContext, root: Path
) -> None:
    """A whole-file write reveals nothing of what was there; replace's errors would."""
    (root / ".gitignore").write_text(".env\ndist/\n")
    (root / ".env").write_text("TOKEN=old-secret\n")
    result = await write(file_path="dist/bundle.js", content="x\n").execute(ctx)
    assert (root / "dist" / "bundle.js").read_text() == "x\n"
    result = await write(file_path=".env", content="TOKEN=new\n").execute(ctx)
    assert "old-secret" not in str(result.llm_content)
    assert (root / ".env").read_text() == "TOKEN=new\n"
    with pytest.raises(ToolError, match="ignored"):
        await replace(file_path=".env", old_string="TOKEN=n", new_string="TOKEN=m").execute(ctx)
    with pytest.raises(ToolError, match=r"outside|workspace"):
        await write(file_path="../escape.txt", content="x").execute(ctx)


def test_diff_no_newline_marker() -> None:
    from gemtui.tools.builtin._files import unified_diff

    diff = unified_diff("a", "b", "f")
    assert "\\ No newline at end of file" in diff


async def test_the_preview_shows_the_flexible_match_that_is_written(
    ctx: ToolContext, root: Path
) -> None:
    inv = replace(
        file_path="pkg/mod.py",
        old_string="def g():\nreturn 1  \n",
        new_string="def g():\nreturn 3\n",
    )
    conf = await inv.confirmation(ctx)
    assert conf is not None
    assert conf.title == "Confirm Edit: pkg/mod.py · matched with flexible whitespace"
    assert conf.proposed == SOURCE.replace("def g():\n    return 1", "def g():\n    return 3")
    assert "-    return 1\n+    return 3\n" in (conf.diff or "")
    result = await inv.execute(ctx)
    assert result.data["diff"] == conf.diff
    assert result.data["match"] == "flexible"
    assert (root / "pkg" / "mod.py").read_text() == conf.proposed
    assert "Matched with flexible whitespace at line(s) 5-6" in str(result.llm_content)
    assert result.display.startswith("matched with flexible whitespace\n--- a/pkg/mod.py")


async def test_an_exact_match_says_nothing_about_strategy(ctx: ToolContext) -> None:
    inv = replace(file_path="pkg/mod.py", old_string="def g", new_string="def h")
    conf = await inv.confirmation(ctx)
    assert conf is not None
    assert conf.title == "Confirm Edit: pkg/mod.py"
    result = await inv.execute(ctx)
    assert result.data["match"] == "exact"
    assert "Matched" not in str(result.llm_content)
    assert result.display.startswith("--- a/pkg/mod.py")


async def test_a_file_changed_after_the_preview_to_match_otherwise_is_not_written(
    ctx: ToolContext, root: Path
) -> None:
    path = root / "pkg" / "mod.py"
    inv = replace(
        file_path="pkg/mod.py",
        old_string="def g():\n    return 1",
        new_string="def g():\n    return 5",
    )
    conf = await inv.confirmation(ctx)
    assert conf is not None
    assert conf.title == "Confirm Edit: pkg/mod.py"
    changed = SOURCE.replace("def g():\n    return 1", "def g():\n  return 1")
    path.write_text(changed)  # now only a flexible match would find it
    with pytest.raises(ToolError, match="changed after the edit was previewed"):
        await inv.execute(ctx)
    assert path.read_text() == changed


async def test_placeholders_are_refused_for_new_files_and_whole_writes(
    ctx: ToolContext, root: Path
) -> None:
    created = replace(file_path="new.py", old_string="", new_string="x = 1\n# ... rest of code\n")
    with pytest.raises(ToolError, match="new_string contains omission placeholder"):
        await created.confirmation(ctx)
    assert not (root / "new.py").exists()
    whole = write(file_path="pkg/mod.py", content="def f():\n    # existing code ...\n")
    with pytest.raises(ToolError, match="content contains omission placeholder"):
        await whole.execute(ctx)
    assert (root / "pkg" / "mod.py").read_text() == SOURCE
    kept = write(file_path="pkg/mod.py", content=SOURCE + "# ... rest unchanged\n")
    with pytest.raises(ToolError, match="rest unchanged"):
        await kept.execute(ctx)


async def test_an_ambiguous_replace_names_the_lines(ctx: ToolContext) -> None:
    with pytest.raises(ToolError, match="found 2, starting at lines 2, 6"):
        await replace(file_path="pkg/mod.py", old_string="return 1", new_string="return 2").execute(
            ctx
        )


async def test_the_fixer_is_asked_once_and_its_edit_is_what_the_preview_shows(
    root: Path,
) -> None:
    asked: list[GenerateContentRequest] = []

    async def stream(request: GenerateContentRequest) -> AsyncIterator[GenerateContentResponse]:
        asked.append(request)
        answer = {"explanation": "g, not h", "search": "def g():", "replace": "def gg():"}
        content = Content(role="model", parts=[Part(text=json.dumps(answer))])
        yield GenerateContentResponse(candidates=[Candidate(content=content)])

    ctx = ToolContext(workspace=Workspace(root), model_stream=stream, edit_fixer=True)
    inv = replace(file_path="pkg/mod.py", old_string="def h():", new_string="def hh():")
    conf = await inv.confirmation(ctx)
    assert conf is not None
    assert conf.proposed == SOURCE.replace("def g():", "def gg():")
    result = await inv.execute(ctx)
    assert len(asked) == 1
    assert (root / "pkg" / "mod.py").read_text() == conf.proposed
    assert "edit fixer" in str(result.llm_content)
