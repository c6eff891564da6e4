"""Slash commands for the person's own additions: custom commands, workspace roots,
hooks, background tasks and extensions (``slash.py`` holds the table)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gemtui.tui.app_surface import AppSurface

__all__ = ["agents", "commands", "directory", "extensions", "hooks", "report", "tasks"]


def report(app: AppSurface, text: str) -> None:
    """A list or report the person asked for, as a plain block in the conversation: a
    toast vanishes before a long list is read, the transcript keeps it (and scrolls)."""
    app.main.transcript.add_notice(text)


def agents(app: AppSurface, arg: str) -> None:
    """``/agents`` opens the agent view (agents side by side) when the app runs a fleet;
    ``/agents list`` (or ``/agents`` without one) lists the subagents the model may
    delegate to, with where each comes from and what it may use; ``/agents reload``
    reads the definition files again; ``/agents run NAME TASK`` asks the model to
    delegate TASK to NAME (as ``@NAME TASK``)."""
    if not arg.strip() and (getattr(app, "desk", None) or app.fleet_later) is not None:
        open_agent_view(app)  # agents side by side: the agent view
        return
    if app.session is None:
        return
    arg = "" if arg.strip() == "list" else arg
    if arg.strip() == "reload":
        found = app.session.reload_agents()
        broken = f", {len(found.problems)} not loaded (see the warnings)" if found.problems else ""
        app.notify(f"Agents reloaded: {len(found.agents)} available{broken}.")
        return
    verb, _, rest = arg.strip().partition(" ")
    if verb == "run":
        name, _, task = rest.strip().partition(" ")
        if name not in app.session.agents.agents or not task.strip():
            app.notify("Usage: /agents run NAME TASK (see /agents)", severity="warning")
            return
        app.send_prompt(f"@{name} {task.strip()}")
        return
    if arg.strip():
        app.notify("Usage: /agents [list | reload | run NAME TASK]", severity="warning")
        return
    subagents = app.session.agents
    if subagents.max_depth < 1:
        app.notify("Subagents are off ([agents] max_depth = 0).")
        return
    lines = []
    for a in sorted(subagents.agents.values(), key=lambda a: (a.source != "builtin", a.name)):
        where = a.source if a.path is None else f"{a.source}: {a.path}"
        tools = "all tools" if a.tools is None else ", ".join(a.tools)
        lines.append(f"{a.name} ({where}) — {tools}\n  {a.description}")
    report(app, "Agents (the model delegates with a tool call):\n" + "\n".join(lines))


def open_agent_view(app: AppSurface) -> None:
    """The agent view (``/agents``, F5, the palette) over the main screen, once."""
    from gemtui.tui.screens.agents import AgentsScreen
    from gemtui.tui.store_opening import hurry_store

    built = app.controller.assembled
    if getattr(app, "desk", None) is None and app.fleet_later is not None:  # before it started
        if hurry_store(app.controller) and built is not None:  # its rows need the store
            built.attachment.when_open(lambda: open_agent_view(app))
            return
        app.fleet_later()
    desk = getattr(app, "desk", None)  # the app's (``GemtuiApp.desk``)
    if desk is None:
        app.notify("Only one agent runs here: the agent view lists agents side by side.")
        return
    if not isinstance(app.screen, AgentsScreen):
        app.push_screen(AgentsScreen(desk))


def commands(app: AppSurface, arg: str) -> None:
    """``/commands`` lists the custom commands and where they come from; ``/commands
    reload`` reads the files again (a broken one is named in a warning)."""
    if app.session is None:
        return
    if arg.strip() == "reload":
        found = app.session.reload_commands()
        app.refresh_custom_commands()
        broken = f", {len(found.problems)} not loaded (see the warnings)" if found.problems else ""
        app.notify(f"Custom commands reloaded: {len(found.commands)} loaded{broken}.")
        return
    if arg.strip():
        app.notify("Usage: /commands [reload]", severity="warning")
        return
    commands = sorted(app.session.commands.commands.values(), key=lambda c: c.name)
    if not commands:
        report(
            app,
            "No custom commands. Put TOML files in ~/.gemini/commands/ or the project's "
            ".gemini/commands/ (git/commit.toml → /git:commit), then /commands reload.",
        )
        return
    lines = [f"/{c.name} ({c.source}: {c.path})" for c in commands]
    report(app, "Custom commands:\n" + "\n".join(lines))


def directory(app: AppSurface, arg: str) -> None:
    """``/directory show`` lists the workspace roots; ``/directory add PATH[,PATH]`` adds."""
    if app.session is None:
        return
    from gemtui.agent.user_commands import add_roots
    from gemtui.errors import FatalInputError

    action, _, paths = arg.strip().partition(" ")
    workspace = app.session.workspace
    if action == "add" and paths.strip():
        try:
            added = add_roots(workspace, [paths])
        except FatalInputError as exc:
            app.notify(exc.message.removeprefix("--include-directories: "), severity="warning")
            return
        context = app.session.context_files
        context.extra_dirs += tuple((p, context.names) for p in added)
        app.session.refresh_context()  # the new roots' GEMINI.md join the next request
        app.refresh_custom_commands()  # @ completes in the new roots too
        app.notify("Added: " + ", ".join(str(p) for p in added))
    elif action in ("", "show"):
        app.notify("Workspace roots:\n" + "\n".join(str(r) for r in workspace.roots))
    else:
        app.notify("Usage: /directory show | add PATH[,PATH]", severity="warning")


def hooks(app: AppSurface, arg: str) -> None:
    """``/hooks``: the hooks loaded (event, matcher, file), their last runs and failures."""
    if app.session is None:
        return
    runner = app.session.hooks
    specs = runner.hooks.hooks
    if not specs and not runner.hooks.problems:
        app.notify(
            'No hooks. Add them to ~/.gemini/settings.json ({"hooks": {"BeforeTool": [...]}}).'
        )
        return
    boxed = runner.sandbox is not None
    lines = [
        f"{h.event} {h.matcher or '*'} -> {h.name} ({h.timeout_ms / 1000:g} s, {h.source}"
        + (")" if not boxed else ", in the sandbox)" if h.project else ", outside the sandbox)")
        for h in specs
    ]
    lines += [f"not loaded: {p}" for p in runner.hooks.problems]
    runs = list(runner.runs)[-8:]
    if runs:
        lines.append("Last runs:")
        lines += [
            f"  {r.spec.event} {r.spec.name}: {r.outcome} ({r.duration_ms:.0f} ms)"
            + (f" {r.reason}" if r.reason else "")
            for r in runs
        ]
    report(app, "Hooks:\n" + "\n".join(lines))


def tasks(app: AppSurface, arg: str) -> None:
    """``/tasks``: background commands with state and last lines; ``/tasks show PID`` all
    of one's output; ``/tasks stop PID`` ends its process group."""
    if app.session is None:
        return
    jobs = app.session.background_jobs
    action, _, rest = arg.strip().partition(" ")
    if action in ("show", "stop"):
        task = jobs.tasks.get(int(rest)) if rest.strip().isdigit() else None
        if task is None:
            app.notify(f"No background task {rest.strip() or '(PID missing)'}.", severity="warning")
        elif action == "stop":
            jobs.stop(task.pid)
            app.notify(f"Stopped {task.pid} ({task.command}): {task.state()}.")
        else:
            report(app, f"{task.pid} {task.command}:\n{task.output(200) or '(no output)'}")
        return
    if action:
        app.notify("Usage: /tasks [show PID | stop PID]", severity="warning")
        return
    if not jobs.tasks:
        app.notify("No background commands in this session.")
        return
    lines = []
    for task in jobs.tasks.values():
        lines.append(f"{task.pid} [{task.state()}] {task.command}")
        lines += [f"    {line}" for line in task.output(3).splitlines()]
    report(app, "Background commands:\n" + "\n".join(lines) + "\n/tasks show PID | stop PID")


