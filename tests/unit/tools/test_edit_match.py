"""Where an edit lands: exact, then whitespace-flexible, then a bounded fuzzy match;
more than one place is an error naming the lines."""

from __future__ import annotations

import time

import pytest

from gemtui.tools.edit_match import (
    AmbiguousMatch,
    MatchStrategy,
    NoMatch,
    resolve_edit,
)

CODE = (
    "class Greeter:\n"
    "    def greet(self, name):\n"
    "        if not name:\n"
    '            return "Hello"\n'
    '        return "Hello " + name\n'
    "\n"
    "    def part(self):\n"
    "        return 0\n"
)


def test_exact_match_wins_and_replaces_only_that_text() -> None:
    edit = resolve_edit(CODE, "return 0", "return 1")
    assert edit.strategy is MatchStrategy.EXACT
    assert edit.proposed == CODE.replace("return 0", "return 1")
    assert edit.spans == ((8, 8),)
    assert edit.describe() == ""


def test_two_exact_places_name_both_lines() -> None:
    text = "a = 1\nb = 2\na = 1\n"
    with pytest.raises(AmbiguousMatch) as info:
        resolve_edit(text, "a = 1", "a = 3")
    assert info.value.lines == [1, 3]
    assert "found 2" in str(info.value)
    assert "lines 1, 3" in str(info.value)


def test_allow_multiple_replaces_every_exact_place() -> None:
    edit = resolve_edit("a = 1\nb = 2\na = 1\n", "a = 1", "a = 3", allow_multiple=True)
    assert edit.proposed == "a = 3\nb = 2\na = 3\n"
    assert edit.count == 2


def test_indentation_and_trailing_spaces_match_flexibly_and_new_text_is_reindented() -> None:
    old = 'if not name:   \n    return "Hello"\n'  # no indentation, trailing spaces
    new = 'if not name:\n    return "Hi"\nelse:\n    pass\n'
    edit = resolve_edit(CODE, old, new)
    assert edit.strategy is MatchStrategy.FLEXIBLE
    assert edit.spans == ((3, 4),)
    assert edit.proposed == CODE.replace(
        '        if not name:\n            return "Hello"\n',
        '        if not name:\n            return "Hi"\n        else:\n            pass\n',
    )
    assert "flexible whitespace" in edit.describe()
    assert "3-4" in edit.describe()


def test_crlf_old_string_matches_an_lf_file() -> None:
    edit = resolve_edit("one\ntwo\nthree\n", "one\r\ntwo\r\n", "uno\r\ndos\r\n")
    assert edit.strategy is MatchStrategy.FLEXIBLE
    assert edit.proposed == "uno\ndos\nthree\n"


def test_tab_indented_file_gets_its_tabs_back() -> None:
    text = "func f() {\n\tif x {\n\t\treturn 1\n\t}\n}\n"
    edit = resolve_edit(
        text, "    if x {\n        return 1\n    }", "    if y {\n        return 2\n    }"
    )
    assert edit.proposed == "func f() {\n\tif y {\n\t\treturn 2\n\t}\n}\n"


def test_less_indented_new_line_keeps_its_relative_depth() -> None:
    text = "def f():\n        x = 1\n        y = 2\n"
    edit = resolve_edit(text, "    x = 1\n    y = 2", "    x = 1\ny = 3")
    assert edit.proposed == "def f():\n        x = 1\n    y = 3\n"


def test_flexible_deletion_takes_its_line_break() -> None:
    edit = resolve_edit("a\n  b  \nc\n", "b\n", "")
    assert edit.proposed == "a\nc\n"


def test_two_flexible_places_are_ambiguous_with_line_numbers() -> None:
    text = "def f():\n    x = 1\n    y = 2\n\ndef g():\n  x = 1\n  y = 2\n"
    with pytest.raises(AmbiguousMatch) as info:
        resolve_edit(text, "x = 1\ny = 2", "x = 0\ny = 0")
    assert info.value.strategy is MatchStrategy.FLEXIBLE
    assert info.value.lines == [2, 6]


