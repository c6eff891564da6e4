"""Edits that land, through `gemtui -p` against the mock model: a replace whose old_string
differs from the file in whitespace still lands (and says how), two candidates fail naming
both lines, and an omission placeholder is refused; each time the file is checked byte for
byte and the functionResponse the model got next is read from the mock's record."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gemtui.testing import MockLLMServer
from gemtui.tools.edit_match import MatchStrategy, resolve_edit

from .helpers import gemtui_env, run_gemtui, write_fast_config

SOURCE = (
    "import logging\n"
    "\n"
    "\n"
    "class Cart:\n"
    "    def __init__(self):\n"
    "        self.items = []\n"
    "\n"
    "    def total(self):\n"
    "        result = 0\n"
    "        for item in self.items:\n"
    "            result += item.price\n"
    "        return result\n"
    "\n"
    "    def count(self):\n"
    "        return len(self.items)\n"
)


def _edit(old: str, new: str, **extra: Any) -> dict[str, Any]:
    args = {"file_path": "cart.py", "instruction": "change it", "old_string": old}
    return {"name": "replace", "args": {**args, "new_string": new, **extra}, "id": "e1"}


def _run(
    mock: MockLLMServer, home: Path, workspace: Path, call: dict[str, Any], *flags: str
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Run one scripted replace; the functionResponse the model received and the
    stream-json events printed."""
    write_fast_config(home)
    mock.enqueue({"function_calls": [call]}, {"text": "done"})
    proc = run_gemtui(
        ["-p", "edit the cart", "--output-format", "stream-json", *flags],
        env=gemtui_env(home, mock.url),
        cwd=workspace,
    )
    assert proc.returncode == 0, proc.stderr
    last = mock.requests[-1].json["contents"][-1]
    [response] = [p["functionResponse"] for p in last["parts"] if "functionResponse" in p]
    assert response["id"] == "e1"
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    return response["response"], events


