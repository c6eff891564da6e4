"""Omission placeholders are found in the lines a model abbreviates with, and only there."""

from __future__ import annotations

import time

import pytest

from gemtui.tools.omissions import find_placeholders, placeholder_error

PLACEHOLDERS = [
    "// ... existing code ...",
    "# unchanged",
    "... rest of code",
    "(rest of file unchanged)",
    "... rest unchanged",
    "    // rest of the function",
    "# ... rest of methods ...",
    "/* existing code */",
    "<!-- rest of the page unchanged -->",
    "// Rest of the file remains the same",
    "# code omitted for brevity",
    "...rest of code...",
    "# … existing imports …",
    "(rest of methods ...)",
    "(unchanged code ...)",
    "// other methods unchanged",
    "# same as before",
    "# rest unchanged",
    "// keep existing code",
    "# remaining code unchanged",
    "    ...  # existing code",
    "{/* rest of the component */}",
    "-- rest of query unchanged",
]

REAL_LINES = [
    "...",
    "    ...",
    "def f(): ...",
    "# value stays unchanged unless reset",
    "x = 1  # unchanged",
    "x = ...  # unchanged",
    "# the rest of this loop retries on failure in a new thread pool",
    "print('rest of code')",
    "# TODO: handle the rest",
    "return rest",
    "# Return the existing code for the user",
    "# unchanged since v1 because of compatibility reasons with old clients",
    "# other",
    "rest_of_code()",
    "// ... ",
]


@pytest.mark.parametrize("line", PLACEHOLDERS)
def test_a_placeholder_line_is_found(line: str) -> None:
    assert find_placeholders(f"x = 1\n{line}\ny = 2\n") == [line.strip()]


@pytest.mark.parametrize("line", REAL_LINES)
def test_code_and_real_comments_are_not_placeholders(line: str) -> None:
    assert find_placeholders(f"x = 1\n{line}\n") == []


def test_a_line_the_file_or_old_string_has_is_content_not_an_omission() -> None:
    new = "def f():\n    # unchanged\n    return 2\n"
    assert find_placeholders(new) == ["# unchanged"]
    assert find_placeholders(new, ["def f():\n    # unchanged\n    return 1\n"]) == []
    # only a whole line counts: the words inside a longer line are not the same comment
    assert find_placeholders(new, ["x = 1  # unchanged\n"]) == ["# unchanged"]


def test_crlf_text_is_read_line_by_line() -> None:
    assert find_placeholders("a = 1\r\n// ... existing code ...\r\n") == [
        "// ... existing code ..."
    ]


def test_the_error_names_the_lines_and_says_what_to_do() -> None:
    message = placeholder_error(["# ... rest of code"], "new_string")
    assert "'# ... rest of code'" in message
    assert "Nothing was changed" in message
    assert "complete literal text" in message


def test_hostile_sizes_stay_linear() -> None:
    many = "".join(f"# rest of code {n}\n" for n in range(200_000))
    known = "x = 1\n" * 1_000_000
    started = time.process_time()  # CPU time, so a busy machine does not fail it
    found = find_placeholders(many + "# unchanged\n" * 200_000, [known])
    assert found == [f"# rest of code {n}" for n in range(5)]
    assert find_placeholders("# unchanged\n" * 500_000, ["# unchanged\n" + known]) == []
    assert find_placeholders("#" + " rest" * 2_000_000) == []
    assert time.process_time() - started < 5
