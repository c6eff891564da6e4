"""``gemtui auth login``: the browser (loopback) flow, with the paste flow beside it.

Why: one entry point the CLI and the TUI share. The URL goes to stderr so stdout stays
clean; a browser that never comes back must not trap the person, so after ``PASTE_AFTER``
seconds (at once with ``--no-browser``) the redirect URL or the bare code may be pasted
instead. Every refusal is exit 41.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shlex
import shutil
import sys
import threading
import webbrowser
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TextIO

import httpx

from gemtui.auth import store
from gemtui.auth.callback import code_from_redirect
from gemtui.auth.exchange import Tokens, exchange_code
from gemtui.auth.loopback import DEFAULT_PORT, FLOW_TIMEOUT, Loopback
from gemtui.auth.pkce import AuthRequest
from gemtui.errors import FatalAuthenticationError

__all__ = [
    "PASTE_AFTER",
    "import_from_gemini_cli",
    "login",
    "open_browser",
    "read_line",
    "stdin_paste",
]

PASTE_AFTER = 15.0
"""Seconds of waiting for the browser before the paste prompt is offered too."""


def open_browser(url: str) -> bool:
    """Open ``url`` in the person's browser: ``BROWSER`` when set, else a graphical one.

    Never a console browser when no display exists: it would take over the terminal
    (the TUI's included); the URL is printed for the person instead.
    """
    choice = os.environ.get("BROWSER", "").split(os.pathsep)[0]
    try:
        if choice:  # a program (or a command line with %s), else a registered name
            if "%s" in choice:
                return webbrowser.GenericBrowser(shlex.split(choice)).open(url)
            if shutil.which(choice):
                return webbrowser.GenericBrowser(choice).open(url)
            return webbrowser.get(choice).open(url)
        graphical = sys.platform in ("darwin", "win32") or bool(
            os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
        )
        return graphical and webbrowser.open(url)
    except webbrowser.Error:
        return False


def read_line(stream: TextIO) -> asyncio.Future[str]:
    """A line of ``stream`` read on a daemon thread: a pending read never holds up exit."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[str] = loop.create_future()

    def deliver(line: str) -> None:
        if not future.done():
            future.set_result(line)

    def run() -> None:
        try:
            line = stream.readline()
        except (OSError, ValueError):
            line = ""
        with contextlib.suppress(RuntimeError):  # the loop closed: nobody waits any more
            loop.call_soon_threadsafe(deliver, line)

    threading.Thread(target=run, name="gemtui-paste", daemon=True).start()
    return future


def stdin_paste() -> Awaitable[str]:
    """The person's pasted line from stdin (the shell's paste flow)."""
    return read_line(sys.stdin)


async def _pasted_code(
    req: AuthRequest, paste: Callable[[], Awaitable[str]], err: TextIO, delay: float
) -> str:
    """The code the person pastes (after ``delay`` s); an empty line never answers."""
    if delay:
        await asyncio.sleep(delay)
    err.write("Or paste the redirect URL (or the code) here: ")
    err.flush()
    line = await paste()
    if not line.strip():  # stdin closed or empty: leave it to the browser
        await asyncio.Event().wait()
    return code_from_redirect(line, req.state, pasted=True)


async def _first_code(listener: Loopback, pasted: asyncio.Task[str] | None) -> str:
    """Whichever comes first: the redirect or the pasted code (five minutes at most)."""
    waiters: set[asyncio.Task[str]] = {asyncio.ensure_future(listener.code())}
    if pasted is not None:
        waiters.add(pasted)
    try:
        done, _ = await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
        return done.pop().result()
    finally:
        for task in waiters:
            task.cancel()


async def login(
    *,
    no_browser: bool,
    paste: Callable[[], Awaitable[str]] = stdin_paste,
    err: TextIO = sys.stderr,
    file_store: bool = False,
    browser: Callable[[str], object] = open_browser,
    paste_after: float = PASTE_AFTER,
) -> Tokens:
    """Sign in, store the tokens (keyring, or the opted-in file) and return them."""
    listener = Loopback("", port=DEFAULT_PORT)
    await listener.start()
    opener: asyncio.Future[object] | None = None
    try:
        req = AuthRequest(listener.redirect_uri)
        listener.state = req.state
        err.write(f"Sign in with Google by opening this URL:\n\n  {req.url()}\n\n")
        err.flush()
        if not no_browser:
            opener = asyncio.ensure_future(asyncio.to_thread(browser, req.url()))
        delay = 0.0 if no_browser else paste_after
        pasted = asyncio.ensure_future(_pasted_code(req, paste, err, delay))
        try:
            code = await asyncio.wait_for(_first_code(listener, pasted), FLOW_TIMEOUT)
        except TimeoutError:
            raise FatalAuthenticationError(
                f"Sign-in timed out after {FLOW_TIMEOUT:.0f} s with no redirect; run it again."
            ) from None
        async with httpx.AsyncClient(timeout=30) as client:
            tokens = await exchange_code(client, req, code)
    finally:
        await listener.close()
        if opener is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(opener, 5)
    _keep(tokens, err, file_store=file_store)
    return tokens


def import_from_gemini_cli(
    *, err: TextIO = sys.stderr, file_store: bool = False, source: Path | None = None
) -> Tokens:
    """Sign in with Gemini CLI's cached tokens (the person asked with the flag)."""
    tokens = store.import_gemini_cli(source)
    err.write(f"Imported Gemini CLI's Google sign-in from {source or store.gemini_cli_file()}.\n")
    _keep(tokens, err, file_store=file_store)
    return tokens


def _keep(tokens: Tokens, err: TextIO, *, file_store: bool) -> None:
    path = store.save(tokens, file_store=file_store)
    if path is not None:
        err.write(f"No keyring here: the tokens are kept in {path} (readable by you only).\n")
    err.write(f"Signed in as {tokens.email or 'your Google account'}.\n")
