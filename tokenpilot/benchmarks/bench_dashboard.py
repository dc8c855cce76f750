"""The dashboard's cost under load: its JSON endpoint's answer time at a given streamed request
rate through the gateway, and what an open page costs the gateway's CPU.

Run:  .venv/bin/python tokenpilot/benchmarks/bench_dashboard.py [--rate 1000] [--force-rate]
      (about 45 s; the load average and a calibration loop's time are printed first: on a
      machine other jobs share, every figure is noisier)

Two simulated backends (speedup 1000) run as their own processes and a gateway on 127.0.0.1 in
this process, as in ``bench_gateway.py`` (whose helpers it uses); with two or more cores the
gateway's thread has core 0 to itself and the backends and clients share the others, as there
(``--no-pin``: all float). The load is open-loop: ``bench_gateway``'s streamed request at
Poisson arrivals, ``--rate`` per second for ``--seconds``, each sent when due whatever is still
in flight, from a client process of its own. A closed loop (N at a time, as fast as they come
back) would measure the poll at whatever rate the machine happens to saturate at, not at the
target's rate. Then

0. capacity (and warm-up): ``bench_gateway``'s closed loop, 128 requests at a time as fast as
   they come back. An open-loop load above what the machine sustains piles requests up without
   bound and the poll then measures that backlog, so the load below runs at ``--rate`` or at
   0.8 of this capacity, whichever is less, and says so (``--force-rate``: at ``--rate``);
1. page closed: the load alone; the achieved rate, and each part's CPU (the gateway's thread,
   the client process, each backend process);
2. page open (``--open-seconds``, longer, for enough polls to read a p99 from): the same
   load, while a second client process (the operator's browser: pinned, on the gateway's
   core, not the one the load saturates) polls ``/dashboard/data`` as the page does (the whole
   ring first, then ``?since=`` its last ``seq``: the newest point alone; gzip taken) every
   ``--poll-ms`` (the page's own interval is ``dashboard.sample_ms``, 1 s by default; 100 ms
   here) on both listeners at once: the gateway's port, and the admin listener
   (``dashboard.listen``: a thread of its own with its own event loop, pinned beside the
   gateway's thread). Each answer is timed from its first byte out to the body's last byte in;
   the answering thread's own time of each (request in to last byte out, the latency its
   ``tokenpilot_request_duration_seconds`` histogram gets) is recorded exactly too (target:
   under 5 ms at 1,000 streamed requests/s). ``--gil-switch-ms`` sets the gateway's
   ``dashboard.gil_switch_ms``, the interpreter's GIL switch interval while the admin listener
   serves: the longest the admin thread waits for the GIL while the serving thread runs
   Python (0: Python's own 5 ms);
3. the page's CPU cost, apart from the noise of two load runs: ``--polls`` polls one after
   another with no other load, on each listener, the gateway's threads' CPU per poll; times
   the page's polls per second, over the gateway's CPU per second in run 1, is the share of
   the gateway's CPU an open page costs (target: under 2%), with one encoding of the snapshot
   per sample (the sampler makes it only while a page polls). The sampler (one ``collect()``
   per ``sample_ms``) runs page open or not; its share is printed beside.

Before runs 1 and 2 the dashboard's ring of points is filled to its length (``history_s`` /
``sample_ms``, 300 points by default) with copies of the real ones: an open page on a gateway
up for longer than that gets the whole ring, and the JSON's size and the cost of making it
grow with it.

When the capacity or a run falls short of the rate, the parts' CPU says why: if they used less
than the cores they may run on, the rest went to other processes on the machine (the
calibration figure says how loaded it was), else the part at its core's limit is named.
``calibration`` is the time of a fixed Python loop, ~0.02 s on an idle core.
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import contextlib
import gzip
import json
import multiprocessing
import os
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_gateway import (  # noqa: E402 - the sibling script's helpers
    BODY,
    _other_cores,
    _pin_client,
    _pin_gateway,
    _rate_in_child,
    _thread_cpu,
    calibration,
    process_cpu,
    sim_processes,
)

from tokenpilot.config_section import from_mapping  # noqa: E402
from tokenpilot.gateway.app import create_app  # noqa: E402
from tokenpilot.gateway.config import GatewayConfig  # noqa: E402
from tokenpilot.gateway.dashboard import Columns  # noqa: E402
from tokenpilot.gateway.runner import ServerPool  # noqa: E402
from tokenpilot.gateway.wire import WireClient  # noqa: E402
from tokenpilot.loadgen import pct  # noqa: E402
from tokenpilot.workload import poisson  # noqa: E402

# An open-loop load above what the machine sustains piles requests up without bound, and the
# poll then measures that backlog: the load runs at most at this share of the closed-loop
# capacity measured first (headroom for that figure's own noise on a shared machine).
MAX_UTILIZATION = 0.8
MAX_CONNECTIONS = 256  # the load's connections at most (a backend's max_concurrency default)
CAPACITY_REQUESTS = 3000


def _closed_in_child(url: str, n: int, concurrency: int) -> tuple[float, int, int, float,
                                                                  float]:
    """``bench_gateway``'s closed loop, answering as ``_load_in_child`` does."""
    wall, ok, cpu = _rate_in_child(url, n, concurrency)
    return wall, n, ok, 0.0, cpu


