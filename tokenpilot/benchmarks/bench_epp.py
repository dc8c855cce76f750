"""The endpoint picker's latency: how long a proxy waits for ``tokenpilot epp``'s pick.

Run:  .venv/bin/python tokenpilot/benchmarks/bench_epp.py [--requests N] [--endpoints K]

Starts K simulated backends (speedup 1000) on 127.0.0.1 in this process and ``tokenpilot epp``
as its own process in front of them, then plays Envoy with a real gRPC client over the ext_proc
protocol (GIE's mode: request body ``FULL_DUPLEX_STREAMED``): per request, one ``Process``
stream, its headers and body (a ~300-token chat prompt, prefixes varied) sent, and the time
until the picker's answer to the headers (the chosen endpoint) arrives. That is the picker
latency a proxy adds before it can connect upstream: the body's JSON parse, the token count,
admission, the router over K views, and the gRPC round trip. Requests go one at a time, so the
figure is latency, not throughput; the picker's CPU seconds per request (read from
/proc/PID/stat around the run, less its background rate measured over an idle spell before:
the health checks and scrapes of every endpoint) say what it costs. For scale, the same
client's unary gRPC health ``Check`` round trip (nothing decided) is measured the same way,
and the decision alone (``Picker.decide`` over the same pool and bodies in this process).
``calibration`` (the time of a fixed Python loop, as the other benchmarks print it) says how
loaded the machine was; compare figures only at similar calibrations.
"""

from __future__ import annotations

import argparse
import json
import queue
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import grpc
import yaml
from envoy.config.core.v3 import base_pb2
from envoy.extensions.filters.http.ext_proc.v3.processing_mode_pb2 import ProcessingMode
from envoy.service.ext_proc.v3 import external_processor_pb2 as pb
from envoy.service.ext_proc.v3 import external_processor_pb2_grpc as pb_grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from tokenpilot.gateway.fleet import start_sims
from tokenpilot.gateway.runner import ServerPool

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_gateway import calibration, process_cpu  # noqa: E402 - the sibling script's helpers

MODE = pb.ProtocolConfiguration(request_body_mode=ProcessingMode.FULL_DUPLEX_STREAMED,
                                response_body_mode=ProcessingMode.FULL_DUPLEX_STREAMED)
HEADERS = base_pb2.HeaderMap(headers=[
    base_pb2.HeaderValue(key=k, raw_value=v.encode()) for k, v in
    {":method": "POST", ":path": "/v1/chat/completions", "content-type": "application/json"
     }.items()])


def body(k: int) -> bytes:
    head = f"system prompt {k % 8} " * 60  # eight shared prefixes
    return json.dumps({"model": "llama-3.1-8b", "max_tokens": 64, "stream": True,
                       "messages": [{"role": "user", "content": head + f"question {k} " * 40}]
                       }).encode()


def pick_once(stub: pb_grpc.ExternalProcessorStub, raw: bytes) -> float:
    """Seconds from the request's first message to the picker's answer naming the endpoint."""
    q: queue.Queue = queue.Queue()
    t0 = time.perf_counter()
    responses = stub.Process(iter(q.get, None), timeout=30)
    q.put(pb.ProcessingRequest(request_headers=pb.HttpHeaders(headers=HEADERS),
                               protocol_config=MODE))
    q.put(pb.ProcessingRequest(request_body=pb.HttpBody(body=raw, end_of_stream=True)))
    first = next(responses)
    dt = time.perf_counter() - t0
    if first.WhichOneof("response") != "request_headers":
        raise SystemExit(f"the picker refused a request: {first}")
    next(responses)  # the body it sends on
    q.put(None)
    for _ in responses:
        pass
    return dt


def decisions(pool: list[dict], bodies: list[bytes]) -> list[float]:
    """Seconds per decision of a ``Picker`` in this process over the same pool (not started:
    no scrapes, every endpoint taken as healthy): the decision without gRPC around it."""
    from tokenpilot.epp.endpoints import parse_endpoints
    from tokenpilot.epp.picker import Picker
    from tokenpilot.gateway.config import GatewayConfig

    picker = Picker(GatewayConfig(), parse_endpoints({"endpoints": pool}, "pool"))
    h = {":method": "POST", ":path": "/v1/chat/completions"}
    out = []
    for raw in bodies:
        t = time.perf_counter()
        ex = picker.decide(h, raw)
        out.append(time.perf_counter() - t)
        ex.finish("cancelled")
    return out


