"""A wire-faithful mock LLM server on plain asyncio, for tests, benchmarks and users.

One HTTP/1.1 server speaks the Gemini API, Vertex AI, Code Assist, OpenAI chat completions and
Anthropic Messages, answering every generation request from one shared queue of scripted
steps. Streams go out with chunked framing and one drain per SSE frame, so a client sees
each frame as it is written; faults (resets, cut or malformed frames, stalls, HTTP errors)
are injected at exact frame positions. No third-party server code: the mock must behave
the same wherever the tests run.

    python -m gemtui.testing.mockllm --port 8765 --script steps.jsonl [--loop]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import re
import signal
import socket
import sys
import threading
import time
import traceback
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from types import TracebackType
from typing import Any, NoReturn, Protocol

from gemtui.testing import wire_anthropic, wire_gemini, wire_local, wire_openai
from gemtui.testing.mock_http import RecordedRequest, abort, chunked, head, read_request
from gemtui.testing.mock_oauth import MockAccount
from gemtui.testing.script import (
    Ctx,
    ErrorSpec,
    Frame,
    Step,
    StepLike,
    dumps,
    load_script,
    to_step,
)

__all__ = ["MockLLMServer", "RecordedRequest", "main"]

_GEMINI = re.compile(r"^/v1[a-z0-9]*/models/([^/:]+):(\w+)$")
_GEMINI_MODELS = re.compile(r"^/v1(?:beta|alpha)\d*/models/?$")
_CODE_ASSIST = re.compile(r"^/v1internal:(\w+)$")
_VERTEX = re.compile(
    r"^/v1[a-z0-9]*/(projects/[^/]+/locations/[^/]+/)?publishers/google/models/([^/:]+):(\w+)$"
)
_CUT_FAULTS = frozenset({"reset_after", "cut_mid_frame", "stall", "hold"})
_EXHAUSTED = "mock script exhausted"
_PRECONNECT = "/gemtui-preconnect"  # gemtui's early connection (providers.http): not an API call
_FLOOD_BLOCK = 1 << 16


class _Wire(Protocol):
    def stream_frames(self, step: Step, ctx: Ctx) -> list[Frame]: ...
    def response(self, step: Step, ctx: Ctx) -> dict[str, Any]: ...
    def error_body(self, spec: ErrorSpec) -> dict[str, Any]: ...
    def encode(self, frame: Frame) -> bytes: ...


class MockLLMServer:
    """Scripted LLM endpoints on 127.0.0.1; use ``async with`` or ``in_thread()``."""

    def __init__(
        self,
        steps: Iterable[StepLike] | None = None,
        *,
        loop: bool = False,
        host: str = "127.0.0.1",
        port: int = 0,
    ) -> None:
        self.loop = loop
        self.host = host
        self.requests: list[RecordedRequest] = []
        self.early: list[RecordedRequest] = []  # a client connecting early: not API calls
        self.connections = 0  # accepted so far (each request names its own: ``connection``)
        self._port = port
        self._lock = threading.Lock()
        self._steps: list[Step] = []
        self._cursor = 0
        self._counts: deque[int] = deque()
        self._server: asyncio.Server | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._held = asyncio.Semaphore(0)
        self._tasks: set[asyncio.Task[Any]] = set()
        self.account = MockAccount()
        """The signed-in Google account: OAuth routes, Code Assist tier, quota."""
        self.local_server = wire_local.LocalServer()
        """Which local server (llama.cpp, Ollama, vLLM) the OpenAI wire plays, for the
        routes that tell the context window (``/props``, ``/api/show``, ``/v1/models``)."""
        self.on_request: Callable[[RecordedRequest], None] | None = None
        """Called with each request before it is answered: a test may ``enqueue`` the next
        step from what the client sent (a path that only the run itself chose)."""
        self.enqueue(*(steps or ()))

    # -- script --------------------------------------------------------------------------

    def enqueue(self, *steps: StepLike) -> None:
        """Append steps; ``{"count_tokens": N}`` steps feed countTokens, not generation."""
        parsed = [to_step(s) for s in steps]
        with self._lock:
            for step in parsed:
                if step.count_tokens is not None:
                    self._counts.append(step.count_tokens)
                else:
                    self._steps.append(step)

    @property
    def remaining(self) -> int:
        """Generation steps not consumed yet (ignores looping)."""
        with self._lock:
            return len(self._steps) - self._cursor

    def _next_step(self) -> Step | None:
        with self._lock:
            if self._cursor >= len(self._steps):
                if not self.loop or not self._steps:
                    return None
                self._cursor = 0
            step = self._steps[self._cursor]
            self._cursor += 1
            return step

    def _count(self, estimate: int) -> int:
        with self._lock:
            return self._counts.popleft() if self._counts else estimate

    # -- lifecycle -----------------------------------------------------------------------

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("MockLLMServer is not started")
        return int(self._server.sockets[0].getsockname()[1])

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    async def start(self) -> None:
        if self._server is not None:
            raise RuntimeError("MockLLMServer already started")
        self._loop = asyncio.get_running_loop()
        self._server = await asyncio.start_server(
            self._handle, self.host, self._port, limit=1 << 20
        )

    def release(self) -> None:
        """Let one answer held by a ``hold`` fault go on (from any thread): a test says
        when "meanwhile" ends, instead of a stall guessing how long it takes."""
        if self._loop is None:
            raise RuntimeError("MockLLMServer is not started")
        self._loop.call_soon_threadsafe(self._held.release)

    async def stop(self) -> None:
        server, self._server = self._server, None
        if server is None:
            return
        server.close()
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await server.wait_closed()

    async def __aenter__(self) -> MockLLMServer:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.stop()

    @classmethod
    @contextlib.contextmanager
    def in_thread(
        cls,
        steps: Iterable[StepLike] | None = None,
        *,
        loop: bool = False,
        host: str = "127.0.0.1",
        port: int = 0,
    ) -> Iterator[MockLLMServer]:
        """Run the server on its own event loop in a daemon thread (subprocess tests)."""
        srv = cls(steps, loop=loop, host=host, port=port)
        ev_loop = asyncio.new_event_loop()
        ready = threading.Event()
        failure: list[BaseException] = []

        def run() -> None:
            asyncio.set_event_loop(ev_loop)
            try:
                ev_loop.run_until_complete(srv.start())
            except BaseException as exc:
                failure.append(exc)
                ready.set()
                ev_loop.close()
                return
            ready.set()
            ev_loop.run_forever()
            ev_loop.close()

        thread = threading.Thread(target=run, name="mockllm", daemon=True)
        thread.start()
        ready.wait()
        if failure:
            raise failure[0]
        try:
            yield srv
        finally:
            asyncio.run_coroutine_threadsafe(srv.stop(), ev_loop).result(timeout=10)
            ev_loop.call_soon_threadsafe(ev_loop.stop)
            thread.join(timeout=10)

    # -- HTTP ----------------------------------------------------------------------------

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        sock = writer.get_extra_info("socket")
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        # drain() then waits until each frame is handed to the kernel: flush per frame.
        writer.transport.set_write_buffer_limits(high=0)
        self.connections += 1
        number = self.connections
        try:
            while True:
                req = await read_request(reader)
                if req is None:
                    break
                req.connection = number
                if req.path == _PRECONNECT:  # a client connecting early: no such page
                    self.early.append(req)
                    await self._send_bytes(writer, 404, b"Not Found")
                    continue
                self.requests.append(req)
                try:
                    keep = await self._dispatch(req, writer)
                except (ConnectionError, asyncio.CancelledError):
                    raise
                except Exception as exc:
                    traceback.print_exc(file=sys.stderr)
                    body = {"error": {"code": 500, "message": f"mock server bug: {exc!r}"}}
                    await self._send_json(writer, 500, body, close=True)
                    keep = False
                if not keep or req.headers.get("connection", "").lower() == "close":
                    break
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            pass
        except asyncio.CancelledError:
            writer.transport.abort()
        finally:
            if task is not None:
                self._tasks.discard(task)
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    async def _send_json(
        self,
        writer: asyncio.StreamWriter,
        status: int,
        obj: Any,
        headers: dict[str, str] | None = None,
        *,
        close: bool = False,
    ) -> None:
        body = dumps(obj).encode()
        await self._send_bytes(writer, status, body, headers, close=close)

    async def _send_bytes(
        self,
        writer: asyncio.StreamWriter,
        status: int,
        body: bytes,
        headers: dict[str, str] | None = None,
        *,
        close: bool = False,
    ) -> None:
        hdrs = [("Content-Type", "application/json; charset=UTF-8")]
        hdrs += [("Content-Length", str(len(body)))]
        hdrs += list((headers or {}).items())
        writer.write(head(status, hdrs, close=close) + body)
        await writer.drain()

    async def _dispatch(self, req: RecordedRequest, writer: asyncio.StreamWriter) -> bool:
        """Route one request; returns whether the connection may be kept alive."""
        if self.on_request is not None:
            self.on_request(req)
        path, method = req.path, req.method
        body = req.json if isinstance(req.json, dict) else {}
        if method == "POST" and (m := _GEMINI.match(path)):
            return await self._gemini(req, writer, body, m.group(1), m.group(2), False)
        if method == "POST" and (m := _VERTEX.match(path)):  # the Gemini wire, Vertex's auth
            if not self.account.vertex_allowed(req.headers, project_path=bool(m.group(1))):
                spec = ErrorSpec(status=401, message="Request had invalid authentication.")
                await self._send_json(writer, 401, wire_gemini.error_body(spec))
                return True
            return await self._gemini(req, writer, body, m.group(2), m.group(3), False)
        if (answer := self._oauth(req)) is not None:
            status, headers, obj = answer
            await self._send_json(writer, status, obj, headers)
            return True
        if method == "POST" and (m := _CODE_ASSIST.match(path)):
            if self.account.require_token and not self.account.authorized(req.headers):
                spec = ErrorSpec(
                    status=401, message="Request had invalid authentication credentials."
                )
                await self._send_json(writer, 401, wire_gemini.error_body(spec))
                return True
            model = str(body.get("model") or "gemini-2.5-pro")
            if m.group(1) in ("streamGenerateContent", "generateContent"):
                self.account.served_model_request()
            return await self._gemini(req, writer, body, model, m.group(1), True)
        if method == "GET" and path.startswith("/v1internal/"):
            op = self.account.operation(path.removeprefix("/v1internal/"))
            await self._send_json(writer, 200, op)
            return True
        if method == "GET" and _GEMINI_MODELS.match(path):
            await self._send_json(writer, 200, wire_gemini.models_list())
            return True
        if method == "POST" and path.endswith("/chat/completions"):
            stream = bool(body.get("stream"))
            opts = body.get("stream_options")
            include = isinstance(opts, dict) and bool(opts.get("include_usage"))
            model = str(body.get("model") or "mock-model")
            prompt = wire_openai.estimate(body)
            ctx = Ctx(model, len(self.requests), prompt, include_usage=include)
            return await self._generate(writer, wire_openai, ctx, stream)
        if method == "POST" and path.endswith("/messages/count_tokens"):
            n = self._count(wire_anthropic.estimate(body))
            await self._send_json(writer, 200, {"input_tokens": n})
            return True
        if method == "POST" and path.endswith("/messages"):
            model = str(body.get("model") or wire_anthropic.MODELS[0])
            ctx = Ctx(model, len(self.requests), wire_anthropic.estimate(body))
            return await self._generate(writer, wire_anthropic, ctx, bool(body.get("stream")))
        if method == "GET" and path.endswith("/models"):
            anthropic = "anthropic-version" in req.headers
            listing = wire_anthropic.models_list() if anthropic else wire_openai.models_list()
            if not anthropic:
                listing = wire_local.models_list(self.local_server, listing)
            await self._send_json(writer, 200, listing)
            return True
        local = None
        if method == "GET" and path == "/props":
            local = wire_local.props(self.local_server, str(req.query.get("model", "mock")))
        elif method == "POST" and path == "/api/show":
            local = wire_local.api_show(self.local_server, str(body.get("model") or "mock"))
        if local is not None:
            await self._send_json(writer, 200, local)
            return True
        message = f"no mock route for {method} {path}"
        await self._send_json(writer, 404, {"error": {"code": 404, "message": message}})
        return True

    def _oauth(self, req: RecordedRequest) -> tuple[int, dict[str, str], dict[str, Any]] | None:
        """OAuth routes (``/auth``, ``/token``, ``/userinfo``, ``/revoke``), else None."""
        path, method = req.path, req.method
        if method == "GET" and path in ("/auth", "/o/oauth2/v2/auth"):
            return self.account.authorize(req.query)
        if method == "POST" and path == "/token":
            status, obj = self.account.token(req.body)
            return status, {"Cache-Control": "no-store"}, obj
        if method == "GET" and path in ("/userinfo", "/oauth2/v2/userinfo"):
            status, obj = self.account.userinfo(req.headers)
            return status, {}, obj
        if method == "POST" and path == "/revoke":
            self.account.revoke()
            return 200, {}, {}
        return None

    async def _gemini(
        self,
        req: RecordedRequest,
        writer: asyncio.StreamWriter,
        body: dict[str, Any],
        model: str,
        verb: str,
        code_assist: bool,
    ) -> bool:
        if verb == "countTokens":
            n = self._count(wire_gemini.estimate(body, code_assist=code_assist))
            await self._send_json(writer, 200, {"totalTokens": n})
            return True
        if code_assist and verb in ("loadCodeAssist", "onboardUser"):
            acct = self.account
            answer = acct.load_code_assist() if verb == "loadCodeAssist" else acct.onboard()
            await self._send_json(writer, 200, answer)
            return True
        if code_assist and verb == "retrieveUserQuota":
            status, quota = self.account.retrieve_user_quota()
            await self._send_json(writer, status, quota)
            return True
        if verb not in ("streamGenerateContent", "generateContent"):
            spec = ErrorSpec(status=404, message=f"unknown method {verb}")
            await self._send_json(writer, 404, wire_gemini.error_body(spec))
            return True
        prompt = wire_gemini.estimate(body, code_assist=code_assist)
        ctx = Ctx(model, len(self.requests), prompt, code_assist=code_assist)
        if verb == "generateContent":
            return await self._generate(writer, wire_gemini, ctx, False)
        if req.query.get("alt") == "sse":
            return await self._generate(writer, wire_gemini, ctx, True)
        return await self._generate(writer, wire_gemini, ctx, False, json_array=True)

    async def _generate(
        self,
        writer: asyncio.StreamWriter,
        wire: _Wire,
        ctx: Ctx,
        stream: bool,
        *,
        json_array: bool = False,
    ) -> bool:
        step = self._next_step()
        if step is None:
            spec = ErrorSpec(status=400, message=_EXHAUSTED)
            await self._send_json(writer, 400, wire.error_body(spec))
            return True
        if step.fault == "reset_before":
            abort(writer)
            return False
        if step.error is not None:
            err = step.error
            await self._send_json(writer, err.status, wire.error_body(err), err.headers)
            return True
        if stream:
            return await self._stream(writer, wire, step, wire.stream_frames(step, ctx))
        if json_array:  # streamGenerateContent without alt=sse answers one JSON array
            frames = wire.stream_frames(step, ctx)
            body = ("[" + ",".join(f.data for f in frames) + "]").encode()
        elif step.raw_chunks:
            raw = step.raw_chunks[0]
            body = (raw if isinstance(raw, str) else dumps(raw)).encode()
        else:
            body = dumps(wire.response(step, ctx)).encode()
        return await self._respond(writer, step, body)

    async def _respond(self, writer: asyncio.StreamWriter, step: Step, body: bytes) -> bool:
        """A non-streaming answer, with the stream faults mapped onto its one body."""
        fault = step.fault
        half = body[: len(body) // 2]
        if fault == "stall":
            await asyncio.sleep(step.seconds)
        if fault == "hold":
            await self._held.acquire()
        if fault == "malformed_frame":
            body = half
        if fault == "reset_after":
            hdrs = [("Content-Type", "application/json"), ("Content-Length", str(len(body)))]
            writer.write(head(200, hdrs) + half)
            await writer.drain()
            abort(writer)
            return False
        if fault == "cut_mid_frame":  # connection-close framing: the body just ends early
            writer.write(head(200, [("Content-Type", "application/json")], close=True) + half)
            await writer.drain()
            return False
        await self._send_bytes(writer, 200, body, step.headers)
        return True

    async def _stream(
        self, writer: asyncio.StreamWriter, wire: _Wire, step: Step, frames: list[Frame]
    ) -> bool:
        fault = step.fault
        if fault == "malformed_frame" and step.at < len(frames):
            frames[step.at] = frames[step.at].truncated()
        encoded = [chunked(wire.encode(f)) for f in frames]
        closing = fault in ("reset_after", "cut_mid_frame")
        hdrs = [
            ("Content-Type", "text/event-stream"),
            ("Cache-Control", "no-cache"),
            ("Transfer-Encoding", "chunked"),
            *step.headers.items(),
        ]
        writer.write(head(200, hdrs, close=closing))
        if step.endless:
            await self._flood(writer, step, frames, encoded)
        stop_at = step.after_chunks if fault in _CUT_FAULTS else -1
        rate = step.tokens_per_second
        if stop_at < 0 and rate is None:
            for data in encoded:
                writer.write(data)
                await writer.drain()
        else:
            start, sent = time.monotonic(), 0
            for i, data in enumerate(encoded):
                if i == stop_at and await self._fault_point(writer, wire, step, frames[i]):
                    return False
                if rate is not None and frames[i].tokens:
                    sent += frames[i].tokens
                    delay = start + sent / rate - time.monotonic()
                    if delay > 0:
                        await asyncio.sleep(delay)
                writer.write(data)
                await writer.drain()
            if stop_at >= len(encoded) and await self._fault_point(writer, wire, step, None):
                return False
        writer.write(b"0\r\n\r\n")
        await writer.drain()
        return not closing

    async def _flood(
        self, writer: asyncio.StreamWriter, step: Step, frames: list[Frame], encoded: list[bytes]
    ) -> NoReturn:
        """Everything up to the last text frame, then the text frames forever.

        Unpaced, frames go out in blocks of about 64 KB (each still its own chunk and SSE
        frame) so the client, not the mock, is what limits the rate. Ends only when the
        client goes away (the write fails) or the server stops.
        """
        last = max(i for i, f in enumerate(frames) if f.text)
        for data in encoded[: last + 1]:
            writer.write(data)
        await writer.drain()
        cycle = [(f.tokens, data) for f, data in zip(frames, encoded, strict=True) if f.text]
        rate = step.tokens_per_second
        if rate is None:
            one = b"".join(data for _, data in cycle)
            block = one * max(1, _FLOOD_BLOCK // len(one))
            while True:
                writer.write(block)
                await writer.drain()
        start, sent = time.monotonic(), 0
        while True:
            for tokens, data in cycle:
                sent += tokens
                delay = start + sent / rate - time.monotonic()
                if delay > 0:
                    await asyncio.sleep(delay)
                writer.write(data)
                await writer.drain()

    async def _fault_point(
        self, writer: asyncio.StreamWriter, wire: _Wire, step: Step, frame: Frame | None
    ) -> bool:
        """Apply a mid-stream fault before ``frame``; True when the response is over."""
        await writer.drain()
        if step.fault == "stall":
            await asyncio.sleep(step.seconds)
            return False
        if step.fault == "hold":
            await self._held.acquire()
            return False
        if step.fault == "reset_after":
            abort(writer)
            return True
        if frame is not None:  # cut_mid_frame: half a frame, then a clean end and close
            raw = wire.encode(frame)
            writer.write(chunked(raw[: len(raw) // 2]))
        writer.write(b"0\r\n\r\n")
        await writer.drain()
        return True


# -- command line ----------------------------------------------------------------------


async def _serve(srv: MockLLMServer) -> None:
    stop = asyncio.Event()
    ev_loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            ev_loop.add_signal_handler(sig, stop.set)
    async with srv:
        print(f"mockllm listening on {srv.url}", flush=True)
        await stop.wait()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m gemtui.testing.mockllm",
        description="Serve scripted LLM answers (Gemini, Code Assist, OpenAI, Anthropic wires).",
    )
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port (default)")
    parser.add_argument("--script", help="steps as JSONL (one per line) or a JSON list")
    parser.add_argument("--loop", action="store_true", help="cycle the script forever")
    args = parser.parse_args(argv)
    steps = load_script(args.script) if args.script else []
    srv = MockLLMServer(steps, loop=args.loop, host=args.host, port=args.port)
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(_serve(srv))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
