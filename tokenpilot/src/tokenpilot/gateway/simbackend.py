"""A simulated inference instance behind the OpenAI API: ``tokenpilot sim-backend``.

The engine simulator (``tokenpilot.engine``) runs in wall-clock time, or ``speedup`` times
faster: simulated time is ``(monotonic() - start) * speedup``. A driver task advances the engine
to the present every tick and hands each stream the tokens its request has produced by then, so
every token's SSE chunk leaves at (the tick after) its simulated time. The completion text is
synthetic words; ``usage`` is exact. ``/metrics`` speaks vLLM's metric names, so the gateway's
vLLM adapter reads this backend as it reads a real vLLM.

A stream whose client goes away is aborted in the engine, as vLLM aborts it: it leaves the
batch at once and its KV blocks are freed, so nobody sees load that no one waits for;
``vllm:request_success{finished_reason="abort"}`` counts it.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass

from prometheus_client import CollectorRegistry, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from starlette.applications import Starlette
from starlette.requests import Request as HTTPRequest
from starlette.responses import JSONResponse, Response

from tokenpilot.cluster.fleet import InstanceSpec
from tokenpilot.engine import Engine
from tokenpilot.gateway.asgi import RelayResponse, client_gone
from tokenpilot.gateway.openai import (
    error_response,
    max_tokens_of,
    now_s,
    openai_routes,
    read_json,
    stream_flags,
)
from tokenpilot.gateway.text import BadRequest, TokenCounter, prefix_hashes, prompt_text
from tokenpilot.models import get_model
from tokenpilot.workload.request import Request

WORDS = ("lorem", "ipsum", "dolor", "sit", "amet", "consectetur", "adipiscing", "elit", "sed",
         "do", "eiusmod", "tempor")
TTFT_BUCKETS = (0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0,
                7.5, 10.0, 20.0, 40.0, 80.0)


@dataclass(frozen=True)
class SimConfig:
    """One simulated instance: which GPU and model, how fast the clock runs."""

    gpu: str = "h100-sxm"
    model: str = "llama-3.1-8b"
    speedup: float = 1.0
    tp: int = 1
    name: str = ""
    engine: str = "vllm-v1"  # an engine profile (tokenpilot.engines)
    max_num_seqs: int | None = None  # None: the engine profile's
    default_max_tokens: int = 256
    tick_s: float = 0.002  # wall seconds between driver steps while work is in flight
    max_body_bytes: int = 4 << 20
    # None: the engine profile's. A smaller KV pool (memory share) and swap preemption push an
    # instance into swapping under less load (the dashboard's swap marker, in the tests).
    gpu_memory_utilization: float | None = None
    preemption: str | None = None  # recompute | swap

    def __post_init__(self) -> None:
        if self.speedup <= 0:
            raise ValueError(f"speedup must be positive, got {self.speedup}")


class _Stream:
    __slots__ = ("id", "output", "ready", "sent", "event", "failed", "cached")

    def __init__(self, req_id: int, output: int) -> None:
        self.id = req_id
        self.output = output
        self.ready = 0  # tokens the engine has produced by the last driver step
        self.sent = 0
        self.event = asyncio.Event()
        self.failed = False
        self.cached = 0  # prompt tokens the engine found in its prefix cache


class SimInstance:
    """The engine, its clock and the streams waiting on it."""

    def __init__(self, cfg: SimConfig) -> None:
        self.cfg = cfg
        model = get_model(cfg.model)
        spec = InstanceSpec(gpu=cfg.gpu, model=cfg.model, tp=cfg.tp, engine=cfg.engine,
                            max_num_seqs=cfg.max_num_seqs,
                            gpu_memory_utilization=cfg.gpu_memory_utilization,
                            preemption=cfg.preemption)
        self.cm = spec.cost_model()
        spec.check_fits(self.cm)
        self.engine = Engine(self.cm, spec.engine_config(), name=cfg.name or f"sim-{cfg.gpu}")
        self.model_name = model.name
        self.counter = TokenCounter()
        self._t0 = time.monotonic()
        self._ids = itertools.count()
        self.active: dict[int, _Stream] = {}
        self._wake = asyncio.Event()
        self.crashed = False
        self.prompt_tokens = 0
        self.generation_tokens = 0
        self.successes = 0
        self.aborted = 0
        self.registry = CollectorRegistry()
        self.registry.register(_EngineCollector(self))
        self.ttft = Histogram("vllm:time_to_first_token_seconds",
                              "Time to first token (simulated seconds)", ["model_name"],
                              registry=self.registry, buckets=TTFT_BUCKETS)
        self.e2e = Histogram("vllm:e2e_request_latency_seconds",
                             "End-to-end request latency (simulated seconds)", ["model_name"],
                             registry=self.registry, buckets=TTFT_BUCKETS)

    def sim_now(self) -> float:
        return (time.monotonic() - self._t0) * self.cfg.speedup

    def submit(self, prompt: int, output: int, hashes: tuple[int, ...], block: int) -> _Stream:
        """Queue a request now; ``BadRequest`` if the engine cannot ever run it."""
        now = self.sim_now()
        self.engine.advance_to(now)
        req = Request(next(self._ids), now, prompt, output, prefix_hashes=hashes,
                      prefix_block_tokens=block)
        if not self.engine.add_request(req, now):
            reason = self.engine.seqs[req.id].reason
            self.engine.forget(req.id)
            raise BadRequest(f"this model cannot serve the request: {reason}",
                             code="context_length_exceeded")
        stream = _Stream(req.id, output)
        self.active[req.id] = stream
        self.prompt_tokens += prompt
        self._wake.set()
        return stream

    async def drive(self) -> None:
        """Advance the engine to the present and release the tokens produced so far, forever."""
        engine, tick = self.engine, self.cfg.tick_s
        while not self.crashed:
            if not self.active:
                self._wake.clear()
                await self._wake.wait()
            now = self.sim_now()
            engine.advance_to(now)
            done = []
            for rid, st in self.active.items():
                first = engine.first_token_time(rid)
                if first < 0 or first > now:
                    continue
                n = engine.tokens_by(rid, now)
                if n > st.ready:
                    if st.ready == 0:
                        st.cached = max(0, engine.seqs[rid].cached_tokens)
                        self.ttft.labels(self.model_name).observe(first - engine.seqs[rid].arrival)
                    st.ready = n
                    st.event.set()
                if n >= st.output:
                    done.append(rid)
                    seq = engine.seqs[rid]
                    self.e2e.labels(self.model_name).observe(seq.finish - seq.arrival)
                    self.generation_tokens += st.output
                    self.successes += 1
            for rid in done:
                del self.active[rid]
                engine.forget(rid)  # streamed out: keep a long-running backend's memory flat
            engine.compact(now)
            await asyncio.sleep(tick)

    def abort(self, st: _Stream) -> None:
        """``st``'s client went away: stop its request in the engine and free its KV."""
        if self.active.pop(st.id, None) is None:
            return  # finished (or the instance crashed) meanwhile
        self.engine.advance_to(self.sim_now())
        if self.engine.abort(st.id):
            self.aborted += 1
            self.generation_tokens += st.ready
        self.engine.forget(st.id)

    def crash(self) -> None:
        """Fail every open stream at once (the process died)."""
        self.crashed = True
        for st in self.active.values():
            st.failed = True
            st.event.set()
        self.active.clear()
        self._wake.set()


