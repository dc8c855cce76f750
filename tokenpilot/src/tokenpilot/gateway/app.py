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
from collections.abc import AsyncIterator, Coroutine
from html import escape
from typing import Any

from starlette.applications import Starlette
from starlette.datastructures import QueryParams
from starlette.exceptions import HTTPException
from starlette.requests import Request as HTTPRequest
from starlette.requests import cookie_parser
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from tokenpilot.gateway.accesslog import AccessLog, Exchange, RequestLog
from tokenpilot.gateway.admin import AdminListener
from tokenpilot.gateway.asgi import (
    GatewayApp,
    Receive,
    RelayResponse,
    Scope,
    client_gone,
    dashboard_data_headers,
    dashboard_data_request,
)
from tokenpilot.gateway.backends import Backend, views
from tokenpilot.gateway.config import GatewayConfig
from tokenpilot.gateway.dashboard import LiveView, page
from tokenpilot.gateway.health import check_all, health_loop
from tokenpilot.gateway.metrics import GatewayMetrics
from tokenpilot.gateway.openai import (
    CHAT_PATH,
    COMPLETIONS_PATH,
    ModelNotFound,
    error_response,
    header,
    max_tokens_of,
    openai_routes,
    parse_object,
    read_raw,
    stream_flags,
)
from tokenpilot.gateway.relay import Relay
from tokenpilot.gateway.slots import SlotQueue
from tokenpilot.gateway.tenants import Tenants
from tokenpilot.gateway.text import BadRequest, TokenCounter, prefix_hashes, prompt_text
from tokenpilot.gateway.transport import Upstream, body_chunks, read_body
from tokenpilot.gateway.wire import WireResponse
from tokenpilot.policy import NoHealthyInstance, Router, make_router
from tokenpilot.policy.admission import ADMITTED, Admission, Decision
from tokenpilot.policy.compose import compose
from tokenpilot.policy.disciplines import make_discipline
from tokenpilot.workload.request import Request

log = logging.getLogger("tokenpilot.gateway")
ADMIN_COOKIE = "tokenpilot_admin"
REJECT_STATUS = {"context_too_long": 400, "tenant_context_limit": 400, "rate_limited": 429,
                 "inflight_limit": 429, "overloaded": 503, "state_unavailable": 503}
SPECULATED = Decision(True, ADMITTED)  # admitted unless its take, on its way, says otherwise


def build_router(spec: Any) -> Router:
    return make_router(spec) if isinstance(spec, str) else compose(spec)


