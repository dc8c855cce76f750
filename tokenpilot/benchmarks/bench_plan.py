"""``tokenpilot plan``'s targets: its fleet meets the SLO and costs no more than the best
single-GPU-type fleet that meets it; and a big plan finishes in under 5 minutes.

1. The Azure conversation trace (``azure-conv``, 19,366 requests) at three rates, SLO TTFT
   1 s, TPOT 100 ms for 99% of requests, candidates h100-sxm, a100-80gb, l40s (TP 1) at the
   catalog's prices: the plan's fleet, its cost and attainment in simulation, the cheapest
   single-type fleet that met the SLO in simulation (right-sized the same way, see
   ``plan.planner``), and the saving against it.
2. Speed: 100,000 requests (Gamma arrivals, CV 3, Azure-conversation-like sizes) over 3 GPU
   types x 2 TP degrees with the local executor; target < 300 s wall.

The machine may be shared: the output starts with a calibration figure (seconds for a fixed
pure-Python loop; lower is a faster or less loaded machine) and repeats it after each part.

    python benchmarks/bench_plan.py [--rates 50,100,200] [--n 100000] [--skip-speed]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import timeit

from tokenpilot.engine import COMPILED
from tokenpilot.plan import SLO, Kind, Sweep, make_plan
from tokenpilot.plan.slo import price_of
from tokenpilot.workload import load_workload

GPUS = ("h100-sxm", "a100-80gb", "l40s")
MODEL = "llama-3.1-8b"
TARGET_S = 300.0


def calibration() -> float:
    """Seconds for 1M steps of an empty Python loop: the machine's speed just now."""
    return min(timeit.repeat("for i in range(10): pass", number=100000, repeat=5))


def kinds(tps: tuple[int, ...]) -> tuple[list[Kind], list[float]]:
    ks = [Kind(g, t, MODEL) for g in GPUS for t in tps]
    return ks, [price_of(k.gpu, {}) * k.tp for k in ks]


def savings(rates: list[float], sweep: Sweep, slo: SLO) -> bool:
    ks, costs = kinds((1,))
    ok = True
    print(f"{'rate':>6}  {'plan':<34} {'$/h':>7} {'attain':>7}  {'best single type':<16} "
          f"{'$/h':>7} {'attain':>7} {'saving':>7}  sims  wall")
    for rate in rates:
        reqs = load_workload(f"azure-conv@rate={rate:g}")
        t0 = time.perf_counter()
        plan = make_plan(reqs, slo, ks, costs, sweep)
        wall = time.perf_counter() - t0
        c, base = plan.chosen, plan.best_single()
        if c is None:
            print(f"{rate:6g}  no fleet met the SLO ({len(plan.tried)} simulated)")
            ok = False
            continue
        row = (f"{rate:6g}  {c.candidate.describe():<34} {c.candidate.cost_per_hour:7.2f} "
               f"{c.verdict.attainment:7.2%}  ")
        if base is None:
            row += f"{'none met':<16} {'-':>7} {'-':>7} {'-':>7}"
        else:
            save = 1 - c.candidate.cost_per_hour / base.candidate.cost_per_hour
            row += (f"{base.candidate.describe():<16} {base.candidate.cost_per_hour:7.2f} "
                    f"{base.verdict.attainment:7.2%} {save:7.1%}")
            ok &= c.candidate.cost_per_hour <= base.candidate.cost_per_hour + 1e-9
        ok &= c.verdict.meets
        print(row + f"  {len(plan.tried):4d}  {wall:5.0f}s", flush=True)
        for h in c.candidate.history:
            print(f"{'':8}resized: {h}")
    return ok


def speed(n: int, sweep: Sweep, slo: SLO) -> bool:
    ks, costs = kinds((1, 2))
    spec = f"gamma:rps=100,cv=3,n={n},prompt=1100,output=220,prompt_cv=1,output_cv=1"
    t0 = time.perf_counter()
    reqs = load_workload(spec)
    plan = make_plan(reqs, slo, ks, costs, sweep)
    wall = time.perf_counter() - t0
    t = plan.timings
    c = plan.chosen
    print(f"{spec}: {len(ks)} kinds ({', '.join(k.label for k in ks)}), {len(plan.buckets)} "
          f"buckets, {len(plan.points)} rate searches "
          f"({sum(p.probes for p in plan.points)} probes) {t['profile_s']:.0f}s, MILP "
          f"{t['solve_s']:.1f}s, {len(plan.tried)} simulations of {n} requests "
          f"{t['verify_s']:.0f}s")
    print(f"plan: {c.candidate.describe() if c else 'none met the SLO'}"
          + (f" ${c.candidate.cost_per_hour:.2f}/h, attainment {c.verdict.attainment:.2%}"
             if c else ""))
    met = wall < TARGET_S
    print(f"wall {wall:.0f}s on {sweep.describe()} -> target < {TARGET_S:.0f}s "
          f"{'met' if met else 'MISSED'}")
    return met


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rates", default="50,100,200")
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--workers", type=int, default=None)
    ap.add_argument("--skip-speed", action="store_true")
    ap.add_argument("--skip-savings", action="store_true")
    args = ap.parse_args()
    sweep = Sweep("local", args.workers)
    slo = SLO(1.0, 0.1, 0.99)
    print(f"calibration: {calibration():.4f}s for 1M loop steps (min of 5); engine "
          f"{'compiled by mypyc' if COMPILED else 'pure Python (not compiled)'}; "
          f"{sweep.describe()}; load average {os.getloadavg()[0]:.1f}", flush=True)
    ok = True
    if not args.skip_savings:
        ok &= savings([float(r) for r in args.rates.split(",")], sweep, slo)
        print(f"calibration after it: {calibration():.4f}s", flush=True)
    if not args.skip_speed:
        ok &= speed(args.n, sweep, slo)
        print(f"calibration after it: {calibration():.4f}s; load average "
              f"{os.getloadavg()[0]:.1f}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
