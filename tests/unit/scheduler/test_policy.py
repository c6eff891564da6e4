"""Policy: built-in defaults per mode, rule priorities, remembered approvals, shell rules."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from fake_tools import make_tool

from gemtui.errors import FatalConfigError
from gemtui.scheduler import (
    PolicyDecision,
    PolicyEngine,
    PolicyRule,
    load_policy_file,
)
from gemtui.tools.base import ToolKind
from gemtui.tools.shell_syntax import analyze, has_redirection

ALLOW, DENY, ASK = PolicyDecision.ALLOW, PolicyDecision.DENY, PolicyDecision.ASK

READ = make_tool("read_file", ToolKind.READ)
GREP = make_tool("grep_search", ToolKind.SEARCH)
TODOS = make_tool("write_todos", ToolKind.THINK)
REPLACE = make_tool("replace", ToolKind.EDIT)
WRITE = make_tool("write_file", ToolKind.EDIT)
SHELL = make_tool("run_shell_command", ToolKind.EXECUTE)
FETCH = make_tool("web_fetch", ToolKind.FETCH)
MCP = make_tool("create_issue", ToolKind.OTHER, server="github")


def sh(engine: PolicyEngine, command: str, mode: str = "default") -> PolicyDecision:
    return engine.decide(SHELL, {"command": command}, mode).decision


# -- defaults ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tool", "mode", "expected"),
    [
        (READ, "default", ALLOW),
        (GREP, "default", ALLOW),
        (TODOS, "default", ALLOW),
        (REPLACE, "default", ASK),
        (WRITE, "default", ASK),
        (SHELL, "default", ASK),
        (FETCH, "default", ASK),
        (MCP, "default", ASK),
        (REPLACE, "auto_edit", ALLOW),
        (WRITE, "autoEdit", ALLOW),
        (SHELL, "auto_edit", ASK),
        (READ, "plan", ALLOW),
        (GREP, "plan", ALLOW),
        (REPLACE, "plan", DENY),
        (SHELL, "plan", DENY),
        (FETCH, "plan", DENY),
        (READ, "yolo", ALLOW),
        (WRITE, "yolo", ALLOW),
        (SHELL, "yolo", ALLOW),
        (MCP, "yolo", ALLOW),
    ],
)
def test_builtin_defaults_per_mode(tool, mode, expected) -> None:  # type: ignore[no-untyped-def]
    args = {"command": "ls"} if tool is SHELL else {}
    assert PolicyEngine().decide(tool, args, mode).decision is expected


def test_plan_mode_tells_the_model_why() -> None:
    verdict = PolicyEngine().decide(WRITE, {"file_path": "a"}, "plan")
    assert "plan mode" in verdict.reason
    assert "write_file" in verdict.reason


def test_plan_mode_beats_a_user_allow_unless_the_rule_names_plan() -> None:
    general = PolicyEngine([PolicyRule(ALLOW, tool_name="write_file")])
    assert general.decide(WRITE, {}, "plan").decision is DENY
    assert general.decide(WRITE, {}, "default").decision is ALLOW
    for_plan = PolicyEngine([PolicyRule(ALLOW, tool_name="write_file", modes=("plan",))])
    assert for_plan.decide(WRITE, {}, "plan").decision is ALLOW


def test_user_deny_wins_even_in_yolo() -> None:
    engine = PolicyEngine([PolicyRule(DENY, tool_name="run_shell_command", command_prefix=("rm",))])
    assert sh(engine, "rm -rf build", "yolo") is DENY
    assert sh(engine, "ls", "yolo") is ALLOW


# -- priorities -------------------------------------------------------------------------


def test_higher_priority_wins_and_ties_prefer_deny_then_ask() -> None:
    engine = PolicyEngine(
        [
            PolicyRule(ALLOW, tool_name="web_fetch", priority=10),
            PolicyRule(DENY, tool_name="web_fetch", priority=5),
        ]
    )
    assert engine.decide(FETCH, {}, "default").decision is ALLOW
    tie = PolicyEngine(
        [
            PolicyRule(ALLOW, tool_name="web_fetch", priority=5),
            PolicyRule(ASK, tool_name="web_fetch", priority=5),
        ]
    )
    assert tie.decide(FETCH, {}, "default").decision is ASK
    tie.remove_rule(PolicyRule(ASK, tool_name="web_fetch", priority=5))
    tie_deny = PolicyEngine(
        [
            PolicyRule(ASK, tool_name="web_fetch", priority=5),
            PolicyRule(DENY, tool_name="web_fetch", priority=5),
            PolicyRule(ALLOW, tool_name="web_fetch", priority=5),
        ]
    )
    assert tie_deny.decide(FETCH, {}, "default").decision is DENY


def test_any_user_rule_beats_the_builtin_defaults() -> None:
    engine = PolicyEngine([PolicyRule(DENY, tool_name="read_file", priority=0)])
    verdict = engine.decide(READ, {}, "default")
    assert verdict.decision is DENY
    assert verdict.rule is not None
    assert verdict.rule.source == "user"


def test_args_pattern_matches_sorted_json() -> None:
    engine = PolicyEngine(
        [PolicyRule(ALLOW, tool_name="write_file", args_pattern=r'"file_path":"docs/')]
    )
    assert (
        engine.decide(WRITE, {"file_path": "docs/a.md", "content": "x"}, "default").decision
        is ALLOW
    )
    assert (
        engine.decide(WRITE, {"file_path": "src/a.py", "content": "x"}, "default").decision is ASK
    )


def test_mcp_name_and_wildcards() -> None:
    engine = PolicyEngine([PolicyRule(ALLOW, mcp_name="github", tool_name="*")])
    assert engine.decide(MCP, {}, "default").decision is ALLOW
    assert engine.decide(FETCH, {}, "default").decision is ASK


# -- shell commands ---------------------------------------------------------------------


def test_command_prefix_is_word_wise_and_checks_every_sub_command() -> None:
    engine = PolicyEngine(
        [PolicyRule(ALLOW, tool_name="run_shell_command", command_prefix=("git status",))]
    )
    assert sh(engine, "git status") is ALLOW
    assert sh(engine, "git status -s") is ALLOW
    assert sh(engine, "git statusx") is ASK
    assert sh(engine, "git push") is ASK
    assert sh(engine, "git status; rm -rf x") is ASK
    assert sh(engine, "git status && rm -rf x") is ASK
    assert sh(engine, "git status | sh") is ASK
    assert sh(engine, "git status\nrm -rf x") is ASK
    assert sh(engine, "git status && git status -s") is ALLOW


def test_a_denied_sub_command_denies_the_whole() -> None:
    engine = PolicyEngine(
        [
            PolicyRule(ALLOW, tool_name="run_shell_command", command_prefix=("git",)),
            PolicyRule(DENY, tool_name="run_shell_command", command_regex=r"rm\b"),
        ]
    )
    assert sh(engine, "git add . && rm -rf /") is DENY
    assert sh(engine, "git log") is ALLOW


def test_redirection_downgrades_allow_to_ask() -> None:
    engine = PolicyEngine(
        [PolicyRule(ALLOW, tool_name="run_shell_command", command_prefix=("echo",))]
    )
    assert sh(engine, "echo hi") is ALLOW
    assert sh(engine, "echo hi > out.txt") is ASK
    assert sh(engine, "echo hi >> out.txt") is ASK
    assert sh(engine, "echo hi &> out.txt") is ASK
    assert sh(engine, "echo '>' \">>\"") is ALLOW
    assert sh(engine, "echo hi > out.txt", "yolo") is ALLOW
    explicit = PolicyEngine(
        [
            PolicyRule(
                ALLOW,
                tool_name="run_shell_command",
                command_prefix=("echo",),
                allow_redirection=True,
            )
        ]
    )
    assert sh(explicit, "echo hi > out.txt") is ALLOW


def test_command_substitution_cannot_slip_past_a_prefix_rule() -> None:
    engine = PolicyEngine(
        [PolicyRule(ALLOW, tool_name="run_shell_command", command_prefix=("echo",))]
    )
    assert sh(engine, "echo $(rm -rf x)") is ASK
    assert sh(engine, "echo `rm -rf x`") is ASK
    assert sh(engine, "echo '$(literal)'") is ALLOW


def test_unbalanced_quotes_ask() -> None:
    engine = PolicyEngine(
        [PolicyRule(ALLOW, tool_name="run_shell_command", command_prefix=("echo",))]
    )
    assert sh(engine, "echo 'oops") is ASK


def test_every_simple_command_is_found() -> None:
    parts = analyze("a && b || c; d | e |& f & g\nh").commands
    assert [p.text for p in parts] == ["a", "b", "c", "d", "e", "f", "g", "h"]
    assert [p.text for p in analyze("echo 'a;b' \"c&&d\"").commands] == ["echo 'a;b' 'c&&d'"]
    assert has_redirection("cat < in")
    assert has_redirection("make 2>&1")
    assert not has_redirection("echo 'a > b'")


# -- remembered approvals -----------------------------------------------------------------


def test_allow_once_changes_nothing_and_session_rules_allow_the_root_command() -> None:
    engine = PolicyEngine()
    assert sh(engine, "git status") is ASK
    added = engine.allow_for_session(SHELL, {"command": "git status -s"})
    assert [r.command_prefix for r in added] == [("git status",)]
    assert added[0].source == "session"
    assert sh(engine, "git status") is ALLOW
    assert sh(engine, "git push") is ASK
    engine.allow_for_session(SHELL, {"command": "ls -la && npm test"})
    assert sh(engine, "ls src") is ALLOW
    assert sh(engine, "npm test -- -k x") is ALLOW
    assert sh(engine, "npm publish") is ASK
    engine.allow_for_session(WRITE, {"file_path": "a"}, "every")
    assert engine.decide(WRITE, {"file_path": "b"}, "default").decision is ALLOW
    assert {r.source for r in engine.rules(session=True)} == {"session"}
    assert all(r.source != "session" for r in engine.rules(session=False))
    for rule in engine.rules(session=True):
        engine.remove_rule(rule)
    assert sh(engine, "git status") is ASK
    assert engine.decide(WRITE, {}, "default").decision is ASK


def test_allow_always_is_saved_and_honoured_after_a_restart(tmp_path: Path) -> None:
    policy_file = tmp_path / "conf" / "policy.toml"
    engine = PolicyEngine(user_policy_file=policy_file)
    engine.allow_always(SHELL, {"command": "cargo build --release"})
    engine.allow_always(REPLACE, {"file_path": "x"}, scope="every")
    assert sh(engine, "cargo build") is ALLOW
    assert policy_file.exists()

    again = PolicyEngine(user_policy_file=policy_file)
    assert sh(again, "cargo build") is ALLOW
    assert sh(again, "cargo publish") is ASK
    assert again.decide(REPLACE, {}, "default").decision is ALLOW
    saved = [r for r in again.rules() if r.source == "user"]
    assert len(saved) == 2

    again.remove_rule(saved[0])
    third = PolicyEngine(user_policy_file=policy_file)
    assert len([r for r in third.rules() if r.source == "user"]) == 1


def test_allow_always_keeps_what_a_person_wrote(tmp_path: Path) -> None:
    policy_file = tmp_path / "policy.toml"
    policy_file.write_text('# mine\n[[rule]]\ntoolName = "web_fetch"\ndecision = "deny"\n')
    engine = PolicyEngine(user_policy_file=policy_file)
    engine.allow_always(READ, {})
    text = policy_file.read_text()
    assert text.startswith("# mine")
    assert len(load_policy_file(policy_file)) == 2


def test_policy_file_keys(tmp_path: Path) -> None:
    path = tmp_path / "p.toml"
    path.write_text(
        """
