"""The gateway's ASGI front: the two completion routes bypass Starlette's middleware stack.

Per proxied request, Starlette's router, its two exception middlewares and ``StreamingResponse``
(which runs every stream in an anyio task group with a cancel scope) cost more CPU than the
routing decision itself. ``GatewayApp`` serves ``POST /v1/chat/completions`` and
``POST /v1/completions`` directly and hands every other request (and the lifespan) to the
Starlette app, which keeps the rare routes and the JSON 404/405 errors. Every response, of
either kind, is counted (and logged) once its last byte is out. ``RelayResponse``
streams one relay the plain way: one watcher task notices a client that went away and stops
the relay, as Starlette's task group did, so the backend stops generating for nobody.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Any

from starlette.applications import Starlette

from tokenpilot.gateway.accesslog import Exchange
from tokenpilot.gateway.dashboard import BadSince, Snapshot, accepts_gzip, since_of
from tokenpilot.gateway.openai import COMPLETION_PATHS, REASONS, error_response, header

if TYPE_CHECKING:
    from tokenpilot.gateway.app import Gateway

log = logging.getLogger("tokenpilot.gateway")
Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]
SSE = b"text/event-stream; charset=utf-8"
DONE = b"data: [DONE]\n\n"
_TCP_CORK = getattr(socket, "TCP_CORK", None)  # Linux
_HEADERS: dict[str, list[tuple[bytes, bytes]]] = {}  # backend name -> response headers
# Relay streams from the backend's socket straight to the client's where the server allows it
# (``chunked_transport``); False: every chunk through ``send`` (the tests run both).
SPLICE = True


async def client_gone(receive: Receive) -> None:
    """Return once the client has hung up (its ``http.disconnect``); every other message
    (none is due once the body was read) is passed over."""
    while (await receive())["type"] != "http.disconnect":
        pass


# The ``route`` label of ``tokenpilot_responses``: a path of the gateway's, else "other" (any
# path a client makes up must not become a series of its own).
DASHBOARD_DATA = "/dashboard/data"
ROUTES = {"/v1/chat/completions": "chat", "/v1/completions": "completions",
          "/v1/models": "models", "/health": "health", "/metrics": "metrics",
          "/dashboard": "dashboard", "/dashboard/data": "dashboard"}


class RelayResponse:
    """A streamed (SSE) answer: each chunk of ``body`` is sent as soon as it comes.

    A chunk that ends with ``data: [DONE]`` ends the response at once, in the same write as
    the chunked body's terminator (one send and one client wake-up fewer per request); the
    rest of ``body`` (reading the upstream's own terminator, the accounting) runs after.
    ``first_ready``: ``body``'s first chunk is already in hand (the gateway reads it before it
    answers), so the disconnect watcher starts after that chunk is out, off the time to first
    token. A ``body`` with a ``target`` (a ``RelayStream``) is given the client's transport
    once its first chunk is out, where uvicorn's chunked body can be written to directly
    (``chunked_transport``; ``SPLICE``): it then relays the rest itself and yields only what
    must go through ``send`` (b"" to wait for a slow client, the [DONE] chunk).
    """

    def __init__(self, body: AsyncIterator[bytes], backend: str = "",
                 first_ready: bool = False) -> None:
        self.body = body
        self.first_ready = first_ready
        headers = _HEADERS.get(backend)
        if headers is None:
            headers = [(b"content-type", SSE)]
            if backend:
                headers.append((b"x-tokenpilot-backend", backend.encode()))
            if len(_HEADERS) < 1024:  # backend names: a handful per gateway
                _HEADERS[backend] = headers
        self.headers = headers

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        task = asyncio.current_task()
        gone = False

        async def watch() -> None:
            nonlocal gone
            await client_gone(receive)
            gone = True
            if task is not None:
                task.cancel()  # the relay's own ``finally`` settles the books

        watcher: asyncio.Task | None = None
        corked = None
        if self.first_ready:
            corked = cork(send)
        else:
            watcher = asyncio.get_running_loop().create_task(watch())
        try:
            await send({"type": "http.response.start", "status": 200, "headers": self.headers})
            last = b""
            spliceable = SPLICE and hasattr(self.body, "target")
            async for chunk in self.body:
                if chunk.endswith(DONE):
                    last = chunk
                    break
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
                if corked is not None:
                    corked = uncork(corked)
                if watcher is None:
                    watcher = asyncio.get_running_loop().create_task(watch())
                if spliceable:  # from the next chunk on, straight to the client's socket
                    spliceable = False
                    self.body.target = chunked_transport(scope, send)  # type: ignore[attr-defined]
            if watcher is not None:
                watcher.cancel()  # before the end: the server reports "disconnect" after it
            await send({"type": "http.response.body", "body": last, "more_body": False})
            if corked is not None:
                corked = uncork(corked)
            if last:
                async for extra in self.body:  # nothing may follow [DONE]; finish the relay
                    if extra.strip():
                        log.debug("dropped %d bytes after [DONE]", len(extra))
        except asyncio.CancelledError:
            if not gone or task is None:
                raise
            task.uncancel()  # the cancel was ours: the client left, nothing is wrong here
        finally:
            if corked is not None:
                uncork(corked)
            if watcher is not None:
                watcher.cancel()
            aclose = getattr(self.body, "aclose", None)
            if aclose is not None:
                await aclose()


def chunked_transport(scope: Scope, send: Send) -> Any:
    """The client's transport, where ``send`` is uvicorn's (httptools) and the response under
    way is a chunked body that bytes framed as its chunks may be written to directly; else
    None (another server, or a state this does not know)."""
    cycle = getattr(send, "__self__", None)
    if (type(cycle).__module__ != "uvicorn.protocols.http.httptools_impl"
            or getattr(cycle, "chunked_encoding", None) is not True
            or getattr(cycle, "response_started", None) is not True
            or getattr(cycle, "response_complete", True) or getattr(cycle, "disconnected", True)
            or scope.get("method") == "HEAD"):
        return None
    transport = getattr(cycle, "transport", None)
    return transport if transport is not None and not transport.is_closing() else None


def cork(send: Send) -> Any:
    """Hold the client connection's small writes (TCP_CORK) until ``uncork``; returns its socket,
    or None where that cannot be done.

    The response head and the first chunk then leave as one segment: the client wakes once,
    with its first token, instead of first for a head alone. The socket is reached through
    uvicorn's ``send`` (a bound method of its request cycle, which holds the transport); any
    other server, or another platform, simply gets two writes.
    """
    transport = getattr(getattr(send, "__self__", None), "transport", None)
    if _TCP_CORK is None or transport is None:
        return None
    sock = transport.get_extra_info("socket")
    try:
        sock.setsockopt(socket.IPPROTO_TCP, _TCP_CORK, 1)
    except (AttributeError, OSError):
        return None
    return sock


def uncork(sock: Any) -> None:
    """Send what ``cork`` held back, now."""
    with contextlib.suppress(OSError):
        sock.setsockopt(socket.IPPROTO_TCP, _TCP_CORK, 0)


class GatewayApp:
    """The ASGI app ``create_app`` returns; ``state.gateway`` is its ``Gateway``."""

    def __init__(self, gateway: Gateway, rest: Starlette) -> None:
        self.gateway = gateway
        self.rest = rest
        self.state = rest.state

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.rest(scope, receive, send)  # the lifespan
            return
        path = scope["path"]
        if scope["method"] == "POST":
            chat = COMPLETION_PATHS.get(path)
            if chat is not None:
                await self._completions(scope, receive, send, chat)
                return
        elif path == DASHBOARD_DATA and scope["method"] == "GET":
            await self._dashboard_data(scope, receive, send)
            return
        ex = Exchange(scope["method"], path, self.gateway.now())

        async def sent(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                ex.status = message["status"]
            await send(message)

        try:
            await self.rest(scope, receive, sent)
        finally:
            self._responded(ROUTES.get(path, "other"), ex,
                            "ok" if 0 < ex.status < 400 else REASONS.get(ex.status,
                                                                         f"http_{ex.status}"))

    async def _completions(self, scope: Scope, receive: Receive, send: Send,
                           chat: bool) -> None:
        gw = self.gateway
        ex = Exchange("POST", scope["path"], gw.now())
        try:
            response = await gw.completions(scope, receive, chat, ex)
        except Exception:  # a bug: answer like a server, keep the traceback in the log
            log.exception("unhandled error on %s", scope["path"])
            response = error_response(500, "internal error in the gateway; see its log",
                                      "internal_error")
        ex.status = getattr(response, "status_code", 200)  # a RelayResponse: always 200
        try:
            await response(scope, receive, send)
        finally:
            # A stream's reason is its outcome, known once it ended (the relay sets it).
            self._responded("chat" if chat else "completions", ex,
                            ex.reason or getattr(response, "reason", "") or "success")

    async def _dashboard_data(self, scope: Scope, receive: Receive, send: Send) -> None:
        """The dashboard's JSON (made once per sample) in two sends, off Starlette's stack:
        an open page polls it under whatever load the gateway carries."""
        gw = self.gateway
        ex = Exchange("GET", DASHBOARD_DATA, gw.now())
        reason = "ok"
        try:
            reason = await send_dashboard_data(gw, scope, receive, send, ex, gw.live.latest)
        finally:
            self._responded("dashboard", ex, reason)

    def _responded(self, route: str, ex: Exchange, reason: str) -> None:
        ex.reason = reason
        ex.latency_s = time.perf_counter() - ex.t0
        self.gateway.responded(route, ex)


def dashboard_data_request(gw: Gateway, scope: Scope) -> tuple[Any, int | None, bool]:
    """A GET of ``/dashboard/data`` read: (the response that refuses it, or None; its
    ``since``; whether it takes gzip). The admin key is checked as ``/dashboard``'s."""
    refused = gw.dashboard_refusal(scope)
    since = None
    if refused is None:
        try:
            since = since_of(scope.get("query_string", b""))
        except BadSince as exc:
            refused = error_response(400, str(exc), "invalid_since", "since")
    return refused, since, accepts_gzip(header(scope, b"accept-encoding"))


