"""Agent Skills through the real `gemtui -p` against the wire-faithful mock server.

Each recorded request shows what that model call carried: the system instruction (where
only a skill's name and description may appear), the tools (``activate_skill`` with the
enabled skills' names) and the function responses (the body and the file list, once the
model activated a skill).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from gemtui.testing import MockLLMServer

from .helpers import gemtui_env, run_gemtui, write_fast_config


def skill_md(name: str, description: str, body: str) -> str:
    return f"---\nname: {name}\ndescription: {description}\n---\n{body}\n"


def plant(root: Path, name: str, description: str, body: str) -> Path:
    """A skill folder ``root/name`` with its SKILL.md and a reference file."""
    folder = root / name
    (folder / "references").mkdir(parents=True)
    (folder / "SKILL.md").write_text(skill_md(name, description, body), encoding="utf-8")
    (folder / "references" / "guide.md").write_text("GUIDE-TEXT\n", encoding="utf-8")
    return folder


def _env(home: Path, url: str | None = None) -> dict[str, str]:
    env = gemtui_env(home, url)
    env["HOME"] = str(home / "person")  # ~/.gemini/skills lives here
    return env


def _person(home: Path) -> Path:
    return home / "person"


def _system(request: Any) -> str:
    parts = (request.json.get("systemInstruction") or {}).get("parts", [])
    return "".join(p.get("text", "") for p in parts)


def _declaration(request: Any, name: str) -> dict[str, Any] | None:
    return next(
        (
            d
            for t in request.json.get("tools", [])
            for d in t.get("functionDeclarations", [])
            if d["name"] == name
        ),
        None,
    )


def _response(request: Any, call_id: str) -> dict[str, Any]:
    for part in request.json["contents"][-1]["parts"]:
        fr = part.get("functionResponse")
        if fr is not None and fr["id"] == call_id:
            return dict(fr["response"])
    raise AssertionError(f"no response to {call_id}")


def _call(name: str, args: dict[str, Any], call_id: str) -> dict[str, Any]:
    return {"function_calls": [{"name": name, "args": args, "id": call_id}]}


def test_activated_skill_body_and_files_join_the_next_request_and_its_folder_reads(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    folder = plant(
        _person(isolated_home) / ".gemini" / "skills",
        "pdf-tools",
        "Fill and merge PDF forms (PDF-DESCRIPTION).",
        "SECRET-BODY: run scripts/fill.py",
    )
    mock_llm_thread.enqueue(
        _call("activate_skill", {"name": "pdf-tools"}, "a1"),
        _call("read_file", {"file_path": str(folder / "references" / "guide.md")}, "r1"),
        # the folder is readable, never writable
        _call("write_file", {"file_path": str(folder / "SKILL.md"), "content": "PWNED"}, "w1"),
        {"text": "done"},
    )
    proc = run_gemtui(
        ["-p", "fill my form", "-y"], env=_env(isolated_home, mock_llm_thread.url), cwd=workspace
    )
    assert proc.returncode == 0, proc.stderr
    first, second, third, fourth = mock_llm_thread.requests
    system = _system(first)
    assert "pdf-tools: Fill and merge PDF forms (PDF-DESCRIPTION)." in system
    assert "SECRET-BODY" not in system  # only name and description before activation
    declaration = _declaration(first, "activate_skill")
    assert declaration is not None
    schema = declaration.get("parametersJsonSchema") or declaration.get("parameters")
    assert schema["properties"]["name"]["enum"] == ["pdf-tools"]
    output = json.dumps(_response(second, "a1"))
    assert "SECRET-BODY: run scripts/fill.py" in output
    assert "references/guide.md" in output  # the folder's file list
    assert "GUIDE-TEXT" in json.dumps(_response(third, "r1"))
    refused = _response(fourth, "w1")
    assert "error" in refused
    assert "may read but not change" in refused["error"]
    assert "PWNED" not in (folder / "SKILL.md").read_text(encoding="utf-8")


def test_without_activation_the_skill_folder_is_outside_the_workspace(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    """The control: the read above works only because activation opened the folder."""
    write_fast_config(isolated_home)
    folder = plant(_person(isolated_home) / ".gemini" / "skills", "pdf-tools", "PDF.", "BODY")
    mock_llm_thread.enqueue(
        _call("read_file", {"file_path": str(folder / "references" / "guide.md")}, "r1"),
        {"text": "done"},
    )
    proc = run_gemtui(
        ["-p", "go", "-y"], env=_env(isolated_home, mock_llm_thread.url), cwd=workspace
    )
    assert proc.returncode == 0, proc.stderr
    refused = _response(mock_llm_thread.requests[1], "r1")
    assert "outside the workspace" in refused["error"]


def test_untrusted_workspace_skills_are_not_offered_and_trusted_ones_are(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    plant(workspace / ".agents" / "skills", "repo-skill", "REPO-DESCRIPTION.", "REPO-BODY")
    mock_llm_thread.enqueue(_call("activate_skill", {"name": "repo-skill"}, "a1"), {"text": "x"})
    proc = run_gemtui(
        ["-p", "go", "-y"], env=_env(isolated_home, mock_llm_thread.url), cwd=workspace
    )
    assert proc.returncode == 0, proc.stderr
    untrusted, answer = mock_llm_thread.requests
    assert "REPO-DESCRIPTION" not in _system(untrusted)
    assert _declaration(untrusted, "activate_skill") is None
    assert "REPO-BODY" not in json.dumps(answer.json)
    # the control: the same folder, trusted, offers it
    mock_llm_thread.enqueue({"text": "y"})
    proc = run_gemtui(
        ["-p", "go", "-y", "--trust-workspace"],
        env=_env(isolated_home, mock_llm_thread.url),
        cwd=workspace,
    )
    assert proc.returncode == 0, proc.stderr
    assert "repo-skill: REPO-DESCRIPTION." in _system(mock_llm_thread.requests[-1])


def test_agents_alias_wins_over_gemini_within_the_workspace_tier(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    plant(workspace / ".gemini" / "skills", "review", "FROM-GEMINI.", "GEMINI-BODY")
    plant(workspace / ".agents" / "skills", "review", "FROM-AGENTS.", "AGENTS-BODY")
    plant(_person(isolated_home) / ".agents" / "skills", "review", "FROM-USER.", "USER-BODY")
    mock_llm_thread.enqueue({"text": "ok"})
    proc = run_gemtui(
        ["-p", "go", "--trust-workspace"],
        env=_env(isolated_home, mock_llm_thread.url),
        cwd=workspace,
    )
    assert proc.returncode == 0, proc.stderr
    system = _system(mock_llm_thread.requests[0])
    assert "review: FROM-AGENTS." in system
    assert "FROM-GEMINI" not in system
    assert "FROM-USER" not in system


def test_malformed_skill_is_named_with_file_and_line_and_the_others_still_load(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home)
    root = _person(isolated_home) / ".gemini" / "skills"
    plant(root, "good", "GOOD-DESCRIPTION.", "body")
    (root / "broken").mkdir()
    (root / "broken" / "SKILL.md").write_text(
        "---\nname: broken\ndescription: [unclosed\n---\nbody\n", encoding="utf-8"
    )
    (root / "nameless").mkdir()
    (root / "nameless" / "SKILL.md").write_text(
        "---\ndescription: no name here\n---\nbody\n", encoding="utf-8"
    )
    mock_llm_thread.enqueue({"text": "ok"})
    proc = run_gemtui(["-p", "go"], env=_env(isolated_home, mock_llm_thread.url), cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    assert f"{root / 'broken' / 'SKILL.md'}:3:" in proc.stderr
    assert f"{root / 'nameless' / 'SKILL.md'}:1: a 'name' is required" in proc.stderr
    assert "good: GOOD-DESCRIPTION." in _system(mock_llm_thread.requests[0])


def test_disabled_skill_is_not_offered(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    write_fast_config(isolated_home, '\n[skills]\ndisabled = ["off"]\n')
    root = _person(isolated_home) / ".gemini" / "skills"
    plant(root, "off", "OFF-DESCRIPTION.", "body")
    plant(root, "on", "ON-DESCRIPTION.", "body")
    mock_llm_thread.enqueue({"text": "ok"})
    proc = run_gemtui(["-p", "go"], env=_env(isolated_home, mock_llm_thread.url), cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    first = mock_llm_thread.requests[0]
    assert "OFF-DESCRIPTION" not in _system(first)
    assert "ON-DESCRIPTION" in _system(first)
    declaration = _declaration(first, "activate_skill")
    assert declaration is not None
    schema = declaration.get("parametersJsonSchema") or declaration.get("parameters")
    assert schema["properties"]["name"]["enum"] == ["on"]


# -- gemtui skills list | install | uninstall ---------------------------------------------


def _skills(home: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_gemtui(["skills", *args], env=_env(home), cwd=cwd)


def test_skills_cli_install_list_json_and_uninstall(
    isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    source = plant(tmp_path / "src", "lint-fix", "Fix lint errors (LINT).", "LINT-BODY")
    proc = _skills(isolated_home, workspace, "install", str(source))
    assert proc.returncode == 0, proc.stderr
    installed = _person(isolated_home) / ".gemini" / "skills" / "lint-fix"
    assert (installed / "SKILL.md").read_text(encoding="utf-8").endswith("LINT-BODY\n")
    assert (installed / "references" / "guide.md").is_file()
    proc = _skills(isolated_home, workspace, "list", "--json")
    assert proc.returncode == 0, proc.stderr
    [entry] = json.loads(proc.stdout)
    assert entry == {
        "name": "lint-fix",
        "description": "Fix lint errors (LINT).",
        "path": str(installed.resolve()),
        "source": "user",
        "enabled": True,
    }
    again = _skills(isolated_home, workspace, "install", str(source))
    assert again.returncode == 42
    assert "already installed" in again.stderr
    proc = _skills(isolated_home, workspace, "uninstall", "lint-fix")
    assert proc.returncode == 0, proc.stderr
    assert not installed.exists()
    assert json.loads(_skills(isolated_home, workspace, "list", "--json").stdout) == []
    missing = _skills(isolated_home, workspace, "uninstall", "lint-fix")
    assert missing.returncode == 42
    assert "lint-fix" in missing.stderr


def test_skills_cli_install_refuses_a_malformed_skill_naming_its_line(
    isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    source = tmp_path / "bad"
    source.mkdir()
    (source / "SKILL.md").write_text("---\nname: bad\n---\nbody\n", encoding="utf-8")
    proc = _skills(isolated_home, workspace, "install", str(source))
    assert proc.returncode == 42
    assert f"{source / 'SKILL.md'}:1: a 'description' is required" in proc.stderr
    assert not (_person(isolated_home) / ".gemini" / "skills" / "bad").exists()


def test_skills_cli_list_leaves_out_an_untrusted_workspace(
    isolated_home: Path, workspace: Path
) -> None:
    plant(workspace / ".gemini" / "skills", "repo-skill", "REPO.", "body")
    proc = _skills(isolated_home, workspace, "list", "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == []
    proc = _skills(isolated_home, workspace, "list")
    assert "not trusted" in proc.stdout


def test_extension_and_claude_code_skills_are_found_and_a_higher_tier_wins(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    from gemtui.extensions import ExtensionStore

    write_fast_config(isolated_home)
    ext = tmp_path / "ext"
    ext.mkdir()
    (ext / "gemini-extension.json").write_text('{"name": "helper", "version": "1.0.0"}')
    plant(ext / "skills", "ext-skill", "FROM-EXTENSION.", "body")
    plant(ext / "skills", "shared", "SHARED-FROM-EXTENSION.", "body")
    ExtensionStore().install(str(ext))
    plant(_person(isolated_home) / ".claude" / "skills", "claude-user", "CLAUDE-USER.", "b")
    plant(_person(isolated_home) / ".gemini" / "skills", "shared", "SHARED-FROM-USER.", "b")
    plant(workspace / ".claude" / "skills", "claude-ws", "CLAUDE-WORKSPACE.", "body")
    mock_llm_thread.enqueue({"text": "ok"})
    proc = run_gemtui(
        ["-p", "go", "--trust-workspace"],
        env=_env(isolated_home, mock_llm_thread.url),
        cwd=workspace,
    )
    assert proc.returncode == 0, proc.stderr
    system = _system(mock_llm_thread.requests[0])
    assert "ext-skill: FROM-EXTENSION." in system
    assert "claude-user: CLAUDE-USER." in system
    assert "claude-ws: CLAUDE-WORKSPACE." in system
    assert "shared: SHARED-FROM-USER." in system  # the user's tier is above extensions'
    assert "SHARED-FROM-EXTENSION" not in system


def test_a_link_in_an_activated_skill_cannot_reach_outside_its_folder(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    write_fast_config(isolated_home)
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET\n")
    folder = plant(_person(isolated_home) / ".gemini" / "skills", "linky", "Links.", "body")
    (folder / "leak.txt").symlink_to(secret)
    # the control: a link that stays inside the folder reads, so links as such work
    (folder / "inside.txt").symlink_to(folder / "references" / "guide.md")
    mock_llm_thread.enqueue(
        _call("activate_skill", {"name": "linky"}, "a1"),
        {
            "function_calls": [
                {"name": "read_file", "args": {"file_path": str(folder / "leak.txt")}, "id": "r1"},
                {
                    "name": "read_file",
                    "args": {"file_path": str(folder / "inside.txt")},
                    "id": "r2",
                },
            ]
        },
        {"text": "done"},
    )
    proc = run_gemtui(
        ["-p", "go", "-y"], env=_env(isolated_home, mock_llm_thread.url), cwd=workspace
    )
    assert proc.returncode == 0, proc.stderr
    last = mock_llm_thread.requests[-1]
    assert "TOP-SECRET" not in json.dumps(last.json)
    assert "error" in _response(last, "r1")
    assert "GUIDE-TEXT" in json.dumps(_response(last, "r2"))


def test_activate_skill_in_headless_default_mode_needs_approval(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    """It asks like any tool that is not read-only: headless, nothing can answer, so the
    body never reaches the model."""
    write_fast_config(isolated_home)
    plant(_person(isolated_home) / ".gemini" / "skills", "pdf-tools", "PDF.", "SECRET-BODY")
    mock_llm_thread.enqueue(_call("activate_skill", {"name": "pdf-tools"}, "a1"), {"text": "x"})
    proc = run_gemtui(["-p", "go"], env=_env(isolated_home, mock_llm_thread.url), cwd=workspace)
    assert "activate_skill was not run: it needs approval" in proc.stderr
    assert "SECRET-BODY" not in json.dumps([r.json for r in mock_llm_thread.requests])


async def test_skills_command_over_acp_lists_and_disables_without_a_model_call(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path
) -> None:
    from acp import PROTOCOL_VERSION, text_block

    from .acp_client import EditorClient, acp_agent, editor_caps

    write_fast_config(isolated_home)
    plant(_person(isolated_home) / ".gemini" / "skills", "pdf-tools", "PDF-DESC.", "body")
    mock_llm_thread.enqueue({"text": "hi"})
    client = EditorClient()
    env = _env(isolated_home, mock_llm_thread.url)
    async with acp_agent(client, env=env, cwd=workspace) as (conn, _):
        await conn.initialize(protocol_version=PROTOCOL_VERSION, client_capabilities=editor_caps())
        new = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        await conn.prompt(session_id=new.session_id, prompt=[text_block("/skills list")])
        await conn.prompt(
            session_id=new.session_id, prompt=[text_block("/skills disable pdf-tools")]
        )
        await conn.prompt(session_id=new.session_id, prompt=[text_block("hi")])
    offered = client.of_kind("available_commands_update")
    assert "skills" in {c.name for c in offered[0].available_commands}
    said = client.text()
    assert "pdf-tools (user, enabled)" in said
    assert "Skill pdf-tools disabled." in said
    [request] = mock_llm_thread.requests  # the commands made no model call
    assert "PDF-DESC" not in _system(request)


def test_a_sandboxed_command_reaches_an_activated_skill_folder_read_only(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    """Under ``-s`` the home is hidden; an activated skill's scripts still run from it,
    and still cannot change it. The control: before activation the folder is not there."""
    write_fast_config(isolated_home)
    person = tmp_path / "person"  # a home outside gemtui's own folders (hidden in the box)
    folder = plant(person / ".gemini" / "skills", "tool", "Tool.", "body")
    guide = folder / "references" / "guide.md"
    shell = "run_shell_command"
    mock_llm_thread.enqueue(
        _call(shell, {"command": f"cat {guide}"}, "before"),
        _call("activate_skill", {"name": "tool"}, "a1"),
        _call(shell, {"command": f"cat {guide}"}, "after"),
        _call(shell, {"command": f"echo PWNED > {guide}"}, "write"),
        {"text": "done"},
    )
    env = {**_env(isolated_home, mock_llm_thread.url), "HOME": str(person)}
    proc = run_gemtui(["-p", "go", "-y", "-s"], env=env, cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    requests = mock_llm_thread.requests
    assert "GUIDE-TEXT" not in json.dumps(_response(requests[1], "before"))
    assert "GUIDE-TEXT" in json.dumps(_response(requests[3], "after"))
    assert "Read-only file system" in json.dumps(_response(requests[4], "write"))
    assert guide.read_text() == "GUIDE-TEXT\n"


def test_skills_cli_uninstall_of_a_linked_skill_keeps_its_folder(
    isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    source = plant(tmp_path / "mine", "draft", "A skill I am writing.", "DRAFT-BODY")
    root = _person(isolated_home) / ".gemini" / "skills"
    root.mkdir(parents=True)
    (root / "draft").symlink_to(source, target_is_directory=True)
    assert json.loads(_skills(isolated_home, workspace, "list", "--json").stdout)[0]["name"] == (
        "draft"
    )
    proc = _skills(isolated_home, workspace, "uninstall", "draft")
    assert proc.returncode == 0, proc.stderr
    assert not (root / "draft").exists()
    assert (source / "SKILL.md").read_text(encoding="utf-8").endswith("DRAFT-BODY\n")