async def paced(url: str, rate: float, seconds: float, seed: int) -> tuple[float, int, int,
                                                                          float]:
    """``bench_gateway``'s streamed request, sent at Poisson arrivals at ``rate`` for
    ``seconds`` whatever is still in flight (open loop): (wall s, sent, answered ok, the last
    send's offset s). Its one body is encoded once and each answer only read to its end: less
    CPU per request than ``tokenpilot bench``'s generator (a prompt and a body per request,
    every chunk parsed; 250 vs 390 us measured side by side on the loaded 2-core machine),
    which matters on two cores, where this process shares one with both backends."""
    arrivals = [r.arrival for r in poisson(rate, duration=seconds, seed=seed)]
    body = json.dumps(BODY).encode()
    async with WireClient(url, MAX_CONNECTIONS) as c:
        t0 = time.perf_counter()
        tasks = []
        for at in arrivals:
            delay = t0 + at - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            tasks.append(asyncio.create_task(_streamed(c, body)))
        done = await asyncio.wait_for(asyncio.gather(*tasks, return_exceptions=True), 120)
        ok = sum(d is True for d in done)
        return time.perf_counter() - t0, len(arrivals), ok, arrivals[-1] if arrivals else 0.0


async def _streamed(c: WireClient, body: bytes) -> bool:
    """One streamed request; True when its stream came back whole."""
    r = await c.request("POST", "/v1/chat/completions", body)
    return r.status == 200 and (await r.read()).endswith(b"[DONE]\n\n")


def _load_in_child(url: str, rate: float, seconds: float, seed: int) -> tuple[float, int, int,
                                                                              float, float]:
    """``paced`` in a process of its own; also its CPU seconds."""
    c0 = time.process_time()
    wall, sent, ok, span = asyncio.run(paced(url, rate, seconds, seed))
    return wall, sent, ok, span, time.process_time() - c0


class PagePoller:
    """Polls ``/dashboard/data`` as the page does: the whole ring first, then
    ``?since=<seq>`` of the last answer, gzip accepted (and undone here, as a browser does)."""

    def __init__(self) -> None:
        self.seq: int | None = None
        self.whole = 0  # answers that were the whole ring

    async def once(self, c: WireClient) -> None:
        path = "/dashboard/data" if self.seq is None else f"/dashboard/data?since={self.seq}"
        r = await c.request("GET", path, headers={"Accept-Encoding": "gzip"})
        body = await r.read()
        assert r.status == 200, r.status
        if r.headers.get("content-encoding") == "gzip":
            body = gzip.decompress(body)
        d = json.loads(body)
        self.seq = d["seq"]
        self.whole += d["since"] is None


async def poll(url: str, every_s: float, until: float) -> tuple[list[float], int]:
    """Poll as the page does every ``every_s`` until ``until`` (monotonic): the answer times
    (from the request's first byte out to the body's last in), and how many were whole."""
    times, page = [], PagePoller()
    async with WireClient(url, 1) as c:
        while time.monotonic() < until:
            t = time.perf_counter()
            await page.once(c)
            times.append(time.perf_counter() - t)
            await asyncio.sleep(max(0.0, every_s - (time.perf_counter() - t)))
    return times, page.whole


async def _two_pollers(urls: list[str], every_s: float, seconds: float
                       ) -> list[tuple[list[float], int]]:
    until = time.monotonic() + seconds
    return list(await asyncio.gather(*(poll(u, every_s, until) for u in urls)))