class Gateway:
    """The gateway's state: backends, the policy objects, the HTTP client, the metrics."""

    def __init__(self, cfg: GatewayConfig, router: Router | None = None) -> None:
        self.cfg = cfg
        self.backends = [Backend(b, i) for i, b in enumerate(cfg.backends)]
        self.router = router or build_router(cfg.router)
        self.policy = cfg.router if isinstance(cfg.router, str) else "composed"
        self.admission = Admission(cfg.admission)
        self.tenants = Tenants(cfg.tenants)
        self.counter = TokenCounter(cfg.tokenizer)
        self.budgets = self._budgets()
        self.metrics = GatewayMetrics(self.backends, self.counter.source,
                                      lambda: len(self.slots), self.budgets)
        self.access = AccessLog(cfg.access_log) if cfg.access_log.enabled else None
        self.requests = (RequestLog(cfg.log, self.counter.count) if cfg.log.requests
                         else None)
        self.checking = False  # the health checks have started (``start``)
        self.upstream = Upstream()  # proxied requests and health checks, without httpx
        for b in cfg.backends:
            if b.upstream_headers:
                self.upstream.set_headers(b.url, b.upstream_headers)
        self._ids = itertools.count()
        self._t0 = time.monotonic()
        self._health: asyncio.Task | None = None
        # Requests waiting for a backend slot, ordered by the configured queue discipline
        # (the same objects the engine simulator queues with); futures wake them.
        self.waiting = make_discipline(cfg.queue_discipline, self.admission.config.weights())
        self.slots = SlotQueue(self.waiting, cfg.limits.max_queue)
        self.relay = Relay(cfg, self.metrics, self._finish)
        self.last_decision: tuple[Request, list, int] | None = None  # for tests and debugging
        self._models: tuple[tuple[str, ...], list[str]] = ((), [])
        self.live = LiveView(self)
        # ``dashboard.listen``: the dashboard also served from a thread of its own.
        self.admin = AdminListener(self, cfg.dashboard.listen) if cfg.dashboard.listen else None
        # Speculated requests' takes, by request id, until ``_dispatch`` has their decision.
        self._gates: dict[int, tuple[asyncio.Future, list, float]] = {}
        # Shared with the other replicas (``gateway.state``), or None: this process alone.
        self.state = None
        if cfg.state.store == "redis":
            from tokenpilot.gateway.state import RedisState

            self.state = RedisState(cfg.state, self.admission, self.backends, self.waiting,
                                    self.tenants.names(), self.budgets)
            self.metrics.registry.register(self.state)

    def now(self) -> float:
        return time.monotonic() - self._t0

    def _budgets(self) -> dict[str, float]:
        """Each known tenant's tokens-per-minute budget, where it has one."""
        adm = self.cfg.admission
        out = {}
        for t in sorted({*self.tenants.names(), *adm.tenants}):
            tpm = adm.limits_for(t).tokens_per_minute
            if tpm is not None:
                out[t] = float(tpm)
        return out

    def dashboard_refusal(self, scope: Scope) -> Response | None:
        """None when the request of ``scope`` may see the dashboard, else the answer that
        refuses it: with tenants configured, it needs a key of ``dashboard.admin_keys``, as a
        Bearer key or the cookie ``/dashboard?key=...`` set."""
        if self.tenants.open:
            return None
        keys = self.cfg.dashboard.admin_keys
        if not keys:
            return error_response(403, "the dashboard is closed: this gateway has tenants and "
                                  "no dashboard.admin_keys; add one to its config",
                                  "dashboard_closed")
        auth = header(scope, b"authorization") or ""
        given = auth[7:].strip() if auth.lower().startswith("bearer ") else ""
        if not given:
            given = cookie_parser(header(scope, b"cookie") or "").get(ADMIN_COOKIE, "")
        if given in keys:
            return None
        return error_response(401, "the dashboard needs an admin key: send 'Authorization: "
                              "Bearer <key>' or open /dashboard?key=<key> once (a key from "
                              "dashboard.admin_keys)", "invalid_admin_key")

    def dashboard_page(self, scope: Scope) -> Response:
        """``GET /dashboard`` (on the gateway's port or the admin listener's): the page, the
        redirect that turns ``?key=`` into the cookie, or the refusal. Reads only the config,
        so any thread may answer it."""
        key = QueryParams(scope.get("query_string", b"")).get("key")
        if key is not None and key in self.cfg.dashboard.admin_keys:
            out = RedirectResponse("/dashboard", 303)  # the key leaves the address bar
            out.set_cookie(ADMIN_COOKIE, key, httponly=True, samesite="strict",
                           path="/dashboard")
            return out
        refused = self.dashboard_refusal(scope)
        if refused is not None:
            return refused
        d = self.cfg.dashboard
        html = page()
        for k, v in {"router": self.policy, "backends": str(len(self.backends)),
                     "history": str(d.history_s), "interval": f"{d.sample_ms / 1000:g}",
                     "data_url": "/dashboard/data", "poll_ms": str(d.sample_ms)}.items():
            html = html.replace("{{" + k + "}}", escape(v))
        return HTMLResponse(html, headers={"cache-control": "no-store"})

    def responded(self, route: str, ex: Exchange) -> None:
        """``ex``'s response is out: count it, and write its access-log line."""
        self.metrics.responded(route, ex.status, ex.reason, ex.latency_s)
        if self.access is not None:
            self.access.write(ex)
        if self.requests is not None and route in ("chat", "completions"):
            self.requests.write(ex)

    @property
    def queued(self) -> int:
        """Requests waiting for a backend slot now."""
        return len(self.slots)

    @property
    def queued_total(self) -> int:
        """Requests that ever waited for a backend slot."""
        return self.slots.total

    async def start(self) -> None:
        if self.state is not None:
            await self.state.start()  # StateError: Redis does not answer
        self.checking = True
        await check_all(self.upstream, self.backends, self.cfg.health)
        self._health = asyncio.create_task(health_loop(self.upstream, self.backends,
                                                       self.cfg.health))
        self.live.start()
        if self.admin is not None:
            self.admin.start()  # OSError / RuntimeError: said in one line
            log.info("dashboard also on %s (admin listener)", self.admin.url)
        log.info("gateway: %d backend(s), router %s, prompt tokens by %s", len(self.backends),
                 self.policy, self.counter.source)

    async def stop(self) -> None:
        if self.admin is not None:  # off this loop: a poll in flight may wait on it
            await asyncio.to_thread(self.admin.stop)
        await self.live.stop()
        if self._health is not None:
            self._health.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._health
        await self.upstream.aclose()
        for out in (self.access, self.requests):
            if out is not None:
                out.close()
        if self.state is not None:
            await self.state.stop()

    def models(self) -> list[str]:
        """The models served, sorted; asked on every request, so kept until one changes."""
        key = tuple(b.model for b in self.backends)
        if key != self._models[0]:
            self._models = (key, sorted({m for m in key if m}))
        return self._models[1]

    # ---- one request -----------------------------------------------------------------------
    async def completions(self, scope: Scope, receive: Receive, chat: bool,
                          ex: Exchange | None = None) -> Response:
        """One completion request, from its ASGI scope and ``receive``: authenticate, validate,
        admit, then dispatch; ``ex`` is filled in with what the access log says of it."""
        if ex is None:
            ex = Exchange()
        tenants = self.tenants
        tenant = tenants.resolve(None if tenants.open else header(scope, b"authorization"))
        ex.tenant = tenant
        if tenant is None:
            return error_response(401, "missing or unknown API key; send 'Authorization: Bearer "
                                  "<key>' with a key from the gateway's tenants", "invalid_api_key")
        try:
            raw = await read_raw(scope, receive, self.cfg.limits.max_body_bytes)
            req, body, model, stream, want_usage = self.parse(raw, chat, tenant, ex)
            if self.requests is not None and self.requests.bodies:
                ex.body, ex.chat = body, chat
        except BadRequest as exc:
            return error_response(exc.status, str(exc), exc.code, exc.param)
        ex.stream, ex.prompt_tokens = stream, req.prompt_tokens
        other = self.serving_other(model)
        vs = views(self.backends, other)
        st, now = self.state, req.arrival
        if st is None:
            d = self.admission.admit(req, vs, now)
        elif (gate := st.speculate(req, vs)) is not None:
            self._gates[req.id] = (gate, vs, now)  # the take is out; _dispatch awaits it
            d = SPECULATED
        else:
            d = await st.admit(req, vs, now)
        if not d.admitted:
            return self._reject(tenant, d)
        try:
            if stream:  # a stream notices the client leave as it relays (``RelayResponse``)
                out = await self._dispatch(req, body, raw, chat, stream, want_usage, other,
                                           vs, ex)
            else:
                out = await unless_client_leaves(receive, self._dispatch(
                    req, body, raw, chat, stream, want_usage, other, vs, ex), ex)
        except BaseException:
            await self._drop_gate(req)
            self.admission.settle(req, 0, self.now())
            raise
        if req.id in self._gates:  # answered without relaying (every backend failed)
            await self._drop_gate(req)
            self.admission.settle(req, 0, self.now())
        return out

    def _reject(self, tenant: str, d: Decision) -> Response:
        self.metrics.rejections.labels(tenant, d.reason).inc()
        status = REJECT_STATUS.get(d.reason, 429)
        return error_response(status, d.message, d.reason,
                              retry_after_s=None if status == 400 else d.retry_after_s)

    async def _drop_gate(self, req: Request) -> None:
        """Wait out ``req``'s speculated take, if any, so that its charge can be settled."""
        gate = self._gates.pop(req.id, None)
        if gate is not None and self.state is not None:
            with contextlib.suppress(Exception):
                await self.state.admit_speculated(req, gate[1], gate[2], gate[0])

    def parse(self, raw: bytes, chat: bool, tenant: str, ex: Exchange | None = None
              ) -> tuple[Request, dict, str, bool, bool]:
        """A completion request's body as the policies see it: the ``Request`` (prompt tokens
        counted, prefixes hashed, arriving now), the parsed body, the model it asks for (the
        first served when it names none) and its stream flags (stream, include_usage).
        ``BadRequest`` says what is wrong with it (``ModelNotFound``: a model not served here);
        ``ex`` learns the model once it is known."""
        lim = self.cfg.limits
        body = parse_object(raw)
        model = body.get("model")
        served = self.models()
        if model is None and served:
            model = served[0]
        elif not isinstance(model, str) or (served and model not in served):
            raise ModelNotFound(model, served)
        if ex is not None:
            ex.model = model
        text = prompt_text(body, chat)
        max_tokens = max_tokens_of(body, lim.default_max_tokens, lim.max_tokens)
        stream, want_usage = stream_flags(body)
        req = Request(next(self._ids), self.now(), self.counter.count_body(body, chat, text),
                      max_tokens, tenant, prefix_hashes(text))
        return req, body, model, stream, want_usage

    def serving_other(self, model: str | None) -> frozenset[int]:
        """The backends that serve another model than ``model``: never routed to for it."""
        return frozenset(i for i, b in enumerate(self.backends) if b.model and b.model != model)

    async def _dispatch(self, req: Request, body: dict, raw: bytes, chat: bool, stream: bool,
                        want_usage: bool, exclude: frozenset[int],
                        first_views: list | None = None, ex: Exchange | None = None
                        ) -> Response:
        """Pick a backend, send, relay; one that fails before its first byte is retried on
        another, up to ``limits.retries`` more times; ``ex`` learns which backend answered."""
        if ex is None:
            ex = Exchange()
        strip = stream and not want_usage
        payload = self._payload(body, raw, strip)
        path = CHAT_PATH if chat else COMPLETIONS_PATH
        tried = set(exclude)
        vs = first_views  # nothing ran since admission built them: the first pick reuses them
        for attempt in range(self.cfg.limits.retries + 1):
            # While a freed slot is promised to a queued request, this one queues behind it.
            i = None if self.slots.promised else self._pick(req, vs or views(self.backends,
                                                                             tried))
            if i is None and (i := await self._queue(req, tried)) is None:
                return self._unavailable(req, attempt == 0)
            sent = await self._send(req, i, path, payload, stream)
            if sent is None:  # failed before the first byte: try another
                tried.add(i)
                vs = None
                continue
            resp, it, first, t_send = sent
            b = self.backends[i]
            ex.backend = b.name
            gate = self._gates.get(req.id)
            if gate is not None and self.state is not None:
                # Speculated: its take decides before anything is relayed.
                if not gate[0].done():
                    self.state.waited += 1
                await asyncio.shield(gate[0])
                del self._gates[req.id]
                d = await self.state.admit_speculated(req, gate[1], gate[2], gate[0])
                if not d.admitted:
                    resp.close()
                    self._finish(req, b, i, "not_admitted", 0, 0)
                    return self._reject(req.tenant, d)
            if resp.status != 200:  # the backend refused the request itself: pass it on
                return await self._refused(req, b, i, resp)
            if it is not None:
                return RelayResponse(self.relay.stream(req, b, i, resp, it, first, strip, t_send,
                                                       ex), b.name, first_ready=True)
            return await self.relay.whole(req, b, i, resp, t_send, ex)
        self.admission.settle(req, 0, self.now())
        return error_response(503, "every backend tried failed; retry later", "no_healthy_backend",
                              retry_after_s=1.0)

    def _payload(self, body: dict, raw: bytes, strip: bool) -> bytes:
        """The body to send upstream: as the client sent it (no second encoding on the way to
        the first token) unless it is changed here or is not UTF-8 text (JSON may be
        UTF-16/32)."""
        payload = raw
        if strip:  # ask for usage anyway: the true token count settles the tenant's bucket
            body = {**body, "stream_options": {**(body.get("stream_options") or {}),
                                               "include_usage": True}}
            payload = b""
        if "model" not in body and self.models():
            body = {**body, "model": self.models()[0]}
            payload = b""
        if not payload.startswith(b"{") or payload[1:2] == b"\x00":
            payload = json.dumps(body).encode()
        return payload

    def _pick(self, req: Request, vs: list) -> int | None:
        """The router's choice among ``vs`` now; None when none of them can take ``req``."""
        try:
            i = self.router.pick(req, vs)
        except NoHealthyInstance:
            return None
        self.last_decision = (req, vs, i)
        return i

    async def _queue(self, req: Request, tried: set[int]) -> int | None:
        """Wait in the slot queue and pick each time a freed slot is promised to ``req``; None
        when no healthy backend is left to wait for, the queue is full or the wait too long."""
        deadline = time.monotonic() + self.cfg.limits.queue_timeout_s
        backends = self.backends
        while any(b.healthy and not b.ejected for i, b in enumerate(backends) if i not in tried):
            if not await self.slots.wait(req, deadline):
                return None
            i = self._pick(req, views(backends, tried))
            if i is not None:
                return i
        return None

    async def _send(self, req: Request, i: int, path: str, payload: bytes, stream: bool
                    ) -> tuple[WireResponse, AsyncIterator[bytes] | None, bytes, float] | None:
        """Send ``req`` to backend ``i``: the response once its head (and, streaming, its first
        chunk) is in, with the time it was sent; None when the backend failed before that (an
        error or a 5xx), its books settled and the failure counted."""
        b = self.backends[i]
        self.router.on_routed(req, i)
        b.begin(req)
        self.metrics.routed_to(self.policy, b.name).inc()
        t = self.cfg.timeouts
        t_send = time.perf_counter()
        resp = None
        try:
            resp = await self.upstream.post(b.url, path, payload, t.connect_s, t.first_byte_s)
            if resp.status < 500:
                if not stream or resp.status != 200:
                    b.succeeded()
                    return resp, None, b"", t_send
                it = body_chunks(resp, t.first_byte_s)
                first = await it.__anext__()
                b.succeeded()
                return resp, it, first, t_send
            await read_body(resp, t.first_byte_s)
            why = f"HTTP {resp.status}"
        except StopAsyncIteration:
            why = "the stream ended before its first chunk"
        except asyncio.CancelledError:  # the client left: closing the connection tells the
            if resp is not None:        # backend to abort the request
                resp.close()
            self._finish(req, b, i, "cancelled", req.prompt_tokens, 0)
            raise
        except (OSError, TimeoutError) as exc:
            why = f"{type(exc).__name__}: {exc}"
        log.warning("backend %s failed before the first byte: %s", b.name, why)
        if resp is not None:
            resp.close()
        b.end(req, False, 0)
        self.router.on_finished(req, i)
        self.slots.free()
        b.failed(self.cfg.health.failures_to_eject)
        self.metrics.retries.labels(b.name).inc()
        return None

    async def _refused(self, req: Request, b: Backend, i: int, resp: WireResponse) -> Response:
        """The backend's own 4xx answer, passed on as it came."""
        try:
            data = await read_body(resp, self.cfg.timeouts.first_byte_s)
        except (OSError, TimeoutError):
            data = b""
        resp.close()
        self._finish(req, b, i, "client_error", 0, 0)
        out = Response(data, resp.status, media_type="application/json")
        out.reason = "backend_refused"  # type: ignore[attr-defined]
        return out

    def _unavailable(self, req: Request, first: bool) -> Response:
        """503: no backend can take ``req`` now (``first``: before any was tried)."""
        self.admission.settle(req, 0, self.now())
        self.metrics.rejections.labels(req.tenant, "no_healthy_backend").inc()
        what = ("no healthy backend can serve this request now" if first else
                "every backend tried failed, and no other can serve this request now")
        return error_response(503, f"{what}; retry later", "no_healthy_backend",
                              retry_after_s=1.0)

    def _finish(self, req: Request, b: Backend, i: int, outcome: str, prompt: int,
                completion: int, started: bool = False, accounted: int = 0) -> None:
        """The books for a request that left backend ``i``: the backend's and the router's
        load, the slot (to the next queued request), the tenant's bucket, the metrics."""
        b.end(req, started, completion, accounted)
        self.router.on_finished(req, i)
        self.slots.release(req, completion)
        self.admission.settle(req, prompt + completion if outcome != "client_error" else 0,
                              self.now())
        m = self.metrics.of(b.name, req.tenant)
        m.outcome(outcome).inc()
        if prompt and outcome == "success":
            m.prompt_tokens.inc(prompt)
        if completion > accounted:  # the relay counted ``accounted`` as they streamed
            m.completion_tokens.inc(completion - accounted)


