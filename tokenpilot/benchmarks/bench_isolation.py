"""Engine isolation beyond its scenario: other seeds, loads, long counts and routers of the
``long-context-starvation`` workload, and the Mooncake trace.

Run:  .venv/bin/python tokenpilot/benchmarks/bench_isolation.py [--seeds N] [--no-trace]

For each workload it prints the short requests' p99 TTFT and the long requests' tok/s under
FCFS, under the scenario's engine isolation without ``view_as_short`` (the engines' views
count a long prompt's pending prefill whole) and with it (as the scenario runs it), and the
two targets' ratios: short p99 over the no-long baseline's (target <= 1.5), long tok/s over
FCFS's (target >= 0.9). The Mooncake trace (``../shared/traces``; skipped with a line when
absent) has no no-long baseline: prompts >= 16k tokens (26% of it) are the long class there,
and it runs at 1x, 2x and 3x its recorded rate. Simulated time, so no calibration figure: the
figures do not depend on the machine's load.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys

from tokenpilot.policy.routers import make_router
from tokenpilot.scenarios import long_context as lc
from tokenpilot.scenarios._common import run, subset
from tokenpilot.workload import WorkloadError
from tokenpilot.workload.spec import load_workload

WITH_VIEW = lc.ENGINE_ISOLATION
WITHOUT_VIEW = dataclasses.replace(WITH_VIEW, view_as_short=False)


def figures(reqs, router: str, iso, short_ids, long_ids) -> tuple[float, float]:
    """(short p99 TTFT in ms, long tok/s) of one run."""
    sim, _ = run(lc.FLEET, reqs, make_router(router), "run", isolation=iso)
    long = subset(sim, long_ids)["tok_per_s"] if long_ids else float("nan")
    return subset(sim, short_ids)["ttft_p99"] * 1e3, long


def synthetic(seeds: int) -> None:
    print("long-context-starvation's workload (3000 short, ~1000-token prompts; long ~40k)")
    print(f"{'router':>19} {'load':>4} {'long':>4} {'seed':>4} {'no-long':>7} {'fcfs':>7}  "
          f"{'without view_as_short':>28}  {'with view_as_short':>28}")
    cases = [("least-tokens", 0.6, 24, s) for s in range(1, seeds + 1)]
    cases += [(r, ld, n, s) for r, ld, n in (("least-tokens", 0.4, 24), ("least-tokens", 0.8, 24),
                                            ("least-tokens", 0.6, 72), ("p2c", 0.6, 24),
                                            ("earliest-completion", 0.6, 24),
                                            ("least-requests", 0.6, 24))
              for s in (1, 2)]
    for router, load, n_long, seed in cases:
        alone, both = lc.workload(False, load, seed, n_long)
        short_ids = [r.id for r in both if r.tenant == "short"]
        long_ids = [r.id for r in both if r.tenant == "long"]
        base, _ = figures(alone, router, None, [r.id for r in alone], [])
        fcfs_s, fcfs_l = figures(both, router, None, short_ids, long_ids)
        cells = []
        for iso in (WITHOUT_VIEW, WITH_VIEW):
            s99, ltps = figures(both, router, iso, short_ids, long_ids)
            cells.append(f"{s99:6.0f} ms {s99 / base:4.2f}x {ltps:6.1f} tok/s {ltps / fcfs_l:5.3f}")
        print(f"{router:>19} {load:4.1f} {n_long:4d} {seed:4d} {base:5.0f}ms {fcfs_s:5.0f}ms  "
              + "  ".join(cells), flush=True)


def trace() -> None:
    try:
        base = load_workload("mooncake@n=3000")
    except WorkloadError as e:
        print(f"mooncake trace: not run ({e})")
        return
    print("\nmooncake trace, first 3000 requests, least-tokens; long = prompt >= "
          f"{lc.LONG_THRESHOLD} tokens")
    print(f"{'speed':>5} {'fcfs':>20}  {'without view_as_short':>24}  "
          f"{'with view_as_short':>24}")
    for speed in (1, 2, 3):
        reqs = load_workload(f"mooncake@n=3000,speed={speed}") if speed > 1 else base
        short_ids = [r.id for r in reqs if r.prompt_tokens < lc.LONG_THRESHOLD]
        long_ids = [r.id for r in reqs if r.prompt_tokens >= lc.LONG_THRESHOLD]
        cells = []
        for iso in (None, WITHOUT_VIEW, WITH_VIEW):
            s99, ltps = figures(reqs, "least-tokens", iso, short_ids, long_ids)
            cells.append(f"{s99:7.0f} ms {ltps:6.1f} tok/s")
        print(f"{speed:4d}x " + "  ".join(cells), flush=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=6, help="seeds of the scenario's own case")
    ap.add_argument("--no-trace", action="store_true")
    a = ap.parse_args()
    print(f"command: {' '.join(sys.argv)}")
    synthetic(a.seeds)
    if not a.no_trace:
        trace()
    return 0


if __name__ == "__main__":
    sys.exit(main())
