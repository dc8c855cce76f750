"""The gateway: ``create_app(config)`` is an ASGI app speaking the OpenAI API.

Per request: authenticate (API key -> tenant), validate, count prompt tokens, ask admission,
ask the router for a backend (the very objects the simulator runs), send, and relay. A backend
that fails before the first byte reaches the client is retried elsewhere; after that, the
stream ends with an error event. All mutable state lives on the serving event loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
import time
from collections.abc import AsyncIterator
from typing import Any

import httpx
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request as HTTPRequest
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from tokenpilot.gateway.asgi import GatewayApp, Receive, RelayResponse, Scope
from tokenpilot.gateway.backends import Backend, views
from tokenpilot.gateway.config import GatewayConfig
from tokenpilot.gateway.health import check_all, health_loop
from tokenpilot.gateway.metrics import GatewayMetrics
from tokenpilot.gateway.openai import (
    error_response,
    header,
    max_tokens_of,
    parse_object,
    read_raw,
    sse_error,
    stream_flags,
)
from tokenpilot.gateway.relay import StreamTally
from tokenpilot.gateway.tenants import Tenants
from tokenpilot.gateway.text import BadRequest, TokenCounter, prefix_hashes, prompt_text
from tokenpilot.gateway.transport import Upstream, WireTransport, body_chunks, read_body
from tokenpilot.gateway.wire import WireResponse
from tokenpilot.policy import NoHealthyInstance, Router, make_router
from tokenpilot.policy.admission import Admission, AdmissionConfig
from tokenpilot.policy.compose import compose
from tokenpilot.policy.disciplines import make_discipline
from tokenpilot.workload.request import Request

log = logging.getLogger("tokenpilot.gateway")
REJECT_STATUS = {"context_too_long": 400, "tenant_context_limit": 400, "rate_limited": 429,
                 "inflight_limit": 429, "overloaded": 503}


class Upstream5xx(Exception):
    pass


def build_router(spec: Any) -> Router:
    return compose(spec) if isinstance(spec, dict) else make_router(str(spec))


class Gateway:
    """The gateway's state: backends, the policy objects, the HTTP client, the metrics."""

    def __init__(self, cfg: GatewayConfig, router: Router | None = None) -> None:
        self.cfg = cfg
        self.backends = [Backend(b, i) for i, b in enumerate(cfg.backends)]
        self.router = router or build_router(cfg.router)
        self.policy = cfg.router if isinstance(cfg.router, str) else "composed"
        self.admission = Admission(AdmissionConfig.from_dict(cfg.admission))
        self.tenants = Tenants(cfg.tenants)
        self.counter = TokenCounter(cfg.tokenizer)
        self.metrics = GatewayMetrics(self.backends, self.counter.source,
                                      lambda: len(self._waiters))
        self.client: httpx.AsyncClient | None = None  # health checks
        self.upstream = Upstream()  # proxied requests: the hot path, without httpx
        self._ids = itertools.count()
        self._t0 = time.monotonic()
        self._health: asyncio.Task | None = None
        # Requests waiting for a backend slot, ordered by the configured queue discipline
        # (the same objects the engine simulator queues with); futures wake them.
        self.waiting = make_discipline(cfg.queue_discipline, self.admission.config.weights())
        self._waiters: dict[int, asyncio.Future] = {}
        # Queued requests woken for a freed slot that have not picked yet: until they have,
        # newcomers queue too, or one arriving in between would take the slot (and the
        # discipline's order would not hold).
        self._handoffs = 0
        self.queued_total = 0  # requests that ever waited for a slot
        self.last_decision: tuple[Request, list, int] | None = None  # for tests and debugging
        self._models: tuple[tuple[str, ...], list[str]] = ((), [])

    def now(self) -> float:
        return time.monotonic() - self._t0

    @property
    def queued(self) -> int:
        return len(self._waiters)

    async def start(self) -> None:
        t = self.cfg.timeouts
        self.client = httpx.AsyncClient(
            timeout=httpx.Timeout(connect=t.connect_s, read=t.first_byte_s, write=t.connect_s,
                                  pool=t.first_byte_s),
            transport=WireTransport())
        await check_all(self.client, self.backends, self.cfg.health)
        self._health = asyncio.create_task(health_loop(self.client, self.backends,
                                                       self.cfg.health))
        log.info("gateway: %d backend(s), router %s, prompt tokens by %s", len(self.backends),
                 self.policy, self.counter.source)

    async def stop(self) -> None:
        if self._health is not None:
            self._health.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._health
        if self.client is not None:
            await self.client.aclose()
        await self.upstream.aclose()

    def models(self) -> list[str]:
        """The models served, sorted; asked on every request, so kept until one changes."""
        key = tuple(b.model for b in self.backends)
        if key != self._models[0]:
            self._models = (key, sorted({m for m in key if m}))
        return self._models[1]

    # ---- one request -----------------------------------------------------------------------
    async def completions(self, scope: Scope, receive: Receive, chat: bool) -> Response:
        """One completion request, from its ASGI scope and ``receive``."""
        tenants = self.tenants
        tenant = tenants.resolve(None if tenants.open else header(scope, b"authorization"))
        if tenant is None:
            return error_response(401, "missing or unknown API key; send 'Authorization: Bearer "
                                  "<key>' with a key from the gateway's tenants", "invalid_api_key")
        lim = self.cfg.limits
        try:
            raw = await read_raw(scope, receive, lim.max_body_bytes)
            body = parse_object(raw)
            model = body.get("model")
            served = self.models()
            if model is None and served:
                model = served[0]
            elif not isinstance(model, str) or (served and model not in served):
                return error_response(404, f"model {model!r} is not served here; available: "
                                      f"{', '.join(served) or 'none yet'}", "model_not_found",
                                      "model")
            text = prompt_text(body, chat)
            max_tokens = max_tokens_of(body, lim.default_max_tokens, lim.max_tokens)
            stream, want_usage = stream_flags(body)
        except BadRequest as exc:
            return error_response(413 if exc.code == "body_too_large" else 400, str(exc),
                                  exc.code, exc.param)
        now = self.now()
        req = Request(next(self._ids), now, self.counter.count_body(body, chat, text),
                      max_tokens, tenant,
                      prefix_hashes(text))
        other = frozenset(i for i, b in enumerate(self.backends) if b.model and b.model != model)
        vs = views(self.backends, other)
        d = self.admission.admit(req, vs, now)
        if not d.admitted:
            self.metrics.rejections.labels(tenant, d.reason).inc()
            status = REJECT_STATUS.get(d.reason, 429)
            return error_response(status, d.message, d.reason,
                                  retry_after_s=None if status == 400 else d.retry_after_s)
        try:
            return await self._dispatch(req, body, raw, chat, stream, want_usage, other, vs)
        except BaseException:
            self.admission.settle(req, 0, self.now())
            raise

    async def _dispatch(self, req: Request, body: dict, raw: bytes, chat: bool, stream: bool,
                        want_usage: bool, exclude: frozenset[int],
                        first_views: list | None = None) -> Response:
        strip = stream and not want_usage
        payload = raw
        if strip:  # ask for usage anyway: the true token count settles the tenant's bucket
            body = {**body, "stream_options": {**(body.get("stream_options") or {}),
                                               "include_usage": True}}
            payload = b""
        if "model" not in body and self.models():
            body = {**body, "model": self.models()[0]}
            payload = b""
        # The body goes upstream as the client sent it (no second encoding on the way to the
        # first token) unless it was changed here or is not UTF-8 text (JSON may be UTF-16/32).
        if not payload.startswith(b"{") or payload[1:2] == b"\x00":
            payload = json.dumps(body).encode()
        path = "/v1/chat/completions" if chat else "/v1/completions"
        t = self.cfg.timeouts
        tried = set(exclude)
        for attempt in range(self.cfg.limits.retries + 1):
            # Nothing ran since admission built its views: the first pick reuses them.
            vs = first_views if attempt == 0 and first_views else views(self.backends, tried)
            try:
                try:
                    if self._handoffs:  # a freed slot is promised to a queued request
                        raise NoHealthyInstance(len(vs))  # so this one queues behind it
                    i = self.router.pick(req, vs)
                except NoHealthyInstance:
                    deadline = time.monotonic() + self.cfg.limits.queue_timeout_s
                    while True:  # bounded by the deadline
                        if not await self._wait_for_slot(req, tried, deadline):
                            raise
                        vs = views(self.backends, tried)
                        with contextlib.suppress(NoHealthyInstance):
                            i = self.router.pick(req, vs)
                            break
            except NoHealthyInstance:
                self.admission.settle(req, 0, self.now())
                self.metrics.rejections.labels(req.tenant, "no_healthy_backend").inc()
                what = "no healthy backend" if attempt == 0 else "every backend tried failed"
                return error_response(503, f"{what} can serve this request now; retry later",
                                      "no_healthy_backend", retry_after_s=1.0)
            self.last_decision = (req, vs, i)
            b = self.backends[i]
            self.router.on_routed(req, i)
            b.begin(req)
            self.metrics.routed_to(self.policy, b.name).inc()
            t_send = time.perf_counter()
            resp = None
            try:
                resp = await self.upstream.post(b.url, path, payload, t.connect_s,
                                                t.first_byte_s)
                if resp.status >= 500:
                    await read_body(resp, t.first_byte_s)
                    raise Upstream5xx(f"HTTP {resp.status}")
                first = b""
                if stream and resp.status == 200:
                    it = body_chunks(resp, t.first_byte_s)
                    first = await it.__anext__()
            except (Upstream5xx, StopAsyncIteration, OSError, TimeoutError) as exc:
                log.warning("backend %s failed before the first byte (%s): %s", b.name,
                            type(exc).__name__, exc)
                if resp is not None:
                    resp.close()
                b.end(req, False, 0)
                self.router.on_finished(req, i)
                self._free_slot()
                b.failed(self.cfg.health.failures_to_eject)
                self.metrics.retries.labels(b.name).inc()
                tried.add(i)
                continue
            b.succeeded()
            if resp.status != 200:  # the backend refused the request itself: pass it on
                try:
                    data = await read_body(resp, t.first_byte_s)
                except (OSError, TimeoutError):
                    data = b""
                resp.close()
                self._finish(req, b, i, "client_error", 0, 0)
                return Response(data, resp.status, media_type="application/json")
            if stream:
                return RelayResponse(self._relay(req, b, i, resp, it, first, strip, t_send),
                                     b.name, first_ready=True)
            return await self._whole(req, b, i, resp, t_send)
        self.admission.settle(req, 0, self.now())
        return error_response(503, "every backend tried failed; retry later", "no_healthy_backend",
                              retry_after_s=1.0)

    async def _wait_for_slot(self, req: Request, tried: set[int], deadline: float) -> bool:
        """Queue ``req`` until a slot frees on a healthy, full backend; False: give up."""
        lim = self.cfg.limits
        full = [b for i, b in enumerate(self.backends)
                if i not in tried and b.healthy and not b.ejected]
        left = deadline - time.monotonic()
        if not full or len(self._waiters) >= lim.max_queue or left <= 0:
            return False
        if not self._handoffs and any(b.available for b in full):
            return True  # a slot freed meanwhile, and nobody queued was promised it
        fut = asyncio.get_running_loop().create_future()
        self._waiters[req.id] = fut
        self.queued_total += 1
        self.waiting.push(req)
        try:
            await asyncio.wait_for(fut, left)
        except BaseException as exc:  # timed out, or cancelled (the client left)
            if fut.done() and not fut.cancelled():  # a slot was handed over meanwhile:
                self._handoffs -= 1  # pass it on
                self._free_slot()
            else:  # still queued: out of the discipline, so no tenant is charged for it
                remove = getattr(self.waiting, "remove", None)
                if remove is not None:
                    remove(req)
            if isinstance(exc, TimeoutError):
                return False
            raise
        finally:
            # A discipline without ``remove`` keeps a request that gave up; _free_slot skips it.
            self._waiters.pop(req.id, None)
        self._handoffs -= 1  # this request picks now, before anything else runs
        return True

    def _free_slot(self) -> None:
        """A slot freed: wake the request the discipline puts first, and promise it the slot."""
        q = self.waiting
        while len(q):
            req = q.pop()
            fut = self._waiters.pop(req.id, None)
            if fut is not None and not fut.done():
                fut.set_result(True)
                self._handoffs += 1
                return

    async def _whole(self, req: Request, b: Backend, i: int, resp: WireResponse,
                     t_send: float) -> Response:
        try:
            data = await read_body(resp, self.cfg.timeouts.first_byte_s)
        except (OSError, TimeoutError) as exc:
            b.failed(self.cfg.health.failures_to_eject)
            self._finish(req, b, i, "error", 0, 0)
            return error_response(502, f"backend {b.name} failed mid-response: {exc}",
                                  "upstream_error")
        finally:
            resp.close()
        try:
            usage = json.loads(data).get("usage") or {}
        except (ValueError, AttributeError):
            usage = {}
        done = time.perf_counter()
        b.first_token(req)
        out = int(usage.get("completion_tokens") or 0)
        self.metrics.of(b.name, req.tenant).ttft.observe(done - t_send)
        self._finish(req, b, i, "success", int(usage.get("prompt_tokens") or req.prompt_tokens),
                     out, started=True)
        return Response(data, 200, media_type="application/json",
                        headers={"x-tokenpilot-backend": b.name})

    async def _relay(self, req: Request, b: Backend, i: int, resp: WireResponse,
                     it: AsyncIterator[bytes], first: bytes, strip: bool,
                     t_send: float) -> AsyncIterator[bytes]:
        tally = StreamTally()
        t_first = time.perf_counter()
        b.first_token(req)
        deadline = t_send + self.cfg.timeouts.total_s
        outcome = "cancelled"
        t_last = t_first
        accounted, owed = 0, req.output_tokens
        try:
            chunk = first
            while True:
                if strip:
                    out = tally.feed(chunk, True)
                    if out:
                        yield out
                else:  # the chunk goes on as it came: send it first, account for it after
                    try:
                        yield chunk
                    finally:
                        tally.feed(chunk, False)
                # Tokens streamed back leave the backend's outstanding work as they come, so
                # routers and admission see a long stream shrink rather than stay at max_tokens.
                done = min(tally.tokens_out, owed) - accounted
                if done > 0:
                    b.decoded(done)
                    accounted += done
                t_last = time.perf_counter()
                if t_last > deadline:
                    raise TimeoutError(f"the {self.cfg.timeouts.total_s:g} s total timeout passed")
                try:
                    chunk = await it.__anext__()
                except StopAsyncIteration:
                    break
            rest = tally.flush(strip)
            if rest:
                yield rest
            outcome = "success"
        except (OSError, TimeoutError) as exc:
            outcome = "error"
            b.failed(self.cfg.health.failures_to_eject)
            log.warning("backend %s failed mid-stream: %s", b.name, exc)
            yield sse_error(f"backend {b.name} failed mid-stream ({type(exc).__name__}); the "
                            "response is incomplete")
        finally:
            resp.close()  # a no-op once the body was read to its end (and pooled)
            m = self.metrics.of(b.name, req.tenant)
            m.ttft.observe(t_first - t_send)
            n = tally.tokens_out
            if n > 1 and outcome == "success":
                m.tpot.observe((t_last - t_first) / (n - 1))
            self._finish(req, b, i, outcome, tally.prompt_tokens or req.prompt_tokens, n,
                         started=True, accounted=accounted)

    def _finish(self, req: Request, b: Backend, i: int, outcome: str, prompt: int,
                completion: int, started: bool = False, accounted: int = 0) -> None:
        b.end(req, started, completion, accounted)
        self.router.on_finished(req, i)
        on_decode = getattr(self.waiting, "on_decode", None)
        if on_decode is not None and completion:
            on_decode(req, completion)  # fair queues charge tenants for output served
        self._free_slot()
        self.admission.settle(req, prompt + completion if outcome != "client_error" else 0,
                              self.now())
        m = self.metrics.of(b.name, req.tenant)
        m.outcome(outcome).inc()
        if prompt and outcome == "success":
            m.prompt_tokens.inc(prompt)
        if completion:
            m.completion_tokens.inc(completion)


