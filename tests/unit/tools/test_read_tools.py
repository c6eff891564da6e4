"""list_directory, read_file, read_many_files, glob and grep_search against a tmp tree."""

from __future__ import annotations

import base64
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from gemtui.tools import builtin
from gemtui.tools.base import Tool, ToolContext, ToolError, ToolKind, ToolResult
from gemtui.tools.builtin import grep_search as grep_module
from gemtui.tools.registry import default_registry
from gemtui.tools.workspace import Workspace

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    r = tmp_path / "ws"
    (r / "src" / "pkg").mkdir(parents=True)
    (r / "docs").mkdir()
    (r / "build").mkdir()
    (r / "src" / "main.py").write_text("import os\n\ndef main():\n    print('Hello')\n")
    (r / "src" / "pkg" / "util.py").write_text("def helper():\n    return 'hello world'\n")
    (r / "docs" / "guide.md").write_text("# Guide\nSay hello.\n")
    (r / "build" / "gen.py").write_text("print('hello from build')\n")
    (r / "notes.log").write_text("hello log\n")
    (r / ".gitignore").write_text("build/\n*.log\n")
    return r


@pytest.fixture
def ctx(root: Path) -> ToolContext:
    return ToolContext(workspace=Workspace(root))


def tool(name: str) -> Tool:
    t = default_registry().get(name)
    assert t is not None
    return t


async def run(ctx: ToolContext, name: str, **args: Any) -> ToolResult:
    t = tool(name)
    err = t.validate(args)
    assert err is None, err
    inv = t.build(args)
    assert await inv.confirmation(ctx) is None
    return await inv.execute(ctx)


def text_of(result: ToolResult) -> str:
    assert isinstance(result.llm_content, str)
    return result.llm_content


def test_kinds_and_registry() -> None:
    reg = default_registry()
    kinds = {t.name: t.kind for t in builtin.builtin_tools()}
    assert kinds == {
        "list_directory": ToolKind.READ,
        "read_file": ToolKind.READ,
        "read_many_files": ToolKind.READ,
        "glob": ToolKind.SEARCH,
        "grep_search": ToolKind.SEARCH,
        "replace": ToolKind.EDIT,
        "write_file": ToolKind.EDIT,
        "run_shell_command": ToolKind.EXECUTE,
        "write_todos": ToolKind.THINK,
        "web_fetch": ToolKind.FETCH,
        "google_web_search": ToolKind.SEARCH,
        "save_memory": ToolKind.EDIT,
    }
    assert reg.names() == list(kinds)
    assert reg.get("search_file_content") is reg.get("grep_search")
    assert "search_file_content" in reg
    decls = reg.declarations(exclude={"run_shell_command"})
    assert [d.name for d in decls] == [n for n in kinds if n != "run_shell_command"]
    assert len(reg.declarations(exclude={"search_file_content"})) == len(kinds) - 1
    with pytest.raises(ValueError, match="already registered"):
        reg.register(builtin.GrepSearchTool())
    assert reg.unregister("search_file_content") is not None
    assert reg.get("grep_search") is None


# -- list_directory ----------------------------------------------------------------------


async def test_list_directory_dirs_first_and_ignored(ctx: ToolContext, root: Path) -> None:
    text = text_of(await run(ctx, "list_directory", dir_path="."))
    assert text.splitlines()[:4] == [
        f"Directory listing for {root}:",
        "[DIR] docs",
        "[DIR] src",
        ".gitignore",
    ]
    assert "build" not in text
    assert "notes.log" not in text
    assert "(2 ignored)" in text


async def test_list_directory_options(ctx: ToolContext) -> None:
    text = text_of(
        await run(
            ctx,
            "list_directory",
            dir_path=".",
            ignore=["*.md", ".git*"],
            file_filtering_options={"respect_git_ignore": False},
        )
    )
    assert "[DIR] build" in text
    assert "notes.log" in text
    assert ".gitignore" not in text


async def test_list_directory_empty_and_errors(ctx: ToolContext, root: Path) -> None:
    (root / "empty").mkdir()
    assert "is empty" in text_of(await run(ctx, "list_directory", dir_path="empty"))
    with pytest.raises(ToolError, match="not found"):
        await run(ctx, "list_directory", dir_path="nope")
    with pytest.raises(ToolError, match="not a directory"):
        await run(ctx, "list_directory", dir_path="src/main.py")
    assert tool("list_directory").validate({"dir_path": "  "})
    assert tool("list_directory").validate({})


# -- read_file ---------------------------------------------------------------------------


