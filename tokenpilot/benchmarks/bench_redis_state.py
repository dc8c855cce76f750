"""The shared state's cost: a gateway on Redis beside one on memory, request by request.

Run:  .venv/bin/python tokenpilot/benchmarks/bench_redis_state.py [--requests N]

Starts ``redis-server`` on a Unix socket in a temporary folder, two simulated backends
(speedup 1000, in this process) and two ``tokenpilot serve`` processes in front of them: one with
``state.store: memory``, one with ``state.store: redis``; the same tenant with a budget on both
(large enough never to refuse), so every request takes and settles. Then N streamed requests
to each, one at a time, the two gateways in turn request by request (whatever the machine's
load does, it does to both alike), after a warm-up. Printed:

- the gateway's CPU per streamed request (its process's user + system time over the run, the
  Redis one's heartbeat included), and the ratio redis / memory (target <= 1.3);
- TTFT p50 (and p99) per gateway, and the p50 of the per-pair differences (target: added p50
  <= 0.3 ms);
- Redis round trips per request: the Redis server's own count (``INFO commandstats``: EVALSHA
  and EVAL calls) minus the heartbeats the gateway sent, and the gateway's own counters
  (``tokenpilot_state_calls_total``) by kind (target <= 2 on the request path);
- how many takes went out beside their upstream request (speculated) and how many of those
  answered after the backend's first byte (then Redis's latency is in the TTFT), and a Redis
  PING round trip's p50/p90 from this process;
- ``calibration`` (the time of a fixed Python loop; ~0.02 s on an idle core of the reference
  machine) before and after: compare figures only at similar calibrations.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import statistics
import tempfile
import time
from pathlib import Path

from bench_gateway import calibration, process_cpu  # this folder is on sys.path (a script's)

from tokenpilot.gateway.fleet import backend_entries, start_sims
from tokenpilot.gateway.replicas import RedisServer, start_replicas
from tokenpilot.gateway.runner import ServerPool
from tokenpilot.gateway.wire import WireClient
from tokenpilot.loadgen import pct

BODY = {"model": "llama-3.1-8b", "messages": [{"role": "user", "content": "hi " * 40}],
        "max_tokens": 4, "stream": True}
AUTH = {"Authorization": "Bearer sk-bench"}
GAP_S = 0.005  # the simulated backend's driver tick: each request finds it idle (bench_gateway)


async def one(c: WireClient) -> float:
    await asyncio.sleep(GAP_S)
    t = time.perf_counter()
    r = await c.request("POST", "/v1/chat/completions", BODY, AUTH)
    first = None
    async for _chunk in r.iter_chunks():
        if first is None:
            first = time.perf_counter() - t
    if r.status != 200 or first is None:
        raise SystemExit(f"a request failed: status {r.status}")
    return first


async def alternate(urls: list[str], n: int) -> list[list[float]]:
    out: list[list[float]] = [[] for _ in urls]
    clients = [WireClient(u, 4) for u in urls]
    for _ in range(n):
        for c, times in zip(clients, out, strict=True):
            times.append(await one(c))
    for c in clients:
        await c.aclose()
    return out


async def state_calls(url: str) -> dict[str, float]:
    async with WireClient(url, 1) as c:
        r = await c.request("GET", "/metrics")
        text = (await r.read()).decode()
    return {m.group(1): float(m.group(2)) for m in re.finditer(
        r'^tokenpilot_state_(?:calls|speculated_takes)_total\{(?:op|answer)="(\w+)"\} (\S+)$',
        text, re.M)}


def ping_times(rds: RedisServer, n: int) -> list[float]:
    """Seconds per PING round trip to the Redis server, from this process: what a take's wait
    is made of, on this machine's load."""
    c = rds.client()
    out = []
    try:
        for _ in range(n):
            t = time.perf_counter()
            c.ping()
            out.append(time.perf_counter() - t)
    finally:
        c.close()
    return out


