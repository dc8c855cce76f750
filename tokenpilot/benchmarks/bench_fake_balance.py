"""Fake balance on a mixed fleet: round-robin evens request counts, not work.

Fleet: 2x H100-SXM + 2x A100-40GB + 4x L40S, each serving llama-3.1-8b. Workload: the Azure
LLM inference 2023 conversation trace (all of it), time-scaled so its mean rate is 80% of the
fleet's estimated capacity (``tokenpilot.cluster.fleet``). Targets: round-robin shows equal
request counts with token load skewed to the slow GPUs and their p99 TTFT far above the fast
GPUs'; earliest-completion raises goodput (TTFT <= 1 s, TPOT <= 100 ms) by >= 1.3x over
round-robin and beats least-requests.

    python benchmarks/bench_fake_balance.py [--load 0.8] [--n N]
"""

from __future__ import annotations

import argparse
import sys

from tokenpilot.cluster import by_gpu, compute_metrics, fleet_capacity, load_fleet, simulate
from tokenpilot.policy.routers import make_router
from tokenpilot.report.tables import compare_table, table
from tokenpilot.workload import WorkloadError, load_workload, scale_to_rate, truncate

ROUTERS = ("round-robin", "least-requests", "least-tokens", "earliest-completion")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--load", type=float, default=0.8)
    ap.add_argument("--n", type=int, default=0, help="use only the first N requests")
    args = ap.parse_args()
    try:
        reqs = load_workload("azure-conv")
    except WorkloadError as exc:
        print(f"skipped: {exc}")
        return 0
    if args.n:
        reqs = truncate(reqs, n=args.n)
    fleet = load_fleet("mixed")
    cap = fleet_capacity(fleet, reqs)
    reqs = scale_to_rate(reqs, args.load * cap)
    print(f"{fleet.describe()}; azure-conv, {len(reqs)} requests at {args.load * cap:.1f} req/s "
          f"({args.load:.0%} of ~{cap:.1f} req/s estimated capacity)\n")
    metrics = {}
    for name in ROUTERS:
        sim = simulate(fleet, reqs, make_router(name))
        metrics[name] = compute_metrics(sim, slo_ttft=1.0, slo_tpot=0.1)
        print(f"  {name}: simulated in {sim.wall_s:.1f}s", file=sys.stderr, flush=True)
    print(compare_table(list(metrics.values())))
    for name in ("round-robin", "earliest-completion"):
        rows = [[g, d["instances"], f"{d['request_share'] * 100:.1f}%",
                 f"{d['load_share'] * 100:.1f}%", f"{d['utilisation'] * 100:.0f}%",
                 f"{d['ttft_p99_max']:.2f}s"] for g, d in by_gpu(metrics[name]).items()]
        print(f"\n{name} by GPU type (load = tokens / instance speed):")
        print(table(["gpu", "inst", "requests", "load", "util", "worst p99 TTFT"], rows))
    rr, lr, ec = (metrics[k].goodput_rps for k in ("round-robin", "least-requests",
                                                    "earliest-completion"))
    gains = ec / rr if rr else float("inf")
    print(f"\ngoodput earliest-completion / round-robin = {gains:.2f}x (target >= 1.3x): "
          f"{'met' if gains >= 1.3 else 'MISSED'}")
    print(f"goodput earliest-completion / least-requests = {ec / lr:.2f}x (target > 1): "
          f"{'met' if ec > lr else 'MISSED'}")
    by = by_gpu(metrics["round-robin"])
    fast = max(by["h100-sxm"]["ttft_p99_max"], 1e-9)
    slow = by["l40s"]["ttft_p99_max"]
    m = metrics["round-robin"]
    print(f"round-robin fake balance: request imbalance {m.imbalance_requests:.2f}"
          f", token imbalance {m.imbalance_tokens:.2f}; L40S p99 TTFT "
          f"{slow:.2f}s vs H100 {fast:.2f}s ({slow / fast:.0f}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
