"""The dashboard's cost under load: its JSON endpoint's answer time, and what a page open
costs the gateway.

Run:  .venv/bin/python tokenpilot/benchmarks/bench_dashboard.py [--requests N] [--concurrency C]

Two simulated backends (speedup 1000) run as their own processes and a gateway on 127.0.0.1 in
this process, as in ``bench_gateway.py`` (whose helpers it uses). Then

1. a rate run with the page closed: N streamed requests, C at a time, through the gateway from
   a client process; the gateway thread's CPU time is read around it;
2. the same rate run with the page open: a second client process polls ``/dashboard/data``
   every ``--poll-ms`` (the page's own interval is ``dashboard.sample_ms``, 1 s by default;
   the default here polls four times as often) and times each answer, from the request's
   first byte out to the body's last byte in (target: under 5 ms at 1,000 streamed requests/s);
3. the page's CPU cost, measured apart from the noise of two rate runs: ``--polls`` polls of
   ``/dashboard/data`` one after another with no other load, the gateway thread's CPU time per
   poll; times the polls per second of an open page, over the gateway's CPU per second in run
   1, is the share of the gateway's CPU an open page costs (target: under 2%). The sampler
   (one ``collect()`` of the registry per ``sample_ms``) runs whether a page is open or not;
   its CPU share is printed beside.

Run 2 against run 1 is printed too (gateway CPU per request, closed vs open), but on a shared
2-core machine two runs differ by more than 2% on their own: the figure of 3 is the one to
judge by. ``calibration`` (a fixed Python loop) says how loaded the machine was.
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import contextlib
import multiprocessing
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_gateway import (  # noqa: E402 - the sibling script's helpers
    _rate_in_child,
    _thread_cpu,
    calibration,
    sim_processes,
)

from tokenpilot.config_section import from_mapping  # noqa: E402
from tokenpilot.gateway.app import create_app  # noqa: E402
from tokenpilot.gateway.config import GatewayConfig  # noqa: E402
from tokenpilot.gateway.runner import ServerPool  # noqa: E402
from tokenpilot.gateway.wire import WireClient  # noqa: E402
from tokenpilot.loadgen import pct  # noqa: E402


async def poll(url: str, every_s: float, until: float) -> list[float]:
    """Poll ``/dashboard/data`` every ``every_s`` until ``until`` (monotonic): answer times."""
    times = []
    async with WireClient(url, 1) as c:
        while time.monotonic() < until:
            t = time.perf_counter()
            r = await c.request("GET", "/dashboard/data")
            body = await r.read()
            times.append(time.perf_counter() - t)
            assert r.status == 200 and body.startswith(b"{"), r.status
            await asyncio.sleep(max(0.0, every_s - (time.perf_counter() - t)))
    return times


def _poll_in_child(url: str, every_s: float, seconds: float) -> list[float]:
    return asyncio.run(poll(url, every_s, time.monotonic() + seconds))


async def polls_back_to_back(url: str, n: int) -> None:
    async with WireClient(url, 1) as c:
        for _ in range(n):
            r = await c.request("GET", "/dashboard/data")
            await r.read()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--requests", type=int, default=6000)
    ap.add_argument("--concurrency", type=int, default=128)
    ap.add_argument("--poll-ms", type=int, default=250)
    ap.add_argument("--polls", type=int, default=2000)
    a = ap.parse_args()
    calib = [calibration()]
    ctx = multiprocessing.get_context("spawn")
    with ServerPool() as pool, contextlib.ExitStack() as stack:
        urls = stack.enter_context(sim_processes(2))
        gw = pool.start(create_app(from_mapping(
            GatewayConfig, {"backends": urls, "router": "least-tokens"}, "gateway config")))
        live = gw.app.state.gateway.live
        client = stack.enter_context(concurrent.futures.ProcessPoolExecutor(2, mp_context=ctx))
        warm, ok0, _ = client.submit(_rate_in_child, gw.url, 1000, a.concurrency).result(
            timeout=300)  # warm-up; its rate sizes the poller's run
        est_s = a.requests / max(ok0 / warm, 1.0)

        def rate_run(page_open: bool) -> tuple[float, int, float, float, list[float]]:
            s0, c0 = live.sample_s, pool.call(_thread_cpu())
            run = client.submit(_rate_in_child, gw.url, a.requests, a.concurrency)
            polls: list[float] = []
            if page_open:
                # Poll for about as long as the run lasts (estimated from the warm-up rate).
                poller = client.submit(_poll_in_child, gw.url, a.poll_ms / 1000, est_s)
            wall, ok, _ = run.result(timeout=600)
            if page_open:
                polls = poller.result(timeout=600)
            cpu = pool.call(_thread_cpu()) - c0
            return wall, ok, cpu, live.sample_s - s0, polls

        wall1, ok1, cpu1, samp1, _ = rate_run(False)
        before = server_times(gw.app.state.gateway)
        wall2, ok2, cpu2, _, answers = rate_run(True)
        after = server_times(gw.app.state.gateway)
        served = {le: after.get(le, 0.0) - before.get(le, 0.0) for le in after}
        # 3: the CPU one poll costs the gateway, with nothing else running.
        c0 = pool.call(_thread_cpu())
        client.submit(_polls_in_child, gw.url, a.polls).result(timeout=600)
        per_poll = (pool.call(_thread_cpu()) - c0) / a.polls
        html_c0 = pool.call(_thread_cpu())
        client.submit(_page_in_child, gw.url, 50).result(timeout=300)
        per_page = (pool.call(_thread_cpu()) - html_c0) / 50
    calib.append(calibration())
    rps1, rps2 = ok1 / wall1, ok2 / wall2
    gw_cpu_per_s = cpu1 / wall1
    page_share = per_poll / (a.poll_ms / 1000) / gw_cpu_per_s
    page_share_1s = per_poll / 1.0 / gw_cpu_per_s
    print(f"command: {' '.join(sys.argv)}")
    print(f"page closed   {rps1:7.0f} streamed requests/s ({ok1}/{a.requests} ok), gateway "
          f"thread {cpu1 / ok1 * 1e6:5.0f} us CPU/request, {gw_cpu_per_s:.2f} cores")
    print(f"page open     {rps2:7.0f} streamed requests/s ({ok2}/{a.requests} ok), gateway "
          f"thread {cpu2 / ok2 * 1e6:5.0f} us CPU/request (noisy: two runs on shared cores)")
    print("/dashboard/data under that load, as the polling client saw it: p50 "
          f"{pct(answers, 50) * 1e3:.2f} ms, p99 "
          f"{pct(answers, 99) * 1e3:.2f} ms, max {max(answers) * 1e3:.2f} ms over "
          f"{len(answers)} polls every {a.poll_ms} ms (target < 5 ms at 1,000 requests/s)")
    total = served.get(float("inf"), 0.0)
    print("/dashboard/data, the gateway's own time (request in to last byte out, "
          "tokenpilot_request_duration_seconds): " + ", ".join(
              f"{served[le] / total * 100:.1f}% <= {le * 1e3:g} ms" for le in (0.001, 0.0025,
                                                                               0.005, 0.01))
          + f" of {total:.0f}")
    print(f"one poll      {per_poll * 1e6:6.0f} us of gateway CPU ({a.polls} polls, no other "
          f"load); the page itself {per_page * 1e6:.0f} us once")
    print(f"page open     {page_share * 100:.3f}% of the gateway's CPU at {rps1:.0f} "
          f"requests/s polling every {a.poll_ms} ms ({page_share_1s * 100:.3f}% at the page's "
          "1 s) (target < 2%)")
    print(f"sampler       {samp1 / wall1 * 1e3:.2f} ms CPU per second "
          f"({samp1 / max(cpu1, 1e-9) * 100:.2f}% of the gateway's CPU in run 1; runs page "
          "open or not), "
          f"{live.sample_s / max(live.samples, 1) * 1e3:.2f} ms per sample")
    print(f"calibration   {calib[0]:.4f} s before, {calib[1]:.4f} s after (min of timeit "
          "'for i in range(10): pass' x100000; ~0.02 idle)")
    return 0


def server_times(gw) -> dict[float, float]:
    """The cumulative buckets of ``tokenpilot_request_duration_seconds{route="dashboard"}``."""
    out: dict[float, float] = {}
    for fam in gw.metrics.registry.collect():
        for smp in fam.samples:
            if (smp.name == "tokenpilot_request_duration_seconds_bucket"
                    and smp.labels.get("route") == "dashboard"):
                le = float(smp.labels["le"])
                out[le] = out.get(le, 0.0) + smp.value
    return out


def _polls_in_child(url: str, n: int) -> None:
    asyncio.run(polls_back_to_back(url, n))


async def _page(url: str, n: int) -> None:
    async with WireClient(url, 1) as c:
        for _ in range(n):
            r = await c.request("GET", "/dashboard")
            await r.read()


def _page_in_child(url: str, n: int) -> None:
    asyncio.run(_page(url, n))


if __name__ == "__main__":
    sys.exit(main())
