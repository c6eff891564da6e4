"""What each slash command does; ``GemtuiApp.run_slash`` dispatches here.

Handlers take the app as an ``AppSurface`` (declared below ``GemtuiApp``), so this
module never imports the app that imports it.

Commands whose backing feature is missing say so in a notification: never a fake success.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gemtui.modes import ApprovalMode
from gemtui.tui import slash_features as features
from gemtui.tui.slash_skills import skills
from gemtui.tui.slash_usage import usage
from gemtui.tui.store_opening import STILL_OPENING, hurry_store

if TYPE_CHECKING:
    from gemtui.tui.app_surface import AppSurface

__all__ = ["BY_NAME", "COMMANDS", "SlashCommand"]

MODES = tuple(ApprovalMode)


def _help(app: AppSurface, arg: str) -> None:
    from gemtui.tui.screens.dialogs import HelpScreen

    app.push_screen(HelpScreen(app.help_text()))


def _clear(app: AppSurface, arg: str) -> None:
    app.main.transcript.clear()
    if app.main.panes_mounted:  # else no thought has come yet
        app.main.thoughts.clear()
    app.notify(
        "Transcript cleared; the model still remembers the conversation "
        "(/new starts a fresh one, /compress shrinks it)."
    )


def _new(app: AppSurface, arg: str) -> None:
    app.controller.new_session()


def _compress(app: AppSurface, arg: str) -> None:
    if app.session is None:
        return
    if app.turn_running:
        app.notify("Wait for the turn to finish (or Esc) before compressing.", severity="warning")
        return
    if app.controller.compressing:
        app.notify("The history is being compressed already.")
        return
    if not app.session.history:
        app.notify("Nothing to compress yet: the conversation is empty.")
        return
    app.controller.compress()


def _model(app: AppSurface, arg: str) -> None:
    """``/model`` lists the models of every configured provider; ``/model [PROVIDER:]NAME``
    switches live, keeping the conversation."""
    from gemtui.agent.provider_choice import KNOWN_MODELS, list_models

    if app.session is None:
        return
    choices = list_models(app.controller.settings)
    if not arg:
        listed = ", ".join(f"{p}:{m}" for p, m in choices) or "none configured"
        app.notify(
            f"Model: {app.session.provider.name}:{app.session.model}. "
            f"Available: {listed}. /model [PROVIDER:]NAME switches."
        )
        return
    if app.turn_running:
        app.notify("Wait for the turn to finish before switching models.", severity="warning")
        return
    named, model = app.controller.settings.split_model(arg, app.session.provider.name)
    provider = named or ""
    if not provider:
        same = [p for p, m in choices if m == model]
        provider = app.session.provider.name if not same else same[0]
    known = [m for p, m in choices if p == provider]
    current = app.session.provider
    if provider == current.name:  # the one in use is always known, configured or not
        offered = list(current.settings.models) or list(KNOWN_MODELS.get(current.kind, ()))
        known += [m for m in [app.session.model, *offered] if m not in known]
    if model != "auto" and model not in known and not _names_its_own_models(app, provider):
        app.notify(
            f"{provider} has no model {model!r} that gemtui knows of "
            f"({', '.join(known) or 'none listed'}). To use another, add it to "
            f"[providers.{provider}] models in config.toml.",
            severity="warning",
            timeout=10,
        )
        return
    app.controller.switch_model(provider, model)


def _names_its_own_models(app: AppSurface, provider: str) -> bool:
    """An OpenAI-compatible server without a configured list (Ollama, vLLM…) serves
    models gemtui cannot know of: any name goes, and its first answer tells."""
    conf = app.controller.settings.providers.get(provider)
    if conf is None and app.session is not None and app.session.provider.name == provider:
        conf = app.session.provider.settings
    return conf is not None and conf.kind == "openai" and not conf.models


def _auth(app: AppSurface, arg: str) -> None:
    """``/auth``: sign in with Google (or again); the session goes on over code-assist.
    ``/auth vertex``: go on over Vertex AI with its variables (or say which to set)."""
    if app.turn_running:
        app.notify("Wait for the turn to finish before signing in.", severity="warning")
        return
    if arg.strip().lower() == "vertex":
        from gemtui.agent.provider_choice import vertex_ready
        from gemtui.tui.refused_flow import use_provider
        from gemtui.tui.screens.refused_account import VERTEX_VARIABLES

        if not vertex_ready():
            app.notify("Vertex AI: " + VERTEX_VARIABLES, severity="warning", timeout=12)
            return
        use_provider(app, "vertex")
        return
    app.controller.sign_in()


def _approval_mode(app: AppSurface, arg: str) -> None:
    if app.session is None:
        return
    if not arg:
        app.notify(f"Approval mode: {app.session.approval_mode} (one of {', '.join(MODES)}).")
    elif arg in MODES:
        app.request_approval_mode(arg, on_purpose=True)  # a whole command typed
    else:
        app.notify(f"Unknown approval mode {arg!r}; use {', '.join(MODES)}.", severity="warning")


def _sessions(app: AppSurface, arg: str) -> None:
    if app.controller.store is None:
        if hurry_store(app.controller):
            app.notify(STILL_OPENING)
            return
        unavailable = (
            app.controller.assembled.attachment.unavailable if app.controller.assembled else None
        )
        why = f" ({unavailable})" if unavailable else "; see the log"
        app.notify(f"The session store could not be opened{why}.", severity="warning")
        return
    from gemtui.tui.screens.sessions import SessionsScreen
    from gemtui.tui.slash_usage import own_prices

    def chosen(session_id: str | None) -> None:
        if session_id:
            app.controller.resume_session(session_id)

    current = app.session.id if app.session is not None else None
    app.push_screen(
        SessionsScreen(
            app.controller.store,
            workspace=app.controller.workspace,
            protected_id=current,
            prices=own_prices(app),
        ),
        chosen,
    )


def _stats(app: AppSurface, arg: str) -> None:
    if not app.main.panes_mounted:  # typed while gemtui starts: no turn has run
        features.report(app, "No model turns yet.")
        return
    usage = app.main.usage
    s = usage.session
    cost = f", cost ${usage.cost:.4f}" if usage.priced else ""
    app.remove_class("-hide-usage")
    features.report(
        app,
        f"{len(usage.per_turn)} model turns: in {s.input:,}, out {s.output:,}, "
        f"thoughts {s.thoughts:,}, cached {s.cached:,}{cost}."
        + "".join(f"\n{line}" for line in [*usage.account_lines(), *usage.limit_lines()]),
    )


def _copy(app: AppSurface, arg: str) -> None:
    transcript = app.main.transcript
    if arg.startswith("code"):
        text = transcript.last_code_block()
        what = "code block"
    else:
        text = transcript.answer_text() or next(
            (t for role, t in reversed(transcript.messages()) if role in ("model", "assistant")),
            None,
        )
        what = "answer"
    if not text:
        app.notify(f"There is no {what} to copy yet.", severity="warning")
        return
    app.copy_to_clipboard(text)
    app.notify(f"Copied the last {what} ({len(text):,} characters).")


def _permissions(app: AppSurface, arg: str) -> None:
    if app.session is None:
        return
    from gemtui.tui.screens.dialogs import PermissionsScreen

    app.push_screen(PermissionsScreen(app.session.permission_rules()))


def _mcp(app: AppSurface, arg: str) -> None:
    """``/mcp`` opens the servers' view; ``/mcp restart|disable|enable NAME`` acts on one."""
    tools = app.session.mcp if app.session is not None else None
    if tools is None:
        app.notify("No MCP servers configured ([mcpServers.NAME] in config.toml).")
        return
    manager = tools.manager
    action, _, name = arg.partition(" ")
    if not action:
        from gemtui.tui.screens.mcp import McpScreen

        app.push_screen(McpScreen(manager))
        return
    name = name.strip()
    if action not in ("restart", "disable", "enable") or manager.state(name) is None:
        known = ", ".join(s.name for s in manager.states())
        app.notify(
            f"Usage: /mcp [restart|disable|enable NAME] (servers: {known})", severity="warning"
        )
        return

    async def act() -> None:
        if action == "disable":
            await manager.disable(name)
        else:
            await manager.restart(name)
            await manager.wait_ready()
        state = manager.state(name)
        app.notify(
            f"MCP server {name}: {state.status if state else 'gone'}"
            + (f" - {state.reason}" if state and state.reason else "")
        )

    app.run_worker(act(), group="mcp")


