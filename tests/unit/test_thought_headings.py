"""Thought headings are found however the stream splits them, and bold text inside a
thought is left alone."""

from __future__ import annotations

import pytest

from gemtui.chat.thought_headings import ThoughtHeadings

THOUGHT = (
    "**Reading the request**\n\nThe person wants a **small** change.\n\n"
    "**Planning the edit**\n\nI will use replace. 2 * 3 is six."
)


def run(chunks: list[str]) -> list[tuple[str | None, str]]:
    splitter = ThoughtHeadings()
    pieces = [p for chunk in chunks for p in splitter.feed(chunk)] + splitter.flush()
    merged: list[tuple[str | None, str]] = []
    for subject, text in pieces:
        if merged and merged[-1][0] == subject:
            merged[-1] = (subject, merged[-1][1] + text)
        else:
            merged.append((subject, text))
    return merged


EXPECTED = [
    ("Reading the request", "The person wants a **small** change.\n\n"),
    ("Planning the edit", "I will use replace. 2 * 3 is six."),
]


def test_whole() -> None:
    assert run([THOUGHT]) == EXPECTED


@pytest.mark.parametrize("size", [1, 2, 3, 5, 7, 11])
def test_any_split_gives_the_same_subjects_and_text(size: int) -> None:
    chunks = [THOUGHT[i : i + size] for i in range(0, len(THOUGHT), size)]
    assert run(chunks) == EXPECTED


def test_every_cut_point() -> None:
    for cut in range(1, len(THOUGHT)):
        assert run([THOUGHT[:cut], THOUGHT[cut:]]) == EXPECTED, cut


def test_text_without_a_heading_flows_at_once_and_keeps_no_subject() -> None:
    splitter = ThoughtHeadings()
    assert splitter.feed("Just thinking, ") == [(None, "Just thinking, ")]
    assert splitter.feed("no heading.") == [(None, "no heading.")]


def test_an_unclosed_bold_start_is_text_once_the_line_ends() -> None:
    assert run(["**not closed", " here\nnext line"]) == [(None, "**not closed here\nnext line")]


def test_a_held_back_start_is_text_when_the_stream_ends() -> None:
    assert run(["Done.\n**Unfinis"]) == [(None, "Done.\n**Unfinis")]


def test_a_heading_with_text_on_the_same_line() -> None:
    assert run(["**Reading files** I will look"]) == [("Reading files", "I will look")]