async def test_read_file_text_and_range(ctx: ToolContext) -> None:
    result = await run(ctx, "read_file", file_path="src/main.py")
    assert result.llm_content == "import os\n\ndef main():\n    print('Hello')"
    part = text_of(await run(ctx, "read_file", file_path="src/main.py", start_line=3, end_line=4))
    assert part.endswith("def main():\n    print('Hello')")
    assert "Showing lines 3-4 of 4 total lines" in part


async def test_read_file_truncates_long_files(ctx: ToolContext, root: Path) -> None:
    (root / "big.txt").write_text("".join(f"line {i}\n" for i in range(1, 3001)))
    text = text_of(await run(ctx, "read_file", file_path="big.txt"))
    assert "IMPORTANT: The file content has been truncated." in text
    assert "Showing lines 1-2000 of 3000 total lines" in text
    assert "start_line=2001" in text
    assert "'end_line'" in text
    assert "line 2000" in text
    assert "line 2001" not in text
    rest = text_of(await run(ctx, "read_file", file_path="big.txt", start_line=2001))
    assert "line 3000" in rest
    assert "Showing lines 2001-3000" in rest


async def test_read_file_truncates_long_lines(ctx: ToolContext, root: Path) -> None:
    (root / "wide.txt").write_text("a" * 5000 + "\nshort\n")
    text = text_of(await run(ctx, "read_file", file_path="wide.txt"))
    assert "longer than 2000 characters" in text
    assert "a" * 2001 not in text
    assert "short" in text


async def test_read_file_start_beyond_end(ctx: ToolContext) -> None:
    with pytest.raises(ToolError, match="beyond the end"):
        await run(ctx, "read_file", file_path="src/main.py", start_line=50)


