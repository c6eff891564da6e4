"""Shared HTTP plumbing of the adapters: client defaults and error mapping."""

from __future__ import annotations

import ipaddress
import logging
import platform
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import httpx

from gemtui import __version__
from gemtui.errors import (
    NothingListeningError,
    StreamError,
    TransportError,
    api_error_from_response,
)
from gemtui.providers.tls_prefetch import take_prefetched_tls

__all__ = [
    "DEFAULT_TIMEOUT",
    "USER_AGENT",
    "Preconnects",
    "get_json",
    "make_client",
    "open_stream",
    "post_json",
    "preconnect",
]

log = logging.getLogger(__name__)

USER_AGENT = f"gemtui/{__version__} ({sys.platform}; {platform.machine() or 'unknown'})"
"""Names gemtui, its version, the platform and the arch (Code Assist asks clients to)."""
LIMITS = httpx.Limits(max_connections=100, max_keepalive_connections=20, keepalive_expiry=60.0)
"""httpx's own limits, but an idle connection is kept a minute, not 5 s: the one opened
while a person types (``preconnect``) must still be there when they press Enter. One the
server closed meanwhile is dropped unused; a request that meets the close is retried."""
DEFAULT_TIMEOUT = httpx.Timeout(connect=10.0, read=60.0, write=30.0, pool=10.0)
"""Read timeout is per chunk: a stalled stream fails after a minute, not never."""


def make_client(read_timeout: float | None = None) -> httpx.AsyncClient:
    """The adapters' client: httpx's own transport, for model streams and everything else.

    Proxies (``HTTP_PROXY``, ``HTTPS_PROXY``, ``ALL_PROXY``, ``NO_PROXY``) and extra CA
    files (``SSL_CERT_FILE``, ``SSL_CERT_DIR``) come from the environment, as httpx reads
    them; the read timeout is per network read, so a stalled stream fails, not waits.
    """
    timeout = DEFAULT_TIMEOUT
    if read_timeout is not None:
        timeout = httpx.Timeout(connect=10.0, read=read_timeout, write=30.0, pool=10.0)
    verify = take_prefetched_tls()  # httpx's own context, perhaps read ahead (tls_prefetch)
    return httpx.AsyncClient(
        timeout=timeout, headers={"user-agent": USER_AGENT}, verify=verify, limits=LIMITS
    )


async def _raise_for_status(response: httpx.Response) -> None:
    if response.status_code >= 400:
        body = await response.aread()
        raise api_error_from_response(response.status_code, body, dict(response.headers))


async def post_json(
    client: httpx.AsyncClient,
    url: str,
    body: Any,
    headers: dict[str, str],
    *,
    on_headers: Callable[[httpx.Headers], None] | None = None,
) -> Any:
    """POST and read JSON; ``on_headers`` sees a successful answer's headers (rate limits)."""
    try:
        response = await client.post(url, json=body, headers=headers)
        await _raise_for_status(response)
        if on_headers is not None:
            on_headers(response.headers)
        return response.json()
    except httpx.TransportError as exc:
        raise _transport_error(exc, url) from exc
    except ValueError as exc:
        raise StreamError(f"invalid JSON from {_host(url)}", kind="malformed") from exc


async def get_json(client: httpx.AsyncClient, url: str, headers: dict[str, str]) -> Any:
    try:
        response = await client.get(url, headers=headers)
        await _raise_for_status(response)
        return response.json()
    except httpx.TransportError as exc:
        raise _transport_error(exc, url) from exc


@asynccontextmanager
async def open_stream(
    client: httpx.AsyncClient, url: str, body: Any, headers: dict[str, str]
) -> AsyncIterator[httpx.Response]:
    """POST and hold the streaming response open; HTTP errors raise ApiError."""
    try:
        async with client.stream(
            "POST",
            url,
            json=body,
            headers={**headers, "accept": "text/event-stream"},
        ) as response:
            await _raise_for_status(response)
            yield response
    except httpx.TransportError as exc:
        raise _transport_error(exc, url) from exc


PRECONNECT_PATH = "/gemtui-preconnect"
"""What the early request asks for: no server has it, every server says so in a few bytes
(a path of its own, not ``/``: llama.cpp serves its web page there)."""
PRECONNECT_TIMEOUT = httpx.Timeout(5.0)
"""A server that does not answer soon is left alone: the request connects itself."""
PRECONNECT_READ_LIMIT = 64 * 1024
"""Past this much answer the connection is dropped, not read on (then nothing is reused)."""


async def preconnect(client: httpx.AsyncClient, url: str) -> None:
    """Open the connection a first request will reuse (name lookup, TCP, TLS, and the
    client's own first-use work) while the person still types: a ``GET`` of a path no
    server has, with no credentials, its small answer read to the end so the connection
    goes back to the pool clean. Not ``HEAD``: a server that answers one with a body
    (the peer harness's mock does) leaves bytes that the next answer would be read
    after, failing a paid request. Every failure is quiet (the request connects)."""
    try:
        where = httpx.URL(url)
        early = httpx.URL(
            scheme=where.scheme, host=where.host, port=where.port, path=PRECONNECT_PATH
        )
        async with client.stream("GET", early, timeout=PRECONNECT_TIMEOUT) as response:
            read = 0
            async for chunk in response.aiter_raw():
                read += len(chunk)
                if read > PRECONNECT_READ_LIMIT:
                    break  # closed, not pooled: the request opens its own
    except Exception as exc:  # a bad base URL, a closed client: the request will say
        log.debug("no early connection to %s: %s", url, exc)


class Preconnects:
    """Adapters with one client and one base URL: ``preconnect`` warms that server."""

    _client: httpx.AsyncClient
    _base: str

    async def preconnect(self) -> None:
        """See ``preconnect``: the session's groundwork calls it before the first prompt."""
        await preconnect(self._client, self._base)


def _host(url: str) -> str:
    return httpx.URL(url).host or url


def _transport_error(exc: httpx.TransportError, url: str) -> TransportError:
    """What failed, naming the server; a refusal from this machine says nobody listens."""
    if isinstance(exc, httpx.ConnectError) and _refused(exc) and _is_loopback(url):
        where = httpx.URL(url)
        port = where.port or (443 if where.scheme == "https" else 80)
        shown = f"{where.scheme}://{where.host}:{port}{where.path}"  # no user, password, query
        return NothingListeningError(
            f"connection refused: nothing is listening on {where.host}:{port} ({shown})",
            url=shown,
        )
    return TransportError(f"{type(exc).__name__} talking to {_host(url)}: {exc}")


def _refused(exc: BaseException) -> bool:
    """A ConnectionRefusedError anywhere in the chain (httpx → httpcore → OSError → it)."""
    seen: BaseException | None = exc
    for _ in range(8):
        if seen is None:
            return False
        if isinstance(seen, ConnectionRefusedError):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def _is_loopback(url: str) -> bool:
    host = httpx.URL(url).host
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