def dashboard_data_headers(body: bytes, gzipped: bool) -> list[tuple[bytes, bytes]]:
    headers = [(b"content-type", b"application/json"), (b"cache-control", b"no-store"),
               (b"vary", b"accept-encoding"), (b"content-length", str(len(body)).encode())]
    if gzipped:
        headers.append((b"content-encoding", b"gzip"))
    return headers


async def send_dashboard_data(gw: Gateway, scope: Scope, receive: Receive, send: Send,
                              ex: Exchange, latest: Callable[[], Snapshot | Awaitable[Snapshot]]
                              ) -> str:
    """Answer a GET of ``/dashboard/data`` (on the gateway's port or the admin listener's)
    from the snapshot ``latest()`` gives, in two sends; ``ex.status`` set; the reason, for
    the metrics."""
    refused, since, gz = dashboard_data_request(gw, scope)
    if refused is not None:
        ex.status = refused.status_code
        await refused(scope, receive, send)
        return getattr(refused, "reason", "ok")
    snap = latest()
    if not isinstance(snap, Snapshot):
        snap = await snap
    body, gzipped = snap.answer(since, gz)
    ex.status = 200
    await send({"type": "http.response.start", "status": 200,
                "headers": dashboard_data_headers(body, gzipped)})
    await send({"type": "http.response.body", "body": body})
    return "ok"
