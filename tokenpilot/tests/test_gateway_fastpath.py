"""The gateway's latency work kept its behaviour: one read watchdog per stream, the request
body passed upstream as sent, the response head and first chunk in one write."""

from __future__ import annotations

import asyncio
import json
import time

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request as HTTPRequest
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from tokenpilot.config_section import from_mapping
from tokenpilot.gateway.app import create_app
from tokenpilot.gateway.config import GatewayConfig
from tokenpilot.gateway.runner import ServerPool
from tokenpilot.gateway.wire import WireClient

pytestmark = pytest.mark.e2e  # every test here serves on 127.0.0.1

CHUNK = b'data: {"choices":[{"index":0,"delta":{"content":"hi "},"finish_reason":null}]}\n\n'
USAGE = (b'data: {"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":2,'
         b'"total_tokens":5}}\n\n')


async def _chunked_server(gaps: list[float]) -> tuple[asyncio.Server, int]:
    """Answers one request with a chunked body: a chunk after each of ``gaps`` seconds, then
    the end of the body; a gap of ``inf`` stalls for good."""

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            await reader.readuntil(b"\r\n\r\n")
            writer.write(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
            for gap in gaps:
                await asyncio.sleep(gap if gap != float("inf") else 3600)
                writer.write(b"%x\r\n%b\r\n" % (len(CHUNK), CHUNK))
            writer.write(b"0\r\n\r\n")
            await reader.read()  # keep the connection until the client closes it
        except (ConnectionError, asyncio.CancelledError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    return server, server.sockets[0].getsockname()[1]


def _read_all(gaps: list[float], read_s: float) -> tuple[int, str, float, int]:
    """(chunks read, how it ended, seconds taken, connections pooled after)."""

    async def run() -> tuple[int, str, float, int]:
        server, port = await _chunked_server(gaps)
        client = WireClient(f"http://127.0.0.1:{port}")
        resp = await client.send_raw(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        n, ended, t0 = 0, "end", time.monotonic()

        async def count() -> None:
            nonlocal n
            async for _ in resp.iter_chunks(read_s):
                n += 1

        try:
            await asyncio.wait_for(count(), 10)  # bounded: a watchdog that never fires
        except TimeoutError:
            ended = "timeout"
        took = time.monotonic() - t0
        pooled = len(client._idle)
        await client.aclose()
        server.close()
        return n, ended, took, pooled

    return asyncio.run(run())


def test_a_stalled_stream_times_out_and_its_connection_is_dropped() -> None:
    n, ended, took, pooled = _read_all([0.0, float("inf")], read_s=0.3)
    assert (n, ended, pooled) == (1, "timeout", 0)
    assert 0.25 <= took < 3.0


def test_a_slow_steady_stream_outlasts_the_read_timeout_without_tripping_it() -> None:
    # Six gaps of 0.1 s: 0.6 s in all, twice the 0.3 s limit, but no single wait near it; the
    # one timer re-arms from the last chunk instead of firing.
    n, ended, took, pooled = _read_all([0.1] * 6, read_s=0.3)
    assert (n, ended, pooled) == (6, "end", 1)
    assert took >= 0.5


def test_a_backend_that_never_answers_times_out_at_its_head() -> None:
    # The head's timeout is a watchdog that aborts the connection (no asyncio.timeout): the
    # caller still gets a TimeoutError, and the connection is neither pooled nor counted.
    async def run() -> tuple[str, float, int, int]:
        async def mute(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            await reader.read()  # reads the request, never answers
            writer.close()

        server = await asyncio.start_server(mute, "127.0.0.1", 0)
        client = WireClient(f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}", 4)
        t0 = time.monotonic()
        try:
            await client.send_raw(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n", head_s=0.3)
            ended = "answered"
        except TimeoutError:
            ended = "timeout"
        took = time.monotonic() - t0
        idle, free = len(client._idle), client._sem._value
        server.close()
        return ended, took, idle, free

    ended, took, idle, free = asyncio.run(run())
    assert (ended, idle, free) == ("timeout", 0, 4)
    assert 0.25 <= took < 3.0


def test_a_request_reads_its_head_and_body_under_one_timer() -> None:
    # One timer from the request's head to its body's end when their limits are the same (the
    # gateway's first_byte_s for both), however many chunks come.
    async def run() -> tuple[int, int]:
        server, port = await _chunked_server([0.0, 0.0, 0.0])  # sleep(0): no timer
        loop = asyncio.get_running_loop()
        timers = 0
        call_at = loop.call_at

        def counting(*args: object, **kw: object) -> asyncio.TimerHandle:
            nonlocal timers
            timers += 1
            return call_at(*args, **kw)  # type: ignore[arg-type]

        client = WireClient(f"http://127.0.0.1:{port}")
        await client._sem.acquire()  # a pooled connection (its connect has a timer of its own)
        client._release(*await client._connect(), True)
        loop.call_at = counting  # type: ignore[method-assign]
        try:
            resp = await client.send_raw(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n", head_s=5.0)
            n = len([c async for c in resp.iter_chunks(5.0)])
        finally:
            loop.call_at = call_at  # type: ignore[method-assign]
        await client.aclose()
        server.close()
        return n, timers

    assert asyncio.run(run()) == (3, 1)


def _recording_backend(seen: list[bytes], stall: bool) -> Starlette:
    """An OpenAI-style backend that records each request body; ``stall``: it sends one chunk,
    then nothing more."""

    async def chat(request: HTTPRequest) -> Response:
        seen.append(await request.body())

        async def events():
            yield CHUNK
            if stall:
                await asyncio.sleep(3600)
            yield CHUNK + USAGE + b"data: [DONE]\n\n"

        return StreamingResponse(events(), media_type="text/event-stream")

    async def health(request: HTTPRequest) -> Response:
        return Response("ok")

    return Starlette(routes=[Route("/v1/chat/completions", chat, methods=["POST"]),
                             Route("/health", health)])


def _gateway(pool: ServerPool, seen: list[bytes], stall: bool = False):
    backend = pool.start(_recording_backend(seen, stall))
    app = create_app(from_mapping(GatewayConfig, {
        "backends": [{"url": backend.url, "kind": "openai", "model": "m"}],
        "timeouts": {"first_byte_s": 0.5}}, "gateway config"))
    return app, pool.start(app)


def test_the_body_goes_upstream_as_sent_unless_the_gateway_must_change_it() -> None:
    seen: list[bytes] = []
    with ServerPool() as pool:
        _, gw = _gateway(pool, seen)
        # Odd spacing and key order: passed through byte for byte.
        raw = (b'{ "stream": true,  "messages": [{"role": "user", "content": "hi"}], '
               b'"model": "m", "stream_options": {"include_usage": true}, "max_tokens": 2 }')
        r = httpx.post(gw.url + "/v1/chat/completions", content=raw, timeout=10)
        assert r.status_code == 200 and r.headers["x-tokenpilot-backend"]
        assert seen[-1] == raw
        assert r.text.count("data: ") == 4 and '"usage"' in r.text  # the client asked for it
        # No usage asked for: the gateway asks for it anyway and strips it from the answer.
        body = {"messages": [{"role": "user", "content": "hi"}], "stream": True, "model": "m"}
        r = httpx.post(gw.url + "/v1/chat/completions", json=body, timeout=10)
        sent = json.loads(seen[-1])
        assert sent["stream_options"] == {"include_usage": True}
        assert r.status_code == 200 and '"usage"' not in r.text
        assert r.text.endswith("data: [DONE]\n\n")


def test_a_backend_stalling_mid_stream_ends_the_stream_with_an_error_event() -> None:
    seen: list[bytes] = []
    with ServerPool() as pool:
        app, gw = _gateway(pool, seen, stall=True)
        body = {"messages": [{"role": "user", "content": "hi"}], "stream": True, "model": "m",
                "max_tokens": 2}
        t0 = time.monotonic()
        r = httpx.post(gw.url + "/v1/chat/completions", json=body, timeout=10)
        took = time.monotonic() - t0
        assert r.status_code == 200
        events = [e for e in r.text.split("\n\n") if e]
        assert events[0] + "\n\n" == CHUNK.decode()  # the first chunk went out as it came
        err = json.loads(events[-1][len("data: "):])["error"]
        assert err["code"] == "upstream_error" and "TimeoutError" in err["message"]
        assert 0.4 <= took < 5.0
        text = app.gateway.metrics.render().decode()
        assert 'outcome="error"' in text
        b = app.gateway.backends[0]
        assert b.inflight == 0 and b.decode_pending == 0  # the books are settled
