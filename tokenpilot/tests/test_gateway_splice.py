"""The streamed relay, spliced (backend socket straight to the client's) and plain (every chunk
through uvicorn's ``send``): the same bytes, in order, the same books, either way.

Behind the gateway is a raw asyncio HTTP server that writes a chunked SSE body in the pieces
a test chooses (a size line split, several chunks in one write, a chunk across reads), so the
splice's unframing meets the splits a real network makes.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import socket
import threading

import httpx
import pytest
from builders import MODEL, chat, wait_until

from tokenpilot.config_section import from_mapping
from tokenpilot.gateway import asgi
from tokenpilot.gateway.app import create_app
from tokenpilot.gateway.config import ConfigError, GatewayConfig
from tokenpilot.gateway.runner import ServerPool
from tokenpilot.gateway.wire import WireClient

pytestmark = pytest.mark.e2e  # every test here serves on 127.0.0.1

TOKENS = 9


def event(i: int) -> bytes:
    delta = json.dumps({"content": f"w{i} "})
    return (f'data: {{"id":"x","object":"chat.completion.chunk","model":"{MODEL}",'
            f'"choices":[{{"index":0,"delta":{delta},"finish_reason":null}}]}}\n\n').encode()


def events(n: int = TOKENS, usage: bool = True) -> list[bytes]:
    """A stream's SSE events: ``n`` tokens, the end, the usage event, [DONE]."""
    out = [event(i) for i in range(n)]
    out.append(f'data: {{"id":"x","object":"chat.completion.chunk","model":"{MODEL}",'
               '"choices":[{"index":0,"delta":{},"finish_reason":"length"}]}\n\n'.encode())
    if usage:
        u = {"prompt_tokens": 7, "completion_tokens": n, "total_tokens": 7 + n}
        out.append(f'data: {{"id":"x","choices":[],"usage":{json.dumps(u)}}}\n\n'.encode())
    out.append(b"data: [DONE]\n\n")
    return out


def chunked(parts: list[bytes]) -> bytes:
    return b"".join(b"%x\r\n%b\r\n" % (len(p), p) for p in parts) + b"0\r\n\r\n"


