"""``!command`` in the prompt: run now (no model call), through the policy.

A captured command runs as a ``run_shell_command`` call (its card, its approval, its
live output); one that needs the terminal itself (``vim``, ``git rebase -i``, ``top``) gets
it: the app suspends (Textual's ``App.suspend``), the program runs on the real terminal,
and the app comes back when it exits. Either way the next prompt tells the model what ran.
Under ``-s`` the terminal program runs in the sandbox too (``terminal_command``), and
the question and the notice say so.
"""

from __future__ import annotations

import contextlib
import signal
import subprocess
import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING

from textual.app import SuspendNotSupported

from gemtui.commands.interactive import needs_terminal
from gemtui.errors import FatalConfigError

if TYPE_CHECKING:
    from pathlib import Path

    from gemtui.tui.app_surface import AppSurface

__all__ = ["run_shell_line"]


async def run_shell_line(app: AppSurface, line: str) -> None:
    """Run one ``!`` line (the ``!`` already taken off)."""
    session = app.session
    assert session is not None
    if needs_terminal(line):
        await _run_on_terminal(app, line)
        return
    offer = session.shell_notes.typed_read_only is None and _asks(app, line)
    if await session.run_shell(line):
        app.notify("Done; the model sees the output with your next prompt.", timeout=4)
        if offer:
            await _offer_read_only(app)


def _asks(app: AppSurface, line: str) -> bool:
    """Whether ``line`` is a read-only command the policy would ask about."""
    from gemtui.tools.shell_read_only import typed_read_only

    session = app.session
    return session is not None and typed_read_only(line) and session.typed_line_asks(line)


async def _offer_read_only(app: AppSurface) -> None:
    """Once a session: let read-only commands the person types run without asking."""
    from gemtui.tui.screens.dialogs import ConfirmScreen

    session = app.session
    assert session is not None
    yes = await app.push_screen_wait(
        ConfirmScreen(
            "Allow read-only commands you type (! ls, cat, grep…) without asking?",
            detail="For this session. A command that could write, delete or run another "
            "(; > $( ) still asks; commands the model runs are not affected.",
        )  # it appears by itself: a key typed ahead must not answer it (F8 first)
    )
    session.shell_notes.typed_read_only = bool(yes)


@contextlib.contextmanager
def _keyboard_interrupts_are_the_programs() -> Iterator[None]:
    """Ctrl+C on the handed-over terminal interrupts the program, not gemtui.

    The program shares gemtui's process group (it must, to own the terminal), so the
    terminal's SIGINT reaches both; Python's default handler would raise
    KeyboardInterrupt in the app once it resumes and end it. A handler that does nothing
    is reset to the default by exec, so the program itself still gets Ctrl+C.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, lambda signum, frame: None)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


async def _run_on_terminal(app: AppSurface, line: str) -> None:
    from gemtui.tui.screens.dialogs import ModifyScreen

    session = app.session
    assert session is not None
    decision, why, line = await session.terminal_verdict(line)
    boxed = session.sandbox is not None
    if decision == "ask_user":
        where = " in the sandbox" if boxed else ""
        title = f"run on the terminal{where} - Ctrl+S runs (gemtui steps aside until it exits)"
        answer = await app.push_screen_wait(ModifyScreen(line, title=title, language="bash"))
        if answer is None or not answer.strip():
            app.notify(f"Not run: {line}")
            return
        if answer.strip() != line:
            line = answer.strip()
            decision, why, edited = await session.terminal_verdict(line)
            if edited != line:  # a hook changed what the person wrote: show it again
                app.notify(f"Not run: a hook rewrote it to {edited}", severity="warning")
                return
            decision = "allow" if decision == "ask_user" else decision  # the person saw it
        else:
            decision = "allow"
    if decision != "allow":
        app.notify(f"Not run: {line} - {why}", severity="warning", timeout=8)
        return
    try:
        run = session.terminal_command(line)
    except FatalConfigError as exc:
        app.notify(f"Not run: {line} - {exc}", severity="error", timeout=10)
        return
    try:
        code = hand_over_terminal(app, run.argv, session.workspace.root, run.env)
    except SuspendNotSupported:
        app.notify(
            f"Not run: {line} needs the terminal, and this one cannot be handed over.",
            severity="warning",
        )
        return
    except OSError as exc:
        _ran_card(app, line, f"could not start: {exc}", run.where)
        return
    finally:
        run.release()
        app.main.status.turn_ended()  # nothing runs any more: the status line says idle
    ran = "ran on the terminal in the sandbox" if boxed else "ran on the terminal"
    session.shell_notes.add(line, f"({ran}; its output is not captured)", code)
    ended = f"killed by signal {-code}" if code < 0 else f"exited with code {code}"
    _ran_card(app, line, ended, run.where)


def hand_over_terminal(
    app: AppSurface, argv: list[str], cwd: Path, env: dict[str, str] | None
) -> int:
    """Run ``argv`` on the real terminal with the app suspended; its exit code (negative:
    the signal that killed it). Raises ``SuspendNotSupported`` or ``OSError``."""
    with app.suspend(), _keyboard_interrupts_are_the_programs():
        # the app is stopped: the program owns the terminal, so wait
        return subprocess.call(argv, cwd=cwd, env=env)


def _ran_card(app: AppSurface, line: str, ended: str, where: str) -> None:
    """The program's end in the conversation, where it stays (a toast vanishes, and the
    program's own screen is gone once gemtui is back)."""
    place = f"\n({where})" if where else ""  # a line each: a narrow screen cuts none
    severity = "information" if ended == "exited with code 0" else "warning"
    app.main.transcript.add_notice(f"!{line}\non the terminal: {ended}{place}", severity)
