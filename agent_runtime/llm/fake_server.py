"""A local fake OpenAI-compatible HTTP server for tests (no network beyond loopback).

Speaks just enough HTTP/1.1 (keep-alive, ``Content-Length`` bodies) for the
``openai`` SDK: ``POST /v1/chat/completions`` and ``GET /v1/models``.
Behaviour is scripted (``reject_json_schema`` / ``reject_response_formats``
emulate endpoints without structured outputs or JSON mode; a format is a
``response_format.type`` or ``"json_object_schema"`` for a json_object with a
schema; ``reject_status`` / ``reject_message`` shape the rejection, e.g.
llama-cpp-python's 500 "Input should be 'text' or 'json_object'")::

    async with FakeOpenAIServer(reject_json_schema=True) as server:
        server.push(FakeReply.error(429), FakeReply.json({"say": "hi"}))
        client = AsyncOpenAI(base_url=server.base_url, api_key="sk-test", max_retries=0)
        ...
        assert server.requests[0].response_format == "json_schema"

Each request takes the next queued :class:`FakeReply`; when the queue is
empty the ``default`` reply (or responder function) is used, and without one
the server answers 500 so a missing script fails loudly. Every request is
recorded (headers lower-cased, JSON body parsed); ``in_flight`` and
``max_in_flight`` count requests being answered. Tests wait with
:meth:`FakeOpenAIServer.wait_for_requests`, never with sleeps.
"""

from __future__ import annotations

import asyncio
import inspect
import itertools
import json
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any

from agent_runtime.clock import wall_time

__all__ = ["FakeOpenAIServer", "FakeReply", "RecordedRequest", "Responder"]

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class FakeReply:
    """One scripted answer."""

    content: str | None = None  # the assistant message text (status 200)
    status: int = 200
    message: str = ""  # error message for status != 200
    delay_s: float = 0.0  # server-side delay before answering
    headers: Mapping[str, str] = field(default_factory=dict)
    usage: tuple[int, int] | None = None  # (prompt, completion); default: chars / 4
    cached_tokens: int | None = None  # usage.prompt_tokens_details.cached_tokens, if given
    raw_body: bytes | None = None  # sent verbatim instead of a JSON body
    omit_usage: bool = False

    @classmethod
    def json(cls, obj: Any, **kwargs: Any) -> FakeReply:
        return cls(content=json.dumps(obj), **kwargs)

    @classmethod
    def text(cls, content: str, **kwargs: Any) -> FakeReply:
        return cls(content=content, **kwargs)

    @classmethod
    def error(
        cls, status: int, message: str = "", *, retry_after: float | None = None, **kwargs: Any
    ) -> FakeReply:
        headers = dict(kwargs.pop("headers", {}))
        if retry_after is not None:
            headers["retry-after"] = f"{retry_after:g}"
        return cls(
            status=status,
            message=message or _PHRASES.get(status, "error"),
            headers=headers,
            **kwargs,
        )


@dataclass(frozen=True, slots=True)
class RecordedRequest:
    method: str
    path: str
    headers: Mapping[str, str]
    body: Any
    received_at: float

    @property
    def response_format(self) -> str | None:
        """``response_format.type`` of a chat request, if any."""
        if isinstance(self.body, dict):
            rf = self.body.get("response_format")
            if isinstance(rf, dict):
                t = rf.get("type")
                return t if isinstance(t, str) else None
        return None

    @property
    def format_mode(self) -> str | None:
        """The structured-output mode: ``response_format.type``, or ``"json_object_schema"``
        for a json_object that carries a schema."""
        t = self.response_format
        if t == "json_object" and isinstance(self.body, dict):
            rf = self.body.get("response_format")
            if isinstance(rf, dict) and isinstance(rf.get("schema"), dict):
                return "json_object_schema"
        return t

    @property
    def messages(self) -> list[dict[str, Any]]:
        if isinstance(self.body, dict) and isinstance(self.body.get("messages"), list):
            return list(self.body["messages"])
        return []


