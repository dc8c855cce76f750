"""The gateway's upstream connections: ``wire``'s keep-alive pools, raw and under httpx.

Proxied requests go through ``Upstream``: one ``WireClient`` (a stack of idle connections) per
backend and a request head encoded once per backend and path, so a request costs one header
line formatted and one write. httpx's request and response objects (URL parsing, header
normalisation, cookie extraction) were ~40% of the gateway's CPU per streamed request.
The health checks, off the hot path, keep the convenience of an ``httpx.AsyncClient`` with
``WireTransport`` under it instead of httpcore's pool, whose per-request scan of every pooled
connection costs a syscall each; its errors are the httpx exceptions httpcore would raise.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx

from tokenpilot.gateway.wire import WireClient, WireConnectError, WireError, WireResponse


class Upstream:
    """Raw HTTP/1.1 POSTs to backends: the gateway's hot path. Errors: ``WireConnectError``
    (nothing sent), ``WireError`` (an ``OSError``), ``TimeoutError``."""

    def __init__(self, max_connections: int = 4096) -> None:
        self.max_connections = max_connections
        self._pools: dict[str, WireClient] = {}
        self._heads: dict[tuple[str, str], bytes] = {}
        self._extra: dict[str, str] = {}  # base URL -> header lines of its own (auth, ...)

    def set_headers(self, base_url: str, headers: dict[str, str]) -> None:
        """Send ``headers`` with every request to ``base_url``: encoded into its request head
        once, so they cost the hot path nothing."""
        self._extra[base_url] = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
        self._heads = {k: v for k, v in self._heads.items() if k[0] != base_url}

    async def post(self, base_url: str, path: str, payload: bytes, connect_s: float | None,
                   head_s: float | None) -> WireResponse:
        """Send ``payload`` (JSON) to ``base_url + path``; return once the response head is in."""
        head = self._heads.get((base_url, path))
        if head is None:
            pool = self._pool_for(base_url)
            head = self._heads[(base_url, path)] = (
                f"POST {pool.prefix}{path} HTTP/1.1\r\nHost: {pool.authority}\r\n"
                f"{self._extra.get(base_url, '')}"
                "Content-Type: application/json\r\nContent-Length: ").encode()
        raw = b"%b%d\r\n\r\n%b" % (head, len(payload), payload)
        return await self._pools[base_url].send_raw(raw, f"POST {base_url}{path}", connect_s,
                                                      head_s)

    def _pool_for(self, base_url: str) -> WireClient:
        pool = self._pools.get(base_url)
        if pool is None:
            try:
                pool = WireClient(base_url, self.max_connections)
            except ValueError as exc:  # a scheme this transport cannot reach
                raise WireConnectError(str(exc)) from None
            self._pools[base_url] = pool
        return pool

    async def aclose(self) -> None:
        for pool in self._pools.values():
            await pool.aclose()
        self._pools.clear()


def body_chunks(resp: WireResponse, read_s: float | None) -> AsyncIterator[bytes]:
    """``resp``'s body chunk by chunk; ``TimeoutError`` when none comes for ``read_s``."""
    return resp.iter_chunks(read_s)


async def read_body(resp: WireResponse, read_s: float | None) -> bytes:
    return b"".join([c async for c in body_chunks(resp, read_s)])


class _Body(httpx.AsyncByteStream):
    def __init__(self, resp: WireResponse, read_s: float | None) -> None:
        self.resp = resp
        self.read_s = read_s

    async def __aiter__(self) -> AsyncIterator[bytes]:
        # body_chunks reads with the timeout; httpx's callers expect httpx's errors.
        try:
            async for chunk in body_chunks(self.resp, self.read_s):
                yield chunk
        except TimeoutError as exc:
            raise httpx.ReadTimeout(str(exc)) from None
        except WireError as exc:
            raise httpx.ReadError(str(exc)) from None

    async def aclose(self) -> None:
        self.resp.close(reuse=False)  # a no-op once the body was read to its end


class WireTransport(httpx.AsyncBaseTransport):
    """HTTP/1.1 keep-alive transport, plain or TLS; ``max_connections`` per origin."""

    def __init__(self, max_connections: int = 4096) -> None:
        self.max_connections = max_connections
        self._pools: dict[tuple[str, str, int], WireClient] = {}

    def _pool(self, url: httpx.URL) -> WireClient:
        port = url.port or (443 if url.scheme == "https" else 80)
        key = (url.scheme, url.host, port)
        pool = self._pools.get(key)
        if pool is None:
            pool = self._pools[key] = WireClient(f"{url.scheme}://{url.host}:{port}",
                                                 self.max_connections)
        return pool

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.scheme not in ("http", "https"):
            raise httpx.UnsupportedProtocol("the wire transport speaks http:// and https://")
        timeout = request.extensions.get("timeout") or {}
        body = request.content if hasattr(request, "_content") else await request.aread()
        target = request.url.raw_path.decode("ascii")
        lines = [f"{request.method} {target} HTTP/1.1".encode()]
        lines.extend(k + b": " + v for k, v in request.headers.raw)
        raw = b"\r\n".join(lines) + b"\r\n\r\n" + body
        try:
            resp = await self._pool(request.url).send_raw(
                raw, f"{request.method} {request.url}", timeout.get("connect"),
                timeout.get("read"))
        except WireConnectError as exc:
            raise httpx.ConnectError(str(exc), request=request) from None
        except TimeoutError:
            raise httpx.ReadTimeout("no response head in time", request=request) from None
        except WireError as exc:
            raise httpx.RemoteProtocolError(str(exc), request=request) from None
        return httpx.Response(resp.status, headers=list(resp.headers.items()),
                              stream=_Body(resp, timeout.get("read")), request=request)

    async def aclose(self) -> None:
        for pool in self._pools.values():
            await pool.aclose()
        self._pools.clear()
