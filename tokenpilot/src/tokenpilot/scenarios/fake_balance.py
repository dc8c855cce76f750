"""``fake-balance``: a mixed GPU fleet, where equal request counts are not equal work.

The built-in ``mixed`` fleet (2x H100, 2x A100-40GB, 4x L40S, llama-3.1-8b) under bursty
chat-like traffic at 0.8 of its capacity. Round-robin gives every instance the same number of
requests, so the slow L40S drown while the H100s idle; the token- and speed-aware router
(``earliest-completion``: predicted finish from each instance's queued tokens and speed)
sends more work to faster GPUs.
"""

from __future__ import annotations

from tokenpilot.cluster import FleetMetrics, by_gpu, fleet_capacity, load_fleet
from tokenpilot.policy.routers import make_router
from tokenpilot.scenarios._common import ScenarioResult, ms, run
from tokenpilot.workload import gamma, scale_to_rate

NAME = "fake-balance"
TITLE = "mixed GPU fleet: round-robin vs the token- and speed-aware router"
ROUTERS = ("round-robin", "least-tokens", "earliest-completion")


def run_scenario(quick: bool = False) -> ScenarioResult:
    fleet = load_fleet("mixed")
    base = gamma(10.0, 3.0, 400 if quick else 3000, prompt=1100, output=220, prompt_cv=1,
                 output_cv=1, seed=7)
    cap = fleet_capacity(fleet, base)
    reqs = scale_to_rate(base, 0.8 * cap)
    res = ScenarioResult(NAME, TITLE, ["router", "goodput/s", "SLO met", "TTFT p50 ms",
                                       "TTFT p99 ms", "imb req", "imb tok", "fake bal",
                                       "l40s load share", "h100 load share", "idle"], [],
                         quick=quick)
    for name in ROUTERS:
        sim, m = run(fleet, reqs, make_router(name), name)
        g = by_gpu(m)
        res.sims.append(sim)
        res.metrics.append(m)
        idle = [i for i in m.instances if i.requests == 0]
        res.rows.append({
            "router": name, "goodput/s": m.goodput_rps,
            "SLO met": f"{m.slo_attainment * 100:.1f}%", "TTFT p50 ms": ms(m.ttft["p50"]),
            "TTFT p99 ms": ms(m.ttft["p99"]), "imb req": m.imbalance_requests,
            "imb tok": m.imbalance_tokens, "fake bal": m.fake_balance,
            "l40s load share": f"{g.get('l40s', {}).get('load_share', 0) * 100:.0f}%",
            "h100 load share": f"{g.get('h100-sxm', {}).get('load_share', 0) * 100:.0f}%",
            "idle": f"{len(idle)}/{len(m.instances)}",
        })
    res.notes = [
        f"{fleet.describe()}; {len(reqs)} bursty requests (Gamma CV 3) at 0.8 of ~{cap:.1f} "
        "req/s estimated capacity.",
        "imb = max/mean per instance (requests; tokens normalised by instance speed); fake bal "
        "= imb tok - imb req: positive when counts look even but work is not.",
        "load share = share of the fleet's speed-normalised token load (4 L40S are half the "
        "instances but much less than half the speed); idle = instances given no request.",
        *idle_notes(res.metrics),
    ]
    return res


def idle_notes(metrics: list[FleetMetrics]) -> list[str]:
    """Why a router that leaves GPUs idle does (or does not) do well, from the run's figures:
    its goodput and per-GPU p99 TTFT against the router that spread the load most evenly."""
    spread = min(metrics, key=lambda m: sum(i.requests == 0 for i in m.instances))
    notes = []
    for m in metrics:
        idle = [i for i in m.instances if i.requests == 0]
        if not idle or m is spread:
            continue
        gpus = sorted({i.gpu for i in idle})
        theirs = by_gpu(spread)
        worst = max(theirs, key=lambda g: theirs[g]["ttft_p99_max"])
        head = (f"{m.router} leaves {len(idle)} of {len(m.instances)} instances idle "
                f"({', '.join(gpus)}): goodput {m.goodput_rps:.1f}/s with "
                f"{m.slo_attainment:.1%} within SLO and p99 TTFT {ms(m.ttft['p99']):.0f} ms, "
                f"against {spread.router}'s {spread.goodput_rps:.1f}/s, "
                f"{spread.slo_attainment:.1%} and {ms(spread.ttft['p99']):.0f} ms (its "
                f"{worst} at {ms(theirs[worst]['ttft_p99_max']):.0f} ms p99).")
        if m.slo_attainment >= spread.slo_attainment:
            notes.append(head + " Idling the slow GPUs is right at this load: the fast ones "
                         "finish a request sooner than a slow one would, so no request gains "
                         "from going there; the cost is headroom, as a burst beyond the fast "
                         "GPUs' capacity must queue before the slow ones are used.")
        else:
            notes.append(head + " Here idling them costs requests their SLO.")
    return notes
