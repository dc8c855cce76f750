"""Relaying one backend's answer to the client, and accounting for it as it goes.

``Relay.stream`` sends an SSE stream on chunk by chunk (a ``RelayStream``; from its second
chunk on straight from the backend's socket to the client's where the server allows:
``splice``); ``Relay.whole`` passes a whole-body answer on. Both settle the request's books
through the gateway's ``finish`` when it ends (success, error, or the client gone), and observe
TTFT and TPOT.

``StreamTally`` (in ``splice``, compiled with it) reads the stream on the way: chunks go out as
they come in; it only looks at complete events (it keeps the bytes after the last blank line for
the next chunk) to find the final ``usage`` and to count content events when no usage arrives.
When the gateway itself asked for usage (the client did not), the usage event is cut out, which
holds back at most one partial event.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

from starlette.responses import Response

from tokenpilot.gateway.accesslog import Exchange
from tokenpilot.gateway.backends import Backend
from tokenpilot.gateway.config import GatewayConfig
from tokenpilot.gateway.metrics import GatewayMetrics
from tokenpilot.gateway.openai import error_response, sse_error
from tokenpilot.gateway.splice import Splice, StreamTally, cached_tokens
from tokenpilot.gateway.transport import read_body
from tokenpilot.gateway.wire import WireResponse
from tokenpilot.workload.request import Request

# A streamed answer's reason in ``tokenpilot_responses`` (its status is 200 whatever happened).
STREAM_REASONS = {"success": "success", "error": "upstream_error", "cancelled": "client_gone"}
log = logging.getLogger("tokenpilot.gateway")
# A stream's completion tokens reach the counter of /metrics at most this often (and at its end).
COUNT_EVERY_S = 0.1
# The gateway's books for one request that left its backend: (req, backend, its index, outcome,
# prompt tokens, completion tokens, started, tokens already taken off its outstanding work).
Finish = Callable[[Request, Backend, int, str, int, int, bool, int], None]


class Relay:
    """Passes backends' answers on to clients; ``finish`` settles each request's books."""

    def __init__(self, cfg: GatewayConfig, metrics: GatewayMetrics, finish: Finish) -> None:
        self.cfg = cfg
        self.metrics = metrics
        self.finish = finish
        self.spliced = 0  # streams relayed socket to socket (``Splice``) ...
        self.drains = 0  # ... and the times one waited for its client to read

    async def whole(self, req: Request, b: Backend, i: int, resp: WireResponse,
                    t_send: float, ex: Exchange) -> Response:
        """A whole-body (not streamed) answer, read and passed on."""
        try:
            data = await read_body(resp, self.cfg.timeouts.first_byte_s)
        except (OSError, TimeoutError) as exc:
            b.failed(self.cfg.health.failures_to_eject)
            self.finish(req, b, i, "error", 0, 0, False, 0)
            return error_response(502, f"backend {b.name} failed mid-response: {exc}",
                                  "upstream_error")
        except asyncio.CancelledError:  # the client left mid-body (``unless_client_leaves``)
            self.finish(req, b, i, "cancelled", req.prompt_tokens, 0, False, 0)
            raise
        finally:
            resp.close()
        try:
            answer = json.loads(data)
            usage = answer.get("usage") or {}
            ex.cached_tokens = cached_tokens(answer)
        except (ValueError, AttributeError):
            usage = {}
        done = time.perf_counter()
        b.first_token(req)
        out = int(usage.get("completion_tokens") or 0)
        prompt = int(usage.get("prompt_tokens") or req.prompt_tokens)
        self.metrics.of(b.name, req.tenant).ttft.observe(done - t_send)
        ex.reason, ex.prompt_tokens, ex.output_tokens = "success", prompt, out
        ex.ttft_s = ex.since_arrival(done)
        self.finish(req, b, i, "success", prompt, out, True, 0)
        return Response(data, 200, media_type="application/json",
                        headers={"x-tokenpilot-backend": b.name})

    def stream(self, req: Request, b: Backend, i: int, resp: WireResponse,
               it: AsyncIterator[bytes], first: bytes, strip: bool, t_send: float,
               ex: Exchange) -> RelayStream:
        """The SSE stream from ``first`` on; ``strip``: cut out the usage event the gateway
        asked for and the client did not. A backend failing mid-stream ends it with an error
        event."""
        return RelayStream(self, req, b, i, resp, it, first, strip, t_send, ex)


class RelayStream:
    """One streamed answer, relayed: iterate it for the chunks to send on, in order.

    Chunk by chunk through ``it`` (the backend's body), or, once ``target`` is set (the
    client's transport, by ``RelayResponse`` after the first chunk went out, where the server
    is one whose chunked body can be written to directly), through a ``Splice``: then the
    chunks go straight from the backend's socket to the client's, and the iteration yields
    only b"" (drain the client), the chunk that ends with [DONE], and an error event. The books
    (``feed`` and ``sent`` per chunk, settled when it ends) are the same either way.
    """

    def __init__(self, relay: Relay, req: Request, b: Backend, i: int, resp: WireResponse,
                 it: AsyncIterator[bytes], first: bytes, strip: bool, t_send: float,
                 ex: Exchange) -> None:
        self.relay, self.req, self.b, self.i, self.resp, self.it = relay, req, b, i, resp, it
        self.first, self.strip, self.t_send, self.ex = first, strip, t_send, ex
        self.target: Any = None
        self.tally = StreamTally()
        self.m = relay.metrics.of(b.name, req.tenant)
        self.deadline = t_send + relay.cfg.timeouts.total_s
        self.t_first = self.t_last = 0.0
        self.accounted = 0  # tokens taken off the backend's outstanding work (``sent``) ...
        self.counted = 0  # ... of which the completion-token counter has learned (``count``)
        self.t_counted = 0.0
        self._gen = self._run()

    def __aiter__(self) -> AsyncIterator[bytes]:
        return self._gen

    async def aclose(self) -> None:
        await self._gen.aclose()

    def sent(self) -> None:
        """After chunks went on: tokens streamed back leave the backend's outstanding work as
        they come, so routers and admission see a long stream shrink rather than stay at
        max_tokens; ``TimeoutError`` once the total timeout has passed.

        Runs once per relayed chunk (a token, mostly). The completion-token counter of
        ``/metrics`` (a live rate; the dashboard samples it every ``dashboard.sample_ms``)
        learns them with a stream's first chunk, then with the first chunk ``COUNT_EVERY_S``
        or more after its last count, and at the stream's end (``settle``):
        ``Counter.inc`` takes a lock and checks its value per call, a measurable share of a
        relayed chunk's CPU, for a figure nobody reads faster."""
        done = min(self.tally.tokens_out, self.req.output_tokens) - self.accounted
        self.t_last = t = time.perf_counter()
        if done > 0:
            self.b.decoded(done)
            self.accounted += done
            if t >= self.t_counted + COUNT_EVERY_S:
                self.count()
                self.t_counted = t
        if t > self.deadline:
            raise TimeoutError(f"the {self.relay.cfg.timeouts.total_s:g} s total timeout passed")

    def count(self) -> None:
        """The tokens taken off the backend's work so far, into the completion-token counter."""
        if self.accounted > self.counted:
            self.m.completion_tokens.inc(self.accounted - self.counted)
            self.counted = self.accounted

    async def _run(self) -> AsyncIterator[bytes]:
        req, b, resp, it, tally, strip = self.req, self.b, self.resp, self.it, self.tally, \
            self.strip
        cfg = self.relay.cfg
        self.t_first = self.t_last = time.perf_counter()
        b.first_token(req)
        outcome = "cancelled"
        splice: Splice | None = None
        try:
            chunk = self.first
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
                self.sent()
                if self.target is not None and Splice.possible(resp):
                    await it.aclose()  # the reader's iteration: the splice reads from here on
                    splice = Splice(resp, self.target, tally, strip, self.sent,
                                    cfg.timeouts.first_byte_s)
                    splice.start()
                    self.relay.spliced += 1
                    while (out := await splice.next()) is not None:
                        if not out:
                            self.relay.drains += 1
                        yield out
                    break
                self.target = None
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
            b.failed(cfg.health.failures_to_eject)
            log.warning("backend %s failed mid-stream: %s", b.name, exc)
            yield sse_error(f"backend {b.name} failed mid-stream ({type(exc).__name__}); the "
                            "response is incomplete")
        finally:
            if splice is not None:
                splice.close()
            resp.close()  # a no-op once the body was read to its end (and pooled)
            self.settle(outcome)

    def settle(self, outcome: str) -> None:
        ex, tally, req = self.ex, self.tally, self.req
        self.m.ttft.observe(self.t_first - self.t_send)
        self.count()  # the books below take ``accounted`` as counted
        n = tally.tokens_out
        prompt = tally.prompt_tokens or req.prompt_tokens
        ex.reason = STREAM_REASONS[outcome]
        ex.prompt_tokens, ex.output_tokens = prompt, n
        ex.cached_tokens = tally.cached_tokens
        ex.ttft_s = ex.since_arrival(self.t_first)
        if n > 1 and outcome == "success":
            ex.tpot_s = tpot = (self.t_last - self.t_first) / (n - 1)
            self.m.tpot.observe(tpot)
        self.relay.finish(req, self.b, self.i, outcome, prompt, n, True, self.accounted)
