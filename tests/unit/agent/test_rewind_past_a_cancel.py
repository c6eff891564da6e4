"""Rewinding finds the person's prompt, never the note after a cancelled one: a prompt
such as "request" is also a word of the note, and the cut must fall at the prompt."""

from __future__ import annotations

from gemtui.agent.checkpointing import history_before_prompt
from gemtui.wire import Content
from gemtui.wire.cancel_note import cancel_note


def test_the_cut_falls_at_the_prompt_not_at_a_later_note() -> None:
    history = [
        Content.user("request"),
        Content.model("Which one?"),
        Content.user("the release notes"),
        cancel_note(),  # its text holds "request" too
        Content.user("never mind"),
        Content.model("Fine."),
    ]
    assert history_before_prompt(history, "request") == 0
    assert history_before_prompt(history, "the release notes") == 2  # the note goes with it