def _memory(app: AppSurface, arg: str) -> None:
    """``/memory show|refresh|add FACT``: the context files loaded, read them again, or
    append the fact the person typed to the user's GEMINI.md."""
    if app.session is None:
        return
    session = app.session
    action, _, fact = arg.strip().partition(" ")
    if action in ("", "show"):
        features.report(app, session.context_files.summary())
    elif action == "refresh":
        files = session.refresh_context()
        app.notify(f"Context files read again: {len(files.files)} loaded.")
    elif action == "add" and fact.strip():
        # The person typed the fact: that is the consent. No editor opens, so keys typed
        # right after (the next command) land in the prompt, never in a dialog.
        try:
            path = session.add_memory(fact.strip())
        except (OSError, ValueError) as exc:
            app.notify(f"Could not save the memory: {exc}", severity="error")
            return
        app.notify(f"Added to {path} (under 'Gemini Added Memories'); /memory show lists it.")
    else:
        app.notify("Usage: /memory show | refresh | add FACT", severity="warning")


def _rewind(app: AppSurface, arg: str) -> None:
    from gemtui.tui.rewind_flow import open_rewind

    open_rewind(app)


def _quit(app: AppSurface, arg: str) -> None:
    app.exit(0)


def mcp_prompt(app: AppSurface, name: str, arg: str) -> bool:
    """``/server:prompt [value …| name=value …]``: the MCP server's prompt, filled in and
    sent as the person's prompt. False when no ready server has that prompt."""
    from gemtui.mcp.prompt_args import find_prompt, missing_arguments, prompt_values

    tools = app.session.mcp if app.session is not None else None
    found = find_prompt(tools.prompts(), name) if tools is not None else None
    if tools is None or found is None:
        return False
    server, prompt = found
    params = [a.name for a in prompt.arguments or []]
    values = prompt_values(prompt, arg)
    missing = missing_arguments(prompt, values)
    if missing:
        usage = " ".join(f"{p}=…" for p in params)
        app.notify(
            f"/{server}:{prompt.name} needs {', '.join(missing)}: /{server}:{prompt.name} {usage}",
            severity="warning",
        )
        return True

    async def send() -> None:
        from gemtui.mcp.manager import McpCallError

        try:
            text = await tools.manager.get_prompt(server, prompt.name, values)
        except McpCallError as exc:
            app.notify(str(exc), severity="error")
            return
        app.submit(text)

    app.run_worker(send(), group="mcp")
    return True


