"""What the agent view works out from plain rows: the status line's counts, attention,
elapsed time and the queue's label."""

from __future__ import annotations

from msgspec.structs import replace

from gemtui.tui.agent_rows import AgentRow, attention_between, elapsed_text, status_summary

FRONT = AgentRow("a1", "front", "idle", "gemini", "flash", 0.0)
BACK = AgentRow("a2", "write tests", "working", "openai", "qwen", 0.0, workspace="~/w")


def test_one_agent_in_front_shows_no_count() -> None:
    assert status_summary([FRONT], "a1") == ""


def test_counts_with_an_agent_in_the_background() -> None:
    assert status_summary([FRONT, BACK], "a1") == "agents 1 working"
    waiting = replace(BACK, state="waiting")
    assert status_summary([FRONT, waiting], "a1") == "agents 0 working · 1 waits for you"
    two = [FRONT, waiting, replace(waiting, id="a3")]
    assert status_summary(two, "a1") == "agents 0 working · 2 wait for you"


def test_a_single_agent_in_the_background_is_counted() -> None:
    assert status_summary([BACK], "a1") == "agents 1 working"


def test_attention_only_for_background_agents_that_changed() -> None:
    waiting = replace(BACK, state="waiting")
    said = attention_between([FRONT, BACK], [FRONT, waiting], "a1")
    assert [(a.agent_id, a.title, a.body) for a in said] == [
        ("a2", "gemtui: agent waits for you", "write tests")
    ]
    assert attention_between([FRONT, waiting], [FRONT, waiting], "a1") == []  # said once
    assert attention_between([FRONT, BACK], [FRONT, waiting], "a2") == []  # in front
    done = replace(BACK, state="done")
    assert [a.title for a in attention_between([FRONT, waiting], [FRONT, done], "a1")] == [
        "gemtui: agent is done"
    ]


def test_a_row_first_seen_finished_is_not_news() -> None:
    assert attention_between([FRONT], [FRONT, replace(BACK, state="done")], "a1") == []


def test_elapsed_until_it_ended() -> None:
    assert elapsed_text(BACK, 42.0) == "42s"
    assert elapsed_text(BACK, 185.0) == "3m05s"
    assert elapsed_text(BACK, 3720.0) == "1h02m"
    assert elapsed_text(replace(BACK, ended=10.0), 3720.0) == "10s"


def test_the_queue_label_names_agent_workspace_and_branch() -> None:
    assert BACK.label == "agent 'write tests' in ~/w"
    assert replace(BACK, branch="worktree-x").label == "agent 'write tests' in ~/w ⎇ worktree-x"
