"""Think tags in any case, the lone closing tag, and Qwen3's /no_think from the model name."""

from __future__ import annotations

import pytest

from gemtui.providers.model_family import (
    is_qwen3,
    no_think_switch,
    opens_thought_in_prompt,
    with_no_think,
)
from gemtui.providers.think_tags import ThinkSplitter
from gemtui.wire import Content, FunctionResponse, GenerateContentRequest, Part


def split(text: str, size: int, *, opened: bool = False) -> list[tuple[bool, str]]:
    s = ThinkSplitter(opened=opened)
    pieces = [p for i in range(0, len(text), size) for p in s.feed(text[i : i + size])]
    pieces += s.flush()
    merged: list[tuple[bool, str]] = []
    for th, t in pieces:
        if merged and merged[-1][0] == th:
            merged[-1] = (th, merged[-1][1] + t)
        else:
            merged.append((th, t))
    return merged


@pytest.mark.parametrize("size", [1, 2, 5, 1000])
def test_tags_match_in_any_case(size: int) -> None:
    text = "<THINK>plan it</Think>The answer."
    assert split(text, size) == [(True, "plan it"), (False, "The answer.")]


@pytest.mark.parametrize("size", [1, 3, 1000])
def test_lone_closing_tag_turns_everything_before_it_into_thought(size: int) -> None:
    text = "The user wants a word.\nI should read the file.</think>\n\nThe word is Pelicans."
    assert split(text, size, opened=True) == [
        (True, "The user wants a word.\nI should read the file."),
        (False, "\n\nThe word is Pelicans."),
    ]


@pytest.mark.parametrize("size", [1, 1000])
def test_opened_answer_without_tags_is_all_answer(size: int) -> None:
    assert split("Just an answer.", size, opened=True) == [(False, "Just an answer.")]


def test_opened_answer_with_an_opening_tag_first_splits_normally() -> None:
    text = "Intro <think>x</think> rest"
    assert split(text, 1, opened=True) == [(False, "Intro "), (True, "x"), (False, " rest")]


def test_opened_answer_is_held_until_a_tag_decides() -> None:
    s = ThinkSplitter(opened=True)
    assert s.feed("reasoning ") == []
    assert s.feed("more</think>Answer") == [(True, "reasoning more"), (False, "Answer")]
    assert s.feed(" streams") == [(False, " streams")]


def test_not_opened_answer_streams_and_a_lone_close_never_shows() -> None:
    s = ThinkSplitter()
    assert s.feed("Hello ") == [(False, "Hello ")]
    out = s.feed("held</thi") + s.feed("nk> after")
    assert "</think>" not in "".join(t for _, t in out)
    assert out == [(False, "held"), (False, " after")]


def test_model_family_from_the_name() -> None:
    for name in ("Qwen3-8B", "qwen3:30b-a3b", "Qwen/Qwen3-32B-GGUF", "qwen-3-4b", "QWEN3.5"):
        assert is_qwen3(name), name
    for name in ("qwen2.5-coder-0.5b-instruct", "qwen", "llama3", "gpt-4o-mini"):
        assert not is_qwen3(name), name
    assert no_think_switch("Qwen3-8B") == "/no_think"
    assert no_think_switch("qwen3-coder-30b") is None
    assert no_think_switch("Qwen3-4B-Instruct-2507") is None
    assert no_think_switch("qwen2.5-coder") is None
    for name in (
        "QwQ-32B",
        "DeepSeek-R1-Distill-Qwen-7B",
        "deepseek-r1:8b",
        "Qwen3-4B-Thinking-2507",
    ):
        assert opens_thought_in_prompt(name), name
    assert not opens_thought_in_prompt("qwen2.5-coder-0.5b-instruct")
    assert not opens_thought_in_prompt("Qwen3-8B")


def test_no_think_goes_before_each_user_text_once() -> None:
    result = FunctionResponse(id="c1", name="read_file", response={"output": "x"})
    request = GenerateContentRequest(
        contents=[
            Content.user("first"),
            Content(role="model", parts=[Part(text="ok")]),
            Content(role="user", parts=[Part(function_response=result)]),
            Content.user("/no_think\n\nsecond"),
        ]
    )
    out = with_no_think(request, "/no_think")
    assert out.contents[0].parts[0].text == "/no_think\n\nfirst"
    assert out.contents[1].parts[0].text == "ok"
    assert out.contents[2].parts[0].function_response == result
    assert out.contents[3].parts[0].text == "/no_think\n\nsecond"
    assert request.contents[0].parts[0].text == "first"  # the original is untouched