Responder = Callable[[RecordedRequest], FakeReply | Awaitable[FakeReply]]


_PHRASES = {s.value: s.phrase for s in HTTPStatus}


def _tokens(text: str) -> int:
    return max(1, len(text) // 4) if text else 0


class FakeOpenAIServer:
    """Loopback HTTP server on a free port; an async context manager."""

    def __init__(
        self,
        *,
        default: FakeReply | Responder | None = None,
        reject_json_schema: bool = False,
        reject_response_formats: Iterable[str] = (),
        reject_status: int = 400,
        reject_message: str | None = None,
        models: Iterable[str] = ("gpt-4o-mini",),
        delay_s: float = 0.0,
        host: str = "127.0.0.1",
    ) -> None:
        self.default = default
        self.reject_status = reject_status
        self.reject_message = reject_message
        self.models = list(models)
        self.reject_response_formats: set[str] = set(reject_response_formats)
        if reject_json_schema:
            self.reject_response_formats.add("json_schema")
        self.delay_s = delay_s
        self.host = host
        self.port = 0
        self.requests: list[RecordedRequest] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._queue: deque[FakeReply] = deque()
        self._server: asyncio.Server | None = None
        self._connections: set[asyncio.Task[None]] = set()
        self._writers: set[asyncio.StreamWriter] = set()
        self._changed = asyncio.Condition()
        self._ids = itertools.count(1)

    # --- lifecycle ------------------------------------------------------------------------

    async def __aenter__(self) -> FakeOpenAIServer:
        self._server = await asyncio.start_server(self._handle, self.host, 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._server is None:
            return
        self._server.close()
        for writer in list(self._writers):
            writer.close()
        for task in list(self._connections):
            task.cancel()
        if self._connections:
            await asyncio.wait(list(self._connections))
        await self._server.wait_closed()
        self._server = None

    @property
    def base_url(self) -> str:
        if not self.port:
            raise RuntimeError("the fake server is not running")
        return f"http://{self.host}:{self.port}/v1"

    # --- scripting ------------------------------------------------------------------------

    def push(self, *replies: FakeReply) -> None:
        self._queue.extend(replies)

    @property
    def queued(self) -> int:
        return len(self._queue)

    def chat_requests(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.path.endswith("/chat/completions")]

    async def wait_for_requests(self, n: int) -> None:
        """Wait until at least ``n`` requests have arrived (bound it with ``asyncio.timeout``)."""
        async with self._changed:
            await self._changed.wait_for(lambda: len(self.requests) >= n)

    async def wait_for_in_flight(self, n: int) -> None:
        """Wait until at least ``n`` requests are being answered at once."""
        async with self._changed:
            await self._changed.wait_for(lambda: self.in_flight >= n)

    async def _notify(self) -> None:
        async with self._changed:
            self._changed.notify_all()

    # --- HTTP -----------------------------------------------------------------------------

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        # asyncio's own connection task must end normally (3.11 logs a cancelled one),
        # so the work runs in an inner task that __aexit__ cancels and awaits.
        inner = asyncio.create_task(self._serve(reader, writer), name="fake-openai.connection")
        self._connections.add(inner)
        try:
            await asyncio.wait({inner})
        finally:
            self._connections.discard(inner)
            if not inner.done():
                inner.cancel()
            elif not inner.cancelled() and inner.exception() is not None:
                logger.error("fake OpenAI server connection failed", exc_info=inner.exception())

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._writers.add(writer)
        try:
            while True:
                try:
                    head = await reader.readuntil(b"\r\n\r\n")
                except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
                    return
                lines = head.decode("latin-1").split("\r\n")
                method, path, _ = [*lines[0].split(" ", 2), "", ""][:3]
                headers: dict[str, str] = {}
                for line in lines[1:]:
                    if ":" in line:
                        k, v = line.split(":", 1)
                        headers[k.strip().lower()] = v.strip()
                length = int(headers.get("content-length", "0") or 0)
                try:
                    raw = await reader.readexactly(length) if length else b""
                except (asyncio.IncompleteReadError, ConnectionError):
                    return
                try:
                    body: Any = json.loads(raw) if raw else None
                except ValueError:
                    body = raw.decode("utf-8", "replace")
                request = RecordedRequest(method, path, headers, body, time.monotonic())
                self.requests.append(request)
                self.in_flight += 1
                self.max_in_flight = max(self.max_in_flight, self.in_flight)
                await self._notify()
                try:
                    status, extra, payload = await self._respond(request)
                finally:
                    self.in_flight -= 1
                    await self._notify()
                reason = _PHRASES.get(status, "")
                out = [f"HTTP/1.1 {status} {reason}", "content-type: application/json"]
                out += [f"{k}: {v}" for k, v in extra.items()]
                out += [f"content-length: {len(payload)}", "connection: keep-alive", "", ""]
                try:
                    writer.write("\r\n".join(out).encode("latin-1") + payload)
                    await writer.drain()
                except ConnectionError:
                    return
        finally:
            self._writers.discard(writer)
            writer.close()

    async def _respond(self, request: RecordedRequest) -> tuple[int, dict[str, str], bytes]:
        if request.method == "GET" and request.path.rstrip("/").endswith("/models"):
            listing = [{"id": m, "object": "model", "owned_by": "fake"} for m in self.models]
            return 200, {}, json.dumps({"object": "list", "data": listing}).encode()
        if request.method != "POST" or not request.path.rstrip("/").endswith("/chat/completions"):
            return 404, {}, _error_body(404, f"no route {request.method} {request.path}")
        rejected = self.reject_response_formats
        if request.response_format in rejected or request.format_mode in rejected:
            message = self.reject_message or (
                f"response_format type '{request.response_format}' is not supported"
            )
            status = self.reject_status
            return status, {}, _error_body(status, message, param="response_format")
        reply = await self._next_reply(request)
        delay = reply.delay_s or self.delay_s
        if delay:
            await asyncio.sleep(delay)  # emulating a slow model, not synchronising
        if reply.raw_body is not None:
            return reply.status, dict(reply.headers), reply.raw_body
        if reply.status != 200:
            return reply.status, dict(reply.headers), _error_body(reply.status, reply.message)
        content = reply.content or ""
        body = request.body if isinstance(request.body, dict) else {}
        if reply.usage is not None:
            prompt, completion = reply.usage
        else:
            prompt = sum(_tokens(str(m.get("content", ""))) for m in request.messages)
            completion = _tokens(content)
        data: dict[str, Any] = {
            "id": f"chatcmpl-fake-{next(self._ids)}",
            "object": "chat.completion",
            "created": int(wall_time()),
            "model": str(body.get("model", "fake")),
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content, "refusal": None},
                    "finish_reason": "stop",
                    "logprobs": None,
                }
            ],
        }
        if not reply.omit_usage:
            data["usage"] = {
                "prompt_tokens": prompt,
                "completion_tokens": completion,
                "total_tokens": prompt + completion,
            }
            if reply.cached_tokens is not None:
                data["usage"]["prompt_tokens_details"] = {"cached_tokens": reply.cached_tokens}
        return 200, dict(reply.headers), json.dumps(data).encode()

    async def _next_reply(self, request: RecordedRequest) -> FakeReply:
        if self._queue:
            return self._queue.popleft()
        default = self.default
        if default is None:
            logger.warning("fake OpenAI server: no reply queued for request %d", len(self.requests))
            return FakeReply.error(500, "fake server: no reply queued")
        if isinstance(default, FakeReply):
            return default
        out = default(request)
        if inspect.isawaitable(out):
            out = await out
        return out


def _error_body(status: int, message: str, *, param: str | None = None) -> bytes:
    kind = {400: "invalid_request_error", 401: "authentication_error", 429: "rate_limit_exceeded"}
    return json.dumps(
        {
            "error": {
                "message": message,
                "type": kind.get(status, "server_error"),
                "param": param,
                "code": None,
            }
        }
    ).encode()