async def test_read_file_media_inline(ctx: ToolContext, root: Path) -> None:
    (root / "pic.png").write_bytes(PNG)
    (root / "doc.pdf").write_bytes(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    result = await run(ctx, "read_file", file_path="pic.png")
    assert isinstance(result.llm_content, list)
    blob = result.llm_content[0].inline_data
    assert blob is not None
    assert blob.mime_type == "image/png"
    assert base64.b64decode(blob.data) == PNG
    pdf = await run(ctx, "read_file", file_path="doc.pdf")
    assert isinstance(pdf.llm_content, list)
    assert pdf.llm_content[0].inline_data is not None
    assert pdf.llm_content[0].inline_data.mime_type == "application/pdf"


async def test_read_file_svg_is_text(ctx: ToolContext, root: Path) -> None:
    (root / "icon.svg").write_text("<svg xmlns='http://www.w3.org/2000/svg'/>\n")
    assert text_of(await run(ctx, "read_file", file_path="icon.svg")).startswith("<svg")


async def test_read_file_refusals(ctx: ToolContext, root: Path) -> None:
    (root / "blob.bin").write_bytes(b"\x00\x01\x02binary")
    with pytest.raises(ToolError, match="binary"):
        await run(ctx, "read_file", file_path="blob.bin")
    with pytest.raises(ToolError, match="File not found"):
        await run(ctx, "read_file", file_path="missing.txt")
    with pytest.raises(ToolError, match="directory"):
        await run(ctx, "read_file", file_path="src")
    with pytest.raises(ToolError, match="ignored"):
        await run(ctx, "read_file", file_path="notes.log")


def test_read_file_validation() -> None:
    t = tool("read_file")
    assert t.validate({"file_path": ""})
    assert t.validate({"file_path": "a", "start_line": 0})
    assert t.validate({"file_path": "a", "start_line": 5, "end_line": 2})
    assert t.validate({"file_path": "a", "start_line": "1"})
    assert t.validate({"file_path": "a", "start_line": 2, "end_line": 5}) is None


async def test_read_file_empty(ctx: ToolContext, root: Path) -> None:
    (root / "empty.txt").write_text("")
    result = await run(ctx, "read_file", file_path="empty.txt")
    assert result.llm_content == ""


# -- read_many_files ---------------------------------------------------------------------


async def test_read_many_files_concatenates(ctx: ToolContext) -> None:
    text = text_of(await run(ctx, "read_many_files", include=["**/*.py", "docs/"]))
    assert "--- src/main.py ---" in text
    assert "--- src/pkg/util.py ---" in text
    assert "--- docs/guide.md ---" in text
    assert "build/gen.py" not in text  # gitignored
    assert text.rstrip().endswith("--- End of content ---")


async def test_read_many_files_exclude_and_recursive(ctx: ToolContext) -> None:
    text = text_of(await run(ctx, "read_many_files", include=["src/**"], exclude=["pkg/"]))
    assert "src/main.py" in text
    assert "util.py" not in text
    flat = text_of(await run(ctx, "read_many_files", include=["src/**/*.py"], recursive=False))
    assert "util.py" in flat
    assert "main.py" not in flat


async def test_read_many_files_never_reads_ignored_files(ctx: ToolContext) -> None:
    """The model cannot switch the ignore files off to read what read_file refuses."""
    text = text_of(
        await run(
            ctx,
            "read_many_files",
            include=["**/*.py"],
            useDefaultExcludes=False,
            file_filtering_options={"respect_git_ignore": False},
        )
    )
    assert "build/gen.py" not in text
    assert "hello from build" not in text
    assert "--- src/main.py ---" in text


async def test_read_many_files_media_only_when_requested(ctx: ToolContext, root: Path) -> None:
    (root / "docs" / "pic.png").write_bytes(PNG)
    plain = await run(ctx, "read_many_files", include=["docs/**"])
    assert isinstance(plain.llm_content, str)
    assert "pic.png" not in plain.llm_content
    media = await run(ctx, "read_many_files", include=["docs/*.png", "docs/*.md"])
    assert isinstance(media.llm_content, list)
    assert any(p.inline_data is not None for p in media.llm_content)
    assert "--- docs/guide.md ---" in (media.llm_content[0].text or "")


async def test_read_many_files_nothing_found(ctx: ToolContext) -> None:
    assert "No files" in text_of(await run(ctx, "read_many_files", include=["*.nothing"]))


# -- glob --------------------------------------------------------------------------------


async def test_glob_newest_first_absolute(ctx: ToolContext, root: Path) -> None:
    os.utime(root / "src" / "main.py", (1_000_000, 1_000_000))
    os.utime(root / "src" / "pkg" / "util.py", (2_000_000, 2_000_000))
    result = await run(ctx, "glob", pattern="**/*.py")
    lines = text_of(result).splitlines()
    assert lines[0].startswith("Found 2 file(s)")
    assert lines[1:] == [str(root / "src" / "pkg" / "util.py"), str(root / "src" / "main.py")]


async def test_glob_dir_case_and_ignore(ctx: ToolContext, root: Path) -> None:
    (root / "src" / "UPPER.PY").write_text("")
    text = text_of(await run(ctx, "glob", pattern="*.py", dir_path="src", case_sensitive=False))
    assert str(root / "src" / "UPPER.PY") in text
    assert str(root / "src" / "main.py") in text
    assert "util.py" not in text
    sensitive = text_of(await run(ctx, "glob", pattern="*.py", dir_path="src", case_sensitive=True))
    assert "UPPER" not in sensitive
    assert "gen.py" not in text_of(await run(ctx, "glob", pattern="**/*.py"))
    all_files = text_of(await run(ctx, "glob", pattern="**/*.py", respect_git_ignore=False))
    assert "gen.py" in all_files


async def test_glob_no_match_and_validation(ctx: ToolContext) -> None:
    assert "No files found" in text_of(await run(ctx, "glob", pattern="*.rs"))
    assert tool("glob").validate({"pattern": "  "})
    with pytest.raises(ToolError):
        await run(ctx, "glob", pattern="../*")


# -- grep_search -------------------------------------------------------------------------


# the pure-Python search always; ripgrep's path too where rg is installed
_GREP_IMPLS = ["python", *(["rg"] if shutil.which("rg") else [])]


@pytest.fixture(params=_GREP_IMPLS)
def grep_impl(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "python":
        monkeypatch.setattr(grep_module.shutil, "which", lambda _name: None)
    return str(request.param)


async def test_grep_grouped_output(ctx: ToolContext, grep_impl: str) -> None:
    text = text_of(await run(ctx, "grep_search", pattern="hello"))
    assert text.startswith('Found 3 matches for pattern "hello" in path "."')
    assert "File: src/main.py\nL4:     print('Hello')" in text
    assert "File: src/pkg/util.py\nL2:     return 'hello world'" in text
    assert "File: docs/guide.md\nL2: Say hello." in text
    assert "build" not in text
    assert "notes.log" not in text


async def test_grep_filters(ctx: ToolContext, grep_impl: str) -> None:
    text = text_of(await run(ctx, "grep_search", pattern="hello", include_pattern="*.py"))
    assert "guide.md" not in text
    assert "util.py" in text
    assert '(filter: "*.py")' in text
    names = text_of(await run(ctx, "grep_search", pattern="hello", names_only=True))
    assert names.splitlines()[1:] == ["src/main.py", "src/pkg/util.py", "docs/guide.md"] or sorted(
        names.splitlines()[1:]
    ) == ["docs/guide.md", "src/main.py", "src/pkg/util.py"]
    limited = text_of(await run(ctx, "grep_search", pattern="hello", total_max_matches=1))
    assert limited.count("\nL") == 1
    assert "limited to 1" in limited
    sub = text_of(await run(ctx, "grep_search", pattern="def", dir_path="src/pkg"))
    assert "File: src/pkg/util.py" in sub
    assert "main.py" not in sub
    excl = text_of(await run(ctx, "grep_search", pattern="hello", exclude_pattern="world"))
    assert "util.py" not in excl
    assert "No matches found" in text_of(await run(ctx, "grep_search", pattern="zzzz"))


async def test_grep_alias_and_validation(ctx: ToolContext) -> None:
    t = tool("search_file_content")
    assert t.name == "grep_search"
    assert t.validate({"pattern": ""})
    assert "Invalid regular expression" in (t.validate({"pattern": "("}) or "")


# -- .gitignore and .geminiignore are two rule sets ------------------------------------


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("read_file", {"file_path": "sub/id.key"}),
        ("read_many_files", {"include": ["**"]}),
        ("grep_search", {"pattern": "KEY_MAT.RIAL"}),
        ("grep_search", {"pattern": "KEY_MAT.RIAL", "dir_path": "sub"}),
        ("glob", {"pattern": "**/*.key"}),
        ("list_directory", {"dir_path": "sub"}),
    ],
)
async def test_a_nested_gitignore_cannot_unhide_what_geminiignore_hides(
    ctx: ToolContext, root: Path, name: str, args: dict[str, Any]
) -> None:
    """A `!*.key` in a subfolder's .gitignore (a common idiom, and a file a model may write
    in auto_edit) re-included files that the person's .geminiignore keeps from the model."""
    (root / ".geminiignore").write_text("*.key\n")
    (root / "sub").mkdir()
    (root / "sub" / ".gitignore").write_text("*\n!.gitignore\n!*.key\n")
    (root / "sub" / "id.key").write_text("KEY_MATERIAL\n")
    try:
        shown = text_of(await run(ctx, name, **args))
    except ToolError as exc:
        shown = str(exc)
    assert "KEY_MATERIAL" not in shown
    assert "id.key" not in shown or "ignored" in shown