def test_a_small_difference_matches_approximately_at_the_one_close_place() -> None:
    old = (
        "    def greet(self, name):\n"
        "        if not name:\n"
        "            return 'Hello'\n"  # quotes misremembered
        '        return "Hello " + name\n'
    )
    new = '    def greet(self, name):\n        return "Hello " + (name or "")\n'
    edit = resolve_edit(CODE, old, new)
    assert edit.strategy is MatchStrategy.FUZZY
    assert edit.spans == ((2, 5),)
    assert 0.9 <= edit.similarity < 1
    assert edit.proposed == (
        "class Greeter:\n"
        "    def greet(self, name):\n"
        '        return "Hello " + (name or "")\n'
        "\n"
        "    def part(self):\n"
        "        return 0\n"
    )
    assert "approximately" in edit.describe()


def test_nothing_similar_enough_is_no_match() -> None:
    with pytest.raises(NoMatch, match="0 occurrences"):
        resolve_edit(CODE, "def farewell(self, name):\n    return 'Bye'", "x")


def test_short_old_strings_never_match_fuzzily() -> None:
    with pytest.raises(NoMatch):
        resolve_edit("value = compute(1)\n", "value = compute(2)", "value = 3")


def test_two_similar_places_are_ambiguous_fuzzily() -> None:
    block = (
        "def handler_{n}(event):\n    log.info('handling %s', event)\n    return process(event)\n"
    )
    text = block.format(n=1) + "\n" + block.format(n=2)
    old = "def handler_3(event):\n    log.info('handling %s', event)\n    return process(event)"
    with pytest.raises(AmbiguousMatch) as info:
        resolve_edit(text, old, "pass")
    assert info.value.strategy is MatchStrategy.FUZZY
    assert info.value.lines == [1, 5]


def test_fuzzy_work_is_bounded_on_a_big_file() -> None:
    line = "    value_{n} = compute_something(alpha, beta, gamma, delta)  # note {n}\n"
    text = "".join(line.format(n=n) for n in range(200_000))  # ~14 MB, every line close
    old = "".join(line.format(n="x") for _ in range(3))
    started = time.process_time()  # CPU time, so a busy machine does not fail it
    with pytest.raises(NoMatch, match="too large"):
        resolve_edit(text, old, "x\n")
    assert time.process_time() - started < 10


def test_many_candidates_list_the_first_lines_and_how_many_more() -> None:
    text = "x = 1\n" * 50
    with pytest.raises(AmbiguousMatch) as info:
        resolve_edit(text, "x = 1", "x = 2")
    assert info.value.total == 50
    assert "lines 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 and 40 more" in str(info.value)


def test_a_flattened_old_string_puts_each_new_line_at_its_file_depth() -> None:
    text = "def g():\n    if x:\n        return 1\n    return 0\n"
    old = "def g():\nif x:\nreturn 1\nreturn 0"
    new = "def g():\nif x:\nlog(x)\nreturn 2\nreturn 0"
    edit = resolve_edit(text, old, new)
    assert edit.strategy is MatchStrategy.FLEXIBLE
    assert edit.proposed == (
        "def g():\n    if x:\n        log(x)\n        return 2\n    return 0\n"
    )


def test_an_edit_too_large_to_build_is_refused_before_it_is_built() -> None:
    """A million commas each replaced by 10 kB would be a 10 GB preview."""
    import pytest

    from gemtui.tools.edit_match import TooLarge

    with pytest.raises(TooLarge):
        resolve_edit("," * 1_000_000, ",", "x" * 10_000, allow_multiple=True)
    flexible = "  a\n" * 200_000  # the same through the whitespace-flexible match
    with pytest.raises(TooLarge):
        resolve_edit(flexible, "a", "y" * 200, allow_multiple=True)


def test_hostile_sizes_stay_cheap_in_cpu_time() -> None:
    """34 s and 28 s of CPU before: a flexible search over 100k one-letter lines for a 4 kB
    old_string, and a fuzzy one over long lines from a small alphabet."""
    import random
    import time

    import pytest

    from gemtui.tools.edit_match import NoMatch

    start = time.process_time()
    with pytest.raises(NoMatch):
        resolve_edit("x\n" * 100_000, "x\n" * 2_000 + "y", "z")
    rng = random.Random(7)
    lines = ["".join(rng.choice("ab") for _ in range(1_000)) for _ in range(300)]
    old = "\n".join("".join(rng.choice("ab") for _ in range(1_000)) for _ in range(3))
    with pytest.raises(NoMatch):
        resolve_edit("\n".join(lines), old, "z")
    # CPU time, so a busy machine does not fail it; each case took tens of seconds
    assert time.process_time() - start < 5
