"""The gateway's upstream connections: ``wire``'s keep-alive pools.

Every request to a backend goes through ``Upstream``: one ``WireClient`` (a stack of idle
connections) per backend and a request head encoded once per backend and path, so a proxied
request costs one header line formatted and one write. httpx's request and response objects
(URL parsing, header normalisation, cookie extraction) were ~40% of the gateway's CPU per
streamed request, and through it the health checks (two or three GETs per backend every
interval) took the gateway's CPU when it had no request at all.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from tokenpilot.gateway.wire import WireClient, WireConnectError, WireResponse


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

    async def get(self, base_url: str, path: str, timeout_s: float) -> tuple[int, bytes]:
        """GET ``base_url + path`` (with ``base_url``'s own headers): its status and body, each
        within ``timeout_s``. The health checks' requests: a few per backend every interval,
        ~110 us of CPU each here against ~430 us through httpx."""
        pool = self._pool_for(base_url)
        raw = (f"GET {pool.prefix}{path} HTTP/1.1\r\nHost: {pool.authority}\r\n"
               f"{self._extra.get(base_url, '')}\r\n").encode()
        resp = await pool.send_raw(raw, f"GET {base_url}{path}", timeout_s, timeout_s)
        try:
            return resp.status, await read_body(resp, timeout_s)
        finally:
            resp.close()  # a no-op once the body was read to its end (and pooled)

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
