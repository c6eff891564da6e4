"""The terminal's attention sequences, byte for byte, and what a hostile task text can do
to them (nothing: every control character is taken out before it reaches the terminal)."""

from __future__ import annotations

import pytest

from gemtui.config.settings import Settings
from gemtui.tui.attention import BEL, AttentionSwitches, attention_bytes, clean, osc9, osc777


def test_osc9_is_iterm2s_notification() -> None:
    assert osc9("agent is done") == "\x1b]9;agent is done\a"


def test_osc9_text_never_starts_with_a_digit() -> None:
    """ConEmu and Windows Terminal read ``OSC 9 ; 4 ;`` as a progress bar: not text."""
    assert osc9("4;3 tests left") == "\x1b]9; 4;3 tests left\a"


def test_osc777_is_rxvts_notify_with_title_and_body() -> None:
    assert osc777("gemtui", "tests pass") == "\x1b]777;notify;gemtui;tests pass\a"


def test_osc777_fields_cannot_be_split_by_a_semicolon() -> None:
    assert osc777("a;b", "c;d") == "\x1b]777;notify;a,b;c,d\a"


@pytest.mark.parametrize(
    "planted",
    [
        "\x1b]52;c;ZXZpbA==\a",  # OSC 52: write the clipboard
        "\x1b]0;owned\x07",  # OSC 0: retitle the window
        "\x9d8;;http://evil\x9c",  # C1 OSC: a hyperlink
        "\x1b[2J",  # CSI: clear the screen
    ],
)
def test_a_task_cannot_end_the_notification_and_start_its_own_sequence(planted: str) -> None:
    for out in (osc9(f"fix {planted} now"), osc777("t", f"fix {planted} now")):
        body = out[: -len(BEL)]
        assert out.endswith(BEL)
        assert out.count("\x1b") == 1  # only the sequence's own ESC
        assert "\a" not in body
        assert not any(0x80 <= ord(ch) <= 0x9F for ch in out)


def test_the_control_unclean_text_would_have_injected() -> None:
    """The plant is real: the same text put in raw carries a second escape sequence."""
    raw = "\x1b]9;fix \x1b]52;c;ZXZpbA==\a now\a"
    assert raw.count("\x1b") == 2
    assert clean("\x1b]52;c;ZXZpbA==\a") == " ]52;c;ZXZpbA== "


def test_long_text_is_cut() -> None:
    assert len(clean("x" * 1000)) == 200


def test_attention_bytes_follow_the_switches() -> None:
    title, body = "gemtui: agent is done", "run the suite"
    assert attention_bytes(title, body, AttentionSwitches(bell=False, desktop=False)) == ""
    assert attention_bytes(title, body, AttentionSwitches(bell=True, desktop=False)) == "\a"
    assert attention_bytes(title, body, AttentionSwitches(bell=False, desktop=True)) == (
        "\x1b]9;gemtui: agent is done: run the suite\a"
        "\x1b]777;notify;gemtui: agent is done;run the suite\a"
    )


def test_gemini_clis_names_switch_them_in_settings() -> None:
    general = Settings.model_validate(
        {"general": {"enableNotifications": True, "terminalBell": False}}
    ).general
    assert (general.enable_notifications, general.terminal_bell, general.attention_lines) == (
        True,
        False,
        True,
    )
    default = Settings().general
    assert (default.enable_notifications, default.terminal_bell) == (False, True)


def test_the_writer_and_the_rows_never_import_textual() -> None:
    """They are plain Python: the escape sequences and the fleet's rows have unit tests
    without a terminal, and the adapter can be used by any front end."""
    import subprocess
    import sys

    code = (
        "import sys, gemtui.tui.attention, gemtui.tui.agent_rows, gemtui.tui.fleet_adapter\n"
        "print(sorted(k for k in sys.modules if k.split('.')[0] in ('textual', 'rich')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