def create_app(cfg: GatewayConfig, router: Router | None = None) -> GatewayApp:
    """The gateway as an ASGI app; ``app.state.gateway`` is its ``Gateway``."""
    gw = Gateway(cfg, router)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await gw.start()
        try:
            yield
        finally:
            await gw.stop()

    async def chat(request: HTTPRequest) -> Response:
        return await gw.completions(request.scope, request.receive, True)

    async def plain(request: HTTPRequest) -> Response:
        return await gw.completions(request.scope, request.receive, False)

    async def models(request: HTTPRequest) -> Response:
        return JSONResponse({"object": "list", "data": [
            {"id": m, "object": "model", "created": 0, "owned_by": "tokenpilot"}
            for m in gw.models()]})

    async def health(request: HTTPRequest) -> Response:
        status = {b.name: ("ok" if b.available else "ejected" if b.ejected else
                           "unhealthy" if not b.healthy else "full") for b in gw.backends}
        ok = any(b.healthy and not b.ejected for b in gw.backends)
        return JSONResponse({"status": "ok" if ok else "unavailable", "backends": status},
                            200 if ok else 503)

    async def metrics(request: HTTPRequest) -> Response:
        return Response(gw.metrics.render(), media_type="text/plain; version=0.0.4")

    async def http_error(request: HTTPRequest, exc: Exception) -> Response:
        code = getattr(exc, "status_code", 500)
        msg = ("no such endpoint; try POST /v1/chat/completions" if code == 404 else
               f"method not allowed here; this endpoint takes {exc.headers.get('Allow', '')}"
               if code == 405 and getattr(exc, "headers", None) else str(exc))
        return error_response(code, msg)

    app = Starlette(routes=[
        Route("/v1/chat/completions", chat, methods=["POST"]),
        Route("/v1/completions", plain, methods=["POST"]),
        Route("/v1/models", models, methods=["GET"]),
        Route("/health", health, methods=["GET"]),
        Route("/metrics", metrics, methods=["GET"]),
    ], lifespan=lifespan, exception_handlers={HTTPException: http_error})
    app.state.gateway = gw
    return GatewayApp(gw, app)  # the completion routes go straight to ``gw``
