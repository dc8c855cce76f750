"""The gateway's cost: added time to first token, and the streamed request rate it sustains.

Run:  .venv/bin/python tokenpilot/benchmarks/bench_gateway.py [--requests N] [--concurrency C]

Starts two simulated backends (speedup 1000, so the engine adds ~nothing) as their own
processes and a gateway on 127.0.0.1 in this process (``--in-process``: the backends too), then
1. overhead: the same streamed request sent one at a time, directly to a backend and through
   the gateway, the two in turn; the p50/p99 TTFT difference is what the gateway adds
   (target: p50 <= 1 ms);
2. rate: N streamed requests, C at a time, through the gateway to two backends; completed
   requests per second (target: >= 1,000/s).
Both clients (raw asyncio HTTP clients, not httpx) run in processes of their own, as a load
generator such as wrk would, so they do not take the gateway's interpreter lock
(``--ttft-client-in-gateway-process``: the TTFT client in the gateway's process, as before).
With two or more cores the gateway's thread gets core 0 to itself and the backends and clients
share the others (``--no-pin``: all float over every core). On a 2-core machine, unpinned, each
request the gateway writes wakes a process that the scheduler runs on the gateway's core,
ahead of it: the gateway's own latency is then mixed with the backends' and the client's CPU
time, which a deployed gateway (on cores of its own) does not pay. Both figures are quoted.
During the rate run the CPU time of each part is read (the gateway's thread, the client
process, each backend process), so it also prints the gateway's CPU seconds per request and the
rate that implies for a gateway with one core to itself: its capacity on this machine, whatever
else shares the cores. ``calibration`` (the
time of a fixed Python loop) says how loaded the machine was; compare figures only at similar
calibrations.
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import contextlib
import multiprocessing
import os
import statistics
import subprocess
import sys
import time
import timeit
from collections.abc import Sequence

import httpx

from tokenpilot.config_section import from_mapping
from tokenpilot.gateway.app import create_app
from tokenpilot.gateway.config import GatewayConfig
from tokenpilot.gateway.fleet import start_gateway, start_sims
from tokenpilot.gateway.runner import ServerPool, bind
from tokenpilot.gateway.wire import WireClient
from tokenpilot.loadgen import pct

BODY = {"model": "llama-3.1-8b", "messages": [{"role": "user", "content": "hi " * 40}],
        "max_tokens": 4, "stream": True, "stream_options": {"include_usage": True}}


# The simulated backend releases tokens on a 2 ms driver tick, and after a stream ends its
# driver sleeps one more tick: a request sent at once lands mid-tick and gets its first token
# early by a random part of a tick, more so on the shorter (direct) path. Waiting out the tick
# first makes every request find an idle backend, so both paths pay one whole tick.
GAP_S = 0.005


async def ttfts(urls: list[str], n: int) -> list[list[float]]:
    """``n`` TTFTs per URL, one request at a time, taking the URLs in turn request by request:
    whatever the machine's load does meanwhile, it does to every path alike."""
    out: list[list[float]] = [[] for _ in urls]
    clients = [WireClient(url, 4) for url in urls]
    for _ in range(n):
        for c, times in zip(clients, out, strict=True):
            await asyncio.sleep(GAP_S)
            t = time.perf_counter()
            r = await c.request("POST", "/v1/chat/completions", BODY)
            first = None
            async for _chunk in r.iter_chunks():
                if first is None:
                    first = time.perf_counter() - t
            times.append(first)
    for c in clients:
        await c.aclose()
    return out


async def rate(url: str, n: int, concurrency: int) -> tuple[float, int]:
    ok = 0
    async with WireClient(url, concurrency) as c:
        async def one() -> None:
            nonlocal ok
            r = await c.request("POST", "/v1/chat/completions", BODY)
            body = await r.read()
            ok += r.status == 200 and body.endswith(b"[DONE]\n\n")

        t = time.perf_counter()
        await asyncio.wait_for(asyncio.gather(*(one() for _ in range(n))), 300)
        return time.perf_counter() - t, ok


