"""Context files on a real tree: where they come from, their order, @imports and refusals."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gemtui.agent.context_files import (
    MEMORY_HEADING,
    ContextFiles,
    add_memory,
    add_memory_text,
    expand_imports,
)


@pytest.fixture
def tree(tmp_path: Path) -> dict[str, Path]:
    """above/ (outside git) > repo/ (.git) > pkg/ > ws/ (the workspace) > sub/; home/."""
    above = tmp_path / "above"
    repo = above / "repo"
    ws = repo / "pkg" / "ws"
    (ws / "sub" / "deep").mkdir(parents=True)
    (repo / ".git").mkdir()
    home = tmp_path / "home"
    home.mkdir()
    return {"above": above, "repo": repo, "pkg": repo / "pkg", "ws": ws, "home": home}


def load(t: dict[str, Path], names: tuple[str, ...] = ("GEMINI.md", "AGENTS.md")) -> ContextFiles:
    return ContextFiles(t["ws"], names=names, home=t["home"]).load()


def test_order_user_then_git_root_down_to_the_workspace(tree: dict[str, Path]) -> None:
    (tree["above"] / "GEMINI.md").write_text("above git: never")
    (tree["home"] / "GEMINI.md").write_text("user gemini")
    (tree["home"] / "AGENTS.md").write_text("user agents")
    (tree["repo"] / "AGENTS.md").write_text("repo agents")
    (tree["repo"] / "GEMINI.md").write_text("repo gemini")
    (tree["pkg"] / "CLAUDE.md").write_text("pkg claude")
    (tree["ws"] / "GEMINI.md").write_text("ws gemini")
    (tree["ws"] / "sub" / "GEMINI.md").write_text("sub: only just in time")
    files = load(tree, ("GEMINI.md", "AGENTS.md", "CLAUDE.md"))
    assert [f.text for f in files.files] == [
        "user gemini",
        "user agents",
        "repo gemini",
        "repo agents",
        "pkg claude",
        "ws gemini",
    ]
    assert [f.scope for f in files.files] == ["user"] * 2 + ["project"] * 4
    text = files.system_text()
    assert text.index("user gemini") < text.index("repo gemini") < text.index("ws gemini")
    assert f"--- Context from: {tree['ws'] / 'GEMINI.md'} ---" in text
    assert "6 context file(s)" in files.summary()
    assert "above git" not in text


def test_without_git_the_search_goes_up_every_folder(tmp_path: Path) -> None:
    ws = tmp_path / "a" / "b"
    ws.mkdir(parents=True)
    (tmp_path / "a" / "AGENTS.md").write_text("from a")
    files = ContextFiles(ws, home=tmp_path / "home").load()
    assert [f.text for f in files.files] == ["from a"]


def test_imports_nest_and_stay_out_of_code(tree: dict[str, Path]) -> None:
    ws = tree["ws"]
    (ws / "docs").mkdir()
    (ws / "docs" / "style.md").write_text("Use tabs.\nSee @rules/naming.md.")
    (ws / "docs" / "rules").mkdir()
    (ws / "docs" / "rules" / "naming.md").write_text("snake_case names")
    (ws / "GEMINI.md").write_text(
        "# Project\n@docs/style.md\n"
        "Mail me at me@docs/style.md and see `@docs/style.md` in code.\n"
        "```\n@docs/style.md\n```\n"
    )
    files = load(tree)
    [f] = files.files
    assert "Use tabs." in f.text
    assert "snake_case names" in f.text
    assert "<!-- Imported from: docs/style.md -->" in f.text
    assert "<!-- Imported from: rules/naming.md -->" in f.text
    assert f.text.count("Use tabs.") == 1  # the email, the code span and the fence stay
    assert "me@docs/style.md" in f.text
    assert "```\n@docs/style.md\n```" in f.text
    assert len(f.imports) == 2
    assert files.notes == []


def test_an_import_cycle_is_refused_with_a_note(tree: dict[str, Path]) -> None:
    ws = tree["ws"]
    (ws / "a.md").write_text("A then @b.md")
    (ws / "b.md").write_text("B then @a.md")
    (ws / "GEMINI.md").write_text("root @a.md and @GEMINI.md")
    files = load(tree)
    [f] = files.files
    assert "A then" in f.text
    assert "B then" in f.text
    assert (
        "<!-- Import refused: @a.md (import cycle: GEMINI.md -> a.md -> b.md -> a.md) -->" in f.text
    )
    assert "<!-- Import refused: @GEMINI.md (import cycle: GEMINI.md -> GEMINI.md) -->" in f.text
    assert any("import @a.md refused: import cycle" in n for n in files.notes)
    assert "import cycle" in files.summary()


def test_imports_cannot_leave_the_tree_even_through_a_link(
    tree: dict[str, Path], tmp_path: Path
) -> None:
    secret = tmp_path / "secret.md"
    secret.write_text("TOP SECRET")
    ws = tree["ws"]
    (ws / "link.md").symlink_to(secret)
    (ws / "GEMINI.md").write_text(
        f"@../../../../secret.md\n@{secret}\n@link.md\n@missing.md\n@docs"
    )
    files = load(tree)
    [f] = files.files
    assert "TOP SECRET" not in f.text
    assert f.text.count("it is outside") == 3
    assert "@missing.md (no such file)" in f.text
    assert len(files.notes) == 4
    # the git root bounds imports, not the workspace: a shared file up there is fine
    (tree["repo"] / "shared.md").write_text("shared rules")
    (ws / "GEMINI.md").write_text("@../../shared.md")
    assert "shared rules" in load(tree).files[0].text


def test_import_depth_is_bounded(tree: dict[str, Path]) -> None:
    ws = tree["ws"]
    for i in range(8):
        (ws / f"l{i}.md").write_text(f"level {i} @l{i + 1}.md")
    (ws / "l8.md").write_text("bottom")
    (ws / "GEMINI.md").write_text("@l0.md")
    files = load(tree)
    text = files.files[0].text
    assert "level 4" in text
    assert "level 5" not in text
    assert "nest deeper than 5 levels" in text


def test_a_symlinked_context_file_leaving_its_folder_is_refused(
    tree: dict[str, Path], tmp_path: Path
) -> None:
    (tmp_path / "id_rsa").write_text("PRIVATE KEY")
    ws = tree["ws"]
    (ws / "GEMINI.md").symlink_to(tmp_path / "id_rsa")
    os.mkfifo(ws / "AGENTS.md")
    (tree["home"] / "AGENTS.md").write_text("mine")
    (tree["repo"] / "AGENTS.md").symlink_to(tree["home"] / "AGENTS.md")  # the person's own
    files = load(tree)
    assert [f.text for f in files.files] == ["mine"]  # once, though linked twice
    assert "PRIVATE KEY" not in files.system_text()
    assert any("GEMINI.md: refused (it links outside" in n for n in files.notes)
    assert any("AGENTS.md: refused (not a regular file)" in n for n in files.notes)


def test_just_in_time_subfolders(tree: dict[str, Path]) -> None:
    ws = tree["ws"]
    (ws / "GEMINI.md").write_text("ws")
    (ws / "sub" / "AGENTS.md").write_text("sub agents")
    (ws / "sub" / "deep" / "GEMINI.md").write_text("deep gemini")
    (ws / "sub" / "deep" / "x.py").write_text("")
    files = load(tree)
    new = files.discover(ws / "sub" / "deep" / "x.py")
    assert [f.text for f in new] == ["sub agents", "deep gemini"]
    assert [f.scope for f in new] == ["subfolder", "subfolder"]
    assert files.discover(ws / "sub" / "deep") == []  # once
    assert files.discover(tree["repo"] / "AGENTS.md") == []  # outside the workspace
    assert files.system_text().endswith("deep gemini\n--- End of context ---")
    assert [f.text for f in files.load().files] == ["ws"]  # a refresh starts again


def test_memories_go_under_their_heading(tmp_path: Path) -> None:
    assert add_memory_text("", "likes tabs") == f"{MEMORY_HEADING}\n\n- likes tabs\n"
    text = f"# Mine\n\n{MEMORY_HEADING}\n\n- one\n\n## Other\n\nkeep\n"
    assert add_memory_text(text, "  two\n lines ") == (
        f"# Mine\n\n{MEMORY_HEADING}\n\n- one\n- two lines\n\n## Other\n\nkeep\n"
    )
    path = tmp_path / "cfg" / "GEMINI.md"
    add_memory(path, "first")
    add_memory(path, "second")
    assert path.read_text() == f"{MEMORY_HEADING}\n\n- first\n- second\n"
    with pytest.raises(ValueError, match="needs some text"):
        add_memory(path, "   ")


def test_expand_imports_directly(tmp_path: Path) -> None:
    (tmp_path / "x.md").write_text("X")
    notes: list[str] = []
    out = expand_imports("see @x.md, @y.md", tmp_path / "main.md", tmp_path, notes)
    assert "<!-- Imported from: x.md -->\nX\n<!-- End of import from: x.md -->," in out
    assert notes == [f"{tmp_path / 'main.md'}: import @y.md refused: no such file"]