class _EngineCollector:
    """vLLM-named gauges and counters read from the engine at scrape time."""

    def __init__(self, sim: SimInstance) -> None:
        self.sim = sim

    def collect(self):  # noqa: ANN201 - the prometheus_client collector protocol
        sim, e = self.sim, self.sim.engine
        labels = ["model_name"]
        val = [sim.model_name]
        sched, bm = e.sched, e.bm

        def gauge(name: str, doc: str, value: float) -> GaugeMetricFamily:
            g = GaugeMetricFamily(name, doc, labels=labels)
            g.add_metric(val, value)
            return g

        def counter(name: str, doc: str, value: float) -> CounterMetricFamily:
            c = CounterMetricFamily(name, doc, labels=labels)
            c.add_metric(val, value)
            return c

        yield gauge("vllm:num_requests_running", "Requests in the running batch",
                    len(sched.running))
        yield gauge("vllm:num_requests_waiting", "Requests waiting (or swapped out)",
                    len(sched.waiting) + len(sched.swapped))
        yield gauge("vllm:kv_cache_usage_perc", "KV-cache usage (1 = full)",
                    bm.used / bm.num_blocks if bm.num_blocks else 0.0)
        yield counter("vllm:prefix_cache_queries", "Prompt tokens looked up in the prefix cache",
                      bm.hit_tokens + bm.miss_tokens)
        yield counter("vllm:prefix_cache_hits", "Prompt tokens found in the prefix cache",
                      bm.hit_tokens)
        yield counter("vllm:num_preemptions", "Preemptions",
                      sched.preempt_recompute + sched.preempt_swap)
        yield counter("vllm:prompt_tokens", "Prompt tokens received", sim.prompt_tokens)
        yield counter("vllm:generation_tokens", "Tokens generated", sim.generation_tokens)
        done = CounterMetricFamily("vllm:request_success", "Requests finished, by why",
                                   labels=["model_name", "finished_reason"])
        done.add_metric([sim.model_name, "length"], sim.successes)
        done.add_metric([sim.model_name, "abort"], sim.aborted)
        yield done
        yield gauge("vllm:num_requests_swapped", "Requests swapped out to host memory",
                    len(sched.swapped))
        st = e.stats
        yield counter("tokenpilot:sim_compute_bound_seconds", "Busy time bound by compute",
                      st.compute_bound_s)
        yield counter("tokenpilot:sim_memory_bound_seconds", "Busy time bound by memory "
                      "bandwidth", st.memory_bound_s)
        info = GaugeMetricFamily("tokenpilot:sim_info", "The simulated instance",
                                 labels=["gpu", "model", "speedup", "kv_blocks", "block_size",
                                         "max_model_len"])
        info.add_metric([sim.cfg.gpu, sim.model_name, f"{sim.cfg.speedup:g}",
                         str(bm.num_blocks), str(e.cfg.block_size), str(e.max_model_len)], 1)
        yield info


