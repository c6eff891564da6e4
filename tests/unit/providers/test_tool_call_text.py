"""Every text tool-call format, whole and streamed one character at a time.

Each case is the text a model wrote, the calls it holds and the prose left visible;
every case runs fed whole, in 1-character pieces and in 3-character pieces, and must
give the same result each way."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gemtui.providers.tool_call_text import (
    CallExtractor,
    WholeTextCalls,
    calls_in,
    parse_text_calls,
)

NAMES = ("read_file", "replace", "list_directory", "glob")
READ = ("read_file", {"file_path": "notes.txt"})
LIST = ("list_directory", {"dir_path": "."})


def run(text: str, size: int, names: tuple[str, ...] | None = NAMES) -> tuple[str, list, bool]:
    ex = CallExtractor(names)
    pieces = [ex.feed(text[i : i + size]) for i in range(0, len(text), size)]
    pieces.append(ex.flush())
    return "".join(pieces), ex.calls, ex.malformed


CASES: list[tuple[str, str, list, str]] = [
    (
        "our tool_call convention, fenced",
        'Checking.\n```json\n{"tool_call": {"name": "read_file", "arguments": '
        '{"file_path": "notes.txt"}}}\n```\n',
        [READ],
        "Checking.\n\n",
    ),
    (
        "bare name/arguments (Qwen through llama.cpp)",
        '{"name": "read_file", "arguments": {"file_path": "notes.txt"}}',
        [READ],
        "",
    ),
    (
        "bare name/parameters (Llama)",
        '{"name": "list_directory", "parameters": {"dir_path": "."}}',
        [LIST],
        "",
    ),
    (
        "arguments as a JSON string",
        '{"name": "read_file", "arguments": "{\\"file_path\\": \\"notes.txt\\"}"}',
        [READ],
        "",
    ),
    (
        "OpenAI's function shape",
        '{"type": "function", "function": {"name": "read_file", "arguments": '
        '"{\\"file_path\\": \\"notes.txt\\"}"}}',
        [READ],
        "",
    ),
    (
        "several bare objects, one a line",
        '{"name": "read_file", "arguments": {"file_path": "notes.txt"}}\n'
        '{"name": "list_directory", "arguments": {"dir_path": "."}}\n',
        [READ, LIST],
        "\n\n",
    ),
    (
        "a JSON list of calls",
        '[{"name": "read_file", "arguments": {"file_path": "notes.txt"}}, '
        '{"name": "list_directory", "arguments": {"dir_path": "."}}]',
        [READ, LIST],
        "",
    ),
    (
        "pretty-printed in a plain fence",
        'I will read it.\n```\n{\n  "name": "read_file",\n  "arguments": {\n'
        '    "file_path": "notes.txt"\n  }\n}\n```',
        [READ],
        "I will read it.\n",
    ),
    (
        "two calls in one json fence",
        '```json\n{"name": "read_file", "arguments": {"file_path": "notes.txt"}}\n'
        '{"name": "list_directory", "arguments": {"dir_path": "."}}\n```',
        [READ, LIST],
        "",
    ),
    (
        "Hermes/Qwen tool_call tags",
        '<tool_call>\n{"name": "read_file", "arguments": {"file_path": "notes.txt"}}\n'
        "</tool_call>\n<tool_call>\n"
        '{"name": "list_directory", "arguments": {"dir_path": "."}}\n</tool_call>',
        [READ, LIST],
        "\n",
    ),
    (
        "tool_call tag left open at the end",
        '<tool_call>\n{"name": "read_file", "arguments": {"file_path": "notes.txt"}}\n',
        [READ],
        "",
    ),
    (
        "Llama python_tag",
        '<|python_tag|>{"name": "read_file", "parameters": {"file_path": "notes.txt"}}<|eom_id|>',
        [READ],
        "",
    ),
    (
        "Llama python_tag, two calls joined by ;",
        '<|python_tag|>{"name": "read_file", "parameters": {"file_path": "notes.txt"}}; '
        '{"name": "list_directory", "parameters": {"dir_path": "."}}',
        [READ, LIST],
        "",
    ),
    (
        "Mistral TOOL_CALLS with a JSON list",
        '[TOOL_CALLS] [{"name": "read_file", "arguments": {"file_path": "notes.txt"}, '
        '"id": "abc123XYZ"}]',
        [READ],
        "",
    ),
    (
        "Mistral TOOL_CALLS name[ARGS] form, twice",
        '[TOOL_CALLS]read_file[ARGS]{"file_path": "notes.txt"}'
        '[TOOL_CALLS]list_directory[ARGS]{"dir_path": "."}',
        [READ, LIST],
        "",
    ),
    (
        "inline explicit convention inside prose",
        'Reading {"tool_call": {"name": "read_file", "arguments": {"file_path": '
        '"notes.txt"}}} now.',
        [READ],
        "Reading  now.",
    ),
    (
        "calls separated by commas, as Qwen writes them",
        '{"name": "read_file", "arguments": {"file_path": "notes.txt"}},\n'
        '{"name": "list_directory", "arguments": {"dir_path": "."}};',
        [READ, LIST],
        "\n",
    ),
    (
        "the last braces dropped at the end of the answer (recorded from Qwen 0.5B)",
        '{"name": "read_file", "arguments": {"file_path": "notes.txt"}},\n'
        '{"name": "replace", "arguments": {"file_path": "g.txt", "old_string": "Hello World"}',
        [READ, ("replace", {"file_path": "g.txt", "old_string": "Hello World"})],
        "\n",
    ),
    (
        "a call with no arguments",
        '{"name": "glob"}',
        [("glob", {})],
        "",
    ),
]


@pytest.mark.parametrize("size", [10_000, 1, 3])
@pytest.mark.parametrize(("label", "text", "calls", "visible"), CASES, ids=[c[0] for c in CASES])
def test_every_format_whole_and_streamed(
    label: str, text: str, calls: list, visible: str, size: int
) -> None:
    shown, found, malformed = run(text, size)
    assert found == calls
    assert shown == visible
    assert not malformed


PROSE = [
    ("JSON mid-sentence", 'The object {"name": "read_file", "arguments": {}} is an example.'),
    ("an undeclared tool name", '{"name": "delete_everything", "arguments": {"path": "/"}}'),
    ("an undeclared name in tags", '<tool_call>{"name": "nope", "arguments": {}}</tool_call>'),
    ("a person's record", '{"name": "Bob", "age": 3}'),
    ("config in a json fence", '```json\n{"name": "gemtui", "version": "1.0"}\n```\n'),
    ("code in a python fence", '```python\n{"name": "read_file", "arguments": {}}\n```\n'),
    ("a list of numbers", "[1, 2, 3] and [a link](http://x)"),
    ("a brace in code", "function f() {\n  return 1;\n}\n"),
    ("html-ish text", "<div>a < b</div> <tool"),
    ("a lone tag word", "Use the [TOOL_CALLS] marker, or <tool_call> tags."),
    ("undeclared name in Mistral form", "[TOOL_CALLS]rm_rf[ARGS]{}"),
    ("a comma after prose JSON is prose", '{"answer": 42},\nyes'),
    ("a cut-off undeclared call", '{"name": "read_", "arguments": {"file_path": "n"}'),
    ("a write cut inside its content", '{"name": "replace", "arguments": {"new_string": "de'),
    ("arguments cut at their opening", '{"name": "read_file", "arguments": {'),
]


@pytest.mark.parametrize("size", [10_000, 1])
@pytest.mark.parametrize(("label", "text"), PROSE, ids=[p[0] for p in PROSE])
def test_prose_that_contains_json_stays_prose(label: str, text: str, size: int) -> None:
    shown, found, _ = run(text, size)
    assert found == []
    assert shown == text


def test_no_declared_names_means_no_calls_from_bare_objects() -> None:
    assert run('{"name": "read_file", "arguments": {}}', 1, names=())[1] == []
    assert run('{"name": "anything", "arguments": {}}', 1, names=None)[1] == [("anything", {})]


def test_broken_explicit_call_is_malformed_and_shown() -> None:
    text = '{"tool_call": {"name": "read_file", "arguments": {"file_path": }}}'
    shown, found, malformed = run(text, 1)
    assert (shown, found, malformed) == (text, [], True)
    unclosed = '<tool_call>\n{"name": "read_file", "arguments": {'
    shown, found, malformed = run(unclosed, 1)
    assert (shown, found, malformed) == (unclosed, [], True)


def test_missing_braces_are_not_closed_when_the_answer_was_cut_off() -> None:
    text = '{"name": "read_file", "arguments": {"file_path": "notes.txt"}'
    ex = CallExtractor(NAMES)
    assert ex.feed(text) + ex.flush(cut_off=True) == text
    assert ex.calls == []


def test_broken_bare_object_is_just_prose() -> None:
    text = '{"name": "read_file", "arguments": {"file_path": '
    assert run(text, 1) == (text, [], False)


def test_prose_streams_while_a_call_is_held() -> None:
    ex = CallExtractor(NAMES)
    assert ex.feed("Let me look.\n") == "Let me look.\n"
    assert ex.feed('{"name": "read_file", ') == ""
    assert ex.feed('"arguments": {"file_path": "notes.txt"}}') == ""
    assert ex.calls == [READ]
    assert ex.feed("\nDone") == "\nDone"


def test_code_fence_content_streams_at_once() -> None:
    ex = CallExtractor(NAMES)
    assert ex.feed("```python\nx = {\n") == "```python\nx = {\n"
    assert ex.feed('"a": 1}\n') == '"a": 1}\n'


def test_long_call_streamed_char_by_char_is_linear() -> None:
    """A 200 kB write streamed a character at a time must not rescan what it saw."""
    content = "x" * 200_000
    text = json.dumps({"name": "replace", "arguments": {"file_path": "a", "new_string": content}})
    ex = CallExtractor(NAMES)
    for ch in text:
        ex.feed(ch)
    ex.flush()
    assert ex.calls == [("replace", {"file_path": "a", "new_string": content})]


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_any_chunking_gives_the_same_result(data: st.DataObject) -> None:
    label, text, calls, visible = data.draw(st.sampled_from(CASES))
    cuts = sorted(data.draw(st.sets(st.integers(1, max(1, len(text) - 1)), max_size=12)))
    ex = CallExtractor(NAMES)
    bounds = [0, *cuts, len(text)]
    shown = "".join(ex.feed(text[a:b]) for a, b in itertools.pairwise(bounds))
    shown += ex.flush()
    assert (shown, ex.calls) == (visible, calls), label


def test_calls_in_shapes() -> None:
    assert calls_in({"tool_calls": [{"name": "glob", "args": {"pattern": "*"}}]}, None) == [
        ("glob", {"pattern": "*"})
    ]
    assert calls_in({"name": "glob", "arguments": "not json"}, None) is None
    assert calls_in({"name": "glob", "arguments": [1]}, None) is None
    assert calls_in([{"name": "glob"}, {"name": "nope"}], NAMES) is None
    assert calls_in([], NAMES) is None


class TestWholeTextCalls:
    """Native mode: a message that is nothing but calls becomes calls; anything else
    stays the model's text, streamed."""

    @staticmethod
    def stream(text: str, size: int = 1) -> tuple[str, list]:
        whole = WholeTextCalls(NAMES)
        shown = "".join(whole.feed(text[i : i + size]) for i in range(0, len(text), size))
        rest, calls = whole.finish()
        return shown + rest, calls

    def test_call_only_message_becomes_the_call(self) -> None:
        text = '  {"name": "read_file", "arguments": {"file_path": "notes.txt"}}\n'
        assert self.stream(text) == ("", [READ])

    def test_prose_before_a_call_keeps_everything_as_text(self) -> None:
        text = 'I will read it:\n{"name": "read_file", "arguments": {"file_path": "n"}}'
        assert self.stream(text) == (text, [])

    def test_prose_after_a_call_releases_the_call_text(self) -> None:
        text = '{"name": "read_file", "arguments": {"file_path": "n"}}\nThat was it.'
        assert self.stream(text) == (text, [])

    def test_plain_answer_streams_without_waiting(self) -> None:
        whole = WholeTextCalls(NAMES)
        assert whole.feed("Hel") == "Hel"
        assert whole.feed("lo") == "lo"
        assert whole.finish() == ("", [])

    def test_json_that_is_not_a_call_is_released_at_the_end(self) -> None:
        text = '{"answer": 42}'
        assert self.stream(text) == (text, [])