class RawBackend:
    """An HTTP/1.1 server on 127.0.0.1 whose streamed answers are scripted byte by byte:
    ``script(conn_no)`` gives the writes (bytes) and pauses (floats: seconds; a
    ``threading.Event``: wait for it) after the response head; None ends the script by
    closing the connection (a crash)."""

    def __init__(self, pool: ServerPool, script) -> None:
        self.script = script
        self.connections = 0
        self.streamed_on: set[int] = set()  # the connections that carried streams
        self.closed_by_peer = threading.Event()  # one of those, closed by the gateway
        self.server = pool.call(asyncio.start_server(self._serve, "127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.server.sockets[0].getsockname()[1]}"

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        conn = self.connections
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.decode().split("\r\n")
                length = next((int(x.split(":")[1]) for x in lines
                               if x.lower().startswith("content-length:")), 0)
                await reader.readexactly(length)
                if lines[0].startswith("GET"):  # /health and the like
                    writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok")
                    continue
                self.streamed_on.add(conn)
                writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
                             b"transfer-encoding: chunked\r\n\r\n")
                for step in self.script(conn):
                    if step is None:
                        writer.transport.abort()
                        return
                    if isinstance(step, float):
                        await asyncio.sleep(step)
                    elif isinstance(step, threading.Event):
                        await asyncio.to_thread(step.wait, 5)
                    else:
                        writer.write(step)
                        await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            if conn in self.streamed_on:
                self.closed_by_peer.set()
        finally:
            writer.close()


@pytest.fixture(params=[True, False], ids=["spliced", "plain"])
def spliced(request, monkeypatch) -> bool:
    monkeypatch.setattr(asgi, "SPLICE", request.param)
    return request.param


def gateway(pool: ServerPool, backend: RawBackend):
    cfg = from_mapping(GatewayConfig, {"backends": [
        {"url": backend.url, "kind": "openai", "model": MODEL}], "router": "round-robin"},
        "gateway config", ConfigError)
    return pool.start(create_app(cfg))


async def relay(url: str, body: dict) -> list[list[bytes]]:
    """One streamed request: its chunks (in a list of one)."""
    async with WireClient(url) as c:
        r = await c.request("POST", "/v1/chat/completions", body)
        assert r.status == 200
        return [[chunk async for chunk in r.iter_chunks()]]


def test_relayed_bytes_keep_order_and_framing_however_the_backend_splits_them(
        spliced: bool) -> None:
    whole = chunked(events())
    # Cut the backend's body everywhere that matters: inside a size line, between a chunk and
    # its CRLF, inside the terminator, and several chunks in one write.
    cuts = sorted({1, 2, 5, 40, 200, len(whole) // 2, len(whole) - 7, len(whole) - 3,
                   len(whole) - 1})
    pieces = [whole[a:b] for a, b in zip([0, *cuts], [*cuts, len(whole)], strict=True)]

    def script(conn: int):
        for p in pieces:
            yield p
            yield 0.002  # a read of its own at the gateway (mostly)

    with ServerPool() as pool:
        backend = RawBackend(pool, script)
        gw = gateway(pool, backend)
        gateway_ = gw.app.state.gateway
        with_usage = chat(max_tokens=TOKENS, stream=True, stream_options={"include_usage": True})
        runs = []
        for _ in range(3):  # each once the last is settled: the connection must be reused
            runs += asyncio.run(relay(gw.url, with_usage))
            wait_until(lambda: gateway_.backends[0].inflight == 0, "the stream to settle")
        stripped = asyncio.run(relay(gw.url, chat(max_tokens=TOKENS, stream=True)))[0]
        metrics = httpx.get(gw.url + "/metrics").text
        assert len(backend.streamed_on) == 1  # the backend's connection went back to the pool
        assert gateway_.relay.spliced == (4 if spliced else 0)
        assert gateway_.backends[0].inflight == 0 and gateway_.admission.in_flight == 0
    for chunks in runs:
        assert b"".join(chunks) == b"".join(events())  # every byte, in order
        assert chunks[-1].endswith(b"data: [DONE]\n\n")
    # Without include_usage the usage event is cut out, and nothing else.
    assert b"".join(stripped) == b"".join(e for e in events() if b'"usage"' not in e)
    # Usage counted: 4 streams of TOKENS tokens (the backend's own usage event says so).
    total = sum(float(line.rsplit(" ", 1)[1]) for line in metrics.splitlines()
                if line.startswith("tokenpilot_completion_tokens_total{"))
    assert total == 4 * TOKENS
    assert metrics.count('outcome="success"') >= 1


def test_each_chunk_leaves_before_the_next_is_written(spliced: bool) -> None:
    """Nothing is held back to be coalesced: the backend writes token k only once the client
    has token k-1 (it waits up to 5 s for that, and the test fails if it had to)."""
    seen = [threading.Event() for _ in range(4)]
    late = []

    def script(conn: int):
        for k in range(4):
            yield chunked([event(k)])[:-5]  # the chunk alone, no terminator
            yield seen[k]
            if not seen[k].is_set():
                late.append(k)
        yield chunked(events(4)[4:])  # the end, usage and [DONE], then the terminator

    async def client(url: str) -> list[bytes]:
        got = []
        async with WireClient(url) as c:
            r = await c.request("POST", "/v1/chat/completions",
                                chat(max_tokens=4, stream=True,
                                     stream_options={"include_usage": True}))
            async for chunk in r.iter_chunks():
                got.append(chunk)
                for k in range(4):
                    if event(k) in b"".join(got):
                        seen[k].set()
        return got

    with ServerPool() as pool:
        backend = RawBackend(pool, script)
        gw = gateway(pool, backend)
        got = asyncio.run(client(gw.url))
    assert late == []
    text = b"".join(got)
    assert [text.index(event(k)) for k in range(4)] == sorted(text.index(event(k))
                                                              for k in range(4))
    assert text.endswith(b"data: [DONE]\n\n")


def test_completion_tokens_counted_while_a_stream_runs_and_exactly_at_its_end(
        spliced: bool) -> None:
    """The counter of /metrics is a live rate: it learns a stream's tokens while the stream
    runs (its first token at once, later ones with the first chunk ``COUNT_EVERY_S`` after the
    last count), not only when it ends, and every token, once, at its end."""
    go_on = threading.Event()

    def script(conn: int):
        for k in range(3):
            yield chunked([event(k)])[:-5]
            yield 0.002
        yield go_on  # held until the test has read /metrics mid-stream
        yield chunked(events(3)[3:])

    def counted(url: str) -> float:
        return sum(float(line.rsplit(" ", 1)[1]) for line in
                   httpx.get(url + "/metrics").text.splitlines()
                   if line.startswith("tokenpilot_completion_tokens_total{"))

    mid: list[float] = []

    async def client(url: str) -> None:
        async with WireClient(url) as c:
            r = await c.request("POST", "/v1/chat/completions",
                                chat(max_tokens=3, stream=True,
                                     stream_options={"include_usage": True}))
            got = b""
            async for chunk in r.iter_chunks():
                got += chunk
                if event(2) in got and not go_on.is_set():
                    mid.append(await asyncio.to_thread(counted, url))
                    go_on.set()

    with ServerPool() as pool:
        backend = RawBackend(pool, script)
        gw = gateway(pool, backend)
        asyncio.run(client(gw.url))
        wait_until(lambda: gw.app.state.gateway.backends[0].inflight == 0, "the stream to settle")
        end = counted(gw.url)
    assert mid and 1 <= mid[0] <= 3  # counted before the stream ended ...
    assert end == 3  # ... and exactly once it did


def test_client_gone_mid_stream_closes_the_backends_connection(spliced: bool) -> None:
    forever = threading.Event()

    def script(conn: int):
        yield chunked([event(0)])[:-5]
        yield 0.05
        yield chunked([event(1)])[:-5]
        yield forever  # the backend would go on; the gateway must hang up on it

    async def hang_up(url: str) -> None:
        async with WireClient(url) as c:
            r = await c.request("POST", "/v1/chat/completions",
                                chat(max_tokens=100, stream=True))
            n = 0
            async for _ in r.iter_chunks():
                n += 1
                if n == 2:
                    break  # the second chunk (a spliced one), then leave
            r.close(reuse=False)

    with ServerPool() as pool:
        backend = RawBackend(pool, script)
        gw = gateway(pool, backend)
        gateway_ = gw.app.state.gateway
        asyncio.run(hang_up(gw.url))
        wait_until(lambda: gateway_.backends[0].inflight == 0, "the gateway to settle")
        forever.set()  # the backend writes again, and finds its connection closed
        assert backend.closed_by_peer.wait(5)
        metrics = httpx.get(gw.url + "/metrics").text
        assert 'reason="client_gone"' in metrics
        assert gateway_.admission.in_flight == 0
        assert gateway_.relay.spliced == (1 if spliced else 0)


def test_backend_dying_mid_stream_ends_it_with_an_error_event(spliced: bool) -> None:
    def script(conn: int):
        yield chunked([event(0)])[:-5]
        yield 0.02
        yield chunked([event(1), event(2)])[:-5] + b"4"  # and half a size line
        yield 0.02
        yield None

    with ServerPool() as pool:
        backend = RawBackend(pool, script)
        gw = gateway(pool, backend)
        (chunks,) = asyncio.run(relay(gw.url, chat(max_tokens=100, stream=True)))
        gateway_ = gw.app.state.gateway
        assert gateway_.backends[0].inflight == 0
    text = b"".join(chunks)
    assert text.startswith(event(0) + event(1) + event(2))
    assert b"failed mid-stream" in text and b'"error"' in text


def test_a_slow_client_holds_the_backend_back_and_loses_nothing(spliced: bool) -> None:
    """A client that does not read for a while: the gateway stops reading the backend (it
    does not buffer the whole stream) and relays every byte once the client reads again."""
    big = [b"data: " + json.dumps({"choices": [{"index": 0, "delta": {
        "content": f"{k:06d}" * 6000}, "finish_reason": None}]}).encode() + b"\n\n"
        for k in range(300)]  # ~11 MB

    def script(conn: int):
        body = chunked([*big, b"data: [DONE]\n\n"])
        for i in range(0, len(body), 1 << 16):
            yield body[i:i + (1 << 16)]

    async def slow(url: str) -> bytes:
        host, port = url.rsplit("/", 1)[1].split(":")
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.connect((host, int(port)))
        reader, writer = await asyncio.open_connection(sock=sock, limit=1 << 16)
        payload = json.dumps(chat(max_tokens=300, stream=True)).encode()
        writer.write(b"POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-type: "
                     b"application/json\r\ncontent-length: %d\r\n\r\n%b" % (len(payload),
                                                                            payload))
        await reader.readuntil(b"\r\n\r\n")
        await asyncio.sleep(0.5)  # not reading: the gateway's buffers fill
        out = []
        while True:
            size = int((await reader.readline()).strip(), 16)
            data = await reader.readexactly(size + 2)
            if size == 0:
                break
            out.append(data[:-2])
        writer.close()
        return b"".join(out)

    with ServerPool() as pool:
        backend = RawBackend(pool, script)
        gw = gateway(pool, backend)
        text = asyncio.run(slow(gw.url))
        relay_ = gw.app.state.gateway.relay
    assert text == b"".join(big) + b"data: [DONE]\n\n"
    if spliced:
        assert relay_.drains > 0  # the splice paused the backend and drained the client


def test_a_body_that_is_not_chunked_is_relayed_the_plain_way() -> None:
    """A backend that streams without chunked framing (to the connection's close): nothing
    to splice; the plain relay carries it, whatever SPLICE says."""

    class CloseDelimited(RawBackend):
        async def _serve(self, reader, writer) -> None:
            self.connections += 1
            head = await reader.readuntil(b"\r\n\r\n")
            length = next((int(x.split(":")[1]) for x in head.decode().split("\r\n")
                           if x.lower().startswith("content-length:")), 0)
            await reader.readexactly(length)
            if head.startswith(b"GET"):
                writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n"
                             b"\r\nok")
            else:
                writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
                             b"connection: close\r\n\r\n")
                for e in events(3):
                    writer.write(e)
                    await writer.drain()
                    await asyncio.sleep(0.01)
            writer.close()

    with ServerPool() as pool:
        backend = CloseDelimited(pool, None)
        gw = gateway(pool, backend)
        (chunks,) = asyncio.run(relay(gw.url, chat(max_tokens=3, stream=True,
                                                   stream_options={"include_usage": True})))
        assert gw.app.state.gateway.relay.spliced == 0
    assert b"".join(chunks) == b"".join(events(3))


