"""An httpx transport over ``wire``'s keep-alive pools: the gateway's upstream connections.

The gateway speaks to backends through one shared ``httpx.AsyncClient`` (timeouts, requests
and streamed responses as httpx defines them), but with this transport under it instead of
httpcore's pool, whose per-request scan of every pooled connection costs a syscall each and
dominated the gateway's CPU at a few hundred concurrent streams. One ``WireClient`` (a stack of
idle connections) per origin; errors come back as the httpx exceptions httpcore would raise.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import httpx

from tokenpilot.gateway.wire import WireClient, WireConnectError, WireError, WireResponse


class _Body(httpx.AsyncByteStream):
    def __init__(self, resp: WireResponse, read_s: float | None) -> None:
        self.resp = resp
        self.read_s = read_s

    async def __aiter__(self) -> AsyncIterator[bytes]:
        it = self.resp.iter_chunks().__aiter__()
        while True:
            try:
                if self.read_s:
                    async with asyncio.timeout(self.read_s):
                        chunk = await it.__anext__()
                else:
                    chunk = await it.__anext__()
            except StopAsyncIteration:
                return
            except TimeoutError:
                self.resp.close(reuse=False)
                raise httpx.ReadTimeout(f"no data for {self.read_s:g} s") from None
            except WireError as exc:
                raise httpx.ReadError(str(exc)) from None
            yield chunk

    async def aclose(self) -> None:
        self.resp.close(reuse=False)  # a no-op once the body was read to its end


class WireTransport(httpx.AsyncBaseTransport):
    """Plain-HTTP/1.1 keep-alive transport; ``max_connections`` per origin."""

    def __init__(self, max_connections: int = 4096) -> None:
        self.max_connections = max_connections
        self._pools: dict[tuple[str, int], WireClient] = {}

    def _pool(self, url: httpx.URL) -> WireClient:
        key = (url.host, url.port or 80)
        pool = self._pools.get(key)
        if pool is None:
            pool = self._pools[key] = WireClient(f"http://{url.host}:{key[1]}",
                                                 self.max_connections)
        return pool

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.scheme != "http":
            raise httpx.UnsupportedProtocol("the wire transport speaks plain http:// only")
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
