"""The ``!`` line's tool-call description and the store's title rule name it alike."""

from __future__ import annotations

from gemtui.agent.user_commands import SHELL_MODE_DESCRIPTION
from gemtui.store.titles import SHELL_MODE


def test_the_shell_mode_description_is_the_one_titles_look_for() -> None:
    assert SHELL_MODE_DESCRIPTION == SHELL_MODE
