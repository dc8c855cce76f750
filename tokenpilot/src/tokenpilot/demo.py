"""``tokenpilot demo``: a mixed GPU fleet on loopback, two routers, one table.

Starts simulated H100, A100 and L40S backends (the engine simulator behind the OpenAI API) and
the gateway in front of them, replays the same short bursty workload of short and long prompts
through the gateway over real HTTP, once under round-robin and once under tokenpilot's
earliest-completion router (a fresh fleet each time), and prints goodput, the p99 time to
first token of the short requests, and how unevenly token load landed relative to each
instance's speed.
"""

from __future__ import annotations

import asyncio
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from math import nan

import numpy as np

from tokenpilot.cluster.fleet import InstanceSpec, instance_capacity, mean_shape
from tokenpilot.gateway.fleet import MIXED_FLEET, start_gateway, start_sims
from tokenpilot.gateway.runner import ServerPool
from tokenpilot.loadgen import BenchResult, pct, replay
from tokenpilot.workload import generators
from tokenpilot.workload.generators import gamma_arrivals

ROUTERS = ("round-robin", "earliest-completion")
UNEVEN = 1.2  # an imbalance (max/mean) above this is called uneven in the words


@dataclass(frozen=True)
class DemoSettings:
    gpus: tuple[str, ...] = MIXED_FLEET
    model: str = "llama-3.1-8b"
    speedup: float = 2.0  # simulated seconds per wall second
    requests: int = 300
    rps: float = 28.0  # simulated requests per second (bursty: Gamma inter-arrivals)
    cv: float = 3.0
    ttft_slo_s: float = 1.0  # simulated seconds
    tpot_slo_s: float = 0.1
    seed: int = 0


def workload(s: DemoSettings):
    """Short chat turns with a few long-document prompts mixed in, arriving in bursts."""
    reqs = generators.mix(s.rps, s.requests, long_frac=0.15, short_prompt=600,
                          long_prompt=12000, short_output=64, long_output=128, cv=0.5,
                          seed=s.seed)
    # Re-time the arrivals as bursts: Gamma inter-arrivals with a CV of ``s.cv``.
    arrivals = gamma_arrivals(np.random.default_rng(s.seed + 1), s.rps, s.cv, len(reqs), None)
    return [replace(r, arrival=float(t)) for r, t in zip(reqs, arrivals, strict=True)]


def imbalance(tokens: dict[str, float], speed: dict[str, float]) -> float:
    """max/mean over instances of tokens per unit of speed (``tokenpilot.cluster.metrics``'
    token load): 1.0 = load in proportion to capacity; a slow instance given an equal share of
    tokens scores high."""
    loads = [tokens.get(name, 0.0) / speed[name] for name in speed if speed[name] > 0]
    mean = sum(loads) / len(loads) if loads else 0.0
    return max(loads) / mean if mean else float("nan")


def run_one(router: str, s: DemoSettings) -> dict:
    """One fresh fleet, one router, one replay; the row of the table."""
    with ServerPool() as pool:
        sims = start_sims(pool, s.gpus, s.model, s.speedup)
        gw = start_gateway(pool, sims, router, {"limits": {"queue_timeout_s": 30}})
        gateway = gw.app.state.gateway
        reqs = workload(s)
        # Speed as the simulator's fleet metrics define it: saturated tokens/s for requests of
        # this workload's mean shape, so 1.0 means "work in proportion to capacity".
        p, o = mean_shape(reqs)
        speed = {b.name: instance_capacity(InstanceSpec(b.gpu, b.model), p, o, b.cm) * (p + o)
                 for b in gateway.backends}
        gpu_of = {b.name: b.gpu for b in gateway.backends}
        result: BenchResult = asyncio.run(replay(
            gw.url, reqs, rate_scale=s.speedup, duration_s=120,
            max_requests=s.requests, timeout_s=60))
    # Wall-clock latencies times the speedup are simulated seconds, the SLO's unit.
    for r in result.records:
        for attr in ("ttft_s", "tpot_s", "e2e_s"):
            v = getattr(r, attr)
            if v >= 0:
                setattr(r, attr, v * s.speedup)
    summary = result.summary(s.ttft_slo_s, s.tpot_slo_s)
    tokens: dict[str, float] = defaultdict(float)
    counts: dict[str, int] = {name: 0 for name in speed}
    for r in result.records:
        if r.ok:
            tokens[r.backend] += r.prompt_tokens + r.completion_tokens
            counts[r.backend] = counts.get(r.backend, 0) + 1
    for key in ("goodput_rps", "throughput_rps", "goodput_wall_rps", "throughput_wall_rps"):
        summary[key] *= 1 / s.speedup  # per simulated second
    ttft_by_gpu: dict[str, list[float]] = defaultdict(list)
    for r in result.records:
        if r.ok and r.backend in gpu_of:
            ttft_by_gpu[gpu_of[r.backend]].append(r.ttft_s)
    gpus = list(dict.fromkeys(gpu_of.values()))  # fleet order
    summary["requests_by_gpu"] = {g: len(ttft_by_gpu[g]) for g in gpus}
    summary["ttft_p99_by_gpu"] = {g: pct(ttft_by_gpu[g], 99) for g in gpus}
    summary["token_imbalance"] = imbalance(tokens, speed)
    summary["tokens_by_backend"] = dict(tokens)
    summary["requests_by_backend"] = counts
    summary["request_imbalance"] = imbalance(counts, dict.fromkeys(counts, 1.0))
    summary["router"] = router
    return summary


