"""Settings validated section by section say what the whole tree says (issue 34): the
same values, the same first error in the same words, and a start builds the validators
of the sections its files give only."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from gemtui.config.given_fields import describe
from gemtui.config.settings import Settings, _validate
from gemtui.errors import FatalConfigError

FRAGMENTS: list[tuple[str, Any]] = [
    ("general", {"model": "m", "approval_mode": "yolo", "max_turns": 3}),
    ("general", {"max_turns": 0}),
    ("general", {"enableNotifications": True, "terminalBell": False}),
    ("general", {"colour": "red"}),
    ("general", 5),
    ("providers", {"local": {"kind": "openai", "base_url": "http://127.0.0.1:9/v1"}}),
    ("providers", {"local": {"kind": "openai", "context_window": 0}}),
    ("providers", {"x": {"kind": "nope"}}),
    ("tools", {"shell_timeout": -5}),
    ("tools", {"exclude": ["glob"], "web_fetch": {}}),
    ("network", {"stream_retry_delays": [1.0, -2.0]}),
    ("ui", {"theme": "dark", "accessibility": {"screenReader": True}}),
    ("ui", {"show_thoughts": "maybe"}),
    ("context", {"fileName": ["AGENTS.md"]}),
    ("mcpServers", {"x": {"command": "true", "timeout": 0}}),
    ("mcpServers", {"y": {"command": "true", "anything": {"nested": 1}}}),
    ("lsp", {"py": {"command": []}}),
    ("prices", {"m": {"input": 1.0, "output": 2.0}}),
    ("prices", {"m": {"input": -1.0}}),
    ("budget", {"session_usd": 0}),
    ("limits", {"warn_below": 0.5}),
    ("unknown_table", {"a": 1}),
    ("checkpoints", {"enabled": False}),
]


def _whole(data: dict[str, Any]) -> Settings | str:
    """What validating the whole tree at once gives (the way it was done before)."""
    try:
        return Settings.model_validate(data)
    except ValidationError as exc:
        return describe(exc.errors()[0], None)


def _given(data: dict[str, Any]) -> Settings | str:
    try:
        return _validate(data, None)
    except FatalConfigError as exc:
        return exc.message


@given(st.lists(st.sampled_from(FRAGMENTS), max_size=5))
@settings(max_examples=150, deadline=None)
def test_section_by_section_says_what_the_whole_tree_says(picked: list[tuple[str, Any]]) -> None:
    data = dict(picked)  # a later fragment of the same table wins, as in a file
    whole, alone = _whole(data), _given(data)
    if isinstance(whole, str):
        assert alone == whole
    else:
        assert isinstance(alone, Settings)
        assert alone.model_dump() == whole.model_dump()
        assert alone.model_fields_set == whole.model_fields_set


@pytest.mark.parametrize(
    ("data", "said"),
    [
        ({"tools": {"shell_timeout": -5}}, "setting 'tools.shell_timeout'"),
        ({"zzz": 1, "general": {"max_turns": 0}}, "setting 'general.max_turns'"),
        ({"zzz": 1}, "setting 'zzz': Extra inputs are not permitted (remove it"),
        ({"general": 5}, "setting 'general': Input should be a valid dictionary"),
    ],
)
def test_the_first_problem_is_named_with_its_dotted_key(data: dict[str, Any], said: str) -> None:
    assert said in str(_given(data))


_FRESH = """
import sys
from pathlib import Path
from gemtui.config import settings as s
loaded = s.load_settings(user_file=Path(sys.argv[1]))
built = [m.__name__ for m in (s.GeneralSettings, s.ToolSettings, s.UiSettings, s.Settings)
         if m.__pydantic_complete__]
print(loaded.general.model, loaded.tools.shell_timeout > 0, loaded.ui.theme is not None, built)
"""


def test_a_start_builds_the_validators_of_the_given_sections_only(tmp_path: Any) -> None:
    """In a fresh interpreter (tests here build every validator); the defaults of the
    sections left out are read as usual."""
    conf = tmp_path / "config.toml"
    conf.write_text('[general]\nmodel = "m1"\n')
    out = subprocess.run(
        [sys.executable, "-c", _FRESH, str(conf)], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert out == "m1 True True ['GeneralSettings']"
