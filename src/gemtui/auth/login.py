"""``gemtui auth login``: the browser (loopback) flow, or the paste flow with ``--no-browser``.

Why: one entry point the CLI (and later the TUI) share; the URL goes to stderr so
stdout stays clean, and every refusal is exit 41.
"""

from __future__ import annotations

import asyncio
import sys
import webbrowser
from typing import TextIO

import httpx

from gemtui.auth import store
from gemtui.auth.callback import code_from_redirect
from gemtui.auth.exchange import Tokens, exchange_code
from gemtui.auth.loopback import DEFAULT_PORT, FLOW_TIMEOUT, Loopback
from gemtui.auth.pkce import AuthRequest


async def login(*, no_browser: bool, stdin: TextIO = sys.stdin, err: TextIO = sys.stderr) -> Tokens:
    """Sign in, store the tokens in the keyring and return them."""
    listener = Loopback("", port=DEFAULT_PORT)
    await listener.start()
    try:
        req = AuthRequest(listener.redirect_uri)
        listener.state = req.state
        err.write(f"Sign in with Google by opening this URL:\n\n  {req.url()}\n\n")
        if no_browser:
            err.write("Paste the redirect URL (or the code) here: ")
            err.flush()
            line = await asyncio.wait_for(asyncio.to_thread(stdin.readline), FLOW_TIMEOUT)
            code = code_from_redirect(line, req.state, pasted=True)
        else:
            err.flush()
            opener = asyncio.create_task(asyncio.to_thread(webbrowser.open, req.url()))
            code = await listener.code()
            await opener
        async with httpx.AsyncClient(timeout=30) as client:
            tokens = await exchange_code(client, req, code)
    finally:
        await listener.close()
    store.save(tokens)
    err.write(f"Signed in as {tokens.email or 'your Google account'}.\n")
    return tokens