def scripts(rds: RedisServer) -> int:
    calls = rds.command_calls()
    return calls.get("evalsha", 0) + calls.get("eval", 0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--requests", type=int, default=1000, help="Measured requests per gateway.")
    ap.add_argument("--warmup", type=int, default=100)
    args = ap.parse_args()
    calib = [calibration()]
    with tempfile.TemporaryDirectory() as tmp, ServerPool() as pool, \
            RedisServer(Path(tmp)) as rds:
        sims = start_sims(pool, ("h100-sxm", "h100-sxm"), speedup=1000)
        common = {"backends": backend_entries(sims), "tenants": {"sk-bench": "bench"},
                  "admission": {"tenants": {"bench": {"tokens_per_minute": 1e12}}}}
        gws = start_replicas(Path(tmp), [
            {**common, "state": {"store": "memory", "replica": "memory"}},
            {**common, "state": {"store": "redis", "url": rds.url, "replica": "redis"}}])
        try:
            urls = [g.url for g in gws]
            asyncio.run(alternate(urls, args.warmup))
            s0, c0 = scripts(rds), asyncio.run(state_calls(urls[1]))
            cpu0 = [process_cpu(g.pid) for g in gws]
            t0 = time.perf_counter()
            mem, red = asyncio.run(alternate(urls, args.requests))
            wall = time.perf_counter() - t0
            cpu = [process_cpu(g.pid) - c for g, c in zip(gws, cpu0, strict=True)]
            time.sleep(0.2)  # the last settle goes out after its response
            s1, c1 = scripts(rds), asyncio.run(state_calls(urls[1]))
            rtt = ping_times(rds, 200)
        finally:
            for g in gws:
                g.kill()
    calib.append(calibration())
    n = args.requests
    per = [c / n * 1e6 for c in cpu]
    beats = c1.get("heartbeat", 0) - c0.get("heartbeat", 0)
    trips = (s1 - s0 - beats) / n
    diffs = [r - m for m, r in zip(mem, red, strict=True)]
    print(f"{n} streamed requests per gateway, one at a time, alternating; {wall:.1f} s")
    print(f"gateway CPU per request  memory {per[0]:.0f} us   redis {per[1]:.0f} us   "
          f"ratio {per[1] / per[0]:.2f}  (target <= 1.3)")
    print(f"TTFT p50                 memory {pct(mem, 50) * 1e3:.3f} ms   redis "
          f"{pct(red, 50) * 1e3:.3f} ms   added {(pct(red, 50) - pct(mem, 50)) * 1e3:+.3f} ms"
          f"  (target <= 0.3 ms)")
    print(f"TTFT p99                 memory {pct(mem, 99) * 1e3:.3f} ms   redis "
          f"{pct(red, 99) * 1e3:.3f} ms")
    print(f"paired TTFT difference   p50 {statistics.median(diffs) * 1e3:+.3f} ms")
    print(f"Redis round trips        {trips:.2f} per request on the request path (server's "
          f"EVALSHA+EVAL {s1 - s0} minus {beats:.0f} heartbeats; target <= 2)")
    print("gateway's own count      " + ", ".join(
        f"{op} {(c1.get(op, 0) - c0.get(op, 0)) / n:.2f}" for op in ("take", "settle"))
        + f" per request; heartbeat {beats:.0f} in {wall:.1f} s (off the path)")
    late = c1.get("after_first_byte", 0) - c0.get("after_first_byte", 0)
    early = c1.get("before_first_byte", 0) - c0.get("before_first_byte", 0)
    print(f"speculated takes         {early + late:.0f} of {n}; answered after the backend's "
          f"first byte: {late:.0f} (Redis latency in the TTFT)")
    print(f"Redis PING round trip    p50 {pct(rtt, 50) * 1e3:.3f} ms, p90 {pct(rtt, 90) * 1e3:.3f}"
          " ms (from this process, after the run)")
    print(f"calibration              {calib[0]:.4f} s before, {calib[1]:.4f} s after")


if __name__ == "__main__":
    main()