def _pin_poller() -> None:
    """The polling process's initializer: on the gateway's core (see ``main``)."""
    os.sched_setaffinity(0, {0})


def _poll_in_child(urls: list[str], every_s: float, seconds: float
                   ) -> list[tuple[list[float], int]]:
    """Both listeners polled at once, from one process (the operator's browser)."""
    return asyncio.run(_two_pollers(urls, every_s, seconds))


async def _get_n(url: str, path: str, n: int) -> None:
    async with WireClient(url, 1) as c:
        if path == "/dashboard/data":
            page = PagePoller()
            for _ in range(n):
                await page.once(c)
            return
        for _ in range(n):
            r = await c.request("GET", path)
            await r.read()


def _get_n_in_child(url: str, path: str, n: int) -> None:
    asyncio.run(_get_n(url, path, n))


class Run:
    """One load run's figures; ``polls`` and ``served``: by listener ("main", "admin")."""

    def __init__(self, wall: float, sent: int, ok: int, span: float, cpu: dict[str, float],
                 polls: dict[str, tuple[list[float], int]],
                 served: dict[str, list[float]]) -> None:
        self.wall, self.sent, self.ok, self.span = wall, sent, ok, span
        self.cpu = cpu  # part -> CPU seconds over the run
        self.polls, self.served = polls, served

    @property
    def rate(self) -> float:
        return self.ok / self.wall if self.wall > 0 else 0.0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rate", type=float, default=1000.0,
                    help="streamed requests per second the load sends (open loop)")
    ap.add_argument("--seconds", type=float, default=8.0, help="length of run 1")
    ap.add_argument("--open-seconds", type=float, default=20.0,
                    help="length of run 2 (page open): enough polls for a p99")
    ap.add_argument("--poll-ms", type=int, default=100)
    ap.add_argument("--polls", type=int, default=2000)
    ap.add_argument("--no-pin", action="store_true",
                    help="let the gateway share every core with the backends and clients")
    ap.add_argument("--force-rate", action="store_true",
                    help=f"send at --rate even above {MAX_UTILIZATION:g} of the measured capacity")
    ap.add_argument("--gil-switch-ms", type=float, default=None,
                    help="the gateway's dashboard.gil_switch_ms (default: the config's default; "
                    "0: Python's own 5 ms)")
    a = ap.parse_args()
    dash: dict = {"listen": "127.0.0.1:0"}
    if a.gil_switch_ms is not None:
        if not 0 <= a.gil_switch_ms <= 100:
            ap.error("--gil-switch-ms: between 0 and 100")
        dash["gil_switch_ms"] = a.gil_switch_ms
    ncpu = os.cpu_count() or 1
    pin = not a.no_pin and ncpu >= 2 and hasattr(os, "sched_setaffinity")
    calib = [calibration()]
    load = [os.getloadavg()]
    ctx = multiprocessing.get_context("spawn")
    pids: list[int] = []
    with ServerPool() as pool, contextlib.ExitStack() as stack:
        urls = stack.enter_context(sim_processes(2, pids))
        gw = pool.start(create_app(from_mapping(
            GatewayConfig, {"backends": urls, "router": "least-tokens", "dashboard": dash},
            "gateway config")))
        switch_ms = sys.getswitchinterval() * 1e3  # as the admin listener set it
        gateway = gw.app.state.gateway
        live, admin = gateway.live, gateway.admin
        if pin:
            pool.call(_pin_gateway())
            # The admin listener's thread is the gateway process's too: on its core.
            os.sched_setaffinity(admin.native_id, {0})
            for pid in pids:
                os.sched_setaffinity(pid, _other_cores())
        admin_clock = time.pthread_getcpuclockid(admin.thread.ident)
        # The gateway's own time of each dashboard answer, exactly (the histogram has buckets):
        # the figure ``responded`` gets, recorded on its way, by the thread that answered.
        served: dict[str, list[float]] = {"main": [], "admin": []}
        responded = gateway.responded

        def record(route, ex) -> None:
            if route == "dashboard":
                which = "admin" if threading.current_thread() is admin.thread else "main"
                served[which].append(ex.latency_s)
            responded(route, ex)

        gateway.responded = record
        client = stack.enter_context(concurrent.futures.ProcessPoolExecutor(
            1, mp_context=ctx, initializer=_pin_client if pin else None))
        # The poller stands for the operator's browser, which is not on the machine that
        # generates the load: pinned, it shares the gateway's core (about half busy at 1,000
        # requests/s), not the core the load client and the backends saturate, whose queue
        # would be what it timed. Its CPU is the gateway core's loss, not the gateway's.
        browser = stack.enter_context(concurrent.futures.ProcessPoolExecutor(
            1, mp_context=ctx, initializer=_pin_poller if pin else None))
        # Both worker processes up now (a pool starts them as tasks come): the poller's must
        # not be starting while the load runs.
        for f in [ex.submit(time.sleep, 0.5) for ex in (client, browser)]:
            f.result(timeout=120)

        def load_run(page_open: bool, seed: int, rate: float = 0.0) -> Run:
            """The open-loop load at ``rate`` (0: the closed-loop capacity run)."""
            seconds = a.open_seconds if page_open else a.seconds
            t0, s0 = pool.call(_thread_cpu()), live.sample_s
            a0 = time.clock_gettime(admin_clock)
            b0 = [process_cpu(p) for p in pids]
            if rate:
                run = client.submit(_load_in_child, gw.url, rate, seconds, seed)
            else:
                run = client.submit(_closed_in_child, gw.url, CAPACITY_REQUESTS, 128)
            poller = (browser.submit(_poll_in_child, [gw.url, admin.url], a.poll_ms / 1000,
                                     seconds) if page_open else None)
            n0 = {k: len(v) for k, v in served.items()}
            wall, sent, ok, span, client_cpu = run.result(timeout=600)
            polls = poller.result(timeout=600) if poller is not None else [([], 0), ([], 0)]
            cpu = {"gateway thread": pool.call(_thread_cpu()) - t0,
                   "admin thread": time.clock_gettime(admin_clock) - a0, "client": client_cpu}
            cpu.update({f"backend {i}": process_cpu(p) - c
                        for i, (p, c) in enumerate(zip(pids, b0, strict=True))})
            cpu["sampler"] = live.sample_s - s0
            return Run(wall, sent, ok, span, cpu, dict(zip(("main", "admin"), polls,
                                                           strict=True)),
                       {k: v[n0[k]:] for k, v in served.items()})

        # Warm-up, and the capacity: streamed requests 128 at a time, as fast as they come back.
        cap = load_run(False, 0)
        # A page opened on a gateway up for longer than ``history_s`` gets the whole ring: fill
        # it with copies of the points so far, so that the JSON (and each sample's encoding of
        # it) is that size, not the size of a gateway up for a minute.
        fresh = len(live.points)
        pool.call(_fill_history(live))
        rate = a.rate if a.force_rate else min(a.rate, MAX_UTILIZATION * cap.rate)
        load.append(os.getloadavg())
        closed = load_run(False, 1, rate)
        opened = load_run(True, 2, rate)
        load.append(os.getloadavg())
        # 3: the CPU one poll costs the gateway, with nothing else running (less the samples
        # taken meanwhile), polled as the page does (the newest point each, gzip taken), on
        # either listener; and one encoding of the snapshot, which each sample makes while a
        # page is open (and only then).
        per_poll = {}
        for which, url in (("main", gw.url), ("admin", admin.url)):
            c0, s0 = pool.call(_thread_cpu()), live.sample_s
            a0 = time.clock_gettime(admin_clock)
            client.submit(_get_n_in_child, url, "/dashboard/data", a.polls).result(timeout=600)
            per_poll[which] = (pool.call(_thread_cpu()) - c0 - (live.sample_s - s0)
                               + time.clock_gettime(admin_clock) - a0) / a.polls
        per_encode = pool.call(_encode_cpu(live, 20))
        c0 = pool.call(_thread_cpu())
        client.submit(_get_n_in_child, gw.url, "/dashboard", 50).result(timeout=300)
        per_page = (pool.call(_thread_cpu()) - c0) / 50
        sample_ms = gateway.cfg.dashboard.sample_ms
        snap = live.latest()
        sizes = {k: (len(snap.answer(since, False)[0]), len(snap.answer(since, True)[0]))
                 for k, since in (("whole", None), ("newest", snap.seq - 1))}
        points = len(live.points)
    calib.append(calibration())
    print(f"command: {' '.join(sys.argv)}")
    print("load average (1/5/15 min) at the start, before run 1, after run 2: " + "; ".join(
        "/".join(f"{x:.2f}" for x in la) for la in load) + f" on {ncpu} cores (other "
        "processes' load makes every figure below noisier)")
    print(f"calibration   {calib[0]:.4f} s before, {calib[1]:.4f} s after (min of timeit "
          "'for i in range(10): pass' x100000; ~0.02 idle)")
    print("cores: " + (f"the gateway's thread on core 0 (the admin listener's thread beside "
                       f"it); backends and clients on the other {ncpu - 1}" if pin else
                       f"not pinned: everything on {ncpu}")
          + f"; GIL switch interval {switch_ms:g} ms (dashboard.gil_switch_ms; Python's own: "
          "5 ms)")
    print(f"capacity     {cap.rate:6.0f} streamed requests/s, closed loop ({CAPACITY_REQUESTS} "
          f"requests, 128 at a time); the load sends {rate:.0f}/s " + (
              f"(--rate {a.rate:.0f})" if rate == a.rate else
              f"(--rate {a.rate:.0f} is above {MAX_UTILIZATION:g} of the capacity here: "
              "TARGET RATE NOT REACHED on this machine now; --force-rate sends it anyway)"))
    if cap.rate < a.rate / MAX_UTILIZATION:
        print(" " * 13 + "capacity short: " + shortfall(cap, pin, ncpu, calib))
    for label, r in (("page closed", closed), ("page open", opened)):
        print(f"{label:12s} {r.rate:6.0f} streamed requests/s achieved of {rate:.0f} sent "
              f"({r.ok}/{r.sent} ok in {r.wall:.1f} s, sends over {r.span:.1f} s)")
        print(" " * 13 + "CPU, cores: " + ", ".join(f"{k} {v / r.wall:.2f}" for k, v in
                                                    r.cpu.items() if k != "sampler")
              + f"; gateway {r.cpu['gateway thread'] / max(r.ok, 1) * 1e6:.0f} us/request")
        if r.rate < 0.95 * rate:
            print(" " * 13 + "short of the rate: " + shortfall(r, pin, ncpu, calib))
    gw_s = closed.cpu["gateway thread"] / max(closed.ok, 1)
    side_s = sum(v for k, v in closed.cpu.items()
                 if k not in ("gateway thread", "admin thread", "sampler")) / max(closed.ok, 1)
    allow = (f"the client and backends {(ncpu - 1) / max(side_s, 1e-9):.0f}/s on the other "
             f"{ncpu - 1} core(s)" if pin else
             f"all parts together {ncpu / max(gw_s + side_s, 1e-9):.0f}/s on the {ncpu} cores")
    print(f"the rate these CPU costs allow (run 1): the gateway {1 / max(gw_s, 1e-9):.0f}/s on "
          f"a core of its own; {allow}")
    print(f"/dashboard/data at {opened.rate:.0f} streamed requests/s (target < 5 ms at 1,000/s),"
          f" polled as the page does (the newest point after the first answer, gzip taken), "
          f"every {a.poll_ms} ms on both listeners at once:")
    verdicts = {}
    for which, title in (("main", "gateway port  "), ("admin", "admin listener")):
        polls, whole = opened.polls[which]
        own = opened.served[which]
        p50, p99 = pct(polls, 50), pct(polls, 99)
        verdicts[which] = p50 < 0.005 and p99 < 0.005
        print(f"  {title} client: p50 {p50 * 1e3:6.2f} ms, p99 {p99 * 1e3:6.2f} ms, max "
              f"{max(polls, default=float('nan')) * 1e3:6.2f} ms, "
              f"{sum(x <= 0.005 for x in polls) / max(len(polls), 1) * 100:5.1f}% <= 5 ms of "
              f"{len(polls)} polls ({whole} whole-ring answers)")
        print(f"  {title} own:    p50 {pct(own, 50) * 1e3:6.2f} ms, p99 {pct(own, 99) * 1e3:6.2f}"
              f" ms, max {max(own, default=float('nan')) * 1e3:6.2f} ms, "
              f"{sum(x <= 0.005 for x in own) / max(len(own), 1) * 100:5.1f}% <= 5 ms "
              "(request in to last byte out, on the answering thread's clock)")
        if polls:
            slow = sorted(range(len(polls)), key=polls.__getitem__)[-3:][::-1]
            print(" " * 18 + "slowest polls: " + ", ".join(f"#{i} {polls[i] * 1e3:.1f} ms"
                                                         for i in slow)
                  + " (#0 is the whole ring and opens the connection)")
    print("  verdict, as the polling client sees it at p50 and p99: "
          + "; ".join(f"{w} {'MET' if ok else 'MISSED'}" for w, ok in verdicts.items())
          + ("" if opened.rate >= 0.95 * a.rate else
             f" (NOT at --rate {a.rate:.0f}: {opened.rate:.0f}/s achieved)"))
    gw_cpu_per_s = closed.cpu["gateway thread"] / closed.wall
    page_polls_per_s = 1000 / sample_ms
    samples_per_s = 1000 / sample_ms
    kib = {k: (f"{raw / 1024:.1f} KiB ({z / 1024:.1f} KiB gzipped; copied points compress "
                "better than real ones)") for k, (raw, z) in sizes.items()}
    print(f"the JSON      the whole ring {kib['whole']}, the newest point {kib['newest']}; "
          f"{points} points (the whole "
          f"history_s ring; {fresh} were real, the rest copies of them)")
    print(f"one poll      {per_poll['main'] * 1e6:6.0f} us of gateway CPU on its port, "
          f"{per_poll['admin'] * 1e6:.0f} us on the admin listener (both threads; {a.polls} "
          f"polls as the page does, no other load); one encoding of the snapshot "
          f"{per_encode * 1e6:.0f} us (per sample, page open); the page itself "
          f"{per_page * 1e6:.0f} us once")
    for which in ("main", "admin"):
        share = (per_poll[which] * page_polls_per_s + per_encode * samples_per_s) / gw_cpu_per_s
        share_run2 = ((per_poll[which] * 1000 / a.poll_ms + per_encode * samples_per_s)
                      / gw_cpu_per_s)
        print(f"page open     ({which:5s}) {share * 100:.3f}% of the gateway's CPU at "
              f"{closed.rate:.0f} requests/s (its {page_polls_per_s:g} polls/s and an encoding "
              f"per sample, dashboard.sample_ms {sample_ms}); {share_run2 * 100:.3f}% polled "
              f"every {a.poll_ms} ms as in run 2 (target < 2%)")
    delta = (opened.cpu["gateway thread"] / max(opened.ok, 1)
             - closed.cpu["gateway thread"] / max(closed.ok, 1))
    print(f"run 2 - run 1 gateway CPU per request: {delta * 1e6:+.0f} us (two runs on shared "
          "cores differ by more than 2% on their own: judge by the lines above)")
    samp_share = closed.cpu["sampler"] / max(closed.cpu["gateway thread"], 1e-9)
    print(f"sampler       {closed.cpu['sampler'] / closed.wall * 1e3:.2f} ms CPU per second "
          f"page closed ({samp_share * 100:.2f}% of the gateway's CPU in run 1: it runs page "
          "open or not), "
          f"{opened.cpu['sampler'] / opened.wall * 1e3:.2f} ms page open (it encodes then)")
    return 0