[[rule]]
toolName = ["write_file", "replace"]
decision = "ask_user"
priority = 100
modes = ["auto_edit"]

[[rule]]
commandPrefix = ["git status", "git diff"]
decision = "allow"
allowRedirection = true

[[rule]]
mcpName = "github"
decision = "deny"
denyMessage = "no github"
"""
    )
    rules = load_policy_file(path)
    assert [r.tool_name for r in rules] == ["write_file", "replace", "run_shell_command", "*"]
    engine = PolicyEngine(rules)
    assert engine.decide(WRITE, {}, "auto_edit").decision is ASK
    assert sh(engine, "git diff HEAD > patch") is ALLOW
    verdict = engine.decide(MCP, {}, "default")
    assert verdict.decision is DENY
    assert verdict.reason == "no github"


@pytest.mark.parametrize(
    "text",
    [
        "[[rule]\ntoolName = 'x'",
        '[[rule]]\ntoolName = "x"\ndecision = "maybe"\n',
        '[[rule]]\ndecision = "allow"\n',
        '[[rule]]\ntoolName = "x"\ndecision = "allow"\npriority = "high"\n',
        '[[rule]]\ntoolName = "x"\ndecision = "allow"\nargsPattern = "("\n',
        '[[rule]]\ntoolName = "x"\ndecision = "allow"\ntoolNmae = "y"\n',
        '[[rule]]\ntoolName = "x"\ndecision = "allow"\nmodes = ["turbo"]\n',
        'rule = "x"\n',
    ],
)
def test_malformed_policy_file_is_fatal_and_names_the_file(tmp_path: Path, text: str) -> None:
    path = tmp_path / "broken.toml"
    path.write_text(text)
    with pytest.raises(FatalConfigError) as info:
        PolicyEngine(user_policy_file=path)
    assert str(path) in info.value.message
    assert info.value.exit_code == 52


def test_missing_policy_file_is_fine(tmp_path: Path) -> None:
    engine = PolicyEngine(user_policy_file=tmp_path / "none.toml")
    assert engine.decide(READ, {}, "default").decision is ALLOW


# -- tools removed from what the model is offered ----------------------------------------


def test_denied_tool_names() -> None:
    names = ["read_file", "write_file", "run_shell_command", "web_fetch"]
    engine = PolicyEngine(
        [
            PolicyRule(DENY, tool_name="web_fetch"),
            PolicyRule(DENY, tool_name="write_file", modes=("plan",)),
            PolicyRule(DENY, tool_name="run_shell_command", command_prefix=("rm",)),
        ]
    )
    assert engine.denied_tool_names(names, "default") == {"web_fetch"}
    assert engine.denied_tool_names(names, "plan") == {"web_fetch", "write_file"}
    assert engine.decide(FETCH, {}, "yolo").decision is DENY
    assert PolicyEngine().denied_tool_names(names, "default") == set()


def test_a_higher_conditional_allow_keeps_a_denied_tool_offered() -> None:
    engine = PolicyEngine(
        [
            PolicyRule(DENY, tool_name="write_file"),
            PolicyRule(ALLOW, tool_name="write_file", args_pattern="docs/", priority=5),
        ]
    )
    assert engine.denied_tool_names(["write_file"], "default") == set()


# -- shell syntax, saved rules, paths ------------------------------------------------------


def test_the_saved_rule_is_what_the_preview_shows_never_an_assignment() -> None:
    engine = PolicyEngine()
    added = engine.allow_for_session(SHELL, {"command": "CI=1 npm test"})
    assert [r.command_prefix for r in added] == [("npm test",)]
    assert [r.summary() for r in engine.suggested_rules(SHELL, {"command": "CI=1 npm test"})] == [
        "npm test"
    ]
    assert sh(engine, "npm test") is ALLOW
    assert sh(engine, "CI=1 npm test") is ALLOW
    assert sh(engine, "CI=1 ls") is ASK  # the assignment never became a rule
    assert sh(engine, "GIT_CONFIG_COUNT=1 npm test") is ASK
    assert sh(engine, "PATH=./evil:$PATH npm test") is ASK
    assert engine.suggested_rules(SHELL, {"command": "$x -f f"}) == []


def test_hidden_commands_run_in_yolo_only_when_no_deny_rule_could_match() -> None:
    hidden = "$x -f f"
    assert sh(PolicyEngine(), hidden, "yolo") is ALLOW
    assert sh(PolicyEngine(), hidden) is ASK
    deny = PolicyEngine([PolicyRule(DENY, tool_name="run_shell_command", command_prefix=("rm",))])
    verdict = deny.decide(SHELL, {"command": hidden}, "yolo")
    assert verdict.decision is ASK
    assert "deny rule" in verdict.reason
    assert sh(deny, "ls -la", "yolo") is ALLOW
    assert sh(deny, "rm $opts victim", "yolo") is DENY
    deny_words = PolicyEngine(
        [PolicyRule(DENY, tool_name="run_shell_command", command_prefix=("git push",))]
    )
    assert sh(deny_words, "git $action origin", "yolo") is DENY  # could be push
    assert sh(deny_words, "git status", "yolo") is ALLOW
    # shell text handed to awk, sed, git aliases, tar or an interpreter names the program
    assert sh(deny, "awk 'BEGIN{system(\"/bin/rm -f f\")}'", "yolo") is ASK
    assert sh(deny_words, "git -c alias.p='!git push' p", "yolo") is ASK
    for fine in ("git rm --cached f", "ls rm.txt ./rm-old", "echo git pushed"):
        assert sh(deny, fine, "yolo") is ALLOW, fine
        assert sh(deny_words, fine, "yolo") is ALLOW, fine


def test_args_pattern_sees_the_normalised_workspace_relative_path(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "src").mkdir()
    (tmp_path / "docs" / "link").symlink_to(tmp_path / "src")
    engine = PolicyEngine(
        [PolicyRule(ALLOW, tool_name="write_file", args_pattern='"file_path":"docs/')],
        workspace_root=tmp_path,
    )

    def write(path: str) -> PolicyDecision:
        return engine.decide(WRITE, {"file_path": path, "content": "x"}, "default").decision

    assert write("docs/guide.md") is ALLOW
    assert write("./docs/guide.md") is ALLOW
    assert write(str(tmp_path / "docs" / "guide.md")) is ALLOW
    assert write("docs/../src/main.py") is ASK
    assert write("docs/link/main.py") is ASK  # a symlink into src/


def test_writes_into_protected_places_always_ask_outside_yolo(tmp_path: Path) -> None:
    (tmp_path / ".git" / "hooks").mkdir(parents=True)
    (tmp_path / "sub").mkdir()
    (tmp_path / "gitlink").symlink_to(tmp_path / ".git")
    (tmp_path / "bare" / "refs").mkdir(parents=True)
    (tmp_path / "bare" / "HEAD").write_text("ref: refs/heads/main\n")
    config = tmp_path / "home" / "config"
    user_allows_writes = PolicyRule(ALLOW, tool_name="write_file")
    engine = PolicyEngine([user_allows_writes], workspace_root=tmp_path, protected_dirs=(config,))
    protected = [
        ".git/config",
        "./.git/../.git/config",
        "sub/../.git/hooks/pre-commit",
        "gitlink/hooks/post-checkout",
        ".gemtui/config.toml",
        ".gemtui/policy.toml",
        "vendor/lib/.git/config",
        "bare/config",
        "bare/refs/heads/x",
        "sub/HEAD",
        "new/dir/HEAD",
        str(tmp_path / ".git" / "config"),
        str(config / "policy.toml"),
    ]
    for path in protected:
        for mode in ("default", "auto_edit"):
            verdict = engine.decide(WRITE, {"file_path": path, "content": "x"}, mode)
            assert verdict.decision is ASK, (path, mode, verdict.reason)
            assert "protected" in verdict.reason
        builtin = PolicyEngine(workspace_root=tmp_path, protected_dirs=(config,))
        assert builtin.decide(REPLACE, {"file_path": path}, "auto_edit").decision is ASK
        assert engine.decide(WRITE, {"file_path": path}, "yolo").decision is ALLOW
        assert engine.decide(WRITE, {"file_path": path}, "plan").decision is DENY
    assert engine.decide(WRITE, {"file_path": "src/.gitignore"}, "default").decision is ALLOW
    assert engine.decide(WRITE, {"file_path": ".github/x.yml"}, "auto_edit").decision is ALLOW
    assert engine.decide(WRITE, {"file_path": "sub/config"}, "auto_edit").decision is ALLOW
    assert engine.decide(READ, {"file_path": ".git/config"}, "default").decision is ALLOW


@pytest.mark.parametrize(
    "command",
    [
        "echo " + "$(echo " * 20000 + "x" + ")" * 20000,
        "echo " + "$(echo " * 30 + "'$(' \\`x " * 20000 + ")" * 30,
        "echo " + "$(echo " * 45 + " \\`x " * 5000 + ")" * 45,
    ],
    ids=["nested-20000", "deep-and-wide-180KB", "deep-and-wide-30KB"],
)
def test_huge_or_deep_commands_are_decided_in_bounded_time(command: str) -> None:
    """These took 20 s, 75 s and 3 s: lookups from the root, each as deep as the tree."""
    engine = PolicyEngine(
        [PolicyRule(ALLOW, tool_name="run_shell_command", command_prefix=("echo",))]
    )
    # CPU time, not wall time: a busy machine must not fail this, a slow lookup must
    start = time.process_time()
    verdict = engine.decide(SHELL, {"command": command}, "default")
    assert time.process_time() - start < 2.5
    assert verdict.decision is not DENY


def test_deeply_nested_or_huge_commands_ask_with_a_short_reason() -> None:
    engine = PolicyEngine(
        [PolicyRule(ALLOW, tool_name="run_shell_command", command_prefix=("echo",))]
    )
    nested = "echo " + "$(echo " * 400 + "x" + ")" * 400
    verdict = engine.decide(SHELL, {"command": nested}, "default")
    assert verdict.decision is ASK
    assert "too deeply" in verdict.reason
    long_name = "$" + "{x:=" + "a" * 5000 + "}"
    verdict = engine.decide(SHELL, {"command": long_name}, "default")
    assert verdict.decision is ASK
    assert len(verdict.reason) < 300
