"""The endpoint picker's decisions: the gateway's own admission and router over the pool.

``Picker`` is a ``Gateway`` whose backends are the pool's endpoints: the same tenants, token
counter, admission (token buckets, context limits, shedding), router and per-backend
accounting, and the same health checks and ``/metrics`` scrapes of each endpoint. What
differs is who carries the bytes: the proxy (Envoy) sends the request to the endpoint the
picker names and streams the answer through the picker's external-processing stream, where
``Exchange`` reads it on the way (first token, tokens streamed, the final usage) to keep the
backend's outstanding work and the tenant's bucket as exact as the gateway keeps them.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import time
from collections.abc import Mapping, Sequence

from tokenpilot.epp.endpoints import address_of
from tokenpilot.gateway.accesslog import Exchange as LogLine
from tokenpilot.gateway.app import REJECT_STATUS, Gateway
from tokenpilot.gateway.backends import Backend, views
from tokenpilot.gateway.config import BackendConfig, GatewayConfig
from tokenpilot.gateway.health import check_all, health_loop
from tokenpilot.gateway.openai import COMPLETION_PATHS, TooLarge, error_body
from tokenpilot.gateway.relay import STREAM_REASONS, StreamTally
from tokenpilot.gateway.text import BadRequest
from tokenpilot.workload.request import Request


@dataclasses.dataclass
class Refusal:
    """An immediate answer in place of an endpoint: the status, and the OpenAI-style error."""

    status: int
    message: str
    code: str
    retry_after_s: float | None = None
    log: LogLine | None = None  # what the access log and the metrics say of it

    def body(self) -> bytes:
        return json.dumps(error_body(self.status, self.message, self.code)).encode()

    def headers(self) -> list[tuple[str, str]]:
        out = [("content-type", "application/json")]
        if self.retry_after_s is not None:
            out.append(("retry-after", str(max(1, int(self.retry_after_s + 0.999)))))
        return out


class Exchange:
    """One request the picker placed, from its pick to its answer's end.

    ``backend`` None: a request without a body (``GET /v1/models``), routed but neither admitted
    nor accounted. ``payload``: the body to send on (the picker may ask for usage the client
    did not, and then cuts the usage event out of the answer: ``strip``).
    """

    def __init__(self, picker: Picker, address: str, backend: Backend | None,
                 req: Request | None, payload: bytes, strip: bool, log: LogLine) -> None:
        self.picker = picker
        self.address = address
        self.backend = backend
        self.req = req
        self.payload = payload
        self.strip = strip
        self.log = log
        self.t_pick = time.perf_counter()
        self.t_first = 0.0
        self.t_last = 0.0
        self.tally = StreamTally()
        self.status = 0
        self.sse = False
        self.whole = bytearray()  # a non-streamed answer, for its usage
        self.accounted = 0
        self.done = False
        self.sees_answers = True  # False: the proxy sends no answer body (response mode NONE)

    # ---- the answer, as the proxy streams it through -----------------------------------------
    def served_by(self, address: str) -> None:
        """The proxy says ``address`` served the request (it may have tried further down a
        list, or its own fallback): move the load there when it is another endpoint here."""
        b = self.picker.addresses.get(address)
        if b is None or b is self.backend or self.backend is None or self.req is None:
            return
        old = self.backend
        old.end(self.req, False, 0)
        self.picker.router.on_finished(self.req, old.index)
        self.picker.router.on_routed(self.req, b.index)
        b.begin(self.req)
        self.backend, self.address = b, address
        self.log.backend = b.name

    def response_head(self, status: int, content_type: str) -> None:
        self.status = status
        self.sse = "text/event-stream" in content_type

    def response_chunk(self, chunk: bytes, end: bool) -> bytes:
        """Account for one chunk of the answer; return what goes on to the client."""
        b, req = self.backend, self.req
        if b is None or req is None or self.status != 200:
            return chunk
        now = time.perf_counter()
        if not self.t_first and chunk:
            self.t_first = now
            b.first_token(req)
        self.t_last = now
        if not self.sse:
            self.whole += chunk
            return chunk
        out = self.tally.feed(chunk, self.strip)
        if end:
            out += self.tally.flush(self.strip)
        done = min(self.tally.tokens_out, req.output_tokens) - self.accounted
        if done > 0:
            b.decoded(done)
            self.picker.metrics.of(b.name, req.tenant).completion_tokens.inc(done)
            self.accounted += done
        return out

    def finish(self, outcome: str) -> None:
        """Settle the books once: the backend's load, the router, the tenant's bucket, the
        metrics. ``cancelled``: the stream ended before the answer did."""
        if self.done:
            return
        self.done = True
        b, req, p, log = self.backend, self.req, self.picker, self.log
        log.status = self.status
        if b is None or req is None:
            log.reason = "routed"
            return
        prompt, out = req.prompt_tokens, self.tally.tokens_out
        if self.whole:
            try:
                usage = json.loads(bytes(self.whole)).get("usage") or {}
            except (ValueError, AttributeError):
                usage = {}
            out = int(usage.get("completion_tokens") or 0)
            prompt = int(usage.get("prompt_tokens") or prompt)
        elif self.tally.prompt_tokens:
            prompt = self.tally.prompt_tokens
        started = bool(self.t_first)
        if self.status >= 500:
            outcome = "error"
            b.failed(p.cfg.health.failures_to_eject)
        elif self.status >= 400:
            outcome = "client_error"
        elif not self.status and not self.sees_answers:
            # The proxy sends the picker no answer (response_body_mode NONE): what admission
            # charged stays charged, and the backend's load leaves with the stream.
            outcome, prompt, out = "unobserved", p.admission.estimate(req), 0
        m = p.metrics.of(b.name, req.tenant)
        if started:
            m.ttft.observe(self.t_first - self.t_pick)
            n = self.tally.tokens_out
            if self.sse and n > 1 and outcome == "success":
                log.tpot_s = tpot = (self.t_last - self.t_first) / (n - 1)
                m.tpot.observe(tpot)
            log.ttft_s = log.since_arrival(self.t_first)
        log.reason = STREAM_REASONS.get(outcome, outcome)
        log.prompt_tokens, log.output_tokens = prompt, out
        # As the gateway charges: what was served, nothing for a request that never started.
        served = prompt if outcome in ("success", "unobserved") or (
            outcome == "cancelled" and started) else 0
        p._finish(req, b, b.index, outcome, served, out, started, self.accounted)


class Picker(Gateway):
    """The gateway's policy objects over a pool of endpoints that a proxy sends requests to."""

    def __init__(self, cfg: GatewayConfig, endpoints: Sequence[BackendConfig]) -> None:
        super().__init__(dataclasses.replace(cfg, backends=list(endpoints)))
        self.addresses = {address_of(b.cfg): b for b in self.backends}

    # ---- the pool --------------------------------------------------------------------------
    async def reload(self, endpoints: Sequence[BackendConfig]) -> None:
        """Take a new pool: endpoints still listed, unchanged, keep their state (load in
        flight, prefixes sent, the last scrape); new or changed ones are checked at once."""
        old = {b.url: b for b in self.backends}
        pool, fresh = [], []
        for i, c in enumerate(endpoints):
            b = old.get(c.url)
            if b is None or b.cfg != c:
                b = Backend(c, i)
                fresh.append(b)
                if c.upstream_headers:  # its requests and health checks carry them
                    self.upstream.set_headers(c.url, c.upstream_headers)
            b.index = i
            pool.append(b)
        self.backends[:] = pool  # in place: the metrics collector reads this very list
        self.cfg.backends = list(endpoints)
        self.addresses = {address_of(b.cfg): b for b in pool}
        if self._health is not None:
            self._health.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._health
        if self.checking:
            await check_all(self.upstream, fresh, self.cfg.health)
            self._health = asyncio.create_task(health_loop(self.upstream, self.backends,
                                                           self.cfg.health))

    # ---- one request -----------------------------------------------------------------------
    def decide(self, headers: Mapping[str, str], raw: bytes | None,
               subset: Sequence[str] | None = None, rewrite: bool = True
               ) -> Exchange | Refusal:
        """Where the request of ``headers`` (lower-case names, pseudo-headers included) and
        body ``raw`` goes, or why it goes nowhere. ``raw`` None: it has no body. ``subset``:
        the proxy's list of the endpoints it may go to (GIE's subset hint). ``rewrite``: the
        body may be changed on the way (the proxy streams it through the picker)."""
        path = headers.get(":path", "").partition("?")[0]
        log = LogLine(headers.get(":method", "POST"), path, self.now())
        out = self._decide(headers, raw, subset, rewrite, path, log)
        if isinstance(out, Refusal):
            out.log, log.status, log.reason = log, out.status, out.code
        return out

    def _decide(self, headers: Mapping[str, str], raw: bytes | None,
                subset: Sequence[str] | None, rewrite: bool, path: str, log: LogLine
                ) -> Exchange | Refusal:
        excluded = self._outside(subset)
        if raw is None:
            return self._route_bodyless(log, excluded, subset)
        chat = COMPLETION_PATHS.get(path)
        if chat is None:
            return Refusal(404, f"the endpoint picker admits POST {' and '.join(COMPLETION_PATHS)}"
                           f"; {path or 'this path'} is not one (route it past the picker)",
                           "not_found")
        tenants = self.tenants
        tenant = tenants.resolve(None if tenants.open else headers.get("authorization"))
        log.tenant = tenant
        if tenant is None:
            return Refusal(401, "missing or unknown API key; send 'Authorization: Bearer "
                           "<key>' with a key from the gateway's tenants", "invalid_api_key")
        try:
            if len(raw) > self.cfg.limits.max_body_bytes:
                raise TooLarge(self.cfg.limits.max_body_bytes)
            req, body, model, stream, want_usage = self.parse(raw, chat, tenant, log)
        except BadRequest as exc:
            return Refusal(exc.status, str(exc), exc.code)
        log.stream, log.prompt_tokens = stream, req.prompt_tokens
        vs = views(self.backends, self.serving_other(model) | excluded)
        d = self.admission.admit(req, vs, req.arrival)
        if not d.admitted:
            self.metrics.rejections.labels(tenant, d.reason).inc()
            status = REJECT_STATUS.get(d.reason, 429)
            return Refusal(status, d.message, d.reason,
                           None if status == 400 else d.retry_after_s)
        i = self._pick(req, vs)
        if i is None:
            self.admission.settle(req, 0, self.now())
            return self._none_ready(tenant, excluded, subset)
        b = self.backends[i]
        self.router.on_routed(req, i)
        b.begin(req)
        self.metrics.routed_to(self.policy, b.name).inc()
        strip = rewrite and stream and not want_usage
        log.backend = b.name
        return Exchange(self, address_of(b.cfg), b, req,
                        self._payload(body, raw, strip) if rewrite else raw, strip, log)

    def _outside(self, subset: Sequence[str] | None) -> frozenset[int]:
        if subset is None:
            return frozenset()
        allowed = set(subset)
        return frozenset(i for i, b in enumerate(self.backends)
                         if address_of(b.cfg) not in allowed)

    def _route_bodyless(self, log: LogLine, excluded: frozenset[int],
                        subset: Sequence[str] | None) -> Exchange | Refusal:
        """A request without a body (``GET /v1/models``): no tokens to admit; the router
        places it among the ready endpoints."""
        req = Request(next(self._ids), self.now(), 1, 1)
        i = self._pick(req, views(self.backends, excluded))
        if i is None:
            return self._none_ready("default", excluded, subset)
        b = self.backends[i]
        log.backend = b.name
        return Exchange(self, address_of(b.cfg), None, None, b"", False, log)

    def _none_ready(self, tenant: str, excluded: frozenset[int],
                    subset: Sequence[str] | None) -> Refusal:
        """GIE's two refusals: 503 when no endpoint is ready, 429 when the ready ones are all
        at their ``max_concurrency`` (heavy load: drop, the client retries later)."""
        ready = [b for i, b in enumerate(self.backends)
                 if b.healthy and not b.ejected and i not in excluded]
        if ready:
            self.metrics.rejections.labels(tenant, "pool_full").inc()
            return Refusal(429, f"every ready endpoint ({len(ready)}) is at its "
                           "max_concurrency; retry later", "pool_full", 1.0)
        self.metrics.rejections.labels(tenant, "no_healthy_backend").inc()
        where = "among the proxy's subset hint" if subset is not None else "in the pool"
        return Refusal(503, f"no ready endpoint {where} can serve this request now; retry "
                       "later", "no_healthy_backend", 1.0)
