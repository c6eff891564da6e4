"""`gemtui --acp`: the "Log in with Google" auth method runs the same sign-in as
`gemtui auth login`, without ever reading stdin (the protocol's)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from acp import PROTOCOL_VERSION

from gemtui.testing import MockLLMServer
from tests.support.file_keyring import BACKEND, ENV

from .acp_client import EditorClient, acp_agent, editor_caps
from .helpers import gemtui_env, write_fast_config

BROWSER = """
import sys, httpx
redirect = httpx.get(sys.argv[1]).headers["location"]  # consent, then the loopback
httpx.get(redirect)
"""


async def test_google_sign_in_through_authenticate(
    mock_llm_thread: MockLLMServer, isolated_home: Path, workspace: Path, tmp_path: Path
) -> None:
    browser = tmp_path / "browser.py"
    browser.write_text(BROWSER, encoding="utf-8")
    write_fast_config(isolated_home)
    env = gemtui_env(isolated_home, mock_llm_thread.url, key=None) | {
        "GEMTUI_OAUTH_AUTH_URL": f"{mock_llm_thread.url}/auth",
        "GEMTUI_OAUTH_TOKEN_URL": f"{mock_llm_thread.url}/token",
        "PYTHON_KEYRING_BACKEND": BACKEND,
        ENV: str(tmp_path / "keyring.json"),
        "PYTHONPATH": os.pathsep.join([str(Path.cwd()), *sys.path]),
        "BROWSER": f"{sys.executable} {browser} %s",
    }
    client = EditorClient()
    async with acp_agent(client, env=env, cwd=workspace) as (conn, _):
        init = await conn.initialize(
            protocol_version=PROTOCOL_VERSION, client_capabilities=editor_caps()
        )
        assert "oauth-personal" in {m.id for m in init.auth_methods or []}
        assert await conn.authenticate(method_id="oauth-personal") is not None
        listed = await conn.list_sessions(cwd=str(workspace))  # the protocol still flows
        assert listed.sessions == []
    assert "refresh" in (tmp_path / "keyring.json").read_text(encoding="utf-8")