@dataclass(frozen=True)
class SlashCommand:
    """One slash command: what /help, the completer and the palette show, and what runs."""

    name: str
    help: str
    handler: Callable[[AppSurface, str], None]


COMMANDS: tuple[SlashCommand, ...] = (
    SlashCommand("/help", "Keys and commands", _help),
    SlashCommand("/clear", "Clear the transcript (the conversation goes on)", _clear),
    SlashCommand("/new", "Start a fresh conversation (the current one stays saved)", _new),
    SlashCommand("/compress", "Compress the conversation history now", _compress),
    SlashCommand("/model", "Show or switch the model (/model NAME)", _model),
    SlashCommand(
        "/auth",
        "Sign in with Google (code-assist); /auth vertex uses Vertex AI's variables",
        _auth,
    ),
    SlashCommand(
        "/approval-mode",
        "Show or set the approval mode (default, auto_edit, plan, yolo)",
        _approval_mode,
    ),
    SlashCommand("/sessions", "Browse saved sessions", _sessions),
    SlashCommand(
        "/theme", "Pick a theme with a preview (/theme NAME switches), remembered", features.theme
    ),
    SlashCommand("/stats", "Token usage and cost of this session", _stats),
    SlashCommand("/usage", "Spend per day, model and agent (/usage [DAYS], default 30)", usage),
    SlashCommand(
        "/vim", "Vim keys in the prompt on or off (NORMAL/INSERT), remembered", features.vim
    ),
    SlashCommand("/copy", "Copy the last answer (/copy code: the last code block)", _copy),
    SlashCommand("/permissions", "Show the policy rules in force and remove one", _permissions),
    SlashCommand("/mcp", "MCP servers' state (/mcp restart|disable|enable NAME)", _mcp),
    SlashCommand("/memory", "Context files: /memory show | refresh | add FACT", _memory),
    SlashCommand("/commands", "Custom commands: list them, /commands reload", features.commands),
    SlashCommand(
        "/agents",
        "The agent view (agents side by side); subagents: /agents list | reload | run NAME TASK",
        features.agents,
    ),
    SlashCommand(
        "/skills", "Agent Skills: /skills [list | enable | disable NAME | reload]", skills
    ),
    SlashCommand("/directory", "Workspace roots: /directory show | add PATH", features.directory),
    SlashCommand("/hooks", "Hooks loaded, their last runs and failures", features.hooks),
    SlashCommand("/extensions", "Enabled extensions and what they bring", features.extensions),
    SlashCommand("/tasks", "Background commands: /tasks [show PID | stop PID]", features.tasks),
    SlashCommand("/rewind", "Restore code and/or conversation to before a prompt", _rewind),
    SlashCommand("/quit", "Quit gemtui", _quit),
)
"""Every slash command, in the order /help lists them: the one table."""

BY_NAME = {command.name: command for command in COMMANDS}
