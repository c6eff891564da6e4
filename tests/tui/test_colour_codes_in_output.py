"""A program's colour codes are dropped from its output on the card (``pytest
--color=yes``, ``ls --color``): they showed as ``␛[31m``. Only SGR goes; any other
sequence in the same output is still drawn harmless (``␛]0;…``), never written."""

from __future__ import annotations

import subprocess
from pathlib import Path

from gemtui.bus import events as ev
from gemtui.testing.mockllm import MockLLMServer
from gemtui.tui.view import ops
from gemtui.tui.view.conversation import ConversationView
from tests.tui.test_command_outcome_on_card import _run_command

COMMAND = r"printf '\033[1;31mFAILED\033[0m test_a \033]0;pwned\007 \033[32m2 passed\033[0m\n'"


def _shown(output: str) -> str:
    call = ev.ToolCallSnapshot(
        call_id="c1",
        name="run_shell_command",
        args={},
        state=ev.ToolCallState.SUCCESS,
        output=output,
    )
    [shown] = [
        op
        for op in ConversationView().feed(ev.ToolCallStateChanged(call=call, prompt_id="p#1"))
        if isinstance(op, ops.ToolCallShown)
    ]
    assert isinstance(shown.call.output, str)
    return shown.call.output


def test_real_bash_colour_codes_are_dropped_and_other_sequences_shown_harmless() -> None:
    output = subprocess.run(["bash", "-c", COMMAND], capture_output=True, text=True).stdout
    assert "\x1b[1;31m" in output  # the control: bash really wrote them
    shown = _shown(output)
    assert "FAILED test_a" in shown
    assert "2 passed" in shown
    assert "␛[" not in shown
    assert "\x1b" not in shown
    assert "␛]0;pwned" in shown  # not colour: shown, harmless


async def test_the_card_of_a_coloured_command_reads_plainly(
    mock_llm: MockLLMServer, workspace: Path
) -> None:
    lines = await _run_command(mock_llm, workspace, COMMAND, sandbox=False)
    text = "\n".join(lines)
    assert "FAILED test_a" in text, text
    assert "␛[" not in text, text
