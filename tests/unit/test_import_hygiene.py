"""The engine is a library: importing it never pulls in Textual (or Rich)."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import gemtui

ENGINE_MODULES = [
    "gemtui.agent",
    "gemtui.agent.session",
    "gemtui.agent.executor",
    "gemtui.headless",
    "gemtui.store",
    "gemtui.bus",
    "gemtui.chat",
    "gemtui.providers.gemini",
    "gemtui.scheduler",
    "gemtui.tools.registry",
    "gemtui.mcp.tools",
    "gemtui.wire.schema",
    "mcp.client.stdio",
    "mcp.client.streamable_http",
    "gemtui.cli",
    "gemtui.worktrees",
]


def test_engine_does_not_import_textual_or_rich() -> None:
    code = (
        "import importlib, sys\n"
        f"for m in {ENGINE_MODULES!r}: importlib.import_module(m)\n"
        "bad = sorted(k for k in sys.modules if k.split('.')[0] in ('textual', 'rich'))\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_version_imports_almost_nothing() -> None:
    code = "import sys; from gemtui.cli.main import main\ntry:\n  main(['--version'])\nexcept SystemExit: pass\nprint('pydantic' in sys.modules, 'httpx' in sys.modules, 'asyncio' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    # asyncio alone is ~50 ms: the bus (and everything async) loads only for a real run
    assert out.stdout.strip().splitlines()[-1] == "False False False"


def test_httpx_does_not_load_its_cli_inside_gemtui() -> None:
    """httpx imports click, rich and pygments for its CLI whenever click is installed (the
    mcp SDK brings click): gemtui registers a stand-in first, so none of them load."""
    code = (
        "import sys, gemtui, httpx\n"
        "print(getattr(sys.modules['httpx._main'], '__file__', None),"
        " [m for m in ('click', 'rich', 'pygments') if m in sys.modules])\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "None []"


def test_the_engine_contract_covers_every_package_but_the_views() -> None:
    """import-linter checks only the modules a contract names: a new package (auth, mcp…)
    left off the list could import the TUI unseen. Everything but the TUI and the command
    that launches it is a source of the "engine does not import the TUI" contract."""
    pyproject = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text())
    [engine] = [
        c
        for c in pyproject["tool"]["importlinter"]["contracts"]
        if c["name"] == "engine does not import the TUI"
    ]
    top_level = {
        f"gemtui.{p.stem}"
        for p in Path(gemtui.__file__).parent.iterdir()
        if (p.suffix == ".py" and p.stem != "__init__") or (p / "__init__.py").is_file()
    }
    views = {"gemtui.tui", "gemtui.cli", "gemtui.__main__"}
    # the command line's subcommands that launch no view are engine too
    cli_engine = {
        "gemtui.cli.auth",
        "gemtui.cli.extensions",
        "gemtui.cli.mcp",
        "gemtui.cli.parser",
        "gemtui.cli.checkpoints",
        "gemtui.cli.rewind",
    }
    assert set(engine["source_modules"]) == (top_level - views) | cli_engine


def test_the_layers_contract_places_every_package() -> None:
    """The layers contract (docs/architecture.md's table) binds only the packages it names:
    a new top-level package must be given its row, or it could import upward unseen."""
    pyproject = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text())
    [layers] = [c for c in pyproject["tool"]["importlinter"]["contracts"] if c["type"] == "layers"]
    placed = {name.strip() for row in layers["layers"] for name in row.split("|")}
    top_level = {
        f"gemtui.{p.stem}"
        for p in Path(gemtui.__file__).parent.iterdir()
        if (p.suffix == ".py" and p.stem != "__init__") or (p / "__init__.py").is_file()
    }
    assert placed == top_level


def test_the_tuis_first_frame_needs_neither_pydantic_nor_httpx(tmp_path: Path) -> None:
    """What runs before the first frame (trust, ``[ui]``, the app, its themes) must not
    import pydantic or httpx: about 100 ms each before anything is drawn. Settings are
    validated with the engine, after the frame."""
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "from gemtui.agent.assembly import RunOptions, trusted_run\n"
        "from gemtui.config.ui_choice import read_ui_choice\n"
        "from gemtui.tui.launch import build_app\n"
        "ws = Path(sys.argv[1])\n"
        "run = trusted_run(RunOptions(ws))\n"
        "ui = read_ui_choice(ws, trusted=run.trusted)\n"
        "app = build_app(None, run.options, ui=ui, trust=run.trust)\n"
        "print(sorted(m for m in ('pydantic', 'httpx') if m in sys.modules))"
    )
    env = {**os.environ, "GEMTUI_HOME": str(tmp_path / "home")}
    out = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path)],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    assert out.stdout.strip() == "[]", out.stderr


def test_the_view_models_do_not_import_textual_or_rich() -> None:
    """The rules of what the TUI shows run without a terminal: importing the view models,
    feeding them an event and splitting an answer into blocks load neither Textual nor
    Rich."""
    code = (
        "import sys\n"
        "from gemtui.bus.events import ContentDelta\n"
        "from gemtui.tui.view import ConversationView\n"
        "from gemtui.tui.view.markdown_blocks import split_blocks\n"
        "ConversationView().feed(ContentDelta(text='hi'))\n"
        "assert split_blocks('# a\\n\\n- b') == ['# a', '- b']\n"
        "bad = sorted(k for k in sys.modules if k.split('.')[0] in ('textual', 'rich'))\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


_OPTIONAL = (
    "gemtui.agent.next_speaker",
    "gemtui.providers.code_assist",
    "gemtui.tools.edit_fixer",
    "gemtui.checkpoints",  # with the first call that may change the workspace
    "pathspec",  # with the first ignore file a listing or a search reads
)


def _loaded_by_a_session_build(home: Path, workspace: Path, config: str) -> list[str]:
    """Which of ``_OPTIONAL`` a fresh process has loaded once it built a session."""
    (home / "config").mkdir(parents=True)
    (home / "config" / "config.toml").write_text(config)
    (workspace / ".gitignore").write_text("build/\n")  # there, but not read by the build
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "from gemtui.agent.assembly import RunOptions, trusted_run\n"
        "built = trusted_run(RunOptions(Path(sys.argv[1]), provider='local')).build()\n"
        f"print(' '.join(m for m in {_OPTIONAL!r} if m in sys.modules))\n"
        "built.close()\n"
    )
    env = {**os.environ, "GEMTUI_HOME": str(home)}
    out = subprocess.run(
        [sys.executable, "-c", code, str(workspace)],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    return out.stdout.split()


_LOCAL = '[providers.local]\nkind = "openai"\nbase_url = "http://127.0.0.1:9/v1"\n'


@pytest.mark.parametrize(
    ("extra", "loaded"),
    [
        ("", []),  # the default: none is part of the build before the first request
        ("[agent]\nnext_speaker_check = true\n", ["gemtui.agent.next_speaker"]),  # control
    ],
)
def test_the_engine_build_loads_only_what_the_session_uses(
    tmp_path: Path, extra: str, loaded: list[str]
) -> None:
    """The TUI builds the engine after the first frame, while the person types: the
    next-speaker check (off by default), the Code Assist provider (another provider here),
    the edit fixer (for an edit that missed), the checkpoints and the ignore-file matcher
    are not needed by the first request, so the build does not load them; the control
    turns the check on and it loads."""
    assert _loaded_by_a_session_build(tmp_path / "home", tmp_path, _LOCAL + extra) == loaded
