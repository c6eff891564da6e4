"""``gemtui auth login|status|logout``: the Google account (and Vertex AI's credential).

Why a module of its own: ``status`` asks the Code Assist backend for the project, tier
and quota, which needs the provider the assembly builds; the bare ``gemtui`` start-up
never imports any of it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from gemtui.cli.parser import Subcommands, add_subcommand
from gemtui.errors import FatalError

__all__ = ["add_parser"]


def add_parser(sub: Subcommands) -> None:
    """``gemtui auth``'s arguments (nothing heavy is imported until it runs)."""
    p = add_subcommand(sub, "auth", _run, "Google account sign-in.")
    p.add_argument("action", choices=("login", "logout", "status"))
    p.add_argument(
        "--no-browser", action="store_true", help="do not open a browser; paste the code"
    )
    p.add_argument(
        "--import-gemini-cli",
        action="store_true",
        help="sign in with Gemini CLI's saved Google sign-in (~/.gemini/oauth_creds.json)",
    )
    p.add_argument(
        "--file-store",
        action="store_true",
        help="where no OS keyring exists, keep the tokens in a file readable by you only",
    )


def _run(args: argparse.Namespace) -> int:
    import asyncio

    try:
        if args.action == "status":
            return _status()
        if args.action == "logout":
            return _logout()
        if args.import_gemini_cli:
            from gemtui.auth.login import import_from_gemini_cli

            import_from_gemini_cli(file_store=args.file_store)
            return 0
        from gemtui.auth.login import login

        asyncio.run(login(no_browser=args.no_browser, file_store=args.file_store))
    except FatalError as exc:
        sys.stderr.write(f"gemtui: {exc.message}\n")
        return exc.exit_code
    except KeyboardInterrupt:
        sys.stderr.write("gemtui: sign-in cancelled\n")
        return 130
    return 0


def _logout() -> int:
    from gemtui.auth import store

    signed_in = store.load() is not None
    store.forget()
    if signed_in:
        print("Signed out: the Google tokens were deleted from this machine.")
    else:
        print("Not signed in: nothing to delete.")
    return 0


def _status() -> int:
    import asyncio
    import time

    from gemtui.auth import store
    from gemtui.config.secrets import get_secret

    key = get_secret("gemini-api-key", "GEMINI_API_KEY", "GOOGLE_API_KEY")
    print("Gemini API key: " + ("set" if key else "not set"))
    print("Vertex AI: " + _vertex_line())
    tokens = store.load()
    if tokens is None:
        print("Google account: not signed in (run `gemtui auth login`)")
        return 0
    when = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(tokens.expires_at))
    print(f"Google account: {tokens.email or 'signed in'}")
    print(f"Access token expires: {when} (refreshed automatically)")
    for line in asyncio.run(_account_lines()):
        print(line)
    return 0


def _vertex_line() -> str:
    """Which credential Vertex AI would use, from the variables and files alone: no token
    is fetched and nothing secret is printed."""
    import os

    from gemtui.config.secrets import get_secret

    chosen = os.environ.get("GOOGLE_GENAI_USE_VERTEXAI", "").strip().lower() in ("true", "1")
    state = "selected (GOOGLE_GENAI_USE_VERTEXAI=true)" if chosen else "not selected"
    project = os.environ.get("GOOGLE_CLOUD_PROJECT", "").strip()
    if project:
        from gemtui.auth.adc import describe_adc

        location = os.environ.get("GOOGLE_CLOUD_LOCATION", "").strip() or "global"
        return f"{state}; project {project} in {location}, credentials: {describe_adc()}"
    if get_secret("vertex-api-key", "GOOGLE_API_KEY"):
        return f"{state}; express mode with the API key in GOOGLE_API_KEY"
    return f"{state}; no GOOGLE_CLOUD_PROJECT and no GOOGLE_API_KEY"


async def _account_lines() -> list[str]:
    """Project, tier and quota from the Code Assist backend (what failed said, not guessed)."""
    from gemtui.agent.provider_choice import resolve_provider
    from gemtui.bus.events import QuotaShare, quota_lines
    from gemtui.config.settings import load_settings
    from gemtui.providers.code_assist import account_of

    try:
        settings = load_settings(Path.cwd(), trusted=False)
        resolved = resolve_provider(settings, provider="code-assist")
    except FatalError as exc:
        return [f"Code Assist: unavailable ({exc.message})"]
    provider = account_of(resolved.generator)
    try:
        assert provider is not None
        try:
            account = await provider.setup()
        except Exception as exc:  # the backend's words, one line
            return [f"Project: unknown ({getattr(exc, 'message', None) or exc})"]
        quota = await provider.refresh_quota()
        lines = [
            f"Project: {account.project}",
            f"Tier: {account.tier}" + (f" ({account.tier_name})" if account.tier_name else ""),
        ]
        shares = (
            None
            if quota is None
            else tuple(QuotaShare(b.model, b.remaining_fraction, b.reset_time) for b in quota)
        )
        return lines + [f"Quota {line}" for line in quota_lines(shares)]
    finally:
        await resolved.generator.aclose()
