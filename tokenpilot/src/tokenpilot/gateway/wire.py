"""A small HTTP/1.1 client on asyncio streams, for the load generator and the tests.

Why not httpx here: its connection pool re-checks every pooled connection (a syscall each) on
every request event, so a client holding hundreds of open streams spends its time in the pool,
and a load generator must never be the bottleneck it measures. This client keeps idle
keep-alive connections in a stack, parses chunked and sized bodies, and hands each body chunk
over as it arrives. Plain ``http://`` only: it talks to loopback gateways and backends.
"""

from __future__ import annotations

import asyncio
import json
import ssl
from collections.abc import AsyncIterator, Mapping
from typing import Any
from urllib.parse import urlsplit

from tokenpilot.gateway.watchdog import Watchdog


class WireError(OSError):
    """The connection failed or the server broke the protocol."""


class WireConnectError(WireError):
    """No connection could be made (nothing was sent)."""


class WireResponse:
    def __init__(self, client: WireClient, reader: asyncio.StreamReader,
                 writer: asyncio.StreamWriter, status: int, headers: dict[str, str],
                 watch: Watchdog | None = None) -> None:
        self._client, self._reader, self._writer = client, reader, writer
        self.status = status
        self.headers = headers
        self._done = False
        self._watch = watch  # the timer the head was read under (``watchdog``)

    def watchdog(self, read_s: float | None) -> Watchdog:
        """The read timeout for this response's body (``expire`` closes the connection): the
        timer the head was read under where its limit is the same, so that a request has one
        timer from its head to its body's end (the splice takes it over too), else a new one."""
        w = self._watch
        if w is None or w.limit_s != read_s or w.expired:
            if w is not None:
                w.cancel()
            w = self._watch = Watchdog(read_s, self._expire)
        else:
            w.expire = self._expire
        return w

    async def iter_chunks(self, read_s: float | None = None) -> AsyncIterator[bytes]:
        """The body, chunk by chunk as the server sends it; ``TimeoutError`` (and the
        connection closed) when ``read_s`` passes with no chunk coming."""
        r = self._reader
        watch = self.watchdog(read_s)
        kept = False  # closed mid-body: the timer stays armed for whoever reads on (the splice)
        try:
            if self.headers.get("transfer-encoding", "").lower() == "chunked":
                while True:
                    watch.start()
                    line = await r.readline()
                    if not line:
                        raise WireError("connection closed mid-body")
                    size = int(line.split(b";")[0].strip() or b"0", 16)
                    if size == 0:
                        await r.readline()
                        break
                    data = await r.readexactly(size + 2)  # the data and its CRLF at once
                    watch.stop()
                    yield data[:-2]
            elif "content-length" in self.headers:
                left = int(self.headers["content-length"])
                while left:
                    watch.start()
                    data = await r.read(min(left, 65536))
                    if not data:
                        raise WireError("connection closed mid-body")
                    watch.stop()
                    left -= len(data)
                    yield data
            else:
                watch.start()
                while data := await r.read(65536):
                    watch.stop()
                    yield data
                    watch.start()
                if watch.expired:  # the watchdog closed the connection: no end of body
                    raise WireError("timed out")
                self.headers["connection"] = "close"
        except GeneratorExit:
            watch.stop()
            kept = True
            raise
        except (asyncio.IncompleteReadError, ConnectionError, ValueError, WireError) as exc:
            self.close(reuse=False)
            if watch.expired:
                raise TimeoutError(f"no data from the server for {read_s:g} s") from None
            if isinstance(exc, WireError):
                raise
            raise WireError(f"broken response body: {exc!r}") from None
        finally:
            if not kept:
                watch.cancel()
        self.close(reuse=self.headers.get("connection", "").lower() != "close")

    def _expire(self) -> None:
        self.close(reuse=False)  # ends the pending read

    async def read(self) -> bytes:
        return b"".join([c async for c in self.iter_chunks()])

    async def json(self) -> Any:
        return json.loads(await self.read())

    def close(self, reuse: bool = False) -> None:
        if self._done:
            return
        self._done = True
        if self._watch is not None:
            self._watch.cancel()
        self._client._release(self._reader, self._writer, reuse)


