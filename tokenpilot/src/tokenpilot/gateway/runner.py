"""Run ASGI apps on loopback inside this process: for the tests, the demo and the benchmark.

A ``ServerPool`` owns one background thread with one event loop; every app started on it runs
there as a ``uvicorn.Server`` on its own port (bound before the server starts, so the caller
knows the URL at once). ``stop`` is a graceful shutdown, ``kill`` drops open connections the
way a crashed process would.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
from collections.abc import Coroutine
from dataclasses import dataclass, field
from typing import Any

import uvicorn

LOOPBACK = "127.0.0.1"


@dataclass
class ServerHandle:
    """One running app: its URL, the uvicorn server and the socket it listens on."""

    url: str
    port: int
    app: Any
    server: uvicorn.Server
    sock: socket.socket
    task: asyncio.Future | None = field(default=None, repr=False)


def bind(host: str = LOOPBACK, port: int = 0) -> socket.socket:
    # proto must be IPPROTO_TCP: asyncio sets TCP_NODELAY on accepted sockets only then, and
    # without it Nagle holds each small SSE chunk for the peer's delayed ACK (40 ms).
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(2048)
    sock.setblocking(False)
    return sock


class Server(uvicorn.Server):
    """uvicorn's server, whose main loop wakes once a second, not ten times.

    uvicorn's ``main_loop`` sleeps 0.1 s between ticks, to see ``should_exit`` soon and to
    renew the Date header every tenth tick: ten wake-ups a second of a server with nothing to
    do, over a third of an idle gateway's CPU (the health checks are the rest). Here a tick
    comes every ``TICK_S`` (each renews the Date header, as uvicorn's every tenth did) and
    setting ``should_exit`` wakes the loop at once, from any thread or a signal handler.
    """

    TICK_S = 1.0
    _loop: asyncio.AbstractEventLoop | None = None
    _waiter: asyncio.Future | None = None
    _exit = False

    @property  # type: ignore[override]
    def should_exit(self) -> bool:
        return self._exit

    @should_exit.setter
    def should_exit(self, value: bool) -> None:
        self._exit = value
        loop, waiter = self._loop, self._waiter
        if value and loop is not None and waiter is not None:
            with contextlib.suppress(RuntimeError):  # the loop is closed: nothing waits
                loop.call_soon_threadsafe(_wake, waiter)

    async def main_loop(self) -> None:
        loop = self._loop = asyncio.get_running_loop()
        counter = 0  # uvicorn's ``on_tick`` renews the Date header when it divides by 10
        while not await self.on_tick(counter):
            counter = (counter + 10) % 864000
            waiter = self._waiter = loop.create_future()
            if self._exit:  # set between the tick and the waiter
                self._waiter = None
                break
            timer = loop.call_later(self.TICK_S, _wake, waiter)
            try:
                await waiter
            finally:
                timer.cancel()
                self._waiter = None


def _wake(waiter: asyncio.Future) -> None:
    if not waiter.done():
        waiter.set_result(None)


def make_server(app: Any, sock: socket.socket, lifespan: str = "on") -> uvicorn.Server:
    config = uvicorn.Config(
        app, log_level="warning", access_log=False, lifespan=lifespan,
        timeout_graceful_shutdown=2, backlog=2048, limit_concurrency=None,
        timeout_keep_alive=30, http="auto",  # httptools when installed, else h11
        # No X-Forwarded-* rewriting: nothing here reads the client's address, and the
        # middleware is one more layer on every request's way to the app.
        proxy_headers=False,
    )
    server = Server(config)
    # uvicorn installs signal handlers only on the main thread's loop; ours never is.
    server.install_signal_handlers = lambda: None  # type: ignore[method-assign]
    return server


def new_loop() -> asyncio.AbstractEventLoop:
    """uvloop's event loop when installed (a dependency: somewhat less CPU per proxied
    request than asyncio's selector loop, within this machine's noise), else asyncio's."""
    try:
        import uvloop
    except ImportError:
        return asyncio.new_event_loop()
    return uvloop.new_event_loop()


class ServerPool:
    """Apps served from one background event loop. Use as a context manager."""

    def __init__(self) -> None:
        self.loop = new_loop()
        self._thread = threading.Thread(target=self._run, name="tokenpilot-servers", daemon=True)
        self._thread.start()
        self.handles: list[ServerHandle] = []

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_forever()

    def call(self, coro: Coroutine[Any, Any, Any], timeout: float = 30.0) -> Any:
        """Run ``coro`` on the pool's loop and wait for its result."""
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def start(self, app: Any, port: int = 0, host: str = LOOPBACK) -> ServerHandle:
        sock = bind(host, port)
        server = make_server(app, sock)
        real_port = sock.getsockname()[1]
        handle = ServerHandle(f"http://{host}:{real_port}", real_port, app, server, sock)

        async def launch() -> None:
            handle.task = asyncio.ensure_future(server.serve(sockets=[sock]))
            for _ in range(2000):  # bounded: 10 s
                if server.started or handle.task.done():
                    break
                await asyncio.sleep(0.005)
            if not server.started:
                if handle.task.done() and handle.task.exception():
                    raise RuntimeError(f"server failed to start: {handle.task.exception()}")
                raise RuntimeError("server did not start within 10 s")

        self.call(launch())
        self.handles.append(handle)
        return handle

    def stop(self, handle: ServerHandle, force: bool = False, timeout: float = 10.0) -> None:
        """Shut ``handle`` down; ``force`` closes open connections at once (a crash)."""

        async def shutdown() -> None:
            if force:
                hook = getattr(handle.app, "crash", None) or getattr(
                    getattr(handle.app, "state", None), "crash", None)
                if callable(hook):
                    hook()
                server = handle.server
                server.force_exit = True
                server.should_exit = True
                # A dead process's port refuses connections at once: stop listening now, not
                # after the shutdown (until then a new connection would wait unanswered).
                for listener in getattr(server, "servers", ()):
                    listener.close()
                # Close every connection now, mid-response, the way a dead process would.
                for conn in list(getattr(server.server_state, "connections", ())):
                    transport = getattr(conn, "transport", None)
                    if transport is not None:
                        transport.abort()
            else:
                handle.server.should_exit = True
            if handle.task is not None:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(asyncio.shield(handle.task), timeout)

        with contextlib.suppress(Exception):
            self.call(shutdown(), timeout + 5)
        with contextlib.suppress(OSError):
            handle.sock.close()
        if handle in self.handles:
            self.handles.remove(handle)

    def kill(self, handle: ServerHandle) -> None:
        self.stop(handle, force=True)

    def close(self) -> None:
        for handle in list(reversed(self.handles)):
            self.stop(handle)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(10)
        if not self.loop.is_running():
            self.loop.close()

    def __enter__(self) -> ServerPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
