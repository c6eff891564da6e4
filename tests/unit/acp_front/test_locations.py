"""Follow-along locations never point the editor outside the workspace."""

from __future__ import annotations

from pathlib import Path

from gemtui.acp.updates import locations


def test_only_paths_inside_the_workspace_are_offered_to_follow(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    (root / "src").mkdir(parents=True)
    (root / "escape").symlink_to(tmp_path)
    inside = locations({"file_path": "src/a.py"}, root)
    assert [loc.path for loc in inside] == [str(root / "src" / "a.py")]
    for hostile in ("/home/u/.ssh/id_rsa", "../secret.txt", "escape/secret.txt"):
        assert locations({"file_path": hostile}, root) == [], hostile
