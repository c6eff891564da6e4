"""Reading one SKILL.md: what is wrong is named with its file and line, never raised on."""

from __future__ import annotations

from pathlib import Path

import pytest

from gemtui.agent.skills import SkillError, folder_listing, load_skills, read_skill


def _skill(root: Path, name: str, text: str) -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(text, encoding="utf-8")
    return folder


@pytest.mark.parametrize(
    ("text", "line", "said"),
    [
        ("no front matter\n", 1, "no YAML front matter"),
        ("---\nname: x\ndescription: ok\n  bad: indent\n---\n", 4, "bad YAML"),
        ("---\n- a list\n---\nbody\n", 2, "not a mapping"),
        ("---\ndescription: d\n---\n", 1, "a 'name' is required"),
        ("---\nname: x\n---\n", 1, "a 'description' is required"),
        ("---\nname: x\ndescription: 3\n---\n", 3, "a 'description' is required"),
        ("---\nname: has space\ndescription: d\n---\n", 2, "use letters"),
    ],
)
def test_a_broken_skill_is_named_with_its_line(
    tmp_path: Path, text: str, line: int, said: str
) -> None:
    folder = _skill(tmp_path, "s", text)
    with pytest.raises(SkillError) as caught:
        read_skill(folder)
    assert str(caught.value).startswith(f"{folder / 'SKILL.md'}:{line}: ")
    assert said in str(caught.value)


def test_yaml_words_that_are_not_text_still_name_the_skill(tmp_path: Path) -> None:
    """``name: on`` is YAML 1.1's true; the skill is still called ``on``."""
    folder = _skill(tmp_path, "on", "\ufeff---\nname: on\ndescription: |\n  two\n  lines\n---\nB\n")
    skill = read_skill(folder)
    assert (skill.name, skill.description, skill.body) == ("on", "two lines", "B")


def test_load_skips_the_broken_and_keeps_the_rest(tmp_path: Path) -> None:
    home = tmp_path / "home"
    _skill(home / ".gemini" / "skills", "good", "---\nname: good\ndescription: d\n---\n")
    _skill(home / ".gemini" / "skills", "bad", "---\nname: bad\n---\n")
    found = load_skills(tmp_path / "ws", trusted=False, home=home)
    assert list(found.skills) == ["good"]
    [problem] = found.problems
    assert "bad/SKILL.md:1:" in problem


def test_the_listing_of_a_huge_folder_is_bounded(tmp_path: Path) -> None:
    folder = _skill(tmp_path, "big", "---\nname: big\ndescription: d\n---\n")
    for i in range(250):
        (folder / f"f{i:03}.txt").write_text("")
    listing = folder_listing(folder)
    assert listing.count("\n  ") == 200
    assert listing.endswith("… and 51 more")
