"""The gateway's CPU per streamed request, one request at a time: a repeatable per-request figure.

Run:  .venv/bin/python tokenpilot/benchmarks/gateway_request_cpu.py [--requests 200]
      [--rounds 5] [--output 10] [--src DIR --src DIR ...]

One simulated backend (``tokenpilot sim-backend``, ``--speedup`` 1000: the engine adds ~nothing) and
one gateway process (``tokenpilot serve``, least-tokens) per ``--src`` (a copy of
tokenpilot/src, put first on the gateway's ``PYTHONPATH``; none: this tree), all in front of
the same backend. The client (this process) sends ``--requests`` streamed chat completions of
``--output`` tokens, one after another, to each gateway in turn, ``--rounds`` times; per round
and gateway, the gateway process's CPU time (its threads' run time, to the nanosecond) over those
requests, less its idle CPU rate (measured first, with no request, for ``--idle`` s: the
health checks and the dashboard's sampler) times the round's wall time, divided by the
requests. Gateways compared take their rounds in turn, so the machine's load falls on each
alike; compare the figures side by side, within one run. ``calibration`` (a fixed Python loop,
~0.02 s on an idle core of the reference machine) and the load average say how loaded the
machine was.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_gateway import calibration, sim_processes  # noqa: E402

from tokenpilot.gateway.runner import bind  # noqa: E402
from tokenpilot.gateway.wire import WireClient  # noqa: E402

MODEL = "llama-3.1-8b"


def body(output: int) -> dict:
    return {"model": MODEL, "messages": [{"role": "user", "content": "hi " * 40}],
            "max_tokens": output, "stream": True,
            "stream_options": {"include_usage": True}}  # as tokenpilot.loadgen asks


def free_port() -> int:
    sock = bind()
    port = sock.getsockname()[1]
    sock.close()
    return port


@contextlib.contextmanager
def gateway(src: str | None, backend: str):
    """A ``tokenpilot serve`` process (``src`` first on its path) in front of ``backend``,
    answering before this yields (its URL and pid)."""
    port = free_port()
    env = dict(os.environ)
    if src:
        env["PYTHONPATH"] = src + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.Popen([sys.executable, "-m", "tokenpilot.cli", "serve", "--port",
                             str(port), "--backend", backend, "--router", "least-tokens"],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"gateway ({src or 'this tree'}) exited {proc.returncode}")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.post(url + "/v1/chat/completions", json=body(2),
                              timeout=5).status_code == 200:
                    break
            if time.monotonic() > deadline:
                raise RuntimeError("the gateway did not answer within 90 s")
            time.sleep(0.2)
        yield url, proc.pid
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


async def sequential(url: str, n: int, output: int) -> int:
    """``n`` streamed requests, one at a time; how many ended with [DONE]."""
    ok = 0
    req = body(output)
    async with WireClient(url, 4) as c:
        for _ in range(n):
            r = await c.request("POST", "/v1/chat/completions", req)
            data = await r.read()
            ok += r.status == 200 and data.endswith(b"data: [DONE]\n\n")
    return ok


def process_cpu(pid: int) -> float:
    """CPU seconds that process ``pid``'s threads have run so far, to the nanosecond (the sum
    of ``/proc/PID/task/*/schedstat``; ``/proc/PID/stat`` counts 10 ms ticks)."""
    total = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        with contextlib.suppress(OSError), open(f"/proc/{pid}/task/{task}/schedstat") as f:
            total += int(f.read().split()[0])
    return total / 1e9


def ratios(xs: list[float], base: list[float]) -> str:
    """Round by round ``xs`` over ``base`` (their rounds ran back to back): median and range."""
    r = [x / b for x, b in zip(xs, base, strict=True)]
    return f"{statistics.median(r):.3f}x ({min(r):.3f}..{max(r):.3f})"


def loadavg() -> str:
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--requests", type=int, default=200, help="sequential requests per round")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--output", type=int, default=10, help="tokens each request asks for")
    ap.add_argument("--speedup", type=float, default=1000,
                    help="the sim backend's; at 1000 a short answer comes in one chunk, at 10 "
                    "token by token (the splice and the disconnect watcher then run)")
    ap.add_argument("--idle", type=float, default=3.0, help="seconds of idle CPU measured")
    ap.add_argument("--src", action="append", default=[],
                    help="a tokenpilot/src copy to run a gateway from (repeatable; default: "
                    "this tree's)")
    a = ap.parse_args()
    srcs = a.src or [None]
    calib = [calibration()]
    loads = [loadavg()]
    with contextlib.ExitStack() as stack:
        (backend,) = stack.enter_context(sim_processes(1, speedup=a.speedup))
        gws = [stack.enter_context(gateway(s, backend)) for s in srcs]
        for url, _ in gws:
            asyncio.run(sequential(url, 20, a.output))  # warm up
        idle = []
        for _, pid in gws:
            c0, t0 = process_cpu(pid), time.monotonic()
            time.sleep(a.idle)
            idle.append((process_cpu(pid) - c0) / (time.monotonic() - t0))
        per: list[list[float]] = [[] for _ in gws]
        raw: list[list[float]] = [[] for _ in gws]
        bad = 0
        for r in range(a.rounds):
            order = list(range(len(gws)))
            if r % 2:
                order.reverse()
            for k in order:
                url, pid = gws[k]
                c0, t0 = process_cpu(pid), time.monotonic()
                ok = asyncio.run(sequential(url, a.requests, a.output))
                cpu, wall = process_cpu(pid) - c0, time.monotonic() - t0
                bad += a.requests - ok
                raw[k].append(cpu / a.requests * 1e6)
                per[k].append((cpu - idle[k] * wall) / a.requests * 1e6)
    calib.append(calibration())
    loads.append(loadavg())
    print(f"command: {' '.join(sys.argv)}")
    print(f"{a.requests} sequential streamed requests of {a.output} tokens per round, "
          f"{a.rounds} rounds, one sim backend at speedup {a.speedup:g}")
    base = statistics.median(per[0])
    for k, s in enumerate(srcs):
        med = statistics.median(per[k])
        print(f"{s or 'this tree':40s} CPU/request median {med:6.0f} us (rounds "
              f"{min(per[k]):.0f}..{max(per[k]):.0f}; raw {statistics.median(raw[k]):.0f}; idle "
              f"{idle[k] * 1e3:.1f} ms/s)" + (f"  {med / base:.3f}x the first's; round by "
                                               "round " + ratios(per[k], per[0]) if k else ""))
    if bad:
        print(f"{bad} request(s) did not end with [DONE]")
    print(f"calibration {calib[0]:.4f} s before, {calib[1]:.4f} s after (~0.02 idle); "
          f"load average {loads[0]} before, {loads[1]} after")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
