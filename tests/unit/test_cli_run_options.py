"""Every flag of the ``gemtui`` command reaches the front end in one ``RunOptions``."""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path

from gemtui.agent.assembly import RunOptions
from gemtui.cli.main import CLI_ONLY_FLAGS, build_parser, run_options


def test_every_flag_is_a_run_option_or_chooses_the_front_end() -> None:
    """A flag added to the parser without its field would be dropped on the way."""
    dests = {a.dest for a in build_parser()._actions}
    names = {f.name for f in fields(RunOptions)}
    assert dests - CLI_ONLY_FLAGS <= names, dests - CLI_ONLY_FLAGS - names


def test_the_flags_land_in_their_fields(tmp_path: Path) -> None:
    argv = [
        "-s", "-y", "--provider", "p", "-m", "m", "--max-turns", "3", "--text-tools",
        "--trust-workspace", "--include-directories", "a,b", "--include-directories", "c",
        "--resume", "--fake-responses", "f.jsonl", "--output-format", "json", "typed",
    ]  # fmt: skip
    args = build_parser().parse_args(argv)
    options = run_options(args, tmp_path, prompt="typed", interactive=False)
    assert options == RunOptions(
        workspace=tmp_path,
        prompt="typed",
        output_format="json",
        provider="p",
        model="m",
        approval_mode="yolo",
        max_turns=3,
        text_tools=True,
        fake_responses="f.jsonl",
        resume="latest",
        trust_workspace=True,
        interactive=False,
        include_directories=("a,b", "c"),
        sandbox=True,
    )
    plain = run_options(build_parser().parse_args([]), tmp_path, prompt=None)
    assert plain == RunOptions(workspace=tmp_path)
