"""End to end over real HTTP on 127.0.0.1: clients -> gateway -> simulated backends."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from dataclasses import replace

import httpx
import pytest
from builders import MODEL, chat, wait_until

from tokenpilot.gateway.app import create_app
from tokenpilot.gateway.fleet import gateway_config, start_gateway, start_sims
from tokenpilot.gateway.runner import ServerPool
from tokenpilot.gateway.wire import WireClient
from tokenpilot.policy import make_router

pytestmark = pytest.mark.e2e  # every test here serves on 127.0.0.1


def sse_events(text: str) -> list[str]:
    return [line[6:] for line in text.split("\n") if line.startswith("data: ")]


@pytest.fixture(scope="module")
def fleet():
    with ServerPool() as pool:
        sims = start_sims(pool, speedup=20)
        gw = start_gateway(pool, sims)
        yield pool, sims, gw


def test_non_streaming_chat_and_completions(fleet) -> None:
    _, _, gw = fleet
    with httpx.Client(base_url=gw.url, timeout=10) as c:
        r = c.post("/v1/chat/completions", json=chat(max_tokens=7))
        assert r.status_code == 200, r.text
        body = r.json()
        assert body["usage"]["completion_tokens"] == 7
        assert body["usage"]["prompt_tokens"] == 300  # 1200 characters at ~4 per token
        assert len(body["choices"][0]["message"]["content"].split()) == 7
        assert r.headers["x-tokenpilot-backend"]
        r = c.post("/v1/completions", json={"model": MODEL, "prompt": "abcd" * 50,
                                            "max_tokens": 3})
        assert r.status_code == 200, r.text
        assert r.json()["usage"] == {"prompt_tokens": 50, "completion_tokens": 3,
                                     "total_tokens": 53,
                                     "prompt_tokens_details": {"cached_tokens": 0}}
        models = c.get("/v1/models").json()["data"]
        assert [m["id"] for m in models] == [MODEL]
        assert c.get("/health").status_code == 200


def test_streaming_passes_tokens_through_in_order(fleet) -> None:
    _, _, gw = fleet
    with httpx.Client(base_url=gw.url, timeout=10) as c:
        # The client asks for usage: the final usage chunk reaches it.
        with c.stream("POST", "/v1/chat/completions",
                      json=chat(max_tokens=12, stream=True,
                                stream_options={"include_usage": True})) as r:
            assert r.status_code == 200
            assert r.headers["content-type"].startswith("text/event-stream")
            text = "".join(r.iter_text())
        events = sse_events(text)
        assert events[-1] == "[DONE]"
        parsed = [json.loads(e) for e in events[:-1]]
        words = [p["choices"][0]["delta"].get("content") for p in parsed if p["choices"]]
        assert len([w for w in words if w]) == 12
        assert parsed[-1]["usage"]["completion_tokens"] == 12
        # The client did not ask for usage: the gateway asks for it anyway but cuts it out.
        with c.stream("POST", "/v1/chat/completions", json=chat(max_tokens=5, stream=True)) as r:
            text = "".join(r.iter_text())
        parsed = [json.loads(e) for e in sse_events(text)[:-1]]
        assert all("usage" not in p for p in parsed)
        assert sum(1 for p in parsed if p["choices"][0]["delta"].get("content")) == 5
    metrics = httpx.get(gw.url + "/metrics").text
    assert 'tokenpilot_completion_tokens_total{backend=' in metrics
    assert "tokenpilot_routing_decisions_total" in metrics
    assert 'tokenpilot_prompt_token_counting{source="estimate' in metrics


def test_streaming_is_not_buffered() -> None:
    """At 1x, 40 tokens take ~0.3 s to decode: the client sees them arrive over that time."""
    with ServerPool() as pool:
        gw = start_gateway(pool, start_sims(pool, ("h100-sxm",), speedup=1))
        with httpx.Client(base_url=gw.url, timeout=10) as c, c.stream(
                "POST", "/v1/chat/completions", json=chat(max_tokens=40, stream=True)) as r:
            arrivals = [time.perf_counter() for _ in r.iter_raw()]
    assert len(arrivals) >= 5
    assert arrivals[-1] - arrivals[0] > 0.1


def test_streamed_tokens_leave_the_backends_outstanding_work() -> None:
    """Mid-stream, the gateway's view of the backend owes only what is not streamed yet; an idle
    backend still reports its single-stream decode speed, so speed-aware routers can price it."""
    with ServerPool() as pool:
        gw = start_gateway(pool, start_sims(pool, ("h100-sxm",), speedup=1))
        backend = gw.app.state.gateway.backends[0]
        idle = backend.view(0)
        assert idle.num_running == 0 and idle.decode_tokens_per_s > 0
        with httpx.Client(base_url=gw.url, timeout=10) as c, c.stream(
                "POST", "/v1/chat/completions", json=chat(max_tokens=300, stream=True)) as r:
            seen = 0
            for line in r.iter_lines():
                seen += '"content"' in line
                if seen == 150:
                    mid = backend.view(0).outstanding_tokens
        assert 0 < mid <= 300 - 140  # the streamed ~150 tokens are off the books
        assert backend.view(0).outstanding_tokens == 0


def test_same_policy_picks_same_instance_as_in_simulator(fleet) -> None:
    """The gateway's router is the simulator's router: over the same views, the same pick."""
    _, sims, gw = fleet
    gateway = gw.app.state.gateway
    with httpx.Client(base_url=gw.url, timeout=10) as c:
        for n in (50, 400, 2000):
            assert c.post("/v1/chat/completions", json=chat("x" * (4 * n), 2)).status_code == 200
            req, views, chosen = gateway.last_decision
            fresh = make_router("earliest-completion")
            assert fresh.pick(req, views) == chosen
            # The idle fleet: the fastest GPU (the H100) finishes first, in both worlds.
            engine_views = [h.app.state.sim.engine.view(i) for i, h in enumerate(sims)]
            assert fresh.pick(req, engine_views) == chosen == 0
            # The gateway learned each backend's capacity from its metrics.
            assert [v.kv_blocks_total for v in views] == [v.kv_blocks_total
                                                         for v in engine_views]


def test_killed_backend_mid_run() -> None:
    """Streams on the killed backend end with an error event; new requests go elsewhere."""
    with ServerPool() as pool:
        sims = start_sims(pool, ("h100-sxm", "h100-sxm"), speedup=1)
        gw = start_gateway(pool, sims, "round-robin",
                           {"health": {"interval_ms": 100, "timeout_s": 0.5}})

        async def run() -> tuple[list, list]:
            async with httpx.AsyncClient(base_url=gw.url, timeout=10) as c:
                async def stream_one(streaming: asyncio.Event) -> str:
                    async with c.stream("POST", "/v1/chat/completions",
                                        json=chat(max_tokens=400, stream=True)) as r:
                        parts = []
                        async for text in r.aiter_text():
                            parts.append(text)
                            streaming.set()
                        return "".join(parts)

                streaming = [asyncio.Event() for _ in range(4)]
                long_streams = [asyncio.create_task(stream_one(e)) for e in streaming]
                # All four are mid-stream once each has its first tokens (400 take ~2 s).
                await asyncio.wait_for(asyncio.gather(*(e.wait() for e in streaming)), 10)
                await asyncio.to_thread(pool.kill, sims[0])
                outs = await asyncio.wait_for(asyncio.gather(*long_streams), 10)
                after = [await c.post("/v1/chat/completions", json=chat(max_tokens=3))
                         for _ in range(6)]
                return outs, after

        outs, after = asyncio.run(run())
        errored = [o for o in outs if '"error"' in o]
        finished = [o for o in outs if o.rstrip().endswith("[DONE]")]
        assert len(errored) == 2 and len(finished) == 2  # round-robin put two on each
        assert all("failed mid-stream" in o for o in errored)
        assert all(r.status_code == 200 for r in after)
        assert {r.headers["x-tokenpilot-backend"] for r in after} == {"h100-sxm-1"}


def test_burst_of_2000_every_request_answered() -> None:
    """2,000 requests at once: each is served or refused explicitly (429/503), none is lost."""
    n = 2000
    with ServerPool() as pool:
        sims = start_sims(pool, ("h100-sxm", "a100-80gb"), speedup=500)
        cfg = gateway_config(sims, "least-tokens", admission={
            "default_tenant": {"max_inflight_tokens": 8_000}},
            limits={"queue_timeout_s": 5}, queue_discipline="vtc")
        for i, b in enumerate(cfg.backends):  # a per-backend cap: back-pressure, not a pile-up
            cfg.backends[i] = replace(b, max_concurrency=32)
        gw = pool.start(create_app(cfg))

        async def run() -> list[int]:
            async with WireClient(gw.url, max_connections=500, timeout_s=30) as c:
                async def one(i: int) -> int:
                    body = chat("y" * (40 + 4 * (i % 50)), 1 + i % 8, stream=i % 2 == 0)
                    try:
                        r = await c.request("POST", "/v1/chat/completions", body)
                        text = (await r.read()).decode()
                    except OSError as exc:
                        pytest.fail(f"request {i} lost: {exc!r}")
                    if r.status == 200 and body["stream"]:
                        assert text.rstrip().endswith("[DONE]"), text[-200:]
                    elif r.status != 200:
                        assert json.loads(text)["error"]["message"]
                        assert "retry-after" in r.headers
                    return r.status

                return await asyncio.wait_for(asyncio.gather(*(one(i) for i in range(n))), 60)

        codes = asyncio.run(run())
        gateway = gw.app.state.gateway
        assert all(b.inflight == 0 for b in gateway.backends)  # the books balance
        assert gateway.admission.in_flight == 0 and gateway.queued == 0
        assert gateway.queued_total > 0  # the caps were hit: requests waited in the VTC queue
    assert len(codes) == n
    assert set(codes) <= {200, 429, 503}, sorted(set(codes))
    assert codes.count(200) >= 100


def test_sim_backend_memory_stays_flat() -> None:
    """A long-running simulated backend forgets what it has streamed out and trims its
    token-time log, so its engine holds only the requests still in flight."""
    with ServerPool() as pool:
        (sim,) = start_sims(pool, ("h100-sxm",), speedup=50)

        async def run() -> None:
            async with httpx.AsyncClient(base_url=sim.url, timeout=20) as c:
                await asyncio.gather(*(c.post("/v1/chat/completions", json=chat(max_tokens=20))
                                       for _ in range(60)))

        asyncio.run(run())
        engine = sim.app.state.sim.engine
        wait_until(lambda: not engine.seqs, "the backend to forget the requests it answered")
        assert len(engine.timeline) <= 2 and not engine.finished  # only "now" is kept
        assert engine.finalize_stats().finished == 60


def test_short_stream_ends_in_one_write_and_the_connection_is_reused(fleet) -> None:
    """A stream whose tokens are all ready at one tick reaches the client as one chunk that
    ends with [DONE] (the terminator in the same write), and the keep-alive connection serves
    the next request."""
    _, _, gw = fleet
    body = chat(max_tokens=3, stream=True, stream_options={"include_usage": True})

    async def run() -> list[list[bytes]]:
        async with WireClient(gw.url, max_connections=1) as c:
            out = []
            for _ in range(3):
                r = await c.request("POST", "/v1/chat/completions", body)
                assert r.status == 200
                out.append([chunk async for chunk in r.iter_chunks()])
            assert len(c._idle) == 1  # the one connection came back to the pool each time
            return out

    for chunks in asyncio.run(run()):
        text = b"".join(chunks).decode()
        events = sse_events(text)
        assert events[-1] == "[DONE]"
        assert json.loads(events[-2])["usage"]["completion_tokens"] == 3
        assert sum('"content"' in e for e in events) == 3  # one per token
        assert chunks[-1].endswith(b"data: [DONE]\n\n")


def test_client_gone_mid_stream_stops_the_relay() -> None:
    """A client that hangs up mid-stream: the gateway stops relaying, settles the books and
    counts the request as cancelled; the backend stops generating for nobody."""
    with ServerPool() as pool:
        sims = start_sims(pool, ("h100-sxm",), speedup=1)
        gw = start_gateway(pool, sims)
        gateway = gw.app.state.gateway
        sim = sims[0].app.state.sim

        async def hang_up() -> None:
            async with WireClient(gw.url) as c:
                r = await c.request("POST", "/v1/chat/completions",
                                    chat(max_tokens=2000, stream=True))
                async for _ in r.iter_chunks():
                    break  # the first chunk, then leave
                r.close(reuse=False)

        asyncio.run(hang_up())
        wait_until(lambda: gateway.backends[0].inflight == 0, "the gateway to settle the stream")
        assert gateway.admission.in_flight == 0
        # The backend saw the gateway hang up too.
        wait_until(lambda: not sim.active, "the backend to drop the abandoned stream")
        metrics = httpx.get(gw.url + "/metrics").text
        assert 'outcome="cancelled",tenant="default"} 1.0' in metrics
        assert 'reason="client_gone"' in metrics
        # ... and aborted it, as vLLM does: out of the batch, its KV freed, counted as an abort.
        engine = sim.engine
        wait_until(lambda: not engine.sched.running and engine.sched.n_waiting == 0,
                   "the engine to drop the aborted request")
        assert engine.bm.used == 0
        assert engine.stats.aborted == 1
        backend = httpx.get(sims[0].url + "/metrics").text
        assert 'vllm:request_success_total{finished_reason="abort",model_name="llama-3.1-8b"} 1.0' \
            in backend


@pytest.mark.parametrize("through_gateway", [False, True])
def test_client_gone_while_waiting_for_a_whole_answer_aborts_the_request(
        through_gateway: bool) -> None:
    """A client that hangs up before a non-streamed answer is ready: the backend aborts the
    request (vLLM does the same) instead of generating the whole answer for nobody."""
    with ServerPool() as pool:
        sims = start_sims(pool, ("h100-sxm",), speedup=1)
        gw = start_gateway(pool, sims) if through_gateway else None
        url = gw.url if gw else sims[0].url
        sim = sims[0].app.state.sim

        async def hang_up() -> None:
            async with WireClient(url) as c:
                # No head comes before the whole answer: give up after 0.3 s (the request
                # is admitted and decoding by then), which closes the connection.
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(
                        c.request("POST", "/v1/chat/completions", chat(max_tokens=2000)), 0.3)

        asyncio.run(hang_up())
        engine = sim.engine
        wait_until(lambda: engine.stats.aborted == 1, "the backend to abort the request")
        wait_until(lambda: not sim.active, "the backend to drop the abandoned request")
        assert engine.bm.used == 0
        if gw is not None:  # the gateway settled its books and says why the request ended
            gateway = gw.app.state.gateway
            wait_until(lambda: gateway.backends[0].inflight == 0, "the gateway to settle")
            assert gateway.admission.in_flight == 0
            metrics = httpx.get(gw.url + "/metrics").text
            assert 'outcome="cancelled",tenant="default"} 1.0' in metrics
            assert 'reason="client_gone"' in metrics