def test_parse_text_calls_whole() -> None:
    prose, calls = parse_text_calls('x\n<tool_call>{"name": "glob"}</tool_call>', NAMES)
    assert (prose, calls) == ("x\n", [("glob", {})])


def _openai_chunks(text: str, size: int) -> list[dict]:
    return [
        {"choices": [{"delta": {"content": text[i : i + size]}}]} for i in range(0, len(text), size)
    ]


@pytest.mark.parametrize("size", [1, 1000])
def test_openai_stream_turns_a_call_only_message_into_a_call(size: int) -> None:
    from gemtui.providers.convert_openai import OpenAIStream

    state = OpenAIStream(call_names=list(NAMES))
    text = '<think>plan</think>{"name": "read_file", "arguments": {"file_path": "notes.txt"}}'
    shown = [p for c in _openai_chunks(text, size) for p in state.feed(c)]
    state.feed({"choices": [{"delta": {}, "finish_reason": "stop"}]})
    final = state.final().candidates[0]
    parts = shown + list(final.content.parts)
    assert "".join(p.text or "" for p in parts if p.thought) == "plan"
    assert not [p for p in parts if p.text and not p.thought]
    calls = [p.function_call for p in parts if p.function_call is not None]
    assert [(c.name, c.args) for c in calls] == [READ]
    assert final.finish_reason == "STOP"


