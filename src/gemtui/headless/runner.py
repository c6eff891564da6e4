"""``gemtui -p``: one prompt through the full loop, printed as text, json or stream-json."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import sys
from dataclasses import replace
from typing import TextIO

from gemtui.agent.assembly import RunOptions
from gemtui.agent.outcome import exit_code_for_error
from gemtui.bus import TerminateReason
from gemtui.errors import (
    EXIT_CANCELLED,
    EXIT_ERROR,
    FatalError,
    GemtuiError,
)
from gemtui.headless.formatters import make_formatter
from gemtui.headless.progress import Spinner

__all__ = ["run_headless", "task_line"]


_HOW_TO_TRUST = "Run with --trust-workspace to apply them."
_TURN_LIMIT = "--max-turns or [general] max_turns"
"""Where the per-prompt turn limit is set, named when it stops a run."""
_TASK_CHARS = 200
"""How much of the prompt names the run in ``gemtui agents`` (a piped diff is not a name)."""


def task_line(prompt: str) -> str:
    """The prompt on one line and shortened: the run's task as the agent list shows it."""
    line = " ".join(prompt.split())
    return line if len(line) <= _TASK_CHARS else line[: _TASK_CHARS - 1] + "…"


async def _run(opts: RunOptions, out: TextIO, err: TextIO) -> int:
    from gemtui.agent.assembly import trusted_run
    from gemtui.collector import resume_collector

    formatter = make_formatter(opts.output_format, out, err)
    try:
        run = trusted_run(opts)
        notice = run.notice(_HOW_TO_TRUST)  # never asked here: left out, and said
        if notice is not None:
            err.write(f"gemtui: {notice}\n")
        built = run.build()
    except FatalError as exc:
        if opts.output_format != "text":
            formatter.close(exc.message, exc.exit_code)
        err.write(f"gemtui: {exc.message}\n")
        return exc.exit_code
    session = built.session
    resume_collector()  # start-up is over: what the run makes is collected as usual
    spinner = Spinner(stream=err)
    formatter.on_first_output = spinner.stop
    formatter.on_broken_pipe = session.cancel  # like SIGPIPE: no reader, no reason to go on
    session.bus.subscribe(formatter)
    built.record()
    from gemtui.agent.agent_record import record_run

    ended = record_run(built.store, session, task_line(opts.prompt or ""))  # `gemtui agents`
    done = None
    loop = asyncio.get_running_loop()
    try:
        loop.add_signal_handler(signal.SIGINT, session.cancel)
        loop.add_signal_handler(signal.SIGTERM, session.cancel)
    except (NotImplementedError, RuntimeError):  # pragma: no cover - non-Unix
        pass
    session.start()
    spinner.start()
    try:
        await session.wait_mcp()  # scripts see the servers' tools from the first call
        done = await session.send(opts.prompt or "")
    except GemtuiError as exc:  # pragma: no cover - the executor reports errors as events
        spinner.stop()
        err.write(f"gemtui: {exc}\n")
        return exit_code_for_error(exc)
    finally:
        spinner.stop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.remove_signal_handler(sig)
        await session.agents.stop_background()  # a cancelled prompt leaves them running
        await session.aclose()
        ended(done)
        built.close()
    if formatter.pipe_broken:
        raise BrokenPipeError  # run_headless ends quietly
    code = done.exit_code
    if done.reason == TerminateReason.MAX_TURNS:
        err.write(
            f"gemtui: stopped after {done.turns} model turns ({_TURN_LIMIT}); "
            "raise the limit to go on\n"
        )
    if done.reason == TerminateReason.ABORTED:
        err.write("gemtui: cancelled\n")
    error = done.error
    if error is None and done.reason != TerminateReason.GOAL:  # scripts read `error`
        error = {
            TerminateReason.ABORTED: "cancelled",
            TerminateReason.TIMEOUT: "timed out",
            TerminateReason.MAX_TURNS: f"stopped after {done.turns} model turns ({_TURN_LIMIT})",
            TerminateReason.LOOP: "stopped: the model was repeating itself",
        }.get(done.reason, f"stopped: {done.reason}")
    if opts.output_format == "json":
        formatter.close(error, code if code else None)
    else:
        formatter.close()
    return code


def run_headless(opts: RunOptions, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Run ``opts.prompt`` and return the exit code; Ctrl-C before the loop starts gives 130.

    A headless run never asks: a call that needs approval is refused (``interactive``
    is off whatever ``opts`` says).

    An unexpected exception (a bug) becomes one line on stderr and a traceback in the log.
    Both streams mask every known secret (the answer as text; JSON formats mask values).
    """
    from gemtui.logs import setup_logging
    from gemtui.redact import finish, wrap

    stderr = wrap(err or sys.stderr)
    stdout = out or sys.stdout
    if opts.output_format == "text":
        stdout = wrap(stdout)
    log_path = setup_logging()
    opts = replace(opts, interactive=False)
    try:
        return asyncio.run(_run(opts, stdout, stderr))
    except KeyboardInterrupt:
        stderr.write("gemtui: cancelled\n")
        return EXIT_CANCELLED
    except BrokenPipeError:  # the reader went away (`| head -c 1`): no message, no traceback
        return EXIT_ERROR
    except Exception as exc:
        logging.getLogger("gemtui").exception("unexpected error in a headless run")
        where = f"; details in {log_path}" if log_path else ""
        stderr.write(f"gemtui: unexpected error: {type(exc).__name__}: {exc}{where}\n")
        return EXIT_ERROR
    finally:
        finish(stdout)
        finish(stderr)