class WireClient:
    """Requests to one ``http://host:port`` or ``https://host:port`` (TLS, the system's CA
    certificates: a hosted endpoint), at most ``max_connections`` at a time."""

    def __init__(self, base_url: str, max_connections: int = 256, timeout_s: float = 30.0) -> None:
        parts = urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"{base_url!r}: only http:// and https:// URLs are supported")
        tls = parts.scheme == "https"
        self.host, self.port = parts.hostname, parts.port or (443 if tls else 80)
        self._ssl = ssl.create_default_context() if tls else None
        # The Host header: the port only where it is not the scheme's own.
        self.authority = (self.host if self.port == (443 if tls else 80)
                          else f"{self.host}:{self.port}")
        self.prefix = parts.path.rstrip("/")
        self.timeout_s = timeout_s
        self._idle: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []
        self._sem = asyncio.Semaphore(max_connections)

    async def request(self, method: str, path: str, body: Any = None,
                      headers: Mapping[str, str] | None = None) -> WireResponse:
        """Send; return once the status line and headers are in (the body streams after)."""
        data = b"" if body is None else body if isinstance(body, bytes) else json.dumps(
            body).encode()
        head = [f"{method} {self.prefix}{path} HTTP/1.1", f"Host: {self.authority}",
                f"Content-Length: {len(data)}"]
        if body is not None:
            head.append("Content-Type: application/json")
        head.extend(f"{k}: {v}" for k, v in (headers or {}).items())
        raw = ("\r\n".join(head) + "\r\n\r\n").encode() + data
        return await self.send_raw(raw, f"{method} {path}")

    async def send_raw(self, raw: bytes, what: str = "request", connect_s: float | None = None,
                       head_s: float | None = None) -> WireResponse:
        """Send a complete HTTP/1.1 request (head and body); wait for the response head."""
        await self._sem.acquire()
        for attempt in range(2):  # a pooled connection may have been closed by the server
            # The retry always dials anew: idle connections pooled together age together, so
            # after one turned out closed (a server's keep-alive timeout), the next may be too.
            fresh = attempt > 0 or not self._idle
            if fresh:
                reader, writer = await self._connect(connect_s)
            else:
                reader, writer = self._idle.pop()
            # The head's timeout: a ``Watchdog`` that aborts the connection, not
            # asyncio.timeout (a Timeout object and a timer of its own): the response's body
            # is read under the same timer (``WireResponse.watchdog``), one per request.
            limit = head_s or self.timeout_s
            watch = Watchdog(limit, writer.transport.abort)
            try:
                writer.write(raw)
                watch.start()
                status, hdrs = await self._head(reader)
                watch.stop()
                return WireResponse(self, reader, writer, status, hdrs, watch)
            except (ConnectionError, asyncio.IncompleteReadError, WireError) as exc:
                writer.close()
                if watch.expired:
                    self._sem.release()
                    raise TimeoutError(f"{what}: no response head within {limit:g} s"
                                       ) from None
                watch.cancel()
                if fresh:
                    self._sem.release()
                    raise WireError(f"{what}: {exc!r}") from None
                self._drop_idle()
            except BaseException:
                watch.cancel()
                writer.close()
                self._sem.release()
                raise
        raise AssertionError("unreachable")

    async def _connect(self, timeout_s: float | None = None
                       ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        try:
            return await asyncio.wait_for(asyncio.open_connection(self.host, self.port,
                                                                  ssl=self._ssl),
                                          timeout_s or self.timeout_s)
        except (OSError, TimeoutError) as exc:  # ssl.SSLError is an OSError
            self._sem.release()
            raise WireConnectError(f"cannot connect to {self.host}:{self.port}: {exc!r}"
                                   ) from None

    @staticmethod
    async def _head(reader: asyncio.StreamReader) -> tuple[int, dict[str, str]]:
        try:  # the whole head in one read: a readline per header line costs as much again
            raw = await reader.readuntil(b"\r\n\r\n")
        except asyncio.IncompleteReadError as exc:
            if not exc.partial:
                raise WireError("connection closed before the response") from None
            raise WireError(f"connection closed mid-head {exc.partial[:80]!r}") from None
        except asyncio.LimitOverrunError:
            raise WireError("response head over 64 KiB") from None
        lines = raw.decode("latin-1").split("\r\n")
        try:
            status = int(lines[0].split(" ", 2)[1])
        except (IndexError, ValueError):
            raise WireError(f"bad status line {lines[0][:80]!r}") from None
        headers: dict[str, str] = {}
        for line in lines[1:]:
            if line:
                k, _, v = line.partition(":")
                headers[k.strip().lower()] = v.strip()
        return status, headers

    def _release(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                 reuse: bool) -> None:
        if reuse and not writer.is_closing():
            self._idle.append((reader, writer))
        else:
            writer.close()
        self._sem.release()

    def _drop_idle(self) -> None:
        while self._idle:
            self._idle.pop()[1].close()

    async def aclose(self) -> None:
        self._drop_idle()

    async def __aenter__(self) -> WireClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