def run_demo(s: DemoSettings | None = None, routers: Sequence[str] = ROUTERS,
             progress: Callable[[str], None] | None = None) -> dict:
    """One row per router; ``progress(line)`` is told as each starts and ends."""
    s = s or DemoSettings()
    t = time.perf_counter()
    rows = []
    for k, r in enumerate(routers, 1):
        if progress is not None:
            progress(f"[{k}/{len(routers)}] {r}: replaying {s.requests} requests through the "
                     "gateway ...")
        rows.append(run_one(r, s))
        if progress is not None:
            progress(f"[{k}/{len(routers)}] {r}: done at {time.perf_counter() - t:.0f} s")
    return {"fleet": list(s.gpus), "model": s.model, "speedup": s.speedup,
            "requests": s.requests, "slo": {"ttft_s": s.ttft_slo_s, "tpot_s": s.tpot_slo_s},
            "rows": rows, "wall_s": time.perf_counter() - t}


def _statuses(by_status: dict) -> str:
    """``{'200': 297, '429': 3}`` as ``200 x297, 429 x3``."""
    return ", ".join(f"{code} x{n}" for code, n in sorted(by_status.items()))


def render(d: dict) -> str:
    rows = d["rows"]
    width = max(20, *(len(r["router"]) + 2 for r in rows))
    head = f"{'':34}" + "".join(f"{r['router']:>{width}}" for r in rows)

    def line(label: str, fmt, key: str) -> str:
        return f"{label:34}" + "".join(f"{fmt(r[key]):>{width}}" for r in rows)

    ms = _fmt_s
    gpus = list(dict.fromkeys(g for r in rows for g in r["requests_by_gpu"]))
    return "\n".join([
        f"tokenpilot demo: {d['requests']} bursty requests (15% long prompts) through the "
        f"gateway to {' + '.join(d['fleet'])} ({d['model']}, simulated at {d['speedup']:g}x), "
        "over real HTTP on 127.0.0.1",
        "",
        head,
        line("goodput (req/s within SLO)", lambda x: f"{x:.2f}", "goodput_rps"),
        line("p99 TTFT, short requests", ms, "short_ttft_p99_s"),
        line("p50 TTFT, all requests", ms, "ttft_p50_s"),
        line("requests per backend", lambda x: "/".join(str(n) for n in x.values()),
             "requests_by_backend"),
        line("request-count imbalance (1 = even)", lambda x: f"{x:.2f}", "request_imbalance"),
        line("token-load imbalance (1 = even)", lambda x: f"{x:.2f}", "token_imbalance"),
        *[f"{'  requests / p99 TTFT on ' + g:34}" + "".join(
            f"{r['requests_by_gpu'].get(g, 0):>{width - 9}} "
            f"{ms(r['ttft_p99_by_gpu'].get(g, nan)):>8}" for r in rows) for g in gpus],
        line("responses by HTTP status", _statuses, "by_status"),
        "",
        f"SLO: TTFT <= {d['slo']['ttft_s']:g} s, TPOT <= {d['slo']['tpot_s']:g} s (simulated "
        "time); backends in fleet order; token-load imbalance = max/mean of tokens per unit of "
        "instance speed.",
        *conclusions(d),
        f"Took {d['wall_s']:.0f} s.",
    ])


def conclusions(d: dict) -> list[str]:
    """What the table shows, in words that follow from its numbers (whichever way they fall)."""
    rows = d["rows"]
    if len(rows) < 2:
        return []
    best, other = sorted(rows, key=lambda r: r["goodput_rps"], reverse=True)[:2]
    b, o = best["router"], other["router"]
    gain = best["goodput_rps"] / other["goodput_rps"] - 1 if other["goodput_rps"] else nan
    out = [f"{b} serves {best['goodput_rps']:.2f} req/s within the SLO against {o}'s "
           f"{other['goodput_rps']:.2f}" + (f" ({gain:+.0%})." if gain == gain else ".")]
    if best["token_imbalance"] > other["token_imbalance"]:
        slow = [g for g, n in best["requests_by_gpu"].items()
                if n < other["requests_by_gpu"].get(g, 0)]
        gpu, theirs = max(other["ttft_p99_by_gpu"].items(), key=lambda kv: _num(kv[1]),
                          default=("", nan))
        ours = max((_num(v) for v in best["ttft_p99_by_gpu"].values()), default=nan)
        out.append(
            f"Its token load is less even ({best['token_imbalance']:.2f} vs "
            f"{other['token_imbalance']:.2f}): it sends fewer requests to "
            f"{', '.join(slow) or 'the slower GPUs'} and leaves them partly idle.")
        if _num(theirs) > ours >= 0:
            out.append(
                f"Idling them is right here: under {o} the requests on {gpu} wait "
                f"{_fmt_s(theirs)} for their first token at p99, against {_fmt_s(ours)} on "
                f"the worst GPU {b} uses; a request that queues briefly for a fast GPU starts "
                "sooner than one sent to a slow GPU at once. An even token load is not the "
                "goal; meeting the SLO is.")
        else:
            out.append("The per-GPU p99 TTFT does not show the slow GPUs as the bottleneck "
                       "here: the goodput, not the evenness, is the figure to compare.")
    elif other["token_imbalance"] > UNEVEN:
        even = "even" if other["request_imbalance"] < UNEVEN else "uneven"
        out.append(
            f"{o}'s request counts are {even} ({other['request_imbalance']:.2f}) but its token "
            f"load is not ({other['token_imbalance']:.2f} against "
            f"{best['token_imbalance']:.2f}): the slow GPUs get more work than their speed "
            "clears.")
    else:
        out.append(f"Both spread the token load about evenly ({best['token_imbalance']:.2f} and "
                   f"{other['token_imbalance']:.2f}).")
    return out


def _num(x: float) -> float:
    return -1.0 if x != x else x


def _fmt_s(x: float) -> str:
    return "n/a" if x != x else f"{x * 1e3:.0f} ms"