async def test_a_geminiignore_negation_does_not_unhide_a_gitignored_file(
    ctx: ToolContext, root: Path
) -> None:
    """Either file hiding a path hides it: `!notes.log` in .geminiignore leaves *.log out."""
    (root / ".geminiignore").write_text("!notes.log\n")
    with pytest.raises(ToolError, match="ignored"):
        await run(ctx, "read_file", file_path="notes.log")
    assert "hello log" not in text_of(await run(ctx, "read_many_files", include=["*"]))


async def test_read_file_pages_by_characters_within_the_output_limit(
    ctx: ToolContext, root: Path
) -> None:
    line = "".join(f"{i:05d}," for i in range(20_000))  # one 120,000-character line
    (root / "one_line.csv").write_text(line)
    ctx.output_limit = 1_000
    page = await run(ctx, "read_file", file_path="one_line.csv", offset=60_000, limit=5_000)
    text = str(page.llm_content)
    assert text.startswith(
        "[Characters 60,000-61,000 of 120,000 of one_line.csv. Next: offset=61000.]"
    )
    assert text.endswith("\n" + line[60_000:61_000])
    last = await run(ctx, "read_file", file_path="one_line.csv", offset=119_990)
    assert str(last.llm_content).endswith("This is the end.]\n" + line[119_990:])
    with pytest.raises(ToolError, match="beyond the end"):
        await run(ctx, "read_file", file_path="one_line.csv", offset=120_000)
    read = tool("read_file")
    assert read.validate({"file_path": "a", "offset": 1, "start_line": 1}) is not None
    assert read.validate({"file_path": "a", "offset": -1}) is not None
    assert read.validate({"file_path": "a", "limit": 0}) is not None


async def test_offset_paging_stays_inside_the_workspace(ctx: ToolContext, tmp_path: Path) -> None:
    (tmp_path / "outside.txt").write_text("OUTSIDE")
    with pytest.raises(ToolError, match="outside the workspace"):
        await run(ctx, "read_file", file_path=str(tmp_path / "outside.txt"), offset=0)
