"""The CA bundle read ahead, on another core, while the TUI's engine starts (issue 34).

Reading the CA bundle is most of what building the HTTP client costs (20-40 ms of a
session's assembly), and OpenSSL does it outside the interpreter's lock. The TUI starts
the read as its engine thread starts, so it runs beside the engine's imports instead of
after them, and the client built a few hundred milliseconds later takes it ready.

The context is httpx's own for ``verify=True`` (certifi, or ``SSL_CERT_FILE`` /
``SSL_CERT_DIR`` from the environment), built by httpx: certificates are verified
exactly as before. One read serves one client; every other client reads its own.
"""

from __future__ import annotations

import contextlib
import ssl
import threading
from concurrent.futures import Future

__all__ = ["forget_prefetched_tls", "prefetch_tls", "take_prefetched_tls"]

_pending: Future[ssl.SSLContext] | None = None
_lock = threading.Lock()


def prefetch_tls() -> None:
    """Start reading the CA bundle in a daemon thread for the next client made."""
    global _pending
    future: Future[ssl.SSLContext] = Future()

    def read() -> None:
        try:
            import httpx

            future.set_result(httpx.create_ssl_context())
        except BaseException as exc:  # the client then builds its own, as without this
            future.set_exception(exc)

    with _lock:
        _pending = future
    threading.Thread(target=read, name="gemtui-tls-prefetch", daemon=True).start()


def take_prefetched_tls() -> ssl.SSLContext | bool:
    """The context read ahead (waiting for it if still being read), once; ``True`` (httpx
    builds its own) when none was started or the read failed."""
    global _pending
    with _lock:
        future, _pending = _pending, None
    if future is not None:
        with contextlib.suppress(Exception):
            return future.result()
    return True


def forget_prefetched_tls() -> None:
    """Drop a read no client took (no provider was built), without waiting for it: it is
    never handed to a later client, which reads its own with the environment it sees."""
    global _pending
    with _lock:
        _pending = None
