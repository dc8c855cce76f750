"""``bandwidth-wall``: decode-heavy load, where HBM bandwidth saturates while compute idles.

One H100 serves llama-3.1-8b requests with 200-token prompts and 2000-token answers. Each
decode iteration reads all the weights and every running sequence's KV for one token per
sequence, so the time is bound by bandwidth: as load rises, the instance is busy nearly all
the time, almost all of it bandwidth-bound, and output tokens/s flattens while TPOT grows with
the KV read per step. Rows: utilisation split into compute-bound and bandwidth-bound time
(``tokenpilot.cluster.metrics``).
"""

from __future__ import annotations

from tokenpilot.cluster import fleet_capacity, fleet_from_dict
from tokenpilot.policy.routers import make_router
from tokenpilot.scenarios._common import ScenarioResult, ms, run
from tokenpilot.workload import poisson, scale_to_rate

NAME = "bandwidth-wall"
TITLE = "decode-heavy load: bandwidth saturates while compute is idle"

FLEET = fleet_from_dict({"name": "h100x1", "instances": [
    {"gpu": "h100-sxm", "count": 1, "model": "llama-3.1-8b"}]})


def run_scenario(quick: bool = False) -> ScenarioResult:
    base = poisson(1.0, 150 if quick else 1200, prompt=200, output=2000, prompt_cv=0.3,
                   output_cv=0.3, seed=9)
    cap = fleet_capacity(FLEET, base)
    loads = (0.2, 0.5, 0.9) if quick else (0.1, 0.25, 0.5, 0.75, 0.9, 1.0)
    res = ScenarioResult(NAME, TITLE, ["load", "req/s", "output tok/s", "TPOT p50 ms",
                                       "utilisation", "compute-bound", "bandwidth-bound"], [],
                         quick=quick)
    for load in loads:
        reqs = scale_to_rate(base, load * cap)
        sim, m = run(FLEET, reqs, make_router("round-robin"), f"load {load:g}")
        inst = m.instances[0]
        res.sims.append(sim)
        res.metrics.append(m)
        res.rows.append({
            "load": load, "req/s": load * cap, "output tok/s": m.output_tokens_per_s,
            "TPOT p50 ms": ms(m.tpot["p50"]),
            "utilisation": f"{inst.utilisation * 100:.0f}%",
            "compute-bound": f"{inst.compute_bound_frac * 100:.1f}%",
            "bandwidth-bound": f"{inst.memory_bound_frac * 100:.1f}%",
        })
    res.notes = [
        f"{FLEET.describe()}; ~200-token prompts, ~2000-token answers; capacity ~{cap:.2f} "
        "req/s.",
        "compute-bound / bandwidth-bound = share of the busy time whose iterations hit that "
        "side of the roofline; utilisation = busy time / makespan.",
        "at high load the instance is busy almost all the time yet nearly every iteration is "
        "bandwidth-bound: the tensor cores wait for HBM (the bandwidth wall).",
    ]
    return res