async def _fill_history(live) -> None:
    """On the gateway's loop: the ring of points full, cycling through the real ones."""
    real = list(live.points)
    live.points.clear()
    live.columns = Columns(live.columns.maxlen)
    for i in range((live.points.maxlen or 0) if real else 0):
        point = real[i % len(real)]
        live.points.append(point)
        live._add_columns(point)


async def _encode_cpu(live, n: int) -> float:
    """On the gateway's loop: the thread's CPU seconds of one encoding of the JSON."""
    t0 = time.thread_time()
    for _ in range(n):
        live._encode()
    return (time.thread_time() - t0) / n


def shortfall(r: Run, pin: bool, ncpu: int, calib: list[float]) -> str:
    """Why a run's rate fell short: the part at its cores' limit, or the machine's other load."""
    gw = r.cpu["gateway thread"] / r.wall
    rest = sum(v for k, v in r.cpu.items() if k not in ("gateway thread", "sampler")) / r.wall
    if gw > 0.9:
        return f"the gateway's thread used {gw:.2f} of its core: the gateway is the limit"
    others = ncpu - 1 if pin else ncpu
    if rest + (0 if pin else gw) > 0.9 * others:
        return (f"the client and backends used {rest:.2f} of their {others} core(s): the load "
                "generator's side is the limit, not the gateway")
    return (f"the parts used {gw + rest:.2f} of {ncpu} cores: the rest went to other processes "
            f"on the machine (calibration {max(calib):.4f} s vs ~0.02 idle)")


if __name__ == "__main__":
    sys.exit(main())