def create_sim_app(cfg: SimConfig | None = None) -> Starlette:
    """An ASGI app serving one simulated instance; ``app.state.sim`` is the ``SimInstance``."""
    cfg = cfg or SimConfig()
    sim = SimInstance(cfg)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        sim._wake = asyncio.Event()  # bind to the serving loop
        task = asyncio.create_task(sim.drive())
        try:
            yield
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    async def completions(request: HTTPRequest, chat: bool) -> Response:
        if sim.crashed:
            return error_response(503, "the instance is down")
        try:
            body = await read_json(request, cfg.max_body_bytes)
            model = body.get("model", sim.model_name)
            if model != sim.model_name:
                return error_response(404, f"model {model!r} is not served here; this instance "
                                      f"serves {sim.model_name!r}", "model_not_found", "model")
            text = prompt_text(body, chat)
            prompt = sim.counter.count(text)
            ctx = sim.engine.max_model_len
            if ctx and prompt >= ctx:
                raise BadRequest(f"the prompt is {prompt} tokens; this server's context is "
                                 f"{ctx} tokens, prompt and output together; send a shorter "
                                 "prompt", "messages" if chat else "prompt",
                                 "context_length_exceeded")
            limit = ctx - prompt if ctx else 1 << 20
            output = max_tokens_of(body, cfg.default_max_tokens, limit)
            stream, usage = stream_flags(body)
            st = sim.submit(prompt, output, prefix_hashes(text), 128)
        except BadRequest as exc:
            return error_response(exc.status, str(exc), exc.code, exc.param)
        rid = f"{'chatcmpl' if chat else 'cmpl'}-sim{st.id}"
        if stream:
            return RelayResponse(_sse(sim, st, rid, chat, prompt, usage))
        if await _client_left(request, st):  # nobody waits for the answer: abort it
            sim.abort(st)
            return Response(status_code=499)
        if st.failed:
            return error_response(502, "the instance failed while generating")
        text_out = " ".join(WORDS[i % len(WORDS)] for i in range(output))
        choice = ({"index": 0, "message": {"role": "assistant", "content": text_out},
                   "finish_reason": "length"} if chat else
                  {"index": 0, "text": text_out, "finish_reason": "length"})
        return JSONResponse({
            "id": rid, "object": "chat.completion" if chat else "text_completion",
            "created": now_s(), "model": sim.model_name, "choices": [choice],
            "usage": _usage(prompt, output, st.cached)})

    async def models(request: HTTPRequest) -> Response:
        return JSONResponse({"object": "list", "data": [
            {"id": sim.model_name, "object": "model", "created": 0, "owned_by": "tokenpilot-sim",
             "max_model_len": sim.engine.max_model_len}]})

    async def health(request: HTTPRequest) -> Response:
        return Response(status_code=503 if sim.crashed else 200)

    async def metrics(request: HTTPRequest) -> Response:
        return Response(generate_latest(sim.registry), media_type="text/plain; version=0.0.4")

    app = Starlette(routes=openai_routes(completions, models, health, metrics), lifespan=lifespan)
    app.state.sim = sim
    app.state.crash = sim.crash
    return app


