"""A card's one line: which argument is shown in full, how times read."""

from __future__ import annotations

from gemtui.tui.widgets.tool_summary import elapsed, split_arguments


def test_the_argument_that_says_what_the_call_does_is_the_key() -> None:
    assert split_arguments({"pattern": "TODO", "path": "src"}) == ("TODO", [("path", "src")])
    assert split_arguments({"command": "ls -la", "description": "list"})[0] == "ls -la"
    assert split_arguments({"dir_path": "src"}) == ("src", [])
    assert split_arguments({"include": ["a.py", "b.py"]})[0] == "a.py, b.py"
    key, rest = split_arguments({"todos": [{"description": "x", "status": "done"}]})
    assert key is None
    assert rest == [("todos", '[{"description": "x", "status": "done"}]')]


def test_times_are_short() -> None:
    assert [elapsed(s) for s in (0.04, 1.44, 12.4, 185)] == ["40ms", "1.4s", "12s", "3m05s"]
