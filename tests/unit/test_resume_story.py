"""The story of a saved session: its epochs end to end, overlaps dropped, the summary
exchange left out, compressions marked."""

from __future__ import annotations

from gemtui.chat.history import SKIP_THOUGHT_SIGNATURE
from gemtui.tui.resume_story import resume_story
from gemtui.wire import Content, FunctionCall, Part

Q1, A1 = Content.user("q1"), Content.model("a1")
Q2, A2 = Content.user("q2"), Content.model("a2")
Q3, A3 = Content.user("q3"), Content.model("a3")
SUMMARY = Content.user("<conversation_summary>\nq1 and q2\n</conversation_summary>")
ACK = Content.model("Got it. Thanks for the additional context!")


def texts(items: list[Content | None]) -> list[str | None]:
    return [None if c is None else c.parts[0].text for c in items]


def test_one_history_is_shown_as_it_is() -> None:
    assert texts(resume_story([[Q1, A1]], [Q1, A1])) == ["q1", "a1"]


def test_a_compression_keeping_the_newest_turn_shows_each_turn_once() -> None:
    epochs = [[Q1, A1, Q2, A2], [SUMMARY, ACK, Q2, A2, Q3]]
    current = [SUMMARY, ACK, Q2, A2, Q3, A3]
    assert texts(resume_story(epochs, current)) == ["q1", "a1", "q2", "a2", None, "q3", "a3"]


def test_a_compression_of_everything() -> None:
    epochs = [[Q1, A1, Q2, A2], [SUMMARY, ACK]]
    assert texts(resume_story(epochs, [SUMMARY, ACK])) == ["q1", "a1", "q2", "a2", None]


def test_a_rewrite_after_a_failed_write_adds_no_duplicates() -> None:
    epochs = [[Q1, A1], [Q1, A1, Q2, A2]]
    assert texts(resume_story(epochs, [Q1, A1, Q2, A2, Q3])) == ["q1", "a1", "q2", "a2", "q3"]


def test_without_stored_epochs_the_summary_still_never_poses_as_the_person() -> None:
    assert texts(resume_story([], [SUMMARY, ACK, Q3, A3])) == [None, "q3", "a3"]


def test_epochs_told_apart_only_by_a_thought_signature_show_each_turn_once() -> None:
    """A resume stores the history again (a new epoch) without the placeholder signature a
    request had added to a call; resumed once more, the session was drawn twice."""
    call = FunctionCall(id="c1", name="read_file", args={"file_path": "n.txt"})
    signed = Content(
        role="model", parts=[Part(function_call=call, thought_signature=SKIP_THOUGHT_SIGNATURE)]
    )
    plain = Content(role="model", parts=[Part(function_call=call)])
    story = resume_story([[Q1, signed, A1], [Q1, plain, A1]], [Q1, plain, A1])
    assert [c.role for c in story if c is not None] == ["user", "model", "model"]
    assert len(story) == 3
