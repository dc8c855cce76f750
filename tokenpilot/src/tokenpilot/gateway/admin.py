"""The admin listener (``dashboard.listen``): ``/dashboard`` and ``/dashboard/data`` served off
the data path, as Envoy serves its admin port and Traefik its dashboard entrypoint.

The operator opens the dashboard when the data plane is overloaded, and then an answer on the
gateway's own port waits behind every stream its event loop relays. Here a thread of its own
runs its own small event loop (uvloop where installed) and uvicorn server on another address
(TCP, or a Unix socket), and answers from what the serving loop has already made: the latest
``Snapshot`` of the sampler (which stays on the serving loop), a whole object handed over by
one reference write, never changed after. Only when no snapshot is made (no page polled
lately) does a poll ask the serving loop for one, once. The page reads nothing else mutable:
``Gateway.dashboard_page`` and the admin key check read the config. What it writes (each
answer counted in the gateway's metrics and access log, whose label dicts and files the serving
loop writes too) is handed to the serving loop (``call_soon_threadsafe``), not done here.

Both threads share one GIL: while the serving loop runs Python, this thread waits for it, up
to the interpreter's switch interval before the holder is made to let go (uvloop lets go of it
whenever its loop waits for I/O), and an answer needs it more than once (woken to read the
request, to write the answer). With Python's 5 ms and the serving loop saturated (the load
backlogged at 460-650 of 1,000 requests/s sent), ``benchmarks/bench_dashboard.py`` measured the
admin listener's answers at a p50 of 10-14 ms as its client saw them; with 0.2 ms, 1.2-1.4 ms
(its own time, request in to last byte out, 0.1 ms either way; the gateway's port 86-163 ms).
So ``dashboard.gil_switch_ms`` (0.2 by default) sets the interval while the listener serves: it
only matters while another thread waits for the GIL, which the admin thread does only while it
answers.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import stat
import sys
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from tokenpilot.gateway.accesslog import Exchange
from tokenpilot.gateway.asgi import DASHBOARD_DATA, Receive, Scope, Send, send_dashboard_data
from tokenpilot.gateway.config import admin_address
from tokenpilot.gateway.dashboard import Snapshot
from tokenpilot.gateway.openai import error_response

if TYPE_CHECKING:
    from tokenpilot.gateway.app import Gateway


class AdminListener:
    """The admin listener of one gateway: ``bind`` (may fail: a one-line OSError), ``start``
    on the serving loop, ``stop``. ``url``: where it answers once bound."""

    def __init__(self, gw: Gateway, spec: str) -> None:
        self.gw = gw
        self.spec = spec
        self.address = admin_address(spec)
        self.sock: socket.socket | None = None
        self.url = ""
        self.thread: threading.Thread | None = None
        self.native_id: int | None = None  # the thread's, for pinning it (the benchmark)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: Any = None
        self._main: asyncio.AbstractEventLoop | None = None
        self._started = threading.Event()
        self._failed: BaseException | None = None
        self._switch: tuple[float, float] | None = None  # (before, ours) while serving

    def bind(self) -> None:
        """Listen on ``dashboard.listen`` now (before serving, so that a taken port is said at
        once); OSError with the address in its message."""
        if self.sock is not None:
            return
        addr = self.address
        try:
            if isinstance(addr, str):
                with contextlib.suppress(FileNotFoundError):
                    if os.path.exists(addr) and _is_socket(addr):
                        os.unlink(addr)  # a stale socket file from an earlier run
                sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                sock.bind(addr)
                self.url = f"unix:{addr}"
            else:
                from tokenpilot.gateway.runner import bind

                sock = bind(*addr)
                host = f"[{addr[0]}]" if ":" in addr[0] else addr[0]
                self.url = f"http://{host}:{sock.getsockname()[1]}"
            sock.listen(128)
            sock.setblocking(False)
        except OSError as exc:
            raise OSError(f"dashboard.listen {self.spec}: cannot listen: "
                          f"{exc.strerror or exc}") from None
        self.sock = sock

    def start(self) -> None:
        """On the serving loop: the admin thread up and answering (bounded: 10 s), and the
        GIL switch interval ``dashboard.gil_switch_ms`` set."""
        self.bind()
        self._main = asyncio.get_running_loop()
        switch = self.gw.cfg.dashboard.gil_switch_ms
        if switch > 0:
            before = sys.getswitchinterval()
            sys.setswitchinterval(switch / 1000)
            self._switch = (before, sys.getswitchinterval())  # as the interpreter rounded it
        self.thread = threading.Thread(target=self._run, name="tokenpilot-admin", daemon=True)
        self.thread.start()
        if not self._started.wait(10) or self._failed is not None:
            raise RuntimeError(f"dashboard.listen {self.spec}: the admin listener did not "
                               f"start: {self._failed or 'no answer within 10 s'}")

    def _run(self) -> None:
        from tokenpilot.gateway.runner import make_server, new_loop

        self.native_id = threading.get_native_id()
        loop = self._loop = new_loop()
        asyncio.set_event_loop(loop)
        server = self._server = make_server(AdminApp(self.gw, self._snapshot, self._count),
                                            self.sock, lifespan="off")
        try:
            task = loop.create_task(server.serve(sockets=[self.sock]))
            loop.run_until_complete(self._wait_started(server, task))
            loop.run_until_complete(task)
        except BaseException as exc:  # noqa: BLE001 - said by ``start``
            self._failed = exc
            self._started.set()
        finally:
            loop.close()

    async def _wait_started(self, server: Any, task: asyncio.Task) -> None:
        while not server.started and not task.done():
            await asyncio.sleep(0.005)
        if task.done() and task.exception() is not None:
            self._failed = task.exception()
        self._started.set()

    async def _snapshot(self) -> Snapshot:
        """On the admin loop: the sampler's latest snapshot; made on the serving loop (and
        waited for) only when there is none."""
        live = self.gw.live
        live.watched()
        snap = live.snapshot
        if snap is None:
            assert self._main is not None

            async def make() -> Snapshot:
                return live.latest()

            snap = await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(make(),
                                                                              self._main))
        return snap

    def _count(self, route: str, ex: Exchange) -> None:
        """On the admin loop: ``Gateway.responded`` for an answer, run on the serving loop
        (the metrics' label dicts and the access log are its); dropped once it has closed."""
        assert self._main is not None
        with contextlib.suppress(RuntimeError):  # the serving loop closed: nothing to count
            self._main.call_soon_threadsafe(self.gw.responded, route, ex)

    def stop(self, timeout: float = 10.0) -> None:
        """The admin server shut down and its thread ended (bounded by ``timeout``); the
        switch interval as it was, unless someone changed it since."""
        if self._switch is not None:
            before, ours = self._switch
            if abs(sys.getswitchinterval() - ours) < 2e-6:  # kept in whole microseconds
                sys.setswitchinterval(before)
            self._switch = None
        loop, server = self._loop, self._server
        if loop is not None and server is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
                loop.call_soon_threadsafe(setattr, server, "should_exit", True)
        if self.thread is not None:
            self.thread.join(timeout)
        if self.sock is not None:
            with contextlib.suppress(OSError):
                self.sock.close()
            if isinstance(self.address, str):
                with contextlib.suppress(OSError):
                    os.unlink(self.address)
            self.sock = None


def _is_socket(path: str) -> bool:
    return stat.S_ISSOCK(os.stat(path).st_mode)


class AdminApp:
    """The admin listener's ASGI app: the dashboard's two routes, each counted like the
    gateway port's (route ``dashboard``) through ``count`` (``AdminListener._count``: on the
    serving loop); anything else a JSON 404."""

    def __init__(self, gw: Gateway, snapshot: Any,
                 count: Callable[[str, Exchange], None]) -> None:
        self.gw = gw
        self.snapshot = snapshot
        self.count = count

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        gw, path, method = self.gw, scope["path"], scope["method"]
        ex = Exchange(method, path, gw.now())
        reason = "ok"
        try:
            if method == "GET" and path == DASHBOARD_DATA:
                reason = await send_dashboard_data(gw, scope, receive, send, ex, self.snapshot)
                return
            if method in ("GET", "HEAD") and path == "/dashboard":
                response = gw.dashboard_page(scope)
            else:
                response = error_response(404, "no such endpoint on the admin listener; it "
                                          "serves GET /dashboard and /dashboard/data")
            ex.status = response.status_code
            reason = getattr(response, "reason", "ok")
            await response(scope, receive, send)
        finally:
            ex.reason = reason
            ex.latency_s = time.perf_counter() - ex.t0
            self.count("dashboard" if ex.status != 404 else "other", ex)