# The same tests, in a child process whose splice and watchdog come from their .py files: what
# runs where no C compiler built them (tokenpilot/setup.py falls back to the source).
SOURCE_FIRST = """
import importlib.util, pathlib, sys

class SourceFirst:
    def find_spec(self, name, path=None, target=None):
        if name not in ("tokenpilot.gateway.splice", "tokenpilot.gateway.watchdog") or not path:
            return None
        file = pathlib.Path(list(path)[0]) / (name.rsplit(".", 1)[1] + ".py")
        return importlib.util.spec_from_file_location(name, file)

sys.meta_path.insert(0, SourceFirst())
import pytest
import tokenpilot.gateway.splice as splice, tokenpilot.gateway.watchdog as watchdog
assert splice.__file__.endswith(".py") and watchdog.__file__.endswith(".py"), splice.__file__
sys.exit(pytest.main([sys.argv[1], "-o", "addopts=", "-q", "-p", "no:cacheprovider",
                      "-W", "ignore::pytest.PytestAssertRewriteWarning",
                      "-k", "spliced and not source"]))
"""


def test_the_splice_from_its_source_passes_the_same_tests() -> None:
    import subprocess
    import sys
    from pathlib import Path

    here = Path(__file__).resolve()
    r = subprocess.run([sys.executable, "-c", SOURCE_FIRST, str(here)], cwd=here.parent.parent,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-2000:]
    # Every [spliced] case of this file (a test that takes the fixture), none skipped.
    cases = sum(1 for name, f in globals().items() if name.startswith("test_")
                and "spliced" in inspect.signature(f).parameters)
    assert cases >= 6 and f"{cases} passed" in r.stdout, r.stdout[-2000:]
