"""The servers' main loop (``runner.Server``): idle, it wakes once a second, not ten times as
uvicorn's does; a shutdown asked for from any thread still ends it at once; the Date header
is kept."""

from __future__ import annotations

import threading
import time

import httpx
import pytest
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from tokenpilot.gateway.runner import Server, ServerPool

pytestmark = pytest.mark.e2e  # every test here serves on 127.0.0.1


def _app() -> Starlette:
    return Starlette(routes=[Route("/", lambda request: PlainTextResponse("ok"))])


def _count_ticks(server: Server) -> list[float]:
    ticks: list[float] = []
    on_tick = server.on_tick

    async def counted(counter: int) -> bool:
        ticks.append(time.monotonic())
        return await on_tick(counter)

    server.on_tick = counted  # type: ignore[method-assign]
    return ticks


def test_an_idle_server_ticks_once_a_second() -> None:
    with ServerPool() as pool:
        h = pool.start(_app())
        assert isinstance(h.server, Server)
        ticks = _count_ticks(h.server)
        time.sleep(2.05)
        # uvicorn's own loop ticks every 0.1 s: ~20 here.
        assert 1 <= len(ticks) <= 3, ticks
        r = httpx.get(h.url + "/")
        assert r.status_code == 200 and r.text == "ok"
        assert r.headers.get("date", "").endswith(" GMT")  # still renewed at each tick


def test_a_shutdown_from_another_thread_ends_the_wait_at_once() -> None:
    with ServerPool() as pool:
        h = pool.start(_app())
        h.server.TICK_S = 60.0  # type: ignore[attr-defined]
        time.sleep(1.2)  # past the first tick: now in a 60 s wait
        assert h.task is not None and not h.task.done()
        t0 = time.monotonic()
        threading.Thread(target=setattr, args=(h.server, "should_exit", True)).start()
        for _ in range(100):
            if h.task.done():
                break
            time.sleep(0.05)
        assert h.task.done(), "the main loop slept on through should_exit"
        assert time.monotonic() - t0 < 4  # the graceful shutdown itself is quick here
        assert h.server.should_exit is True


def test_should_exit_set_before_serving_is_seen() -> None:
    with ServerPool() as pool:
        h = pool.start(_app())
        pool.stop(h)
        assert h.task is not None and h.task.done()
        with pytest.raises(httpx.ConnectError):
            httpx.get(h.url + "/", timeout=1)
