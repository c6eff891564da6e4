"""Property: whenever bash would run a command no allow rule covers, the verdict is not allow.

Commands are generated from bash constructs (lists, pipelines, groups, substitutions,
here-documents, functions, compound statements, ``bash -c``, ``eval``, wrappers, quoting
tricks, comments) over three programs on a PATH of logging shims: ``ok`` (the one a rule
allows), ``aa`` and ``bb``. Real bash runs each; the shims' log says what actually ran.
"""

from __future__ import annotations

import os
import shlex
import stat
import subprocess
from pathlib import Path

from fake_tools import make_tool
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gemtui.scheduler import PolicyDecision, PolicyEngine, PolicyRule
from gemtui.tools.base import ToolKind

SHELL = make_tool("run_shell_command", ToolKind.EXECUTE)
ENGINE = PolicyEngine(
    [PolicyRule(PolicyDecision.ALLOW, tool_name="run_shell_command", command_prefix=("ok",))]
)
PROGRAMS = ("ok", "aa", "bb")


def _spelled(name: str) -> st.SearchStrategy[str]:
    """Ways to write a program's name that bash reads as that name."""
    return st.sampled_from(
        [
            name,
            f"'{name}'",
            f'"{name}"',
            f"\\{name}",
            f"{name[0]}''{name[1:]}",
            "$'" + "".join(f"\\x{ord(c):02x}" for c in name) + "'",
            f"{name[0]}\\\n{name[1:]}",
            f"command {name}",
            f"env {name}",
            f"nice -n 1 {name}",
            f"timeout 5 {name}",
            f"nohup {name}",
            f"time {name}",
            f"(exec {name})",
            f"x={name}; $x",
        ]
    )


simple = st.sampled_from(("ok", "ok", "ok", "aa", "bb")).flatmap(
    lambda name: st.tuples(_spelled(name), st.sampled_from(["", " -v", " arg"])).map("".join)
)


def _combine(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    pair = st.tuples(inner, inner)
    return st.one_of(
        pair.map(lambda p: f"{p[0]}; {p[1]}"),
        pair.map(lambda p: f"{p[0]} && {p[1]}"),
        pair.map(lambda p: f"{p[0]} || {p[1]}"),
        pair.map(lambda p: f"{p[0]} | {p[1]}"),
        pair.map(lambda p: f"{p[0]} |& {p[1]}"),
        pair.map(lambda p: f"{p[0]} & {p[1]}; wait"),
        pair.map(lambda p: f"{p[0]}\n{p[1]}"),
        inner.map(lambda c: f"ok #'\n{c}\n#'"),
        inner.map(lambda c: f"ok $'\\'';{c};#'"),
        inner.map(lambda c: f"ok ${{x:=$'\\x24({c})'}}${{x@P}}" if "'" not in c else c),
        inner.map(lambda c: f"({c})"),
        inner.map(lambda c: f"{{ {c}; }}"),
        inner.map(lambda c: f"ok $({c})"),
        inner.map(lambda c: f"ok `{c}`" if "`" not in c else f"ok $({c})"),
        inner.map(lambda c: f'ok "$({c})"'),
        inner.map(lambda c: f"cat <({c})"),
        inner.map(lambda c: f"cat <<EOF\n$({c})\nEOF"),
        inner.map(lambda c: f"ok $(( $({c}) 1 ))"),
        inner.map(lambda c: f"ok ${{x:-$({c})}}"),
        inner.map(lambda c: f"ok ${{x:-`{c}`}}" if "`" not in c else c),
        inner.map(lambda c: f"cat <<EOF\n`{c}`\nEOF" if "`" not in c else c),
        inner.map(lambda c: f"ok `echo \\`{c}\\``" if "`" not in c else c),
        inner.map(lambda c: f"f() {{ {c}; }}; f"),
        inner.map(lambda c: f"if true; then {c}; fi"),
        inner.map(lambda c: f"for i in 1; do {c}; done"),
        inner.map(lambda c: f"case x in x) {c};; esac"),
        inner.map(lambda c: f"bash -c {shlex.quote(c)}"),
        inner.map(lambda c: f"eval {shlex.quote(c)}"),
        inner.map(lambda c: f"! {c}"),
        inner.map(lambda c: f"echo x | xargs sh -c {shlex.quote(c)}"),
        inner.map(lambda c: f"find . -maxdepth 0 -exec bash -c {shlex.quote(c)} \\;"),
        inner.map(lambda c: f"trap {shlex.quote(c)} EXIT"),
        inner.map(lambda c: f"while :; do {c}; break; done"),
        inner.map(lambda c: f"i=0; until [ $i = 1 ]; do {c}; i=1; done"),
        inner.map(lambda c: f"x=$({c})"),
        inner.map(lambda c: f"arr=(a $({c}))"),
        inner.map(lambda c: f"{c} > /dev/null 2>&1"),
        inner.map(lambda c: f"{c} <<< x"),
        inner.map(lambda c: f"CI=1 {c}"),
    )


commands = st.recursive(simple, _combine, max_leaves=4)


def _shims(root: Path) -> Path:
    bin_dir = root / "bin"
    bin_dir.mkdir(exist_ok=True)
    for name in PROGRAMS:
        shim = bin_dir / name
        shim.write_text(f'#!/bin/sh\necho {name} >> "$SHIM_LOG"\n')
        os.chmod(shim, stat.S_IRWXU)
    return bin_dir


def _ran(command: str, root: Path) -> set[str]:
    log = root / "log"
    log.write_text("")
    env = {
        "PATH": f"{root / 'bin'}:/usr/bin:/bin",
        "SHIM_LOG": str(log),
        "HOME": str(root),
    }
    subprocess.run(
        ["bash", "-c", command],
        cwd=root,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=20,
    )
    return set(log.read_text().split())


@settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(command=commands)
def test_a_command_bash_runs_without_a_rule_is_never_allowed(command: str, tmp_path: Path) -> None:
    _shims(tmp_path)
    ran = _ran(command, tmp_path)
    verdict = ENGINE.decide(SHELL, {"command": command}, "default")
    if ran - {"ok"}:
        assert verdict.decision is not PolicyDecision.ALLOW, (command, ran, verdict.reason)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(command=commands)
def test_what_policy_sees_includes_what_bash_runs(command: str, tmp_path: Path) -> None:
    """Seen from the deny side: a visible analysis names every program bash ran."""
    from gemtui.tools.shell_syntax import analyze

    _shims(tmp_path)
    ran = _ran(command, tmp_path)
    analysis = analyze(command)
    if not analysis.hidden:
        assert ran <= {c.name for c in analysis.commands}, (command, ran, analysis)
