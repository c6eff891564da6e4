"""The CA bundle read ahead while the TUI's engine starts verifies certificates exactly as
a client's own read does (issue 34: ``providers/tls_prefetch.py``).

The read-ahead moves 20-40 ms of the client's construction onto another core; what it
must never change is whom the client trusts. Each test starts the read ahead as the TUI
does, builds the adapters' client, and talks TLS to a real server on 127.0.0.1 whose
certificate comes from a private CA.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import trustme

from gemtui.errors import TransportError
from gemtui.providers.http import make_client
from gemtui.providers.tls_prefetch import (
    forget_prefetched_tls,
    prefetch_tls,
    take_prefetched_tls,
)

from .test_streaming_over_httpx import FRAMES, _body, _serving, _sse, _tls_server, _url


@pytest.fixture(scope="module")
def ca() -> trustme.CA:
    return trustme.CA()


async def test_a_client_on_the_read_ahead_context_refuses_a_ca_it_does_not_trust(
    ca: trustme.CA,
) -> None:
    prefetch_tls()
    client = make_client()  # certifi's CAs, read ahead: the private CA is not among them
    assert take_prefetched_tls() is True, "the read-ahead served that client, and only it"
    async with _serving(_sse, _tls_server(ca, "localhost")) as server:
        with pytest.raises(TransportError, match="CERTIFICATE_VERIFY_FAILED"):
            await _body(client, _url(server, "https", "localhost"))
        assert server.requests == []
    await client.aclose()


async def test_control_the_read_ahead_trusts_the_ca_file_the_environment_names(
    ca: trustme.CA, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same server is accepted once its CA is named: only verification refused it."""
    pem = tmp_path / "ca.pem"
    ca.cert_pem.write_to_path(str(pem))
    monkeypatch.setenv("SSL_CERT_FILE", str(pem))
    prefetch_tls()
    client = make_client()
    async with _serving(_sse, _tls_server(ca, "localhost")) as server:
        assert await _body(client, _url(server, "https", "localhost")) == b"".join(FRAMES)
    await client.aclose()


async def test_a_client_on_the_read_ahead_context_refuses_a_certificate_for_another_name(
    ca: trustme.CA, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pem = tmp_path / "ca.pem"
    ca.cert_pem.write_to_path(str(pem))
    monkeypatch.setenv("SSL_CERT_FILE", str(pem))
    prefetch_tls()
    client = make_client()
    async with _serving(_sse, _tls_server(ca, "api.example.test")) as server:
        with pytest.raises(TransportError, match=r"match|mismatch"):
            await _body(client, _url(server, "https", "localhost"))
        assert server.requests == []
    await client.aclose()


def test_a_read_no_client_took_is_never_handed_to_a_later_one() -> None:
    prefetch_tls()
    forget_prefetched_tls()  # as the TUI does once its engine is built (or failed)
    assert take_prefetched_tls() is True, "a later client reads its own"
