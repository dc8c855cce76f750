"""Bytes of memory per request of a ``tokenpilot simulate`` run: the figure behind
``cli_sim.BYTES_PER_REQUEST``, the bound ``simulate`` and ``compare`` check before they start.

    python benchmarks/mem_per_request.py [N] [WORKLOAD]     (default 100000, Poisson)

Prints tracemalloc's figures (the workload alone, what a finished run keeps, the run's peak),
each divided by the number of requests. tracemalloc slows the run several times over.
"""

from __future__ import annotations

import sys
import tracemalloc

from tokenpilot.cluster import DEFAULT_FLEET, compute_metrics, fleet_capacity, load_fleet, simulate
from tokenpilot.policy.routers import make_router
from tokenpilot.workload import load_workload, scale_to_rate


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    spec = sys.argv[2] if len(sys.argv) > 2 else f"poisson:rps=5,n={n}"
    fleet = load_fleet(DEFAULT_FLEET)
    tracemalloc.start()
    reqs = load_workload(spec)
    reqs = scale_to_rate(reqs, 0.8 * fleet_capacity(fleet, reqs))
    workload, _ = tracemalloc.get_traced_memory()
    sim = simulate(fleet, reqs, make_router("earliest-completion"))
    compute_metrics(sim)
    kept, peak = tracemalloc.get_traced_memory()
    k = len(reqs)
    print(f"{k} requests of {spec}: workload {workload / k:.0f} B/request, workload and finished "
          f"run {kept / k:.0f} B/request, peak {peak / k:.0f} B/request")


if __name__ == "__main__":
    main()
