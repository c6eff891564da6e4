"""grep_search and read_many_files through a front end's ``FileAccess`` (an editor's
buffers): the disk picks the files, the front end says what they hold, and the disk
answers for a file the front end cannot read or past the round-trip limit."""

from __future__ import annotations

from pathlib import Path

import pytest

from gemtui.tools.base import ToolContext, ToolError
from gemtui.tools.builtin import grep_held
from gemtui.tools.registry import default_registry
from gemtui.tools.workspace import Workspace


class Buffers:
    """A front end holding some files' unsaved text; ``broken`` ones fail to read."""

    def __init__(self, texts: dict[Path, str], broken: frozenset[Path] = frozenset()) -> None:
        self.texts = texts
        self.broken = broken
        self.asked: list[Path] = []

    async def read_text(self, path: Path) -> str | None:
        self.asked.append(path)
        if path in self.broken:
            raise ToolError(f"The editor could not read {path}")
        return self.texts.get(path)

    async def write_text(self, path: Path, text: str) -> None:
        self.texts[path] = text


@pytest.fixture
def root(tmp_path: Path) -> Path:
    r = tmp_path / "ws"
    r.mkdir()
    for name in ("a.txt", "b.txt"):
        (r / name).write_text(f"{name} DISK-TEXT\n", encoding="utf-8")
    (r / "hidden.txt").write_text("DISK-TEXT\n", encoding="utf-8")
    (r / ".geminiignore").write_text("hidden.txt\n", encoding="utf-8")
    return r.resolve()


async def _run(ctx: ToolContext, name: str, args: dict[str, object]) -> str:
    tool = default_registry().get(name)
    assert tool is not None
    result = await tool.build(args).execute(ctx)
    assert isinstance(result.llm_content, str)
    return result.llm_content


def _buffers(root: Path, **kw: frozenset[Path]) -> Buffers:
    texts = {root / n: f"{n} BUFFER-TEXT\n" for n in ("a.txt", "b.txt", "hidden.txt")}
    return Buffers(texts, **kw)


async def test_grep_reads_buffers_then_the_disk_past_the_limit(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(grep_held, "MAX_HELD_FILES", 2)  # .geminiignore and a.txt
    buffers = _buffers(root)
    ctx = ToolContext(workspace=Workspace(root), files=buffers)
    text = await _run(ctx, "grep_search", {"pattern": "-TEXT"})
    assert "a.txt BUFFER-TEXT" in text
    assert "b.txt DISK-TEXT" in text
    assert buffers.asked == [root / ".geminiignore", root / "a.txt"]
    assert "hidden" not in text


async def test_grep_falls_back_to_the_disk_when_the_editor_fails(root: Path) -> None:
    buffers = _buffers(root, broken=frozenset({root / "a.txt"}))
    ctx = ToolContext(workspace=Workspace(root), files=buffers)
    text = await _run(ctx, "grep_search", {"pattern": "-TEXT"})
    assert "a.txt DISK-TEXT" in text
    assert "b.txt BUFFER-TEXT" in text
    assert root / "hidden.txt" not in buffers.asked


async def test_read_many_files_names_a_file_the_editor_could_not_read(root: Path) -> None:
    buffers = _buffers(root, broken=frozenset({root / "b.txt"}))
    ctx = ToolContext(workspace=Workspace(root), files=buffers)
    text = await _run(ctx, "read_many_files", {"include": ["*.txt"]})
    assert "a.txt BUFFER-TEXT" in text
    assert "b.txt BUFFER-TEXT" not in text
    assert "- b.txt (The editor could not read" in text
    assert root / "hidden.txt" not in buffers.asked