def quantiles(xs: list[float]) -> tuple[float, float, float]:
    s = sorted(xs)
    return (s[len(s) // 2], s[min(len(s) - 1, int(len(s) * 0.99))], sum(s) / len(s))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--requests", type=int, default=2000)
    ap.add_argument("--endpoints", type=int, default=8)
    ap.add_argument("--warmup", type=int, default=200)
    ap.add_argument("--idle-s", type=float, default=3.0,
                    help="seconds of no requests, to measure the picker's background CPU")
    args = ap.parse_args()
    calib = [calibration()]
    with ServerPool() as pool, tempfile.TemporaryDirectory() as tmp:
        gpus = ("h100-sxm", "a100-80gb", "l40s") * (args.endpoints // 3 + 1)
        sims = start_sims(pool, gpus[:args.endpoints], speedup=1000)
        endpoints = Path(tmp) / "endpoints.yaml"
        pool_list = [{"address": h.url.split("://")[1], "gpu": h.app.state.sim.cfg.gpu,
                      "model": h.app.state.sim.model_name} for h in sims]
        endpoints.write_text(yaml.safe_dump({"endpoints": pool_list}))
        log = Path(tmp) / "epp.log"
        proc = subprocess.Popen([sys.executable, "-m", "tokenpilot.cli", "epp", "--endpoints",
                                 str(endpoints), "--port", "0"], stderr=log.open("w"),
                                stdout=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 60
            while not (m := re.search(r"on grpc://127\.0\.0\.1:(\d+)", log.read_text())):
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise SystemExit(f"the picker did not start:\n{log.read_text()}")
                time.sleep(0.05)
            channel = grpc.insecure_channel(f"127.0.0.1:{m.group(1)}")
            stub = pb_grpc.ExternalProcessorStub(channel)
            health = health_pb2_grpc.HealthStub(channel)
            for k in range(args.warmup):
                pick_once(stub, body(k))
            bodies = [body(k) for k in range(args.requests)]
            idle0 = process_cpu(proc.pid)  # its background: health checks and scrapes
            time.sleep(args.idle_s)
            idle = (process_cpu(proc.pid) - idle0) / args.idle_s
            cpu0 = process_cpu(proc.pid)
            t0 = time.perf_counter()
            picks = [pick_once(stub, b) for b in bodies]
            wall = time.perf_counter() - t0
            cpu = process_cpu(proc.pid) - cpu0
            check = health_pb2.HealthCheckRequest(service="readiness")
            floor = []
            for _ in range(args.requests):
                t = time.perf_counter()
                health.Check(check, timeout=5)
                floor.append(time.perf_counter() - t)
            channel.close()
            alone = decisions(pool_list, bodies)
        finally:
            proc.terminate()
            proc.wait(10)
    calib.append(calibration())
    p50, p99, mean = quantiles(picks)
    f50, f99, _ = quantiles(floor)
    print(f"endpoint picker: {args.requests} requests one at a time, {args.endpoints} endpoints, "
          "router earliest-completion")
    print(f"pick latency      p50 {p50 * 1e3:.3f} ms   p99 {p99 * 1e3:.3f} ms   "
          f"mean {mean * 1e3:.3f} ms")
    print(f"gRPC floor        p50 {f50 * 1e3:.3f} ms   p99 {f99 * 1e3:.3f} ms   "
          "(unary health Check, nothing decided)")
    net = max(0.0, cpu - idle * wall)
    d50, d99, _ = quantiles(alone)
    print(f"decision alone    p50 {d50 * 1e3:.3f} ms   p99 {d99 * 1e3:.3f} ms   "
          "(Picker.decide in this process: parse, count, admit, route; no gRPC)")
    print(f"picker CPU        {net / args.requests * 1e3:.3f} ms per request, its background "
          f"taken out ({cpu:.2f} s over {wall:.2f} s of wall time; background "
          f"{idle * 1e3:.0f} ms/s: health checks and /metrics scrapes of {args.endpoints} "
          "endpoints)")
    print(f"calibration       {calib[0]:.4f} s before, {calib[1]:.4f} s after "
          "(~0.02 on an idle core of the reference machine)")


if __name__ == "__main__":
    main()