def test_indentation_and_trailing_spaces_still_land_in_exactly_that_place(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    path = workspace / "cart.py"
    path.write_text(SOURCE)
    # Quoted without its indentation and with trailing spaces, as small models do.
    old = "result = 0   \nfor item in self.items:\n    result += item.price  \nreturn result\n"
    new = "return sum(item.price for item in self.items)\n"
    response, events = _run(mock_llm_thread, isolated_home, workspace, _edit(old, new), "--yolo")
    assert "error" not in response, response
    assert "Successfully modified file: cart.py (1 replacement)" in response["output"]
    assert "flexible whitespace" in response["output"]
    assert "9-12" in response["output"]
    assert path.read_text() == SOURCE.replace(
        "        result = 0\n"
        "        for item in self.items:\n"
        "            result += item.price\n"
        "        return result\n",
        "        return sum(item.price for item in self.items)\n",
    )
    [result] = [e for e in events if e["type"] == "tool_result"]
    assert result["status"] == "success"
    assert result["output"].startswith("matched with flexible whitespace\n--- a/cart.py")


def test_two_candidates_fail_naming_both_lines_and_leave_the_file_alone(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    path = workspace / "cart.py"
    text = SOURCE + "\n    def empty(self):\n      return len(self.items) == 0\n"
    path.write_text(text)
    # The fragment is in line 15 and in line 18: which one is meant, only the model knows.
    call = _edit("  return len(self.items)", "  return 0")
    response, _ = _run(mock_llm_thread, isolated_home, workspace, call, "--yolo")
    assert "expected 1 occurrence but found 2" in response["error"]
    assert "lines 15, 18" in response["error"]
    assert "Add more surrounding context" in response["error"]
    assert path.read_text() == text


def test_two_flexible_candidates_fail_naming_both_lines(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    path = workspace / "cart.py"
    text = "def a():\n    x = 1\n    y = 2\n\n\ndef b():\n        x = 1\n        y = 2\n"
    path.write_text(text)
    call = _edit("  x = 1\n  y = 2\n", "  x = 3\n  y = 4\n")
    response, _ = _run(mock_llm_thread, isolated_home, workspace, call, "--yolo")
    assert "found 2 (matched with flexible whitespace)" in response["error"]
    assert "lines 2, 7" in response["error"]
    assert path.read_text() == text


def test_an_omission_placeholder_is_refused_and_the_file_is_unchanged(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    path = workspace / "cart.py"
    path.write_text(SOURCE)
    old = "class Cart:\n    def __init__(self):\n        self.items = []\n"
    new = "class Cart:\n    def __init__(self):\n        self.items = {}\n    # ... rest of code\n"
    response, _ = _run(mock_llm_thread, isolated_home, workspace, _edit(old, new), "--yolo")
    assert "omission placeholder" in response["error"]
    assert "'# ... rest of code'" in response["error"]
    assert "Nothing was changed" in response["error"]
    assert "complete literal text" in response["error"]
    assert path.read_text() == SOURCE


def test_write_file_with_a_placeholder_is_refused_too(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    path = workspace / "cart.py"
    path.write_text(SOURCE)
    call = {
        "name": "write_file",
        "args": {"file_path": "cart.py", "content": "class Cart:\n    // existing code ...\n"},
        "id": "e1",
    }
    response, _ = _run(mock_llm_thread, isolated_home, workspace, call, "--yolo")
    assert "content contains omission placeholder" in response["error"]
    assert path.read_text() == SOURCE


def test_a_comment_the_file_already_has_is_not_a_placeholder(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    path = workspace / "cart.py"
    path.write_text("def f():\n    # unchanged\n    return 1\n")
    call = _edit("    # unchanged\n    return 1\n", "    # unchanged\n    return 2\n")
    response, _ = _run(mock_llm_thread, isolated_home, workspace, call, "--yolo")
    assert "error" not in response, response
    assert path.read_text() == "def f():\n    # unchanged\n    return 2\n"


def test_a_misremembered_token_matches_approximately_and_says_so(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    path = workspace / "cart.py"
    path.write_text(SOURCE)
    old = (
        "    def total(self):\n"
        "        result = 0\n"
        "        for item in self.items:\n"
        "            result += item.cost\n"  # the file says item.price
        "        return result\n"
    )
    new = "    def total(self):\n        return sum(item.price for item in self.items)\n"
    response, events = _run(mock_llm_thread, isolated_home, workspace, _edit(old, new), "--yolo")
    assert "error" not in response, response
    assert "Matched approximately" in response["output"]
    assert "line(s) 8-12" in response["output"]
    assert "Re-read the file" in response["output"]
    assert path.read_text() == SOURCE.replace(
        "        result = 0\n"
        "        for item in self.items:\n"
        "            result += item.price\n"
        "        return result\n",
        "        return sum(item.price for item in self.items)\n",
    )
    [result] = [e for e in events if e["type"] == "tool_result"]
    assert result["output"].startswith("matched approximately\n--- a/cart.py")


def test_a_placeholder_in_old_string_too_does_not_sneak_in_by_a_loose_match(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    """The model elides in old_string as well, so the placeholder is "in old_string": that
    must not make it content, or an approximate match would write it over real code."""
    body = "".join(
        f'        self.field_{n} = compute_value(config, "field_{n}")\n' for n in range(10)
    )
    source = (
        "class Settings:\n    def __init__(self, config):\n" + body + "        self.ready = True\n"
    )
    path = workspace / "settings.py"
    path.write_text(source)
    lines = source.splitlines(keepends=True)
    lines[7] = "        # ... existing code ...\n"  # stands for field_5's line
    old = "".join(lines[1:])
    new = old.replace("self.ready = True", "self.ready = False")
    # Without the check the edit would land, placeholder and all, over field_5's line:
    assert resolve_edit(source, old, new).strategy is MatchStrategy.FUZZY
    call = _edit(old, new) | {"args": _edit(old, new)["args"] | {"file_path": "settings.py"}}
    response, _ = _run(mock_llm_thread, isolated_home, workspace, call, "--yolo")
    assert "old_string contains omission placeholder" in response["error"]
    assert "'# ... existing code ...'" in response["error"]
    assert "read_file" in response["error"]
    assert path.read_text() == source


# -- the edit fixer ---------------------------------------------------------------------

MISREMEMBERED = _edit(
    "def total_price(self):\n    return sum(self.prices)\n",
    "def total_price(self):\n    return round(sum(self.prices), 2)\n",
)
"""Nothing in cart.py is even close to this: no strategy can place it."""


def _fixer_answer(**answer: Any) -> dict[str, Any]:
    return {"text": json.dumps(answer)}


def test_without_the_setting_no_fixer_call_is_made(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    (workspace / "cart.py").write_text(SOURCE)
    response, _ = _run(mock_llm_thread, isolated_home, workspace, MISREMEMBERED, "--yolo")
    assert "could not find the string to replace" in response["error"]
    assert len(mock_llm_thread.requests) == 2  # the call, then the answer to it
    assert (workspace / "cart.py").read_text() == SOURCE


def test_the_fixer_repairs_old_string_once_and_says_so(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    path = workspace / "cart.py"
    path.write_text(SOURCE)
    write_fast_config(isolated_home, "[tools]\nedit_fixer = true\n")
    mock_llm_thread.enqueue(
        {"function_calls": [MISREMEMBERED]},
        _fixer_answer(
            explanation="the method is called total and loops over items",
            search="    def total(self):\n        result = 0\n",
            replace="    def total(self):\n        result = 0.0\n",
        ),
        {"text": "done"},
    )
    proc = run_gemtui(
        ["-p", "edit the cart", "--yolo"],
        env=gemtui_env(isolated_home, mock_llm_thread.url),
        cwd=workspace,
    )
    assert proc.returncode == 0, proc.stderr
    fixer = mock_llm_thread.requests[1].json
    config = fixer["generationConfig"]
    assert config["responseMimeType"] == "application/json"
    assert "search" in config["responseJsonSchema"]["properties"]
    assert "tools" not in fixer
    asked = fixer["contents"][0]["parts"][0]["text"]
    assert "def total_price(self)" in asked  # the failed search
    assert "class Cart:" in asked  # the file
    assert path.read_text() == SOURCE.replace("result = 0\n", "result = 0.0\n")
    last = mock_llm_thread.requests[-1].json["contents"][-1]
    [response] = [p["functionResponse"]["response"] for p in last["parts"]]
    assert "edit fixer replaced it" in response["output"]
    assert "loops over items" in response["output"]


def test_a_fix_that_does_not_place_or_abbreviates_leaves_the_first_error(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    path = workspace / "cart.py"
    path.write_text(SOURCE)
    write_fast_config(isolated_home, "[tools]\nedit_fixer = true\n")
    for answer in (
        _fixer_answer(explanation="guess", search="def nowhere():\n", replace="x\n"),
        _fixer_answer(
            explanation="short",
            search="    def count(self):\n        return len(self.items)\n",
            replace="    def count(self):\n        # ... rest of code\n",
        ),
        {"text": "not json at all"},
    ):
        mock_llm_thread.enqueue({"function_calls": [MISREMEMBERED]}, answer, {"text": "done"})
        proc = run_gemtui(
            ["-p", "edit the cart", "--yolo"],
            env=gemtui_env(isolated_home, mock_llm_thread.url),
            cwd=workspace,
        )
        assert proc.returncode == 0, proc.stderr
        last = mock_llm_thread.requests[-1].json["contents"][-1]
        [response] = [p["functionResponse"]["response"] for p in last["parts"]]
        assert "could not find the string to replace" in response["error"]
        assert "def total_price" not in path.read_text()
        assert path.read_text() == SOURCE


def test_the_fixer_never_sends_a_known_key_from_the_file(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    key = "AIzaSyD-edit-fixer-0123456789abcdefghij"
    path = workspace / "cart.py"
    path.write_text(f'API_KEY = "{key}"\n' + SOURCE)
    write_fast_config(isolated_home, "[tools]\nedit_fixer = true\n")
    mock_llm_thread.enqueue(
        {"function_calls": [MISREMEMBERED]},
        _fixer_answer(explanation="none", search="nowhere", replace="x"),
        {"text": "done"},
    )
    proc = run_gemtui(
        ["-p", "edit the cart", "--yolo"],
        env=gemtui_env(isolated_home, mock_llm_thread.url, key=key),
        cwd=workspace,
    )
    assert proc.returncode == 0, proc.stderr
    fixer = mock_llm_thread.requests[1]
    assert "responseJsonSchema" in fixer.json["generationConfig"]
    assert "class Cart:" in fixer.json["contents"][0]["parts"][0]["text"]
    assert key not in fixer.body.decode("utf-8", "replace")
    assert path.read_text().startswith(f'API_KEY = "{key}"\n')