async def _client_left(request: HTTPRequest, st: _Stream) -> bool:
    """Wait for a whole answer; True when the client hung up first (its ``http.disconnect``
    arrives while the request is generating), as vLLM notices and aborts such a request."""
    gone = asyncio.ensure_future(client_gone(request.receive))
    try:
        while st.ready < st.output and not st.failed:
            ready = asyncio.ensure_future(st.event.wait())
            await asyncio.wait((ready, gone), return_when=asyncio.FIRST_COMPLETED)
            if gone.done():
                ready.cancel()
                return True
            st.event.clear()
        return False
    finally:
        gone.cancel()


def _usage(prompt: int, output: int, cached: int) -> dict:
    """The ``usage`` object, with vLLM's ``prompt_tokens_details.cached_tokens``."""
    return {"prompt_tokens": prompt, "completion_tokens": output,
            "total_tokens": prompt + output,
            "prompt_tokens_details": {"cached_tokens": cached}}


async def _sse(sim: SimInstance, st: _Stream, rid: str, chat: bool, prompt: int,
               usage: bool) -> AsyncIterator[bytes]:
    created, model = now_s(), sim.model_name
    obj = "chat.completion.chunk" if chat else "text_completion"
    head = f'data: {{"id":"{rid}","object":"{obj}","created":{created},"model":"{model}",'
    try:
        while st.sent < st.output:
            if not st.event.is_set() and st.ready <= st.sent:
                await st.event.wait()
            st.event.clear()
            if st.failed:
                # A crash: end the connection without the stream's proper ending.
                raise ConnectionAbortedError("simulated instance crashed")
            parts = []
            while st.sent < st.ready:
                word = WORDS[st.sent % len(WORDS)]
                delta = (f'{{"content":"{word} "}}' if st.sent else
                         f'{{"role":"assistant","content":"{word} "}}')
                body = (f'"choices":[{{"index":0,"delta":{delta},"finish_reason":null}}]}}'
                        if chat else
                        f'"choices":[{{"index":0,"text":"{word} ","finish_reason":null}}]}}')
                parts.append(head + body + "\n\n")
                st.sent += 1
            if st.sent >= st.output:  # the stream's end leaves in the write of its last tokens
                fin = ('"choices":[{"index":0,"delta":{},"finish_reason":"length"}]}' if chat
                       else '"choices":[{"index":0,"text":"","finish_reason":"length"}]}')
                parts.append(head + fin + "\n\n")
                if usage:
                    u = json.dumps(_usage(prompt, st.output, st.cached))
                    parts.append(head + f'"choices":[],"usage":{u}}}\n\n')
                parts.append("data: [DONE]\n\n")
            if parts:  # every token ready at this tick, in one write
                yield "".join(parts).encode()
    finally:
        if st.sent < st.output and not st.failed:  # the client went away: abort the request
            sim.abort(st)