async def unless_client_leaves(receive: Receive, work: Coroutine[Any, Any, Response],
                               ex: Exchange) -> Response:
    """``work``, a whole (not streamed) answer being waited for, unless the client hangs up
    first: then ``work`` is cancelled (its books settle as cancelled and the backend's
    connection is closed, so the backend aborts the request as vLLM does) and the answer is a
    499 nobody reads, for the log."""

    loop = asyncio.get_running_loop()
    job, watcher = loop.create_task(work), loop.create_task(client_gone(receive))
    try:
        await asyncio.wait((job, watcher), return_when=asyncio.FIRST_COMPLETED)
    except BaseException:
        job.cancel()
        raise
    finally:
        watcher.cancel()
    if job.done():
        return job.result()
    job.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await job
    ex.reason = "client_gone"
    return error_response(499, "the client closed the connection before the answer",
                          "client_gone")


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

    async def completions(request: HTTPRequest, chat: bool) -> Response:
        # Only other ASGI servers' oddities get here: ``GatewayApp`` serves these routes itself.
        return await gw.completions(request.scope, request.receive, chat)

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

    async def dashboard(request: HTTPRequest) -> Response:
        return gw.dashboard_page(request.scope)

    async def dashboard_data(request: HTTPRequest) -> Response:
        # Only other ASGI servers' oddities (and HEAD) get here: ``GatewayApp`` serves GETs.
        refused, since, gz = dashboard_data_request(gw, request.scope)
        if refused is not None:
            return refused
        body, gzipped = gw.live.latest().answer(since, gz)
        out = Response(body)
        out.raw_headers = dashboard_data_headers(body, gzipped)
        return out

    async def http_error(request: HTTPRequest, exc: Exception) -> Response:
        code = getattr(exc, "status_code", 500)
        msg = ("no such endpoint; try POST /v1/chat/completions" if code == 404 else
               f"method not allowed here; this endpoint takes {exc.headers.get('Allow', '')}"
               if code == 405 and getattr(exc, "headers", None) else str(exc))
        return error_response(code, msg)

    routes = [*openai_routes(completions, models, health, metrics),
              Route("/dashboard", dashboard, methods=["GET"]),
              Route("/dashboard/data", dashboard_data, methods=["GET"])]
    app = Starlette(routes=routes, lifespan=lifespan,
                    exception_handlers={HTTPException: http_error})
    app.state.gateway = gw
    return GatewayApp(gw, app)  # the completion routes go straight to ``gw``