def test_openai_stream_native_calls_win_over_text() -> None:
    from gemtui.providers.convert_openai import OpenAIStream

    state = OpenAIStream(call_names=list(NAMES))
    text = '{"name": "read_file", "arguments": {"file_path": "notes.txt"}}'
    state.feed({"choices": [{"delta": {"content": text}}]})
    native = {"index": 0, "id": "c1", "function": {"name": "glob", "arguments": "{}"}}
    state.feed({"choices": [{"delta": {"tool_calls": [native]}, "finish_reason": "tool_calls"}]})
    parts = state.final().candidates[0].content.parts
    assert [p.text for p in parts if p.text] == [text]
    assert [p.function_call.name for p in parts if p.function_call] == ["glob"]


REAL = Path(__file__).parents[2] / "fixtures" / "real_llm" / "qwen2.5-coder-0.5b-q4km.jsonl"
"""What Qwen2.5-Coder-0.5B-Instruct (Q4_K_M) wrote behind llama-server --jinja, streamed
delta by delta as the server sent it (recorded with tests/fixtures/real_llm/capture.py)."""


def _recorded() -> list[dict]:
    return [json.loads(line) for line in REAL.read_text(encoding="utf-8").splitlines()]


EXPECTED_REAL = {
    ("read", "native"): [("read_file", "notes.txt")],
    ("list", "native"): [("list_directory", None)],
    ("two", "native"): [("read_file", "a.txt")],
    ("read", "text"): [("read_file", "notes.txt")],
    ("list", "text"): [("list_directory", None)],
    ("two", "text"): [("read_file", "a.txt"), ("read_file", "b.txt")],
    ("plain", "native"): [],
}