def _ttfts_in_child(urls: list[str], n: int) -> list[list[float]]:
    return asyncio.run(ttfts(urls, n))


def _rate_in_child(url: str, n: int, concurrency: int) -> tuple[float, int, float]:
    """``rate`` in a child process; also its CPU seconds."""
    c0 = time.process_time()
    wall, ok = asyncio.run(rate(url, n, concurrency))
    return wall, ok, time.process_time() - c0


def calibration() -> float:
    """Seconds for a fixed pure-Python loop: ~0.02 on an idle core of the reference machine."""
    return min(timeit.repeat("for i in range(10): pass", number=100000, repeat=5))


def process_cpu(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` so far (Linux /proc)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def _thread_cpu() -> float:
    return time.thread_time()


async def _pin_gateway() -> None:
    """Run on the gateway's loop: its thread to core 0 alone."""
    os.sched_setaffinity(0, {0})


def _other_cores() -> set[int]:
    return set(range(1, os.cpu_count() or 1))


def _pin_client() -> None:
    """A client process's initializer: off the gateway's core."""
    os.sched_setaffinity(0, _other_cores())


@contextlib.contextmanager
def sim_processes(n: int, pids: list[int] | None = None, gpus: Sequence[str] = (),
                  speedup: float = 1000):
    """``n`` simulated backends as separate processes (``tokenpilot sim-backend``), on the
    given ``gpus`` (one per backend; none: the CLI's default GPU)."""
    ports = []
    for _ in range(n):
        sock = bind()
        ports.append(sock.getsockname()[1])
        sock.close()
    gpu_args = [["--gpu", g] for g in gpus] or [[] for _ in ports]
    procs = [subprocess.Popen([sys.executable, "-m", "tokenpilot.cli", "sim-backend",
                               "--port", str(p), "--speedup", f"{speedup:g}", *g],
                              stderr=subprocess.DEVNULL)
             for p, g in zip(ports, gpu_args, strict=True)]
    if pids is not None:
        pids.extend(p.pid for p in procs)
    try:
        urls = [f"http://127.0.0.1:{p}" for p in ports]
        for url in urls:
            for _ in range(200):  # bounded: 20 s
                with contextlib.suppress(httpx.HTTPError):
                    if httpx.get(url + "/health").status_code == 200:
                        break
                time.sleep(0.1)
        yield urls
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            p.wait(10)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=int, default=300, help="sequential requests per path")
    ap.add_argument("--requests", type=int, default=3000)
    ap.add_argument("--concurrency", type=int, default=128)
    ap.add_argument("--in-process", action="store_true",
                    help="run the simulated backends in this process too (default: two "
                    "`tokenpilot sim-backend` processes)")
    ap.add_argument("--ttft-client-in-gateway-process", action="store_true",
                    help="run the sequential TTFT client in the gateway's process, as this "
                    "script did before (it then shares the gateway's interpreter lock, which "
                    "only the path through the gateway pays for)")
    ap.add_argument("--no-pin", action="store_true",
                    help="let the gateway share every core with the backends and clients "
                    "(default: the gateway's thread on core 0, everything else on the others)")
    a = ap.parse_args()
    pin = not a.no_pin and (os.cpu_count() or 1) >= 2 and hasattr(os, "sched_setaffinity")
    calib = [calibration()]
    pids: list[int] = []
    with ServerPool() as pool, contextlib.ExitStack() as stack:
        if a.in_process:
            sims = start_sims(pool, ("h100-sxm", "h100-sxm"), speedup=1000)
            gw = start_gateway(pool, sims, "least-tokens")
            sim_url = sims[0].url
        else:
            urls = stack.enter_context(sim_processes(2, pids))
            gw = pool.start(create_app(from_mapping(
                GatewayConfig, {"backends": urls, "router": "least-tokens"}, "gateway config")))
            sim_url = urls[0]
        if pin:
            pool.call(_pin_gateway())
            for pid in pids:
                os.sched_setaffinity(pid, _other_cores())
        ctx = multiprocessing.get_context("spawn")
        init = _pin_client if pin else None
        # The TTFT client, like the load generator, in a process of its own (unless asked
        # otherwise): the same client process measures both paths, and neither path shares an
        # interpreter lock with it.
        ttft_client = (None if a.ttft_client_in_gateway_process else stack.enter_context(
            concurrent.futures.ProcessPoolExecutor(1, mp_context=ctx, initializer=init)))

        def sample(n: int) -> list[list[float]]:
            urls = [sim_url, gw.url]
            if ttft_client is None:
                return asyncio.run(ttfts(urls, n))
            return ttft_client.submit(_ttfts_in_child, urls, n).result(timeout=600)

        sample(30)  # warm up both paths
        direct, via = sample(a.samples)  # the two paths in turn, request by request
        if ttft_client is not None:
            ttft_client.shutdown()
        # The load generator in a process of its own: its CPU is told apart from the gateway's
        # and it does not compete for the gateway process's interpreter lock.
        cpu0 = (pool.call(_thread_cpu()), [process_cpu(p) for p in pids])
        with concurrent.futures.ProcessPoolExecutor(1, mp_context=ctx,
                                                    initializer=init) as client:
            wall, ok, client_cpu = client.submit(
                _rate_in_child, gw.url, a.requests, a.concurrency).result(timeout=600)
        gw_cpu = pool.call(_thread_cpu()) - cpu0[0]
        sim_cpu = [process_cpu(p) - c for p, c in zip(pids, cpu0[1], strict=True)]
    calib.append(calibration())
    d50, d99, g50, g99 = pct(direct, 50), pct(direct, 99), pct(via, 50), pct(via, 99)
    print(f"command: {' '.join(sys.argv)}")
    print("cores: " + ("the gateway's thread on core 0 alone; backends and clients on the "
                       "others" if pin else "not pinned: gateway, backends and clients share "
                       "every core"))
    print(f"TTFT direct       p50 {d50 * 1e3:7.2f} ms   p99 {d99 * 1e3:7.2f} ms   "
          f"(n={len(direct)})")
    print(f"TTFT via gateway  p50 {g50 * 1e3:7.2f} ms   p99 {g99 * 1e3:7.2f} ms   "
          f"(n={len(via)})")
    print(f"gateway overhead  p50 {(g50 - d50) * 1e3:7.2f} ms   p99 {(g99 - d99) * 1e3:7.2f} ms"
          f"   mean {(statistics.mean(via) - statistics.mean(direct)) * 1e3:.2f} ms"
          "   (target p50 <= 1 ms)")
    print(f"sustained rate    {ok / wall:7.0f} streamed requests/s through the gateway "
          f"({ok}/{a.requests} ok in {wall:.1f} s, {a.concurrency} concurrent; "
          "target >= 1000/s)")
    per = 1e6 / max(ok, 1)
    what = "gateway + in-process backends" if a.in_process else "gateway"
    print(f"CPU per request   {what} thread {gw_cpu * per:5.0f} us   client process "
          f"{client_cpu * per:4.0f} us" + "".join(f"   backend {i} {c * per:4.0f} us"
                                                for i, c in enumerate(sim_cpu)))
    print(f"{what} alone  {ok / max(gw_cpu, 1e-9):7.0f} streamed requests/s on one core "
          f"of its own (1 / CPU per request); all parts used "
          f"{(gw_cpu + client_cpu + sum(sim_cpu)) / wall:.2f} cores")
    print(f"calibration       {calib[0]:.4f} s before, {calib[1]:.4f} s after "
          "(min of timeit 'for i in range(10): pass' x100000; ~0.02 idle)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
