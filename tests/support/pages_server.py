"""A real local HTTP server for web_fetch tests: pages, redirects, stalls, and a record
of every request (path and Host header) so a test can prove nothing was contacted."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

PAGE = b"""<!doctype html><html><head><title>Guide</title><style>body{}</style>
<script>steal()</script></head><body><h1>Install</h1>
<p>Run <code>pip install gemtui</code> then read <a href="/next">the next page</a>.</p>
<ul><li>fast</li><li>safe</li></ul></body></html>"""


@dataclass
class Seen:
    """What the local server was asked: path and Host header of each request."""

    requests: list[tuple[str, str]] = field(default_factory=list)
    release: threading.Event = field(default_factory=threading.Event)


def _handler(seen: Seen) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def _send(self, status: int, body: bytes, ctype: str, **headers: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            for k, v in headers.items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:
            seen.requests.append((self.path, self.headers.get("Host", "")))
            path, _, query = self.path.partition("?")
            if path == "/page":
                self._send(200, PAGE, "text/html; charset=utf-8")
            elif path == "/text":
                self._send(200, "plain ünïcode\n".encode("latin-1"), "text/plain; charset=latin-1")
            elif path == "/big":
                self._send(200, b"x" * 50_000, "text/plain")
            elif path.startswith("/n/"):  # /n/<page>: 100,000 bytes of numbered lines
                page = path[3:]
                body = "".join(f"p{page:>2}-{k:06d}\n" for k in range(10_000)).encode()
                self._send(200, body, "text/plain; charset=utf-8")
            elif path == "/png":
                self._send(200, b"\x89PNG\r\n\x1a\n", "image/png")
            elif path == "/missing":
                self._send(404, b"no", "text/plain")
            elif path == "/go":  # /go?<absolute or relative target>
                self._send(302, b"", "text/plain", Location=query)
            elif path == "/loop":
                self._send(302, b"", "text/plain", Location="/loop")
            elif path == "/stall":
                self.send_response(200)
                self.send_header("Content-Type", "text/plain")
                self.send_header("Content-Length", "100")
                self.end_headers()
                self.wfile.write(b"start")
                self.wfile.flush()
                seen.release.wait(30)
            else:
                self._send(404, b"", "text/plain")

    return Handler


@contextmanager
def serve_pages() -> Iterator[tuple[str, Seen]]:
    """The server on 127.0.0.1: its base URL and what it saw."""
    seen = Seen()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(seen))
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_port}", seen
    finally:
        seen.release.set()
        httpd.shutdown()
        httpd.server_close()
