"""Which tool next: telling a change request from a question, and what the step allows."""

from __future__ import annotations

import pytest

from gemtui.providers.next_step import asks_for_change, next_step
from gemtui.wire import Content, FunctionCall, FunctionDeclaration, FunctionResponse, Part


def _decl(name: str, *params: str) -> FunctionDeclaration:
    props = {p: {"type": "string"} for p in params}
    return FunctionDeclaration(
        name=name,
        description="d",
        parameters={"type": "object", "properties": props, "required": list(params)},
    )


DECLS = [
    _decl("read_file", "file_path"),
    _decl("list_directory", "dir_path"),
    _decl("grep_search", "pattern"),
    _decl("replace", "file_path", "instruction", "old_string", "new_string"),
    _decl("write_file", "file_path", "content"),
]


@pytest.mark.parametrize(
    ("prompt", "change"),
    [
        ("In limits.py, change MAX_RETRIES from 3 to 5.", True),
        ("Rename parse_invoice to parse_bill.", True),
        ("Fix the typo in the README.md heading.", True),
        ("Please add a docstring to the main function.", True),
        ("What is 2 + 2? Answer in one short sentence.", False),
        ("How do I change the port in server.toml?", False),
        ("Which file defines the function parse_invoice?", False),
        ("Reply with one short sentence about the sea.", False),
        ("Write a haiku about autumn.", False),
        ("Change your tone, please.", False),  # nothing in the project named
    ],
)
def test_a_change_request_is_told_from_a_question(prompt: str, change: bool) -> None:
    assert asks_for_change(prompt) is change


def _turns(prompt: str, *steps: tuple[str, dict[str, str], dict[str, str]]) -> list[Content]:
    contents = [Content(role="user", parts=[Part(text=prompt)])]
    for i, (name, args, response) in enumerate(steps):
        call = FunctionCall(id=f"c{i}", name=name, args=args)
        resp = FunctionResponse(id=f"c{i}", name=name, response=response)
        contents.append(Content(role="model", parts=[Part(function_call=call)]))
        contents.append(Content(role="user", parts=[Part(function_response=resp)]))
    return contents


def test_read_before_edit_offers_the_named_file_and_a_failed_read_may_be_retried() -> None:
    contents = _turns(
        "Change 'a' to 'b' in x.txt.",
        ("read_file", {"file_path": "y.txt"}, {"error": "File not found."}),
    )
    step = next_step(contents, DECLS)
    assert step is not None
    assert not step.answer
    names = [d.name for d in step.tools]
    assert names == ["read_file", "grep_search", "list_directory"]  # no edit before a read
    read = (step.tools[0].parameters_json_schema or {})["properties"]["file_path"]
    assert read["enum"] == ["x.txt"]  # the file the request names


def test_a_look_that_failed_twice_is_not_offered_a_third_time() -> None:
    """The 0.5B listed ``limits.py`` as a folder until its steps ran out: one retry of a
    failed look is allowed, then that tool is left out and the named file is offered."""
    failing = ("list_directory", {"dir_path": "limits.py"}, {"error": "Not a directory."})
    once = next_step(_turns("In limits.py, change MAX_RETRIES to 5.", failing), DECLS)
    assert once is not None
    assert "list_directory" in [d.name for d in once.tools]  # the control: one retry
    twice = next_step(_turns("In limits.py, change MAX_RETRIES to 5.", failing, failing), DECLS)
    assert twice is not None
    assert [d.name for d in twice.tools] == ["read_file", "grep_search"]
    read = (twice.tools[0].parameters_json_schema or {})["properties"]["file_path"]
    assert read["enum"] == ["limits.py"]


def test_a_question_whose_looks_failed_is_not_answered_from_nothing() -> None:
    """The 0.5B read an invented ``invoice.txt``, then answered that it found nothing:
    after a failed look (and no look that found anything) it must look again."""
    question = "Where are the invoices kept?"  # no code name: no search step first
    missing = ("read_file", {"file_path": "invoice.txt"}, {"error": "File not found."})
    step = next_step(_turns(question, missing), DECLS)
    assert step is not None
    assert not step.answer
    assert [d.name for d in step.tools] == ["grep_search", "list_directory", "read_file"]
    worn = next_step(_turns(question, missing, missing), DECLS)
    assert worn is not None
    assert [d.name for d in worn.tools] == ["grep_search", "list_directory"]
    hit = ("grep_search", {"pattern": "parse_invoice"}, {"output": "billing/invoices.py:1: def"})
    assert next_step(_turns(question, missing, hit), DECLS) is None  # found: free to answer


def test_a_question_naming_code_searches_for_that_name_first() -> None:
    question = "Which file defines the function parse_invoice?"
    step = next_step(_turns(question), DECLS)
    assert step is not None
    assert not step.answer
    assert [d.name for d in step.tools] == ["grep_search"]
    pattern = (step.tools[0].parameters_json_schema or {})["properties"]["pattern"]
    assert pattern["enum"] == ["parse_invoice"]
    hit = ("grep_search", {"pattern": "parse_invoice"}, {"output": "billing/invoices.py:1: def"})
    assert next_step(_turns(question, hit), DECLS) is None  # found: free to answer
    assert next_step(_turns("What is 2 + 2?"), DECLS) is None  # the control: no code named
    told = "What is the first word in the file notes.txt? Use the read_file tool."
    assert next_step(_turns(told), DECLS) is None  # a tool's name is not code to search


def test_a_line_that_occurs_twice_is_not_offered_as_the_text_to_replace() -> None:
    contents = _turns(
        "In x.py change the second constant.",
        ("read_file", {"file_path": "x.py"}, {"output": "A = 1\nA = 1\nB = 2\n"}),
    )
    step = next_step(contents, DECLS)
    assert step is not None
    (replace,) = step.tools
    schema = replace.parameters_json_schema or {}
    assert schema["properties"]["old_string"]["enum"] == ["B = 2"]
    assert schema["required"] == ["file_path", "instruction", "old_string", "new_string"]


def test_a_new_prompt_starts_a_new_count() -> None:
    """The narrowing follows the person's last words, not an earlier request's steps."""
    earlier = _turns(
        "Change 'a' to 'b' in x.txt.",
        ("replace", {"file_path": "x.txt"}, {"output": "ok"}),
    )
    earlier.append(Content(role="model", parts=[Part(text="Done.")]))
    contents = [*earlier, *_turns("Now set 'b' to 'c' in x.txt.")]
    step = next_step(contents, DECLS)
    assert step is not None
    assert not step.answer