@pytest.mark.parametrize(
    "record", _recorded(), ids=lambda r: f"{r['case']}-{r['mode']}-{r['tools']}"
)
def test_recorded_real_outputs(record: dict) -> None:
    from gemtui.providers.convert_openai import OpenAIStream
    from gemtui.tools.registry import default_registry

    names = default_registry().names()
    expected = EXPECTED_REAL[(record["case"], record["mode"])]
    found: list[tuple[str, dict]]
    if record["mode"] == "text":  # text-tools mode: the extractor over the deltas
        ex = CallExtractor(names)
        shown = "".join(ex.feed(d) for d in record["deltas"]) + ex.flush()
        found = ex.calls
    else:  # native mode: the OpenAI stream state, fed the server's chunks
        state = OpenAIStream(call_names=names)
        parts = [
            p
            for d in record["deltas"]
            for p in state.feed({"choices": [{"delta": {"content": d}}]})
        ]
        state.feed({"choices": [{"delta": {}, "finish_reason": "stop"}]})
        final = state.final().candidates[0]
        parts += final.content.parts
        shown = "".join(p.text or "" for p in parts if not p.thought)
        found = [(p.function_call.name, p.function_call.args) for p in parts if p.function_call]
    assert [
        (n, a.get("file_path")) if n == "read_file" else (n, None) for n, a in found
    ] == expected
    if expected:
        assert not shown.strip()
    else:
        assert shown == "".join(record["deltas"])


RECORDED_READ_REPLACE = (
    '{"name": "read_file", "arguments": {"file_path": "greeting.txt"}},\n{"name": "replace", '
    '"arguments": {"file_path": "greeting.txt", "instruction": "Replace \'Hello World\' with '
    '\'Goodbye World\'", "old_string": "Hello World", "new_string": "Goodbye World"}'
)
"""Qwen2.5-Coder-0.5B's whole answer to the read-then-replace check (make test-real-llm):
two calls joined by a comma, the last one's closing brace never written."""


@pytest.mark.parametrize("size", [1, 4, 10_000])
def test_recorded_read_then_replace_is_two_calls(size: int) -> None:
    whole = WholeTextCalls(NAMES)
    text = RECORDED_READ_REPLACE
    shown = "".join(whole.feed(text[i : i + size]) for i in range(0, len(text), size))
    rest, calls = whole.finish()
    assert shown + rest == ""
    assert [name for name, _ in calls] == ["read_file", "replace"]
    assert calls[1][1]["new_string"] == "Goodbye World"
