"""The streamed-answer loop check: repeats are caught, structured answers are not."""

from __future__ import annotations

import random

import pytest

from gemtui.agent.stream_loop import StreamLoopDetector

SENTENCE = "I will now call the tool to read the file again. "
"""49 characters: a loop of one sentence."""


def _feed(text: str, step: int) -> int | None:
    """Where (the answer's length so far) the detector called it a loop, or None."""
    detector = StreamLoopDetector()
    for at in range(0, len(text), step):
        if detector.feed(text[at : at + step]):
            return min(at + step, len(text))
    return None


@pytest.mark.parametrize("step", [1, 3, 7, 50, 4096])
def test_a_repeated_sentence_is_caught_early_however_the_stream_is_cut(step: int) -> None:
    cut = _feed("Let me check.\n\n" + SENTENCE * 200, step)
    assert cut is not None
    assert cut < 15 + 12 * len(SENTENCE) + step, "caught within about a dozen repeats"


def test_a_short_repeat_is_caught_too() -> None:
    assert _feed("flood " * 200, 5) is not None
    assert _feed("flood " * 15, 5) is None, "a few words are not a loop"


def test_nine_repeats_are_not_a_loop_and_far_apart_repeats_neither() -> None:
    assert _feed(SENTENCE * 9, 1) is None
    random.seed(7)
    filler = " ".join(f"w{random.randint(0, 10**6)}" for _ in range(60))  # ~500 chars
    assert _feed((SENTENCE + filler + "\n") * 30, 13) is None


def _distinct_prose(n: int) -> str:
    random.seed(3)
    words = ["".join(random.choice("abcdefghij") for _ in range(random.randint(2, 9)))]
    while len(words) < n:
        words.append("".join(random.choice("abcdefghij") for _ in range(random.randint(2, 9))))
    return " ".join(words)


def test_a_long_ordinary_answer_is_not_cut() -> None:
    assert _feed(_distinct_prose(20_000), 37) is None


def test_code_with_repeated_lines_is_not_cut() -> None:
    code = "```python\n" + "    assert x == 1\n    assert y == 2\n" * 200 + "```\n"
    assert _feed("Here are the checks:\n\n" + code + "That is all.\n", 7) is None
    tilde = "~~~\n" + "pass\n" * 300 + "~~~\n"
    assert _feed(tilde, 1) is None


def test_markdown_tables_lists_headings_and_rules_are_not_cut() -> None:
    table = "| name | value | note |\n|------|-------|------|\n"
    table += "| a    | 1     | same note here, same note here |\n" * 150
    assert _feed(table, 5) is None
    assert _feed("- [ ] the same todo item in a long checklist\n" * 150, 9) is None
    assert _feed("1. Run the tests again and look at the output.\n" * 150, 4) is None
    assert _feed("> quoted line that repeats in a long block quote\n" * 150, 11) is None
    assert _feed(("## Step\n\nDo the next small thing.\n\n---\n\n") * 150, 6) is None


def test_a_loop_after_a_code_block_is_still_caught() -> None:
    text = "```\n" + "x = 1\n" * 50 + "```\n\n" + SENTENCE * 100
    assert _feed(text, 3) is not None


def test_a_loop_in_a_line_that_only_looks_like_a_list_at_first_is_caught() -> None:
    # "1" could start "1." (a list item) until the next character comes
    assert _feed("1" + "0 times is too many, I will repeat myself. " * 100, 1) is not None
    assert _feed("-" + "not a list, just a dash then a loop of words. " * 100, 1) is not None


def test_reset_forgets_what_came_before() -> None:
    detector = StreamLoopDetector()
    assert detector.feed(SENTENCE * 8) is None
    detector.reset()
    assert detector.feed(SENTENCE * 8) is None
    assert detector.feed(SENTENCE * 4) is not None


def test_a_whole_batch_is_cut_where_the_loop_was_seen() -> None:
    """A stream read ahead arrives in large batches: the cut lands where a stream of
    single characters stops (or sooner: a line start held back is counted only once its
    kind is known), not at the end of the batch, also when the line's start came in an
    earlier piece."""
    text = "Let me check.\n\n" + SENTENCE * 200
    stopped_at = _feed(text, 1)
    assert stopped_at is not None
    message, used = StreamLoopDetector().feed_until_loop(text)
    assert message
    assert used == stopped_at
    held = "1" + SENTENCE * 200  # "1" may start "1." and waits for the next piece
    split = StreamLoopDetector()
    assert split.feed_until_loop("1") == (None, 1)
    assert split.feed_until_loop(held[1:])[1] == _feed(held, 1) - 1  # type: ignore[operator]
    assert StreamLoopDetector().feed_until_loop("no loop here. " * 3) == (None, 42)


@pytest.mark.parametrize(
    "text",
    [
        (" " * 70 + "- I will now call the tool to read the file again.\n") * 40,
        (" " * 62 + "12. I will now call the tool to read the file again.\n") * 40,
        "```\n" + (" " * 80 + "x = read_the_file_again(path)\n") * 40,
    ],
    ids=["list-item-70-deep", "numbered-62-deep", "code-80-deep"],
)
def test_a_deeply_indented_line_is_judged_the_same_however_the_stream_is_cut(text: str) -> None:
    verdicts = {step: _feed(text, step) is not None for step in (1, 7, 64, 65, 500, len(text))}
    assert len(set(verdicts.values())) == 1, verdicts


def test_a_threshold_of_one_makes_any_passage_a_loop() -> None:
    assert StreamLoopDetector(chunk_size=5, threshold=1).feed("hello there") is not None