def extensions(app: AppSurface, arg: str) -> None:
    """``/extensions``: the enabled extensions and what each brings."""
    if app.session is None:
        return
    found = app.session.extensions
    if not found:
        app.notify("No extensions enabled (gemtui extensions install PATH, then restart).")
        return
    lines = [
        f"{e.name} {e.version}: MCP {', '.join(e.mcp_servers) or 'none'}; "
        f"context {', '.join(e.context_files) or 'none'}; "
        f"commands {'yes' if e.commands_dir.is_dir() else 'no'} ({e.path})"
        for e in found
    ]
    report(app, "Extensions:\n" + "\n".join(lines))


def vim(app: AppSurface, arg: str) -> None:
    """``/vim``: vim keys in the prompt on or off, remembered as ``[ui] vim_mode``."""
    from gemtui.config.user_config import save_choice
    from gemtui.tui.widgets.vim_keys import switch_vim

    prompt = app.main.prompt
    prompt.vim = switch_vim(prompt, prompt.vim is None)
    state = "on: Esc for normal mode, i to type" if prompt.vim else "off"
    try:
        save_choice("ui", "vim_mode", prompt.vim is not None)
    except (OSError, ValueError) as exc:
        app.notify(f"Vim keys {state}, but not remembered: {exc}", severity="warning")
        return
    app.notify(f"Vim keys {state} (remembered).")


def theme(app: AppSurface, arg: str) -> None:
    """``/theme NAME`` switches and saves; ``/theme`` alone opens a picker that previews
    the highlighted theme live (Esc puts the previous one back)."""
    names = sorted(app.available_themes)
    if not arg:
        from gemtui.tui.screens.theme_picker import ThemePicker

        def picked(name: str | None) -> None:
            if name is not None:
                save_theme(app, name)

        app.push_screen(ThemePicker(names, app.theme), picked)
        return
    if arg not in app.available_themes:
        app.notify(f"No theme named {arg!r}. Available: {', '.join(names)}.", severity="warning")
        return
    app.theme = arg
    save_theme(app, arg)


def save_theme(app: AppSurface, name: str) -> None:
    """Remember the theme in the user's settings, or say why it was not."""
    from gemtui.config.user_config import save_choice

    try:
        save_choice("ui", "theme", name)
    except (OSError, ValueError) as exc:
        app.notify(f"Theme switched, but not saved: {exc}", severity="warning")
        return
    app.notify(f"Theme {name} (saved).")
