"""Fleet simulation speed: requests simulated per second of wall time over 64 instances.

Target: 1,000,000 requests over 64 instances in under 60 s. Workload: Poisson arrivals of
1000-token prompts and 200-token answers (CV 1 each) at 80% of the fleet's estimated capacity
(64x H100-SXM serving llama-3.1-8b). Round-robin is the cheap router; least-tokens is also
measured. ``--n`` runs fewer requests and extrapolates linearly (the loop's cost per request
does not grow with the run's length), and the output says so.

The machine may be shared, so the output starts with a calibration figure (seconds for a
fixed pure-Python loop; lower is a faster or less loaded machine), repeats it after each
router's run (the machine's speed drifts), and ends with the peak RSS.
Round-robin and random declare ``needs_views = False``, so the loop skips views and advances
only the picked instance; view-based routers (least-tokens, p2c) pay for catch-up and views.

    python benchmarks/bench_fleet_speed.py [--n 1000000] [--routers round-robin,least-tokens]
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
import timeit

from tokenpilot.cluster import compute_metrics, fleet_capacity, load_fleet, simulate
from tokenpilot.engine import COMPILED
from tokenpilot.policy.routers import make_router
from tokenpilot.workload import poisson, scale_to_rate

TARGET_N, TARGET_S = 1_000_000, 60.0


def calibration() -> float:
    """Seconds for 1M steps of an empty Python loop: the machine's speed just now."""
    return min(timeit.repeat("for i in range(10): pass", number=100000, repeat=5))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=TARGET_N)
    ap.add_argument("--routers", default="round-robin,least-tokens")
    args = ap.parse_args()
    print(f"calibration: {calibration():.4f}s for 1M loop steps (min of 5); engine "
          f"{'compiled by mypyc' if COMPILED else 'pure Python (not compiled)'}")
    fleet = load_fleet("h100x64")
    t0 = time.perf_counter()
    reqs = poisson(100.0, n=args.n, prompt=1000, output=200, prompt_cv=1, output_cv=1, seed=1)
    reqs = scale_to_rate(reqs, 0.8 * fleet_capacity(fleet, reqs))
    print(f"{fleet.describe()}; {args.n} requests generated in {time.perf_counter() - t0:.1f}s")
    for name in args.routers.split(","):
        # Sample the instance series at most once per simulated second: bounded memory.
        sim = simulate(fleet, reqs, make_router(name), series_interval_s=1.0)
        m = compute_metrics(sim)
        rate = args.n / sim.wall_s
        full = TARGET_N / rate
        note = "" if args.n >= TARGET_N else f" (extrapolated from {args.n} requests)"
        print(f"{name:>20}: {sim.wall_s:6.1f}s, {rate:9.0f} requests/s; 1M requests in "
              f"{full:.0f}s{note} -> target < {TARGET_S:.0f}s "
              f"{'met' if full < TARGET_S else 'MISSED'}; served {m.served}, TTFT p99 "
              f"{m.ttft['p99']:.2f}s; calibration after it {calibration():.4f}s", flush=True)
        del sim, m
    # ru_maxrss is in KiB on Linux.
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS: {peak:.0f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
